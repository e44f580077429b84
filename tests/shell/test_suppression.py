"""Suppression comments hold in check and in fix alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.shell.support import AUTOCAST, invoke, write

pytestmark = pytest.mark.usefixtures("project")

CALL = "x = torch.cuda.amp.autocast()"  # TL701


def codes_on_line(comment: str) -> set:
    write(Path.cwd(), {"m.py": f"import torch\n{CALL}  {comment}\n"})
    result = invoke("check", "-q", "--no-cache")
    return {line.split()[1] for line in result.stdout.splitlines()}


@pytest.mark.parametrize(
    "comment",
    [
        "# noqa",
        "# noqa: TL701",
        "# noqa:TL701",
        "# noqa: TL801, TL701",
        "# noqa:TL801,TL701",
        "# NOQA: tl701",
        "# noqa: TL701 -- reason text",
        "# type: ignore  # noqa: TL701",
        "# trainlint: ignore",
        "# trainlint: ignore[TL701]",
        "# trainlint: ignore[TL801, TL701]",
        "# trainlint: ignore[demo-cuda-autocast]",
    ],
)
def test_suppressed(comment: str) -> None:
    assert codes_on_line(comment) == set()


@pytest.mark.parametrize(
    "comment",
    ["# noqa: TL801", "# noqa: E501", "# trainlint: ignore[TL801]", "# trainlint: ignore[demo-print]", "# a noqa-free comment"],
)
def test_not_suppressed_by_other_codes(comment: str) -> None:
    assert codes_on_line(comment) == {"TL701"}


def test_noqa_inside_a_string_does_not_count(project: Path) -> None:
    write(project, {"m.py": f'import torch\n{CALL}; s = "# noqa: TL701"\n'})
    assert invoke("check", "-q").stdout == "m.py:2:5: TL701 [*] `torch.cuda.amp.autocast` is deprecated\n"


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_rows_of_comments_and_findings_agree_for_every_newline(project: Path, newline: str) -> None:
    lines = ["import torch", "x = 1", f"{CALL}  # noqa", CALL, ""]
    (project / "m.py").write_bytes(newline.join(lines).encode())
    assert invoke("check", "-q").stdout == "m.py:4:5: TL701 [*] `torch.cuda.amp.autocast` is deprecated\n"


def test_noqa_on_the_last_line_of_a_multiline_finding(project: Path) -> None:
    write(project, {"m.py": "import torch\nx = torch.cuda.amp.autocast(\n    enabled=True,\n)  # noqa: TL701\n"})
    assert invoke("check").exit_code == 0


@pytest.mark.parametrize("where", ["first", "last", "indented"])
def test_skip_file(project: Path, where: str) -> None:
    body = AUTOCAST + 'print("x")\n'
    text = {
        "first": "# trainlint: skip-file\n" + body,
        "last": body + "# trainlint: skip-file\n",
        "indented": body + "if True:\n    # trainlint: skip-file\n    pass\n",
    }[where]
    write(project, {"m.py": text})
    assert invoke("check", "--unsafe-fixes").stdout == "All checks passed!\n"
    assert invoke("fix", "--write", "--unsafe-fixes").exit_code == 0
    assert (project / "m.py").read_text() == text


@pytest.mark.parametrize(
    "text",
    ['doc = """\n# trainlint: skip-file\n"""\n', "x = 1  # trainlint: skip-file\n"],
    ids=["inside a string", "after code"],
)
def test_skip_file_only_as_a_comment_on_its_own_line(project: Path, text: str) -> None:
    write(project, {"m.py": AUTOCAST + text})
    assert invoke("check", "-q").stdout.startswith("m.py:3:6: TL701")


def test_fix_leaves_suppressed_findings_alone(project: Path) -> None:
    text = "import torch\nx = torch.cuda.amp.autocast()  # noqa: TL701\ny = torch.cuda.amp.autocast()\nprint(x)  # trainlint: ignore[TL801]\n"
    write(project, {"m.py": text})
    result = invoke("fix", "--write", "--unsafe-fixes")
    assert (result.exit_code, result.stdout) == (0, "Fixed 1 finding.\n")
    assert (project / "m.py").read_text() == text.replace('y = torch.cuda.amp.autocast()', 'y = torch.autocast("cuda")')
    assert "@@" not in invoke("fix", "--unsafe-fixes").stdout
