"""Every rule documents itself, and trainlint/rule_docs/ is what the docstrings say."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import pytest

from trainlint.docs import headline, summary
from trainlint.registry import RULES, load_rule

ROOT = Path(__file__).resolve().parent.parent
SECTIONS = ("## What it does", "## Why is this bad", "## Example", "## Use instead", "## Fix safety")


@pytest.mark.parametrize("code", [entry.code for entry in RULES])
def test_rule_docstring_has_every_section(code: str) -> None:
    doc = inspect.cleandoc(load_rule(code).__doc__ or "")
    positions = [doc.find(section) for section in SECTIONS]
    assert all(p >= 0 for p in positions), f"{code} lacks {[s for s, p in zip(SECTIONS, positions) if p < 0]}"
    assert positions == sorted(positions), f"{code}: sections out of order"


def test_generated_rule_pages_are_up_to_date() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "generate_rule_docs.py"), "--check"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + "run: python scripts/generate_rule_docs.py"


@pytest.mark.parametrize("code", [entry.code for entry in RULES])
def test_summary_is_one_sentence(code: str) -> None:
    """`trainlint rules` and SARIF's shortDescription show a headline, not the whole first paragraph."""
    text = summary(code)
    assert text.startswith("Finds ") and text.endswith(".") and len(text) <= 200, text
    outside_code = "".join(text.split("`")[::2])
    assert ". " not in outside_code and ": " not in outside_code and "(" not in outside_code, text


def test_headline_keeps_code_and_drops_asides() -> None:
    assert summary("TL302") == "Finds a tensor created as floating point that reaches a place that takes indices."
    assert headline("Finds `a.b(c: d)` (or `e`), then more: details. Second.") == "Finds `a.b(c: d)`, then more."
    assert headline("Reads e.g. a file. Then") == "Reads e.g. a file."
    assert headline("No full stop") == "No full stop." and headline("") == ""
