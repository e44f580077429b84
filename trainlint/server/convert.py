"""trainlint's diagnostics and documentation as LSP diagnostics, ranges and hover text."""

from __future__ import annotations

from typing import Iterable, Optional

from lsprotocol import types

from trainlint.diagnostics import SYNTAX_ERROR_CODE, Applicability, Diagnostic
from trainlint.report import rule_url
from trainlint.server.positions import LineIndex

SOURCE = "trainlint"


def lsp_range(index: LineIndex, diagnostic: Diagnostic) -> types.Range:
    start, end = index.range_of(diagnostic.location, diagnostic.end_location)
    return types.Range(types.Position(*start), types.Position(*end))


def lsp_diagnostic(diagnostic: Diagnostic, index: LineIndex) -> types.Diagnostic:
    """A finding as the editor shows it. A syntax error is an error; a rule's finding a warning, as Ruff's
    server marks lint findings, so that code which does not parse stands out."""
    href = rule_doc_uri(diagnostic.code)
    fix = diagnostic.fix
    return types.Diagnostic(
        range=lsp_range(index, diagnostic),
        message=diagnostic.message,
        severity=types.DiagnosticSeverity.Error if diagnostic.code == SYNTAX_ERROR_CODE else types.DiagnosticSeverity.Warning,
        code=diagnostic.code,
        code_description=types.CodeDescription(href=href) if href else None,
        source=SOURCE,
        data={"name": diagnostic.name, "fix": fix.applicability.value if fix else Applicability.NONE.value},
    )


def rule_doc_uri(code: str) -> Optional[str]:
    """The rule's page, shipped in the package (trainlint/rule_docs/), as a file URI."""
    return rule_url(code)


def hover_markdown(diagnostics: Iterable[Diagnostic]) -> Optional[str]:
    """The documentation of each rule reported at a position, each once, under the finding's message."""
    from trainlint.docs import rule_markdown

    sections, seen = [], set()
    for diagnostic in diagnostics:
        text = f"**{diagnostic.code}** {diagnostic.message}"
        if diagnostic.code not in seen:
            seen.add(diagnostic.code)
            text += "\n\n" + (rule_markdown(diagnostic.code) or "")
        sections.append(text.rstrip())
    return "\n\n---\n\n".join(sections) if sections else None
