"""A fix is verified before it is written: a broken one leaves the file untouched and is reported with its rule code."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.shell.support import AUTOCAST, AUTOCAST_FIXED, invoke, write
from trainlint import __version__
from trainlint.engine import RuleSettings, fix_source
from trainlint import registry

pytestmark = pytest.mark.usefixtures("project", "broken_registry")

BROKEN = [
    ("x = unparsable_fix()\n", "fixing TL791 in m.py produced code that does not parse"),
    ("kept_finding()\n", "the fix for TL792 in m.py left its finding in place"),
    ("no_op_fix()\n", "the fix for TL793 in m.py changed nothing but its finding remains"),
    ("ping()\n", "fixes for TL794, TL795 in m.py did not converge after 10 passes"),
]


@pytest.mark.parametrize("source, problem", BROKEN)
def test_a_broken_fix_returns_the_text_unchanged_with_an_error(source: str, problem: str) -> None:
    result = fix_source(source, "m.py", RuleSettings(registry.ALL_CODES), unsafe_fixes=True)
    assert result.text == source
    assert not result.applied
    (error,) = result.errors
    assert error.startswith(problem)
    assert error.endswith(f"the file was left unchanged. This is a bug in trainlint {__version__}: please report it with the file.")


@pytest.mark.parametrize("source, problem", BROKEN)
def test_fix_write_leaves_the_file_untouched_reports_the_rule_and_goes_on(project: Path, source: str, problem: str) -> None:
    """Another fix in the same file is not written either: a file is fixed completely or not at all."""
    write(project, {"m.py": AUTOCAST + source, "other.py": AUTOCAST})
    os.utime(project / "m.py", ns=(10**9, 10**9))
    result = invoke("fix", "--write", "--no-cache")
    assert result.exit_code == 2
    assert (project / "m.py").read_text() == AUTOCAST + source
    assert (project / "m.py").stat().st_mtime_ns == 10**9
    assert (project / "other.py").read_text() == AUTOCAST_FIXED
    assert f"error: {problem}" in result.stderr
    assert "m.py:3:6: TL701 [*]" in result.stdout  # the findings of the file that was not fixed are still reported
