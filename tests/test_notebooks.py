"""Jupyter notebooks: the fixture contract, IPython masking, positions, and fixes written back into the JSON.

The fixtures in ``fixtures/notebooks/`` were written for these tests: a training
notebook per rule family with its defect spread across cells (magics, shell
escapes, help lines, a ``%%bash`` cell, traps that must not be reported), one
with outputs, an embedded image, widget metadata and a raw cell, one whose
``source`` fields are strings, an empty notebook and invalid JSON. The CLI
side (discovery, formats, cache, stdin) is in tests/shell/test_notebooks_cli.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

from tests.fixture_cases import (
    NOTEBOOKS,
    notebook_bad_cases,
    notebook_code_of,
    notebook_expected_findings,
    notebook_ok_cases,
    notebook_snapshot_of,
)
from trainlint.diagnostics import CellPosition, Location, syntax_error
from tests.test_fixtures import SETTINGS as FIXTURE_SETTINGS
from trainlint.notebook import Notebook, NotebookError, WriteBackError, _source_spans, read_notebook
from trainlint.runner import FileOutcome, FileTask, process_source

SETTINGS = FIXTURE_SETTINGS  # the snapshots are written for a project on the torch the .py fixtures target


def run(path: Path, data: bytes, mode: str = "check", unsafe: bool = True) -> Tuple[FileOutcome, Optional[bytes]]:
    return process_source(str(path), data, FileTask(str(path), SETTINGS, mode, unsafe))


def findings(path: Path, data: bytes) -> set:
    outcome, _ = run(path, data)
    assert not outcome.errors, outcome.errors
    return {(d.cell.cell, d.cell.location.row, d.code) for d in outcome.diagnostics}


def outside_sources(text: str) -> List[str]:
    """The notebook's JSON text cut at every cell's ``source`` value: what a fix must leave byte for byte."""
    pieces, position = [], 0
    for _, start, end in sorted(_source_spans(text).values()):
        pieces.append(text[position:start])
        position = end
    return pieces + [text[position:]]


# --- the fixture contract ---------------------------------------------------------------------


@pytest.mark.parametrize("path", notebook_bad_cases() + notebook_ok_cases(), ids=lambda p: p.name)
def test_findings_equal_expect_markers(path: Path) -> None:
    data = path.read_bytes()
    expected = notebook_expected_findings(json.loads(data))
    if path.name.startswith("bad_"):
        assert {code for _, _, code in expected} == {notebook_code_of(path)}
    else:
        assert not expected
    assert findings(path, data) == expected


@pytest.mark.parametrize("path", notebook_bad_cases(), ids=lambda p: p.name)
def test_fix_equals_snapshot_and_changes_only_the_fixed_sources(path: Path) -> None:
    original = path.read_bytes()
    outcome, fixed = run(path, original, mode="write")
    assert not outcome.errors, outcome.errors
    assert outcome.applied[notebook_code_of(path)] >= 1 and not outcome.diagnostics
    assert fixed == notebook_snapshot_of(path).read_bytes()
    # Outputs, images, metadata, ids, key order, indentation, final newline: all outside the sources, all equal.
    assert outside_sources(fixed.decode()) == outside_sources(original.decode())
    before, after = json.loads(original), json.loads(fixed)
    for old, new in zip(before["cells"], after["cells"]):
        assert type(old["source"]) is type(new["source"])  # a list stays a list of lines, a string a string
        if old["cell_type"] != "code":
            assert old == new
    assert len(before["cells"]) == len(after["cells"])  # a fix never merges or splits cells


@pytest.mark.parametrize("path", notebook_bad_cases(), ids=lambda p: p.name)
def test_a_notebook_without_findings_is_never_rewritten(path: Path) -> None:
    snapshot = notebook_snapshot_of(path)
    outcome, fixed = run(snapshot, snapshot.read_bytes(), mode="write")
    assert (outcome.diagnostics, outcome.errors, fixed) == ([], [], None)


def test_the_outputs_notebook_keeps_its_image_and_outputs_byte_for_byte() -> None:
    path = NOTEBOOKS / "bad_TL201_amp_with_outputs.ipynb"
    original, fixed = path.read_text(encoding="utf-8"), notebook_snapshot_of(path).read_text(encoding="utf-8")
    image = json.loads(original)["cells"][0]["attachments"]["curve.png"]["image/png"]
    assert fixed.count(image) == original.count(image) == 2  # the attachment and the display_data output
    changed = [i for i, (a, b) in enumerate(zip(json.loads(original)["cells"], json.loads(fixed)["cells"])) if a != b]
    assert changed == [1, 4, 5]  # the imports cell, the scaler's cell and the loop's cell; nothing else


def test_string_sources_stay_strings_and_an_added_import_goes_into_the_first_code_cell() -> None:
    fixed = json.loads(notebook_snapshot_of(NOTEBOOKS / "bad_TL301_string_sources.ipynb").read_text(encoding="utf-8"))
    first_code = fixed["cells"][1]["source"]
    assert isinstance(first_code, str)
    assert first_code.startswith("import functools\nimport inspect\n\n%env TOKENIZERS_PARALLELISM=false\nimport torch\n")
    assert "def _forward_kwargs(model, batch):" in first_code and not first_code.endswith("\n")


def test_an_empty_notebook_has_nothing_to_report_or_fix() -> None:
    path = NOTEBOOKS / "ok_empty.ipynb"
    outcome, fixed = run(path, path.read_bytes(), mode="write")
    assert (outcome.diagnostics, outcome.errors, fixed) == ([], [], None)


def test_invalid_json_is_a_syntax_error_finding_not_a_crash() -> None:
    path = NOTEBOOKS / "broken_json.ipynb"
    outcome, fixed = run(path, path.read_bytes(), mode="write")
    assert fixed is None and not outcome.errors
    [finding] = outcome.diagnostics
    assert (finding.code, finding.location, finding.cell) == ("TL001", (6, 3), None)
    assert finding.message == "Invalid notebook JSON: Expecting ',' delimiter"


@pytest.mark.parametrize(
    "data, message",
    [
        (b'{"worksheets": []}', "Not a Jupyter notebook in nbformat 4: no `cells` list (nbformat 3; convert it"),
        (b"[1, 2]", "Not a Jupyter notebook in nbformat 4: no `cells` list"),
        (b'{"cells": [{"cell_type": "code", "source": 3}]}', "Cell 1: `source` must be a string or a list of strings"),
        (b'{"cells": []}\xff', "Cannot decode the notebook as UTF-8: invalid start byte"),
    ],
)
def test_what_is_not_a_notebook_is_said_plainly(data: bytes, message: str) -> None:
    with pytest.raises(NotebookError) as raised:
        read_notebook(data)
    assert str(raised.value).startswith(message)


# --- masking IPython syntax -------------------------------------------------------------------


def notebook(*sources, language: str = "python", as_lists: bool = True, indent: Optional[int] = 1) -> str:
    cells = [
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": s.splitlines(True) if as_lists else s}
        if not s.startswith("# md ")
        else {"cell_type": "markdown", "metadata": {}, "source": s}
        for s in sources
    ]
    document = {"cells": cells, "metadata": {"language_info": {"name": language}}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(document, indent=indent, ensure_ascii=False) + "\n"


def test_ipython_lines_are_masked_line_for_line_and_cell_magics_skipped() -> None:
    parsed = Notebook.parse(
        notebook(
            "!pip install torch\n%matplotlib inline\nimport torch\ntorch.randn?\ntorch.nn??\nfiles = !ls\nt = %timeit -o f()",
            "# md text",
            "%%bash\necho hi",
            "%%time\nx = 1\nif x:\n    !echo \\\n      continued\ny = get_ipython()",
        )
    )
    assert [cell.number for cell in parsed.cells] == [1, 4]  # the markdown and the %%bash cells are not code
    compile(parsed.code, "<nb>", "exec")  # the masked module is Python
    code = parsed.code.splitlines()
    assert len(code) == 13  # one line for one line
    masked = [row for row, line in enumerate(code, start=1) if line.lstrip().startswith("import _ipython_escape")]
    assert masked == [1, 2, 4, 5, 6, 7, 8, 11, 12]  # every escape, a continued one whole; get_ipython() is Python
    assert parsed.rows[2] == (1, 3) and parsed.rows[7] == (4, 1) and parsed.rows[12] == (4, 6)
    assert parsed.display_code().splitlines() == [
        line for source in (parsed.cells[0].source, parsed.cells[1].source) for line in source.splitlines()
    ]


def test_a_cell_that_is_python_already_is_never_masked() -> None:
    source = 'query = "%d rows" % 3\nprint(query)'
    parsed = Notebook.parse(notebook(source))
    assert parsed.code == source + "\n" and not parsed.cells[0].masked


def test_a_notebook_in_another_language_has_no_code() -> None:
    assert Notebook.parse(notebook("x <- c(1, 2)", language="R")).code == ""


@pytest.mark.parametrize("language, kept", [("shellscript", False), ("plaintext", False), ("python", True), (None, True)])
def test_a_cell_vs_code_marks_as_another_language_is_not_python(language: Optional[str], kept: bool) -> None:
    """thuml/Time-Series-Library's tutorial: `pip install ...` and pasted logs in code cells marked `shellscript`
    and `plaintext` were reported as syntax errors (precision round 6)."""
    document = json.loads(notebook("import torch", "pip install -r requirements.txt"))
    if language is not None:
        document["cells"][1]["metadata"] = {"vscode": {"languageId": language}}
    parsed = Notebook.parse(json.dumps(document))
    assert [cell.number for cell in parsed.cells] == ([1, 2] if kept else [1])
    assert bool(parsed.syntax_errors("t.ipynb")) is kept


# --- writing fixes back -----------------------------------------------------------------------


def rewrite(text: str, old: str, new: str) -> str:
    parsed = Notebook.parse(text)
    assert old in parsed.code
    return parsed.rewritten(parsed.code.replace(old, new))[0]


@pytest.mark.parametrize("indent", [1, 2, 4, None])
@pytest.mark.parametrize("as_lists", [True, False])
def test_the_rewrite_keeps_the_notebook_style(indent: Optional[int], as_lists: bool) -> None:
    text = notebook("import torch\nx = 'é'\n", "!nvidia-smi\ny = x  # old", indent=indent, as_lists=as_lists)
    result = rewrite(text, "y = x  # old", "y = x\nz = y")
    document = json.loads(text)
    document["cells"][1]["source"] = ["!nvidia-smi\n", "y = x\n", "z = y"] if as_lists else "!nvidia-smi\ny = x\nz = y"
    assert result == json.dumps(document, indent=indent, ensure_ascii=False) + "\n"


def test_an_ascii_notebook_keeps_its_escapes_and_an_empty_source_gets_nbformat_layout() -> None:
    document = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": []},
                          {"cell_type": "code", "metadata": {}, "outputs": [], "source": ["s = '\u00e9'"]}],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    text = json.dumps(document, indent=1) + "\n"  # ensure_ascii: é is written \u00e9
    parsed = Notebook.parse(text)
    result, _ = parsed.rewritten("import os\n" + parsed.code)
    assert '"s = \'\\u00e9\'"' in result
    assert '"source": [\n    "import os"\n   ]' in result


def test_new_lines_at_a_cell_boundary_join_the_cell_above_and_no_blank_line_is_left_at_a_cell_end() -> None:
    text = notebook("import torch", "x = 1")
    parsed = Notebook.parse(text)
    result, rows = parsed.rewritten("import torch\nimport os\n\nx = 1\n")
    cells = json.loads(result)["cells"]
    assert cells[0]["source"] == ["import torch\n", "import os"] and cells[1]["source"] == ["x = 1"]
    assert rows == [(1, 1), (1, 2), (1, 3), (2, 1)]


def test_a_change_across_a_cell_boundary_is_split_where_each_cell_matches_best() -> None:
    text = notebook("import torch\nfrom torch.cuda.amp import GradScaler", "scaler = GradScaler()\nstep = 0")
    parsed = Notebook.parse(text)
    result, _ = parsed.rewritten("import torch\nscaler = torch.amp.GradScaler('cuda')\nstep = 0\n")
    cells = json.loads(result)["cells"]
    assert cells[0]["source"] == ["import torch"]
    assert cells[1]["source"] == ["scaler = torch.amp.GradScaler('cuda')\n", "step = 0"]


def test_a_fix_that_loses_a_masked_line_is_refused() -> None:
    parsed = Notebook.parse(notebook("!pip install torch\nimport torch"))
    with pytest.raises(WriteBackError, match="removed a line of IPython syntax from cell 1"):
        parsed.rewritten("import torch\n")


def test_a_bom_and_crlf_newlines_survive_a_fix() -> None:
    text = notebook("import torch\ny = 1").replace("\n", "\r\n")
    data = ("\ufeff" + text).encode("utf-8")
    parsed, bom = read_notebook(data)
    result, _ = parsed.rewritten(parsed.code.replace("y = 1", "y = 2"))
    assert bom == "\ufeff" and result == text.replace("y = 1", "y = 2")


@pytest.mark.parametrize("indent", [1, None])
def test_a_one_line_list_grows_in_the_notebook_layout(indent: Optional[int]) -> None:
    text = notebook("y = 1", indent=indent)
    document = json.loads(text)
    document["cells"][0]["source"] = ["y = 2\n", "z = 3"]
    assert rewrite(text, "y = 1", "y = 2\nz = 3") == json.dumps(document, indent=indent, ensure_ascii=False) + "\n"


def test_a_cell_pasted_indented_runs_dedented_as_in_ipython_and_keeps_its_indentation() -> None:
    text = notebook("import torch", " # a pasted cell\n device = 'cpu'\n !nvidia-smi\n\n loss = 1")
    parsed = Notebook.parse(text)
    assert parsed.code.splitlines()[1:] == ["# a pasted cell", "device = 'cpu'", "import _ipython_escape_0", "", "loss = 1"]
    finding = syntax_error("nb.ipynb", 6, 1, "x")._replace(end_location=Location(6, 5))
    assert parsed.place(finding).cell == CellPosition(2, Location(5, 2), Location(5, 6))  # columns of the cell as written
    result, _ = parsed.rewritten(parsed.code.replace("loss = 1", "loss = 1\nsteps = 2"))
    assert json.loads(result)["cells"][1]["source"] == [" # a pasted cell\n", " device = 'cpu'\n", " !nvidia-smi\n", "\n", " loss = 1\n", " steps = 2"]


def test_a_cell_that_does_not_parse_is_reported_and_the_other_cells_are_still_checked_and_fixed(tmp_path: Path) -> None:
    source = notebook(
        "import torch\nfrom torch.utils.data import DataLoader, TensorDataset\n"
        "loader = DataLoader(TensorDataset(torch.randn(8, 2), torch.randn(8, 1)), batch_size=4)\n"
        "model = torch.nn.Linear(2, 1)",
        " optimizer = # TODO: pick an optimizer",  # an exercise left blank, pasted indented
        "total = 0.0\nfor xb, yb in loader:\n    optimizer.zero_grad()\n    loss = torch.nn.functional.mse_loss(model(xb), yb)\n"
        "    loss.backward()\n    optimizer.step()\n    total += loss",
    )
    path = tmp_path / "exercise.ipynb"
    check, _ = run(path, source.encode())
    assert [(d.code, d.cell) for d in check.diagnostics] == [
        ("TL001", CellPosition(2, Location(1, 14), Location(1, 14))),  # columns as written, indentation included
        ("TL401", CellPosition(3, Location(7, 5), Location(7, 18))),
    ]
    fixed, data = run(path, source.encode(), mode="write")
    cells = json.loads(data)["cells"]
    assert cells[1]["source"] == [" optimizer = # TODO: pick an optimizer"]  # never touched
    assert cells[2]["source"][-1] == "    total += loss.item()"
    assert [d.code for d in fixed.diagnostics] == ["TL001"]


def test_a_percent_sign_continuing_a_statement_is_python_not_a_magic() -> None:
    source = "%matplotlib inline\nprint('step %d, loss %.3f'\n      % (3, 0.5))\ntext = '''\n%notmagic\n'''\nx = 1 + \\\n  2"
    parsed = Notebook.parse(notebook(source))
    assert parsed.code.splitlines()[1:] == source.splitlines()[1:]  # only the first line is masked
    assert parsed.cells[0].error is None
