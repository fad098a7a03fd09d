"""The shape of ``workspace/`` that the next person relies on: no import
circle (imports inside functions included), modules that read in one sitting,
functions that fit on a screen. The layers themselves are a contract in
``.importlinter``, checked by ``lint-imports`` in CI."""

import ast
from pathlib import Path

import grimp

PACKAGE = Path(__file__).resolve().parents[2] / "workspace"
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
# Functions allowed to be longer, each with its reason.
LONGER_FUNCTIONS: dict[str, str] = {}


def sources() -> list[Path]:
    return sorted(path for path in PACKAGE.rglob("*.py") if "migrations" not in path.parts)


def test_no_import_cycle_in_workspace():
    graph = grimp.build_graph("workspace", include_external_packages=False)
    cycles = []
    for module in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back is not None:
                cycles.append(" -> ".join((module, *back)))
    assert not cycles, "import cycles (imports inside functions count too):\n" + "\n".join(cycles)


def test_no_module_over_the_line_limit():
    long = {
        str(path.relative_to(PACKAGE.parent)): n
        for path in sources()
        if (n := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"


def test_no_function_over_the_line_limit():
    long = {}
    for path in sources():
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                name = f"{path.relative_to(PACKAGE.parent)}:{node.name}"
                if lines > MAX_FUNCTION_LINES and name not in LONGER_FUNCTIONS:
                    long[name] = lines
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines (or say why in LONGER_FUNCTIONS): {long}"


def test_every_module_says_its_job():
    silent = [
        str(path.relative_to(PACKAGE.parent))
        for path in sources()
        if path.read_text().strip() and ast.get_docstring(ast.parse(path.read_text())) is None
    ]
    assert not silent, f"modules without a docstring stating their job: {silent}"


TESTS = PACKAGE.parent / "tests"


def test_no_test_file_imports_another():
    """What tests share is in ``tests/support/`` (or a fixture of ``tests/conftest.py``), never in another test file."""
    importing = []
    for path in sorted(TESTS.rglob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                modules = [node.module or ""] + [f"{node.module}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            else:
                continue
            if any(part.startswith("test_") or part == "conftest" for module in modules for part in module.split(".")):
                importing.append(f"{path.relative_to(TESTS.parent)}:{node.lineno}")
    assert not importing, f"test files importing another test file or conftest: {importing}"


def test_the_top_of_the_package_holds_only_what_every_capability_shares():
    top = sorted(path.stem for path in PACKAGE.glob("*.py"))
    assert len(top) <= 18, f"{len(top)} modules at the top of workspace/: {top}"
    for package in sorted(path.parent for path in PACKAGE.glob("*/__init__.py")):
        if package.name in ("migrations", "management", "templates", "static"):
            continue
        doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
        unnamed = [path.stem for path in package.glob("*.py") if path.stem != "__init__" and path.stem not in doc]
        assert not unnamed, f"{package.name}/__init__.py's docstring does not name {unnamed}"
