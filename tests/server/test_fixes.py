"""The text a code action produces: verified as `fix --write` verifies a file, or refused with the reason."""

from __future__ import annotations

import pytest

from tests.reliability import broken_rules
from trainlint.engine import RuleSettings
from trainlint.server.findings import Findings, lint_document
from trainlint.server.fixes import fix_all, fix_finding, ignore_comment


@pytest.fixture(autouse=True)
def broken_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo rules (TL701 safe fix, TL702 no fix, TL801 unsafe fix) and the broken ones (TL79x)."""
    broken_rules.install(monkeypatch)


def _findings(text: str, codes=("TL701", "TL702", "TL801", "TL791"), unsafe: bool = False) -> Findings:
    settings = RuleSettings(frozenset(codes), describe_fixes=False)
    return lint_document("file:///m.py", 1, text, "m.py", settings, unsafe)


def test_one_fix_is_applied_alone_and_checked() -> None:
    findings = _findings("import torch\n\nwith torch.cuda.amp.autocast():\n    print(1)\n")
    assert [d.code for d in findings.result.diagnostics] == ["TL701", "TL801"]
    assert fix_finding(findings, 0).text == 'import torch\n\nwith torch.autocast("cuda"):\n    print(1)\n'
    unsafe = fix_finding(findings, 1).text or ""
    assert "logging.info(1)" in unsafe and "torch.cuda.amp.autocast()" in unsafe  # that fix only


def test_a_fix_whose_result_does_not_parse_is_refused() -> None:
    findings = _findings("x = unparsable_fix()\n")
    refused = fix_finding(findings, 0)
    assert refused.text is None and "produced code that does not parse" in refused.problem


def test_a_finding_without_a_fix_has_no_fix_to_apply() -> None:
    refused = fix_finding(_findings('eval("1")\n'), 0)
    assert refused.text is None and "TL702 has no fix" in refused.problem


def test_fix_all_applies_what_fix_write_would_at_the_configured_safety() -> None:
    text = "import torch\n\nwith torch.cuda.amp.autocast():\n    print(1)\n"
    assert fix_all(_findings(text)).text == 'import torch\n\nwith torch.autocast("cuda"):\n    print(1)\n'
    assert "logging.info(1)" in (fix_all(_findings(text, unsafe=True)).text or "")
    assert fix_all(_findings('eval("1")\n')).problem == "nothing to fix"
    broken = fix_all(_findings("import torch\nwith torch.cuda.amp.autocast():\n    x = unparsable_fix()\n"))
    assert broken.text is None and "TL791" in broken.problem  # the whole fix is refused, as fix --write refuses it


def test_an_ignore_comment_goes_at_the_end_of_the_line_or_joins_an_existing_one() -> None:
    assert ignore_comment(_findings('eval("1")\n'), 0).text == 'eval("1")  # trainlint: ignore[TL702]\n'
    assert ignore_comment(_findings('eval("1")   \r\n'), 0).text == 'eval("1")  # trainlint: ignore[TL702]\r\n'
    joined = ignore_comment(_findings('print(eval("1"))  # trainlint: ignore[TL801]\n'), 0).text
    assert joined == 'print(eval("1"))  # trainlint: ignore[TL801, TL702]\n'


def test_an_ignore_comment_is_put_where_it_suppresses_the_finding() -> None:
    # the finding's first line ends inside a string: a comment there would be text; its last line takes it
    text = 'eval("""1\n""")\n'
    assert ignore_comment(_findings(text), 0).text == 'eval("""1\n""")  # trainlint: ignore[TL702]\n'
    # neither line can hold a comment: nothing is offered
    text = 'x = [eval("""1\n"""), """\n"""]\n'
    refused = ignore_comment(_findings(text), 0)
    assert refused.text is None and "no place found" in refused.problem
