"""What installing the app brings in may be shipped by a BSD-3-Clause
product: no requirement of it, nor any of theirs, is under the GPL or the
AGPL (as their installed metadata states their licences)."""

import configparser
import importlib.metadata
import re
from pathlib import Path

from packaging.requirements import Requirement

SETUP_CFG = Path(__file__).resolve().parent.parent / "setup.cfg"


def install_requires() -> list[Requirement]:
    config = configparser.ConfigParser()
    config.read(SETUP_CFG)
    return [Requirement(line) for line in config["options"]["install_requires"].split("\n") if line.strip()]


def everything_installed_with(requirements: list[Requirement]) -> set[str]:
    """The names of the distributions ``requirements`` bring in, theirs included (extras left out)."""
    seen: set[str] = set()
    waiting = list(requirements)
    while waiting:
        requirement = waiting.pop()
        name = requirement.name.lower()
        if name in seen or (requirement.marker and not requirement.marker.evaluate({"extra": ""})):
            continue
        seen.add(name)
        waiting.extend(Requirement(line) for line in importlib.metadata.requires(name) or [])
    return seen


def licence(name: str) -> str:
    """What a distribution's metadata says of its licence."""
    metadata = importlib.metadata.metadata(name)
    classifiers = [c for c in metadata.get_all("Classifier") or [] if c.startswith("License ::")]
    return " ".join([metadata.get("License-Expression") or "", metadata.get("License") or "", *classifiers])


GPL = re.compile(r"\bA?GPL|(?<!Lesser )(?<!Library )General Public License")  # not the LGPL


def test_no_requirement_of_the_app_is_under_the_gpl():
    names = everything_installed_with(install_requires())
    under_the_gpl = {name: licence(name)[:80] for name in sorted(names) if GPL.search(licence(name))}

    assert {"django", "djangorestframework", "sqlparse"} <= names  # requirements, and theirs, found
    assert not under_the_gpl, f"requirements of the app under the GPL: {under_the_gpl}"
