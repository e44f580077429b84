"""Notebooks through the command line: discovery and `include`, positions in every format, suppressions,
stdin, the cache and the worker pool (with the demo rules: TL701 autocast, TL702 eval, TL801 print)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

import pytest

from tests.shell.support import AUTOCAST, EVAL, invoke, notebook, write
from trainlint import runner

pytestmark = pytest.mark.usefixtures("project")


TRAIN = notebook("!pip install torch\nimport torch", "%%bash\nprint(x)", "x = 1\nwith torch.cuda.amp.autocast():\n    pass")
# TL701 in cell 4 (markdown is cell 1), row 2, column 6; concatenated code row 4


def lines(result) -> Sequence[str]:
    return result.stdout.splitlines()


def test_notebooks_are_found_beside_python_files_and_named_by_cell(project: Path) -> None:
    write(project, {"train.ipynb": TRAIN, "m.py": EVAL, "notes.txt": "x\n"})
    result = invoke("check", "--no-cache")
    assert result.exit_code == 1
    assert lines(result)[:2] == [
        "m.py:1:1: TL702 Use of `eval`",
        "train.ipynb:cell 4:2:6: TL701 [*] `torch.cuda.amp.autocast` is deprecated",
    ]


def test_include_replaces_the_default_and_extend_include_adds_to_it(project: Path) -> None:
    write(project, {"train.ipynb": TRAIN, "m.py": EVAL, "tool.pyw": EVAL, "trainlint.yaml": "include: ['*.py']\n"})
    assert [line.split(":")[0] for line in lines(invoke("check", "-q", "--no-cache"))] == ["m.py"]
    write(project, {"trainlint.yaml": "extend-include: ['*.pyw']\n"})
    assert [line.split(":")[0] for line in lines(invoke("check", "-q", "--no-cache"))] == ["m.py", "tool.pyw", "train.ipynb"]


def test_a_named_notebook_is_checked_whatever_include_says(project: Path) -> None:
    write(project, {"train.ipynb": TRAIN, "trainlint.yaml": "include: ['*.py']\n"})
    assert invoke("check", "--no-cache", "train.ipynb").exit_code == 1


def test_a_syntax_error_in_a_cell_is_reported_in_that_cell(project: Path) -> None:
    write(project, {"train.ipynb": notebook("import torch", "x = (1,\ny = 2")})
    result = invoke("check", "--no-cache")
    assert lines(result)[0].startswith("train.ipynb:cell 3:1:5: TL001 SyntaxError: ")


def test_a_bad_include_value_is_an_error_naming_the_key(project: Path) -> None:
    write(project, {"trainlint.yaml": "extend-include: 3\n", "m.py": EVAL})
    result = invoke("check")
    assert result.exit_code == 2
    assert result.stderr.startswith("trainlint: error: trainlint.yaml:1:17: `extend-include` must be a list of strings, got 3")


def test_a_named_file_that_is_neither_python_nor_a_notebook_is_an_error(project: Path) -> None:
    write(project, {"data.json": "{}\n", "m.py": EVAL})
    result = invoke("check", "--no-cache", "data.json", "m.py")
    assert result.exit_code == 2
    assert lines(result)[0] == "m.py:1:1: TL702 Use of `eval`"
    assert "data.json: not a Python file or a Jupyter notebook" in result.stderr


def test_a_named_notebook_is_read_as_a_notebook_even_when_it_holds_no_cells_of_code(project: Path) -> None:
    write(project, {"broken.ipynb": '{"cells": [\n'})
    result = invoke("check", "--no-cache", "broken.ipynb")
    assert (result.exit_code, lines(result)[0]) == (1, "broken.ipynb:2:1: TL001 Invalid notebook JSON: Expecting value")


def test_fix_writes_only_the_changed_cell_and_an_added_import_goes_into_the_first_code_cell(project: Path) -> None:
    source = notebook("%matplotlib inline\nimport os", "print(os.getcwd())  # noqa: TL702")
    write(project, {"train.ipynb": source})
    result = invoke("fix", "--write", "--unsafe-fixes", "--no-cache", "train.ipynb")
    assert result.exit_code == 0, result.stderr
    fixed = json.loads((project / "train.ipynb").read_text(encoding="utf-8"))
    expected = json.loads(source)
    expected["cells"][1]["source"] = ["import logging\n", "\n", "%matplotlib inline\n", "import os"]  # isort's sections
    expected["cells"][2]["source"] = ["logging.info(os.getcwd())  # noqa: TL702"]
    assert fixed == expected
    assert (project / "train.ipynb").read_text(encoding="utf-8").startswith('{\n "cells": [\n  {\n   "cell_type": "markdown"')


def test_the_dry_run_diff_applies_to_the_notebook_file(project: Path) -> None:
    write(project, {"train.ipynb": TRAIN})
    result = invoke("fix", "--no-cache", "train.ipynb")
    assert result.exit_code == 1
    assert result.stdout.startswith("--- a/train.ipynb\n+++ b/train.ipynb\n")
    assert '-    "with torch.cuda.amp.autocast():\\n",\n+    "with torch.autocast(\\"cuda\\"):\\n",\n' in result.stdout
    assert (project / "train.ipynb").read_text(encoding="utf-8") == TRAIN


@pytest.mark.parametrize(
    "comment", ["  # noqa: TL701", "  # trainlint: ignore[TL701]", "  # noqa"], ids=["noqa-code", "ignore", "noqa"]
)
def test_line_suppressions_work_on_a_cell_line(project: Path, comment: str) -> None:
    write(project, {"train.ipynb": notebook("import torch", "with torch.cuda.amp.autocast():" + comment + "\n    pass")})
    assert invoke("check", "--no-cache").exit_code == 0


def test_skip_file_in_any_code_cell_skips_the_notebook(project: Path) -> None:
    write(project, {"train.ipynb": notebook("import torch\nwith torch.cuda.amp.autocast():\n    pass", "# trainlint: skip-file")})
    assert invoke("check", "--no-cache").exit_code == 0


@pytest.mark.parametrize("fmt", ["json", "sarif", "github", "full"])
def test_every_format_says_which_cell(project: Path, fmt: str) -> None:
    write(project, {"train.ipynb": TRAIN})
    result = invoke("check", "--no-cache", "--output-format", fmt)
    assert result.exit_code == 1
    if fmt == "json":
        [finding] = json.loads(result.stdout)
        assert (finding["cell"], finding["cell_location"], finding["location"]) == (4, {"row": 2, "column": 6}, {"row": 4, "column": 6})
    elif fmt == "sarif":
        [finding] = json.loads(result.stdout)["runs"][0]["results"]
        assert finding["properties"]["cell"] == 4 and finding["properties"]["cellStartLine"] == 2
        assert finding["locations"][0]["physicalLocation"]["region"]["startLine"] == 4
    elif fmt == "github":
        assert lines(result)[0] == (
            "::error title=trainlint (TL701),file=train.ipynb::train.ipynb:cell 4:2:6: TL701 `torch.cuda.amp.autocast` is deprecated"
        )
    else:
        assert lines(result)[1:3] == ["   2 | with torch.cuda.amp.autocast():", " " * 12 + "^" * len("torch.cuda.amp.autocast()")]


def test_stdin_named_as_a_notebook_is_checked_and_fixed_as_one(project: Path) -> None:
    checked = invoke("check", "--stdin-filename", "train.ipynb", "-", stdin=TRAIN.encode())
    assert (checked.exit_code, lines(checked)[0].split(" TL701")[0]) == (1, "train.ipynb:cell 4:2:6:")
    fixed = invoke("check", "--fix", "--stdin-filename", "train.ipynb", "-", stdin=TRAIN.encode())
    assert fixed.exit_code == 0
    assert json.loads(fixed.stdout)["cells"][3]["source"] == ["x = 1\n", 'with torch.autocast("cuda"):\n', "    pass"]


def test_the_cache_and_the_pool_keep_the_cells(project: Path) -> None:
    count = runner.MIN_FILES_FOR_POOL + 2
    write(project, {f"nb{i:02d}.ipynb": TRAIN for i in range(count)})
    write(project, {"m.py": AUTOCAST})
    cold = invoke("check", "--jobs", "2")
    warm = invoke("check", "--jobs", "2")
    assert cold.exit_code == warm.exit_code == 1
    assert cold.stdout == warm.stdout
    assert lines(cold)[0] == "m.py:3:6: TL701 [*] `torch.cuda.amp.autocast` is deprecated"
    assert lines(cold)[1].startswith("nb00.ipynb:cell 4:2:6: TL701")
    assert sum(":cell 4:2:6:" in line for line in lines(warm)) == count


def test_a_clean_notebook_is_never_rewritten(project: Path) -> None:
    write(project, {"clean.ipynb": notebook("import torch\n!ls\nx = 1")})
    before = (project / "clean.ipynb").stat().st_mtime_ns
    assert invoke("fix", "--write", "--no-cache", "clean.ipynb").exit_code == 0
    assert (project / "clean.ipynb").stat().st_mtime_ns == before
