"""Jupyter notebooks open in the editor (LSP 3.17 notebook documents), linted as ``trainlint check`` lints
an ``.ipynb`` file.

The editor sends a notebook as a list of cells, each a text document of its own
(a ``vscode-notebook-cell:`` URI). The cells are written into a minimal
notebook JSON so that ``trainlint.notebook`` reads them exactly as it reads a
file: the code cells analysed together as one module, IPython syntax masked,
each finding placed in its cell. Diagnostics are published per cell URI at
positions within that cell; a fix is made on the module and handed back to the
cells by ``Notebook.rewritten``, the same write-back (and check) as
``trainlint fix`` on a notebook file, then sent as one edit per changed cell.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

from trainlint.diagnostics import Diagnostic
from trainlint.engine import LintResult, RuleSettings
from trainlint.notebook import Notebook, WriteBackError
from trainlint.server.configuration import DocumentSettings
from trainlint.server.findings import Findings, lint_document

if TYPE_CHECKING:
    from trainlint.incremental_parse import IncrementalParser


class Cell(NamedTuple):
    """One cell as the editor holds it."""

    uri: str
    version: int
    text: str
    is_python: bool  # a code cell in Python; other cells keep their place in the numbering but are not analysed


class NotebookFindings(NamedTuple):
    """What a notebook's findings need beyond a file's: its cells and how the module maps onto them."""

    notebook: Notebook
    cells: Tuple[Cell, ...]
    broken: List[Diagnostic]  # TL001 of each cell that does not parse on its own (not part of the module's result)

    def cell(self, uri: str) -> Optional[Tuple[int, Cell]]:
        """The cell's number (1-based, as the notebook module numbers cells) and the cell."""
        return next(((number, cell) for number, cell in enumerate(self.cells, start=1) if cell.uri == uri), None)


def notebook_json(cells: Sequence[Cell]) -> str:
    """The cells as a notebook file would hold them; only what ``Notebook.parse`` reads."""
    document = {
        "cells": [{"cell_type": "code" if c.is_python else "markdown", "source": c.text} for c in cells],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(document, ensure_ascii=False, indent=1)


def lint_notebook(
    uri: str,
    version: int,
    cells: Sequence[Cell],
    path: str,
    settings: Optional[DocumentSettings],
    cancelled: Optional[Callable[[], bool]] = None,
    parser: Optional["IncrementalParser"] = None,
) -> Findings:
    """Lint the code cells as one module; each finding of the result carries its cell position. With no
    settings (the notebook is excluded) nothing is reported, not even a cell that does not parse.
    ``cancelled`` and ``parser`` as for ``lint_document``."""
    notebook = Notebook.parse(notebook_json(cells))
    if settings is None:
        findings = Findings(uri, version, notebook.code, path, RuleSettings(frozenset()), False, LintResult([]))
        return findings._replace(notebook=NotebookFindings(notebook, tuple(cells), []))
    findings = lint_document(uri, version, notebook.code, path, settings.rules, settings.unsafe_fixes, cancelled, parser)
    findings.result.diagnostics[:] = [notebook.place(d) for d in findings.result.diagnostics]
    return findings._replace(notebook=NotebookFindings(notebook, tuple(cells), notebook.syntax_errors(path)))


def same_cells(findings: Findings, cells: Sequence[Cell]) -> bool:
    """Do the cells hold what the findings were computed from (their versions aside)?"""
    state = findings.notebook

    def content(cell: Cell) -> Tuple[str, str, bool]:
        return cell.uri, cell.text, cell.is_python

    return state is not None and list(map(content, state.cells)) == list(map(content, cells))


def in_cell(findings: Findings, number: int) -> List[Tuple[int, Diagnostic]]:
    """The findings in cell ``number``, located within the cell, each with its index in the module's result
    (-1 for a cell's own syntax error, which has no fix)."""
    state = findings.notebook
    assert state is not None
    broken = [(-1, d) for d in state.broken]
    placed = list(enumerate(findings.result.diagnostics))
    return [
        (index, d._replace(location=d.cell.location, end_location=d.cell.end_location))
        for index, d in broken + placed
        if d.cell is not None and d.cell.cell == number
    ]


def changed_cells(findings: Findings, fixed_code: str) -> Tuple[Dict[str, str], str]:
    """The new text of each cell that ``fixed_code`` (the module after a fix) changes, by cell URI; or
    nothing and the reason, when the fix cannot be put back into the cells faithfully."""
    state = findings.notebook
    assert state is not None
    try:
        text, _ = state.notebook.rewritten(fixed_code)
    except WriteBackError as error:
        return {}, str(error)
    sources = [cell["source"] for cell in json.loads(text)["cells"]]  # strings, as notebook_json wrote them
    changed = {cell.uri: source for cell, source in zip(state.cells, sources) if source != cell.text}
    return changed, "" if changed else "the fix changes nothing in the cells"
