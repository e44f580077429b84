"""Which code actions a range of a document gets, and the text edit each one makes.

Offering an action is cheap: it names the document version, the finding and
what to do (in ``data``). The edit is computed when the editor resolves the
action (or at once, for an editor that cannot resolve), by fixes.py, against
the very text the findings were computed for.
"""

from __future__ import annotations

from typing import Any, List, Mapping, NamedTuple, Optional, Sequence, Tuple

from lsprotocol import types

from trainlint.diagnostics import SYNTAX_ERROR_CODE, Applicability, Diagnostic
from trainlint.engine import applicable
from trainlint.server import fixes, notebooks
from trainlint.server.convert import lsp_diagnostic, lsp_range
from trainlint.server.findings import Findings
from trainlint.server import positions
from trainlint.server.positions import LineIndex, Position

FIX_ALL_KIND = f"{types.CodeActionKind.SourceFixAll.value}.trainlint"


def _key(position: types.Position) -> Position:
    return Position(position.line, position.character)


def _overlaps(a: types.Range, b: types.Range) -> bool:
    """Ranges that share a position, ends included: a cursor at either end of a finding asks about it."""
    return _key(a.start) <= _key(b.end) and _key(b.start) <= _key(a.end)


def covers(index: LineIndex, diagnostic: Diagnostic, position: types.Position) -> bool:
    """Is the position on the finding's underlined range (start included, end excluded)?"""
    where = lsp_range(index, diagnostic)
    return _key(where.start) <= _key(position) < _key(where.end)


def _wanted(kind: Any, only: Optional[Sequence[str]]) -> bool:
    """LSP's filter: ``only=["source.fixAll"]`` asks for that kind and every kind under it."""
    return only is None or any(kind == wanted or kind.startswith(f"{wanted}.") for wanted in only)


def _data(findings: Findings, action: str, index: int = -1) -> dict:
    return {"uri": findings.uri, "version": findings.version, "action": action, "index": index}


def offered(
    findings: Findings,
    index: LineIndex,
    located: Sequence[Tuple[int, Diagnostic]],
    request: types.Range,
    only: Optional[Sequence[str]],
) -> List[types.CodeAction]:
    """The quick fixes of the findings in the range (safe fixes first, unsafe ones labelled), an ignore
    comment for each, and, when anything in the document can be fixed, "Fix all safe fixes". ``located``:
    the findings in the text ``index`` indexes (a document, or a notebook's cell), each with its index
    in the findings' result."""
    safe: List[types.CodeAction] = []
    unsafe: List[types.CodeAction] = []
    ignores: List[types.CodeAction] = []
    for position, diagnostic in located:
        if diagnostic.code == SYNTAX_ERROR_CODE or not _overlaps(lsp_range(index, diagnostic), request):
            continue
        shown = [lsp_diagnostic(diagnostic, index)]
        if diagnostic.fix is not None:
            is_safe = diagnostic.fix.applicability is Applicability.SAFE
            label = "" if is_safe else " (unsafe)"
            (safe if is_safe else unsafe).append(
                types.CodeAction(
                    title=f"Fix {diagnostic.code}: {diagnostic.fix.message}{label}",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=shown,
                    is_preferred=is_safe,
                    data=_data(findings, "fix", position),
                )
            )
        ignores.append(
            types.CodeAction(
                title=f"Add `# trainlint: ignore[{diagnostic.code}]`",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=shown,
                data=_data(findings, "ignore", position),
            )
        )
    result = safe + unsafe + ignores
    if any(applicable(fix, findings.unsafe_fixes) for fix in findings.result.fixes):
        title = "Fix all fixes (unsafe ones included: `unsafe-fixes` is on)" if findings.unsafe_fixes else "Fix all safe fixes"
        result.append(types.CodeAction(title=f"trainlint: {title}", kind=FIX_ALL_KIND, data=_data(findings, "fix-all")))
    return [action for action in result if _wanted(getattr(action.kind, "value", action.kind), only)]


def new_text(findings: Findings, data: Mapping[str, Any]) -> fixes.FixedText:
    """The document's text after the action ``data`` describes (it comes back from the editor: checked)."""
    action, position = data.get("action"), data.get("index")
    if action == "fix-all":
        return fixes.fix_all(findings)
    if not isinstance(position, int) or not 0 <= position < len(findings.result.diagnostics):
        return fixes.FixedText(None, "the action does not name a finding of this document")
    if action == "fix":
        return fixes.fix_finding(findings, position)
    if action == "ignore":
        return fixes.ignore_comment(findings, position)
    return fixes.FixedText(None, f"unknown action {action!r}")


class DocumentChange(NamedTuple):
    """The text a code action gives one document (or notebook cell), and the version it was computed from."""

    uri: str
    version: int
    before: str
    after: str


def document_changes(findings: Findings, data: Mapping[str, Any]) -> Tuple[List[DocumentChange], str]:
    """The documents the action ``data`` changes (a notebook's changed cells), or nothing and why."""
    fixed = new_text(findings, data)
    if fixed.text is None:
        return [], fixed.problem
    if findings.notebook is None:
        return [DocumentChange(findings.uri, findings.version, findings.text, fixed.text)], ""
    changed, problem = notebooks.changed_cells(findings, fixed.text)
    return [DocumentChange(c.uri, c.version, c.text, changed[c.uri]) for c in findings.notebook.cells if c.uri in changed], problem


def text_edits(before: str, after: str, encoding: str) -> Optional[List[types.TextEdit]]:
    """The edits from ``before`` to ``after``, or None if applying them would not give ``after``
    exactly (the positions could not express it): an edit that is not sent corrupts nothing."""
    edits = positions.text_edits(before, after, encoding)
    if positions.apply_edits(before, edits, encoding) != after:
        return None
    return [
        types.TextEdit(
            range=types.Range(types.Position(*edit.start), types.Position(*edit.end)), new_text=edit.new_text
        )
        for edit in edits
    ]
