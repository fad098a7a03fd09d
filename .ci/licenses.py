"""CI: nothing copyleft in what a host installs.

Installs the built wheel with every extra it declares into a new venv
(the other packages held to the versions the suite was tested with), reads
the licence of every package there (pip-licenses, run against that venv's
Python), and reads the licences of the npm packages bundled into the
panel's script (the headers of ``THIRD_PARTY_LICENSES.txt``, which CI has
just rebuilt from the lock file). Prints each with its verdict, and fails
when one can only be had under the GPL, the LGPL or the AGPL, or says no
licence at all.

Usage: python .ci/licenses.py WHEEL
"""

import json
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
PINNED = ("requirements.txt", "requirements-dev.txt")
BUNDLE_LICENCES = REPOSITORY / "workspace" / "static" / "workspace" / "THIRD_PARTY_LICENSES.txt"
BUNDLED = re.compile(r"^==== (\S+) (\S+) \((.+)\) ====$", re.MULTILINE)
# The GNU licences, by SPDX id or by name (pip-licenses gives either).
COPYLEFT = re.compile(r"\b[AL]?GPL|GNU (Affero |Lesser |Library )?General Public", re.IGNORECASE)
SPDX_TOKEN = re.compile(r"\s*(\(|\)|[A-Za-z0-9.+-]+)")
UNKNOWN = {"", "UNKNOWN", "UNKNOWN LICENSE"}


def verdict(expression: str) -> str | None:
    """What is wrong with a package under ``expression``, or None when it may
    be had under licences none of which is a GNU one."""
    if expression.strip().upper() in UNKNOWN:
        return "no licence found"
    if not _permissive_choice(expression):
        return "copyleft (GPL, LGPL or AGPL) only"
    return None


def _permissive_choice(expression: str) -> bool:
    """Whether an SPDX expression (``A AND (B OR C)``) offers a choice free of
    GNU licences; else, for licences named in words, whether none is a GNU one."""
    tokens = SPDX_TOKEN.findall(expression)
    position = 0

    def any_of() -> bool:  # OR binds loosest
        nonlocal position
        allowed = all_of()
        while position < len(tokens) and tokens[position].upper() == "OR":
            position += 1
            allowed = all_of() or allowed
        return allowed

    def all_of() -> bool:
        nonlocal position
        allowed = one()
        while position < len(tokens) and tokens[position].upper() == "AND":
            position += 1
            allowed = one() and allowed
        return allowed

    def one() -> bool:
        nonlocal position
        token = tokens[position]
        position += 1
        if token == "(":
            allowed = any_of()
            if tokens[position] != ")":
                raise IndexError(position)
            position += 1
            return allowed
        return not COPYLEFT.search(token)

    try:
        allowed = any_of()
        if position == len(tokens) and "".join(tokens) == re.sub(r"\s+", "", expression):
            return allowed
    except IndexError:
        pass
    # Trove classifiers' names, which pip-licenses joins with "; ": a list of
    # them says what the package is under, not that one may choose, so a GNU one fails it.
    return not COPYLEFT.search(expression)


def installed_licences(wheel: Path) -> list[tuple[str, str, str]]:
    """(name, version, licence) of every package the wheel with all its extras installs."""
    extras = sorted(_extras_of(wheel))
    with tempfile.TemporaryDirectory() as folder:
        constraints = Path(folder) / "constraints.txt"
        pins = [line for name in PINNED for line in (REPOSITORY / name).read_text().splitlines()]
        constraints.write_text("\n".join(line for line in pins if "==" in line and "[" not in line))
        venv = Path(folder) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=600)
        python = str(venv / "bin" / "python")
        requirement = f"{wheel}[{','.join(extras)}]" if extras else str(wheel)
        install = [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "-c", str(constraints)]
        subprocess.run([*install, requirement], check=True, timeout=900)
        listed = subprocess.run(
            ["pip-licenses", "--python", python, "--from", "mixed", "--format", "json"],
            check=True,
            capture_output=True,
            text=True,
            timeout=120,
        )
    print(f"{wheel.name} with the extras {', '.join(extras) or '(none)'}:")
    return [(package["Name"], package["Version"], package["License"]) for package in json.loads(listed.stdout)]


def bundled_licences() -> list[tuple[str, str, str]]:
    """(name, version, licence) of every npm package bundled into the panel's script."""
    found = BUNDLED.findall(BUNDLE_LICENCES.read_text())
    if not found:
        raise SystemExit(f"FAILED: {BUNDLE_LICENCES.relative_to(REPOSITORY)} names no bundled package")
    print(f"bundled into the panel's script ({BUNDLE_LICENCES.relative_to(REPOSITORY)}):")
    return found


def _extras_of(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        metadata = next(name for name in archive.namelist() if name.endswith(".dist-info/METADATA"))
        text = archive.read(metadata).decode()
    return set(re.findall(r"^Provides-Extra: (\S+)$", text, re.MULTILINE))


def report(packages: list[tuple[str, str, str]]) -> list[str]:
    """Print each package and its verdict; the failures."""
    failures = []
    for name, version, licence in sorted(packages, key=lambda package: package[0].lower()):
        problem = verdict(licence)
        print(
            f"  {'FAIL' if problem else 'ok  '}  {name} {version}: {licence}" + (f"  <- {problem}" if problem else "")
        )
        if problem:
            failures.append(f"{name} {version} ({licence}): {problem}")
    return failures


def main() -> None:
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    failures = report(installed_licences(Path(sys.argv[1]).resolve())) + report(bundled_licences())
    if failures:
        print("FAILED: what a host installs must be had under a licence that is not copyleft:", file=sys.stderr)
        for failure in failures:
            print(f"  {failure}", file=sys.stderr)
        raise SystemExit(1)
    print("every package a host installs, and every bundled one, has a licence that is not copyleft")


if __name__ == "__main__":
    main()
