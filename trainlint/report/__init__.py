"""Output formats. Each renders the sorted diagnostics of a run as one string.

Human formats (concise, full) are followed by summary lines printed by the CLI;
machine formats (json, json-lines, junit, gitlab, pylint, github, sarif) carry
no summary, as with Ruff. ``text`` is the old name of ``concise``, kept as an alias.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Callable, Dict, NamedTuple, Sequence

from trainlint.diagnostics import Diagnostic


class ReportContext(NamedTuple):
    unsafe_fixes: bool
    color: bool
    cwd: str
    sources: Callable[[str], str]  # path -> text, for formats that show source lines


# format name -> the module under trainlint.report that renders it; only the one asked for is imported
_MODULES: Dict[str, str] = {
    "concise": "text",
    "full": "full",
    "json": "json_format",
    "json-lines": "json_lines",
    "junit": "junit",
    "gitlab": "gitlab",
    "pylint": "pylint",
    "github": "github",
    "sarif": "sarif",
    "text": "text",  # the name of `concise` before issue 18
}
FORMATS = tuple(_MODULES)
DEFAULT_FORMAT = "concise"
HUMAN_FORMATS = ("concise", "text", "full")


def render(name: str, diagnostics: Sequence[Diagnostic], context: ReportContext) -> str:
    module = importlib.import_module(f"trainlint.report.{_MODULES[name]}")
    renderer: Callable[[Sequence[Diagnostic], ReportContext], str] = module.render
    return renderer(diagnostics, context)


def rule_url(code: str) -> str:
    """The rule's documentation page as a ``file:`` URI: the pages ship inside the package
    (trainlint/rule_docs/, generated from the rule docstrings), so an installed trainlint can open
    them; ``trainlint rule CODE`` prints the same text."""
    return (Path(__file__).resolve().parent.parent / "rule_docs" / f"{code}.md").as_uri()
