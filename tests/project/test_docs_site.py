"""The documentation site as a newcomer meets it: the quick start sets up with
README.md's own commands, the index lists every page, the Python examples
marked ``<!-- runs -->`` run as printed, with only what their page says to
install, and the benches the pages cite start as their usage line has them,
``python bench/<name>.py`` from the top folder. (The curl examples:
test_documented_examples.py.)

A Python example marked ``<!-- runs -->`` runs in this process, on the test
database; the comment lines that end it are what it prints, line by line,
``...`` standing for any text.
"""

import ast
import configparser
import contextlib
import importlib.metadata
import io
import os
import re
import subprocess
import sys

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.support.documented import DOCS, README, blocks_of, matches, nav_pages, section
from tests.support.live import REPOSITORY

pytestmark = pytest.mark.docs

# The sections of README.md whose command the quick start repeats, and the
# marker of the block that repeats it there.
SET_UP_COMMANDS = ["Run it", "Run the tests"]


@pytest.mark.parametrize("heading", SET_UP_COMMANDS)
def test_the_quick_start_sets_up_with_the_readmes_own_commands(heading):
    readme = re.search(r"^```sh\n(.*?)^```$", section(README, heading), re.MULTILINE | re.DOTALL)
    assert readme, f"README.md's '## {heading}' has no sh block"
    marker = f'as README.md\'s "{heading}"'
    quick_start = [block.code for block in blocks_of(DOCS / "quickstart.md", "sh") if block.marker == marker]
    assert quick_start == [readme[1]], (
        f"docs/quickstart.md's block after <!-- {marker} --> must be README.md's, character for character:\n{readme[1]}"
    )


def test_the_index_and_the_nav_list_every_page():
    pages = {path.name for path in DOCS.glob("*.md")}
    assert {path.name for path in nav_pages()} == pages, "mkdocs.yml's nav and the pages of docs/ differ"
    index = (DOCS / "index.md").read_text()
    listed = set(re.findall(r"^\| \[[^]]+\]\(([\w-]+\.md)\) \|", index, re.MULTILINE))
    assert listed == pages - {"index.md"}, f"index.md's table of pages: missing {pages - {'index.md'} - listed}"
    assert nav_pages()[:2] == [DOCS / "index.md", DOCS / "quickstart.md"], (
        "the quick start comes right after the overview"
    )


def runnable_python() -> list:
    return [block for page in nav_pages() for block in blocks_of(page, "python") if block.marker == "runs"]


@pytest.mark.django_db
@pytest.mark.parametrize("block", runnable_python(), ids=lambda block: block.page)
def test_every_runnable_python_example_runs_as_printed(block):
    for module in imported_modules(block.code):
        assert installed_by(module, "langchain"), (
            f"{block.page}: the example imports {module}, which pip install 'django-workspace[langchain]' "
            "does not install"
        )
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(block.code, block.page, "exec"), {"__name__": "documented_example"})
    expected = what_it_prints(block.code)
    lines = printed.getvalue().splitlines()
    assert len(lines) == len(expected) and all(map(matches, expected, lines)), (
        f"{block.page} printed:\n{printed.getvalue()}\nexpected:\n" + "\n".join(expected)
    )


def test_a_page_has_a_runnable_langchain_example():
    assert [block.page for block in runnable_python() if "langchain" in block.code] == ["docs/tools.md"]


def what_it_prints(code: str) -> list[str]:
    """The comment lines that end a block, without their ``# ``."""
    lines = code.rstrip("\n").splitlines()
    expected = []
    while lines and lines[-1].startswith("#"):
        expected.insert(0, lines.pop().removeprefix("#").removeprefix(" "))
    return expected


def imported_modules(code: str) -> set[str]:
    """The top-level modules a block imports, but the standard library's."""
    modules = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            modules |= {alias.name.partition(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module.partition(".")[0])
    return modules - set(sys.stdlib_module_names)


def installed_by(module: str, extra: str) -> bool:
    """Whether ``pip install "django-workspace[<extra>]"`` installs ``module``:
    the app itself, or a distribution its requirements and the extra's bring in."""
    if module == "workspace":
        return True
    distributions = {canonicalize_name(name) for name in importlib.metadata.packages_distributions().get(module, [])}
    return bool(distributions & requirements_closure(extra))


def requirements_closure(extra: str) -> set[str]:
    """The distributions the app and ``extra`` require, and theirs in turn, as installed here."""
    setup = configparser.ConfigParser()
    setup.read(REPOSITORY / "setup.cfg")
    lines = setup["options"]["install_requires"] + setup["options.extras_require"][extra]
    pending = [Requirement(line) for line in lines.splitlines() if line.strip()]
    closure: set[str] = set()
    while pending:
        requirement = pending.pop()
        name = canonicalize_name(requirement.name)
        if name in closure or (requirement.marker and not requirement.marker.evaluate({"extra": ""})):
            continue
        closure.add(name)
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            pending += [Requirement(line) for line in importlib.metadata.requires(name) or []]
    return closure


BENCHES = sorted(
    path.name for path in (REPOSITORY / "bench").glob("*.py") if '__name__ == "__main__"' in path.read_text()
)


@pytest.mark.parametrize("script", BENCHES)
def test_every_bench_starts_from_the_top_folder(script):
    """Its imports, as ``python bench/<script>`` runs them: the script's folder
    first on the path, not the top folder."""
    imports_only = (
        f"import runpy, sys; sys.path.insert(0, 'bench'); runpy.run_path('bench/{script}', run_name='imports')"
    )
    done = run_outside_the_tests(imports_only)
    assert done.returncode == 0, f"python bench/{script} fails before it starts:\n{done.stderr[-2000:]}"


def test_the_live_servers_helpers_import_before_django_is_set_up():
    """CI's fuzzing (``.ci/fuzz.py``) imports them to start its server, with no settings."""
    done = run_outside_the_tests("import sys; sys.path.insert(0, '.'); import tests.support.live")
    assert done.returncode == 0, done.stderr[-2000:]


def run_outside_the_tests(code: str) -> subprocess.CompletedProcess:
    """``code`` as a shell in the top folder runs it: no settings module set (-I: nor PYTHONPATH)."""
    environment = {name: value for name, value in os.environ.items() if name != "DJANGO_SETTINGS_MODULE"}
    return subprocess.run(
        [sys.executable, "-I", "-c", code], cwd=REPOSITORY, env=environment, capture_output=True, text=True, timeout=60
    )
