"""``path:line:col: TL201 [*] message``, one finding a line (Ruff's concise format);
``path:cell N:line:col: ...`` in a notebook, as Ruff prints it."""

from __future__ import annotations

from typing import Sequence

from trainlint.diagnostics import Diagnostic
from trainlint.report import ReportContext
from trainlint.report.style import paint


def headline(diagnostic: Diagnostic, context: ReportContext) -> str:
    marker = " [*]" if diagnostic.is_fixable(context.unsafe_fixes) else ""
    where = paint(f"{diagnostic.path}:{diagnostic.position}:", "bold", context.color)
    code = paint(diagnostic.code, "red", context.color)
    return f"{where} {code}{paint(marker, 'cyan', context.color)} {diagnostic.message}"


def render(diagnostics: Sequence[Diagnostic], context: ReportContext) -> str:
    return "".join(headline(d, context) + "\n" for d in diagnostics)
