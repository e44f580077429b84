"""Lint one version of an open document with the engine, exactly as ``trainlint check`` lints a file.

A lint stops early (the engine raises LintCancelled) once its ``cancelled`` callback says the
editor has replaced that version: on a 2-core machine the newer version's lint should not
wait for a result nobody will see.

Everything here runs on the server's single engine thread: the engine keeps a
per-tree memo in module state (``trainlint.analysis.walk``), so two lints, or a
lint and a fix, must never run at the same time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, NamedTuple, Optional

from trainlint.engine import LintResult, RuleSettings, lint_source, python_verdict
from trainlint.runner import MAX_ANALYSED_BYTES

if TYPE_CHECKING:
    from trainlint.incremental_parse import IncrementalParser
    from trainlint.server.notebooks import NotebookFindings


class Findings(NamedTuple):
    """The engine's result for one version of a document, with what it was computed from.

    Code actions are computed against exactly this text: the result holds the
    parsed module and the fixes as CST edits on it. For a notebook, ``text`` is
    its code cells as one module and ``notebook`` says which cell each line is in.
    """

    uri: str
    version: int
    text: str
    path: str  # as the engine names it in messages
    settings: RuleSettings
    unsafe_fixes: bool
    result: LintResult
    notebook: Optional["NotebookFindings"] = None


def lint_document(
    uri: str,
    version: int,
    text: str,
    path: str,
    settings: RuleSettings,
    unsafe_fixes: bool,
    cancelled: Optional[Callable[[], bool]] = None,
    parser: Optional["IncrementalParser"] = None,
) -> Findings:
    """Lint the text; a text larger than the CLI analyses gets CPython's syntax check only, as there.
    ``parser``: the document's, which parses again only the statements changed since its last parse."""
    if len(text) > MAX_ANALYSED_BYTES:
        error = python_verdict(text, path)[0]
        result = LintResult([error] if error else [])
    else:
        result = lint_source(text, path, settings, cancelled=cancelled, parser=parser)
    return Findings(uri, version, text, path, settings, unsafe_fixes, result)
