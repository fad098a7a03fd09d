"""The shape of ``workspace/`` that the next person relies on: no import
circle (imports inside functions included), modules that read in one sitting,
functions that fit on a screen. The layers themselves are a contract in
``.importlinter``, checked by ``lint-imports`` in CI."""

import ast
from pathlib import Path

import grimp

PACKAGE = Path(__file__).resolve().parent.parent / "workspace"
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
