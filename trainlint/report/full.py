"""The text format plus the offending source line with a caret, and the fix as a diff."""

from __future__ import annotations

import difflib
from typing import List, Sequence

from trainlint.diagnostics import Diagnostic, Edit
from trainlint.report import ReportContext
from trainlint.report.style import paint
from trainlint.report.text import headline


def _apply(lines: List[str], edits: Sequence[Edit]) -> List[str]:
    result = list(lines)
    for edit in sorted(edits, key=lambda e: e.location, reverse=True):
        result[edit.location.row - 1 : edit.end_location.row - 1] = edit.content.splitlines(keepends=True)
    return result


def _code(diagnostic: Diagnostic, context: ReportContext) -> str:
    """The text the diagnostic's rows count: a notebook's code cells, concatenated, rather than its JSON."""
    text = context.sources(diagnostic.path)
    if diagnostic.cell is None:
        return text
    from trainlint.notebook import display_code

    return display_code(text)


def render(diagnostics: Sequence[Diagnostic], context: ReportContext) -> str:
    out = []
    for diagnostic in diagnostics:
        out.append(headline(diagnostic, context))
        lines = _code(diagnostic, context).splitlines(keepends=True)
        row = diagnostic.location.row  # of the file, or of a notebook's code cells concatenated
        start, end = (diagnostic.location, diagnostic.end_location) if diagnostic.cell is None else diagnostic.cell[1:]
        if 0 < row <= len(lines):
            source_line = lines[row - 1].rstrip("\r\n")
            gutter = f"{start.row:>4} | "
            width = end.column - start.column if end.row == start.row else len(source_line) - start.column + 1
            out.append(paint(gutter, "dim", context.color) + source_line)
            out.append(" " * (len(gutter) + start.column - 1) + paint("^" * max(1, width), "red", context.color))
        fix = diagnostic.fix
        if fix is not None:
            out.append(f"help: {fix.message}")
            if fix.applicability.value == "unsafe":
                out.append("note: This is an unsafe fix and may change runtime behavior")
            after = _apply(lines, fix.edits)
            for line in list(difflib.unified_diff(lines, after, n=1, lineterm=""))[2:]:
                line = line.rstrip("\r\n")
                style = "green" if line.startswith("+") else "red" if line.startswith("-") else "dim"
                out.append("    " + paint(line, style, context.color))
        out.append("")
    return "".join(line + "\n" for line in out)
