"""CI's licence check (.ci/licenses.py) refuses what can only be had under a GNU licence."""

import importlib.util
from pathlib import Path

import pytest

spec = importlib.util.spec_from_file_location("licenses", Path(__file__).resolve().parents[2] / ".ci" / "licenses.py")
assert spec is not None and spec.loader is not None
licenses = importlib.util.module_from_spec(spec)
spec.loader.exec_module(licenses)


@pytest.mark.parametrize(
    "expression",
    [
        "GPL-2.0-or-later",
        "LGPL-3.0-only",
        "AGPL-3.0",
        "GNU Lesser General Public License v3 (LGPLv3)",
        "GNU General Public License v2 or later (GPLv2+)",
        "GPL-2.0 OR LGPL-2.1",
        "GPL-2.0-only AND (Apache-2.0 OR MIT)",
        "MIT AND LGPL-3.0",
        "GNU General Public License v3 (GPLv3); Other/Proprietary License",
        "UNKNOWN",
        "",
    ],
)
def test_copyleft_only_or_no_licence_fails(expression):
    assert licenses.verdict(expression) is not None


@pytest.mark.parametrize(
    "expression",
    [
        "MIT",
        "BSD-3-Clause",
        "Apache-2.0 OR BSD-3-Clause",
        "(MPL-2.0 OR Apache-2.0)",
        "MPL-2.0 AND (Apache-2.0 OR MIT)",
        "Apache Software License; MIT License",
        "MIT OR GPL-2.0",
        "PSF-2.0",
    ],
)
def test_a_permissive_choice_passes(expression):
    assert licenses.verdict(expression) is None


def test_every_bundled_npm_package_is_read_from_the_built_licences():
    names = [name for name, _, _ in licenses.bundled_licences()]
    assert {"markdown-it", "dompurify", "diff"} <= set(names)
