"""Notebooks in the editor (LSP 3.17 notebook documents): each cell a text document of its own, the cells
linted together as ``trainlint check`` lints an ``.ipynb`` file, diagnostics and fixes per cell."""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Tuple

from tests.server.client import LspClient, apply_text_edits
from tests.server.conftest import Start
from tests.server.test_server import EXAMPLE, _actions, _codes
from trainlint.engine import RuleSettings, lint_source
from trainlint.registry import ALL_CODES

CODE, MARKUP = 2, 1
MAGIC = "%matplotlib inline\n"  # IPython syntax: masked, keeping its line
EXAMPLE_LINES = EXAMPLE.splitlines(keepends=True)
SETUP, LOOP = MAGIC + "".join(EXAMPLE_LINES[:12]), "".join(EXAMPLE_LINES[12:])  # the loop starts at line 13


def _cells(folder: Path, *texts: Tuple[int, str]) -> List[Tuple[str, int, str]]:
    notebook = folder / "train.ipynb"
    return [(f"vscode-notebook-cell:{notebook.as_posix()}#W{n}", kind, text) for n, (kind, text) in enumerate(texts)]


def _found(diagnostics: List[Dict]) -> List[Tuple[str, int, int]]:
    return [(d["code"], d["range"]["start"]["line"], d["range"]["start"]["character"]) for d in diagnostics]


def _as_changes(action: Dict) -> Dict[str, List[Dict]]:
    """The edits of a resolved action by cell URI."""
    return {change["textDocument"]["uri"]: change["edits"] for change in action["edit"]["documentChanges"]}


def _cleared(client: LspClient, cell: str) -> None:
    """Wait for the cell's diagnostics to be cleared (published empty, with no version: the cell is gone)."""
    client.wait_notification("textDocument/publishDiagnostics", lambda p: p["uri"] == cell and p == {"uri": cell, "diagnostics": []})


def _send_edits(client: LspClient, notebook: str, version: int, cell: str, cell_version: int, edits: List[Dict]) -> None:
    """Send the edits as an editor reports a cell's change: as ranges, each against the text after the one before
    (the last edit in the text first, so that the ranges of the others stay valid)."""
    ordered = sorted(edits, key=lambda e: (e["range"]["start"]["line"], e["range"]["start"]["character"]), reverse=True)
    client.change_cell(notebook, version, cell, cell_version, [{"range": e["range"], "text": e["newText"]} for e in ordered])


def test_a_notebook_session_diagnostics_per_cell_fix_across_cells_ignore_hover_and_close(start: Start, tmp_path: Path) -> None:
    client = start()
    sync = client.initialize_result["capabilities"]["notebookDocumentSync"]
    assert sync == {"notebookSelector": [{"cells": [{"language": "python"}]}], "save": True}
    notebook = (tmp_path / "train.ipynb").as_uri()
    (setup, _, _), (notes, _, _), (loop, _, _) = cells = _cells(tmp_path, (CODE, SETUP), (MARKUP, ""), (CODE, LOOP))
    client.open_notebook(notebook, cells)

    # the findings of the script the cells hold, each in its cell, at a line of that cell
    module = lint_source(EXAMPLE, "train.py", RuleSettings(ALL_CODES)).diagnostics
    in_setup = [(d.code, d.location.row, d.location.column - 1) for d in module if d.location.row <= 12]  # + 1 line: the magic
    in_loop = [(d.code, d.location.row - 13, d.location.column - 1) for d in module if d.location.row > 12]
    assert sorted(_found(client.diagnostics(setup, version=1))) == sorted(in_setup) and in_setup
    loop_diagnostics = client.diagnostics(loop, version=1)
    assert sorted(_found(loop_diagnostics)) == sorted(in_loop) and in_loop
    assert not any(n["params"]["uri"] == notes and n["params"]["diagnostics"] for n in client.history if "uri" in n["params"])

    # TL201's fix in the loop's cell also drops the import it no longer needs from the first cell
    autocast = next(d for d in loop_diagnostics if d["code"] == "TL201")
    fix = next(a for a in _actions(client, loop, autocast["range"]) if a["title"].startswith("Fix TL201"))
    resolved = client.request("codeAction/resolve", fix)
    assert [c["textDocument"] for c in resolved["edit"]["documentChanges"]] == [{"uri": setup, "version": 1}, {"uri": loop, "version": 1}]
    edits = _as_changes(resolved)
    fixed_setup, fixed_loop = apply_text_edits(SETUP, edits[setup]), apply_text_edits(LOOP, edits[loop])
    assert fixed_setup.startswith(MAGIC) and "autocast" not in fixed_setup.splitlines()[2]
    assert 'torch.autocast("cuda"' in fixed_loop
    _send_edits(client, notebook, 2, setup, 2, edits[setup])
    _send_edits(client, notebook, 3, loop, 2, edits[loop])
    (tl401,) = client.diagnostics(loop, version=2)
    assert tl401["code"] == "TL401"
    assert sorted(_codes(client.diagnostics(setup, version=2))) == ["TL101", "TL201"]

    # hover and the ignore comment work on the cell's own lines
    hover = client.request("textDocument/hover", {"textDocument": {"uri": loop}, "position": tl401["range"]["start"]})
    assert "(TL401)" in hover["contents"]["value"]
    ignore = next(a for a in _actions(client, loop, tl401["range"]) if a["title"].startswith("Add"))
    edits = _as_changes(client.request("codeAction/resolve", ignore))
    assert list(edits) == [loop]
    ignored = apply_text_edits(fixed_loop, edits[loop])
    assert ignored.splitlines()[tl401["range"]["start"]["line"]] == "    total_loss += loss  # trainlint: ignore[TL401]"
    client.change_cell(notebook, 4, loop, 3, [{"text": ignored}])
    assert client.diagnostics(loop, version=3) == []

    client.notify("notebookDocument/didClose", {"notebookDocument": {"uri": notebook}, "cellTextDocuments": [{"uri": setup}, {"uri": loop}]})
    _cleared(client, setup)  # it had findings until now
    assert client.close() == 0


def test_a_cell_that_does_not_parse_is_its_own_TL001_and_a_removed_cell_is_cleared(start: Start, tmp_path: Path) -> None:
    client = start()
    notebook = (tmp_path / "train.ipynb").as_uri()
    (setup, _, _), (broken, _, _), (loop, _, _) = cells = _cells(tmp_path, (CODE, SETUP), (CODE, "model = # TODO\n"), (CODE, LOOP))
    client.open_notebook(notebook, cells)
    assert _found(client.diagnostics(broken, version=1)) == [("TL001", 0, 8)]
    assert "TL401" in _codes(client.diagnostics(loop, version=1))  # the other cells are still checked
    assert _actions(client, broken, {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 14}}, only=["quickfix"]) == []

    structure = {"array": {"start": 1, "deleteCount": 1, "cells": []}, "didClose": [{"uri": broken}]}
    client.notify(
        "notebookDocument/didChange",
        {"notebookDocument": {"uri": notebook, "version": 2}, "change": {"cells": {"structure": structure}}},
    )
    _cleared(client, broken)
    assert "TL401" in _codes(client.diagnostics(loop, version=1))
    assert client.close() == 0
