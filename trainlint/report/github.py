"""GitHub Actions workflow commands: annotations on the pull request."""

from __future__ import annotations

from typing import Sequence

from trainlint.diagnostics import Diagnostic
from trainlint.report import ReportContext


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _position(d: Diagnostic) -> list:
    """Columns only for a span on one line: GitHub rejects columns on a multi-line annotation (as Ruff does).
    None in a notebook: a line of its JSON means nothing to a reader, so the message names the cell."""
    if d.cell is not None:
        return []
    if d.location.row != d.end_location.row:
        return [f"line={d.location.row}", f"endLine={d.end_location.row}"]
    return [f"line={d.location.row}", f"col={d.location.column}", f"endLine={d.end_location.row}", f"endColumn={d.end_location.column}"]


def render(diagnostics: Sequence[Diagnostic], context: ReportContext) -> str:
    lines = []
    for d in diagnostics:
        properties = ",".join(
            [f"title={_escape_property('trainlint (' + d.code + ')')}", f"file={_escape_property(d.path)}", *_position(d)]
        )
        message = f"{d.path}:{d.position}: {d.code} {d.message}"
        lines.append(f"::error {properties}::{_escape_data(message)}\n")
    return "".join(lines)
