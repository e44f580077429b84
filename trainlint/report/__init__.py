"""Output formats. Each renders the sorted diagnostics of a run as one string.

Human formats (text, full) are followed by summary lines printed by the CLI;
machine formats (json, github, sarif) carry no summary, as with Ruff.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Sequence

from trainlint.diagnostics import Diagnostic


@dataclass(frozen=True)
class ReportContext:
    unsafe_fixes: bool
    color: bool
    cwd: str
    sources: Callable[[str], str]  # path -> text, for formats that show source lines


def _load() -> Dict[str, Callable[[Sequence[Diagnostic], ReportContext], str]]:
    from trainlint.report import full, github, json_format, sarif, text

    return {
        "text": text.render,
        "full": full.render,
        "json": json_format.render,
        "github": github.render,
        "sarif": sarif.render,
    }


FORMATS = ("text", "full", "json", "github", "sarif")
HUMAN_FORMATS = ("text", "full")


def render(name: str, diagnostics: Sequence[Diagnostic], context: ReportContext) -> str:
    return _load()[name](diagnostics, context)


def rule_url(code: str) -> str:
    """Where the rule's documentation lives in the repository (also: ``trainlint rule CODE``)."""
    return f"docs/rules/{code}.md"
