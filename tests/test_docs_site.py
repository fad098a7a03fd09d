"""The documentation site as a newcomer meets it: the quick start sets up with
README.md's own commands, the index lists every page, and the benches the
pages cite start as their usage line has them, ``python bench/<name>.py``
from the top folder. (The curl examples: test_documented_examples.py.)
"""

import re
import subprocess
import sys

import pytest

from .documented import DOCS, README, blocks_of, nav_pages, section
from .live import REPOSITORY

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


BENCHES = sorted(
    path.name for path in (REPOSITORY / "bench").glob("*.py") if '__name__ == "__main__"' in path.read_text()
)


@pytest.mark.parametrize("script", BENCHES)
def test_every_bench_starts_from_the_top_folder(script):
    """Its imports, as ``python bench/<script>`` runs them: the script's folder
    first on the path, not the top folder (-I: nor PYTHONPATH)."""
    imports_only = (
        f"import runpy, sys; sys.path.insert(0, 'bench'); runpy.run_path('bench/{script}', run_name='imports')"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", imports_only], cwd=REPOSITORY, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, f"python bench/{script} fails before it starts:\n{done.stderr[-2000:]}"
