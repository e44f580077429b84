"""The static contract of every rule fixture.

For each ``fixtures/TLxxx_*/`` directory: the findings of a bad case are
exactly its ``# expect:`` markers (all rules run, so a rule's false positive
on another rule's fixture fails too); an ok case has no finding; fixing a bad
case with unsafe fixes gives its ``.fixed.py`` snapshot byte for byte; fixing
the snapshot again changes nothing; and the snapshot has no finding of the
rule that was fixed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixture_cases import bad_cases, case_id, code_of, expected_findings, ok_cases, snapshot_of
from trainlint.diagnostics import Applicability
from trainlint.engine import RuleSettings, fix_source, lint_source
from trainlint.registry import ALL_CODES, load_rule

# Snapshots are what `trainlint fix --write --unsafe-fixes` writes for a project on torch 2.5 or later (the
# runtime proofs run them on a recent torch); tests/test_rule_TL201.py checks the fixes for older targets.
FIXTURE_TARGET_TORCH = "2.5"
SETTINGS = RuleSettings(codes=ALL_CODES, options={code: {"target-torch": FIXTURE_TARGET_TORCH} for code in ALL_CODES})


def _findings(path: Path, text: str):
    result = lint_source(text, str(path), SETTINGS)
    assert not result.errors, result.errors
    return {(d.location.row, d.code) for d in result.diagnostics}


@pytest.mark.parametrize("path", bad_cases() + ok_cases(), ids=case_id)
def test_findings_equal_expect_markers(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    expected = expected_findings(text)
    if path.name.startswith("bad_"):
        assert any(code == code_of(path) for _, code in expected), "a bad case must expect its rule"
    else:
        assert not expected, "an ok case must expect nothing"
    assert _findings(path, text) == expected


@pytest.mark.parametrize("path", bad_cases(), ids=case_id)
def test_fix_equals_snapshot_and_is_idempotent(path: Path) -> None:
    snapshot = snapshot_of(path)
    if load_rule(code_of(path)).fix is Applicability.NONE:
        assert not snapshot.exists()
        return
    assert snapshot.exists(), f"missing snapshot {snapshot.name}"
    fixed = fix_source(path.read_text(encoding="utf-8"), str(path), SETTINGS, unsafe_fixes=True)
    assert not fixed.errors, fixed.errors
    assert fixed.applied[code_of(path)] >= 1
    assert fixed.text == snapshot.read_text(encoding="utf-8")
    again = fix_source(fixed.text, str(snapshot), SETTINGS, unsafe_fixes=True)
    assert again.text == fixed.text, "fixing the snapshot again changed it"
    assert code_of(path) not in {code for _, code in _findings(snapshot, fixed.text)}
