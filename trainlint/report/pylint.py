"""``path:row: [CODE] message``, the line format pylint's parsers (and Ruff's ``pylint`` format) use."""

from __future__ import annotations

from typing import Sequence

from trainlint.diagnostics import Diagnostic
from trainlint.report import ReportContext


def render(diagnostics: Sequence[Diagnostic], context: ReportContext) -> str:
    # ``path:row`` (``path:cell N:row`` in a notebook), as pylint's parseable format has no column
    return "".join(f"{d.path}:{d.position.rsplit(':', 1)[0]}: [{d.code}] {d.message}\n" for d in diagnostics)
