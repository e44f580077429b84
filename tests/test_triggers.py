"""Every file a rule reports on matches one of its registry triggers.

Findings are computed with the prefilter bypassed, so a trigger that is too
narrow shows up here as a finding the prefilter would have hidden.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import libcst as cst

from tests.fixture_cases import bad_cases, case_id, code_of, ok_cases
from trainlint.engine import RuleSettings, _run_rules, lint_source, triggered_codes
from trainlint.registry import ALL_CODES


@pytest.mark.parametrize("path", bad_cases(), ids=case_id)
def test_bad_cases_trigger_their_rule(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert code_of(path) in triggered_codes(text, ALL_CODES)


@pytest.mark.parametrize("path", bad_cases() + ok_cases(), ids=case_id)
def test_every_reported_rule_is_triggered(path: Path) -> None:
    """Run every rule on the parsed file, prefilter bypassed: what they report must be triggered."""
    text = path.read_text(encoding="utf-8")
    settings = RuleSettings(codes=ALL_CODES)
    unfiltered = _run_rules(cst.parse_module(text), text, str(path), sorted(ALL_CODES), settings)
    reported = {d.code for d in unfiltered.diagnostics}
    assert reported <= set(triggered_codes(text, ALL_CODES))
    assert reported == {d.code for d in lint_source(text, str(path), settings).diagnostics}


def test_a_tuple_trigger_needs_every_part() -> None:
    from trainlint.engine import _occurs

    assert _occurs(("append(", "[]"), "x = []\nx.append(1)")
    assert not _occurs(("append(", "[]"), "x.append(1)")
    assert _occurs(("append(", ("[]", "list(")), "x = list()\nx.append(1)")
    assert not _occurs(("append(", ("[]", "list(")), "x = ()\nx.append(1)")
    assert _occurs("pin_memory", "DataLoader(pin_memory=True)")
