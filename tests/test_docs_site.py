"""The documentation as a newcomer meets it: the benches the pages cite start
as their usage line has them, ``python bench/<name>.py`` from the top folder.
"""

import subprocess
import sys

import pytest

from .live import REPOSITORY

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
