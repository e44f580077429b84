"""Bytes in, bytes out: TL001 for what cannot be read, encodings/newlines/modes kept, atomic writes, patches that apply."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from tests.shell.support import AUTOCAST, AUTOCAST_FIXED, CLEAN, EVAL, invoke, write
from trainlint.source import DecodeError, decode, write_atomically

pytestmark = pytest.mark.usefixtures("project")

LATIN1 = "# -*- coding: latin-1 -*-\r\nimport torch\r\nname = 'café'\r\nwith torch.cuda.amp.autocast():\r\n    pass\r\n"


def write_bytes(root: Path, files: dict) -> None:
    for name, data in files.items():
        (root / name).write_bytes(data)


# --- TL001 ------------------------------------------------------------------------------------


def test_unreadable_files_are_tl001_and_the_run_goes_on(project: Path) -> None:
    write_bytes(
        project,
        {
            "syntax.py": b"print(1\n",
            "undecodable.py": "x = 1\ns = 'caf\xe9'\n".encode("latin-1"),  # latin-1 bytes, no declaration
            "binary.py": bytes(range(256)),
            "unknown.py": "# coding: klingon\ns = 'caf\xe9'\n".encode("latin-1"),
            "good.py": EVAL.encode(),
        },
    )
    result = invoke("check")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "binary.py:1:1: TL001 The file contains null bytes; it does not look like Python source",
        "good.py:1:1: TL702 Use of `eval`",
        "syntax.py:1:6: TL001 SyntaxError: '(' was never closed",
        "undecodable.py:2:9: TL001 Cannot decode the file as utf-8: invalid continuation byte "
        "(declare the encoding with a `# -*- coding: ... -*-` line)",
        "unknown.py:1:1: TL001 Unknown encoding: klingon, and the file is not UTF-8",
        "Found 5 findings.",
    ]


def test_syntax_error_without_trigger_text_is_tl001(project: Path) -> None:
    write(project, {"m.py": "def f(:\n    pass\n"})
    assert invoke("check", "-q").stdout.startswith("m.py:1:")
    assert " TL001 " in invoke("check", "-q").stdout


def test_a_file_with_a_syntax_error_is_never_fixed_and_others_are(project: Path) -> None:
    broken = AUTOCAST + "print(1\n"
    write(project, {"broken.py": broken, "a.py": AUTOCAST})
    result = invoke("fix", "--write", "--unsafe-fixes")
    assert result.exit_code == 1
    assert (project / "broken.py").read_text() == broken
    assert (project / "a.py").read_text() == AUTOCAST_FIXED
    assert result.stdout.startswith("broken.py:5:6: TL001 SyntaxError: '(' was never closed\n")


def test_json_of_tl001_has_no_fix(project: Path) -> None:
    import json

    write(project, {"syntax.py": "print(1\n"})
    (finding,) = json.loads(invoke("check", "--output-format", "json").stdout)
    assert (finding["code"], finding["name"], finding["fix"]) == ("TL001", "syntax-error", None)


# --- decoding ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data, encoding",
    [
        (b"x = 1\n", "utf-8"),
        (b"\xef\xbb\xbfx = 1\r\n", "utf-8-sig"),
        (LATIN1.encode("latin-1"), "iso-8859-1"),
        (b"x = 1\r\ny = 2\rz = 3\n", "utf-8"),  # mixed newlines survive untranslated
        (b"# -*- coding: future_fstrings -*-\nname = 'caf\xc3\xa9'\n", "utf-8"),  # a codec this Python lacks
    ],
)
def test_decode_round_trips_bytes(data: bytes, encoding: str) -> None:
    source = decode(data)
    assert source.encoding == encoding
    assert source.encode(source.text) == data


def test_a_bom_contradicting_the_declaration_is_a_decode_error() -> None:
    with pytest.raises(DecodeError, match="UTF-8 BOM but declares another encoding"):
        decode(b"\xef\xbb\xbf# coding: latin-1\nx = 1\n")


# --- writing ----------------------------------------------------------------------------------


def test_fix_keeps_encoding_newlines_and_permissions(project: Path) -> None:
    write_bytes(project, {"latin.py": LATIN1.encode("latin-1"), "bom.py": b"\xef\xbb\xbf" + AUTOCAST.replace("\n", "\r\n").encode()})
    os.chmod(project / "latin.py", 0o751)
    result = invoke("fix", "--write")
    assert (result.exit_code, result.stdout) == (0, "Fixed 2 findings.\n")
    fixed = LATIN1.replace("torch.cuda.amp.autocast()", 'torch.autocast("cuda")')
    assert (project / "latin.py").read_bytes() == fixed.encode("latin-1")
    assert stat.S_IMODE((project / "latin.py").stat().st_mode) == 0o751
    assert (project / "bom.py").read_bytes() == b"\xef\xbb\xbf" + AUTOCAST_FIXED.replace("\n", "\r\n").encode()


def test_a_codec_this_python_lacks_is_linted_and_fixed_as_utf8(project: Path) -> None:
    """``future_fstrings`` is registered by the project's environment, not the linter's (recall audit, FCGF)."""
    cookie = "# -*- coding: future_fstrings -*-\n# café\n"
    write_bytes(project, {"a.py": (cookie + AUTOCAST).encode()})
    assert invoke("check").stdout.startswith("a.py:5:6: TL701 ")
    result = invoke("fix", "--write")
    assert (result.exit_code, result.stdout) == (0, "Fixed 1 finding.\n")
    assert (project / "a.py").read_bytes() == (cookie + AUTOCAST_FIXED).encode()


def test_files_without_a_fix_are_never_rewritten(project: Path) -> None:
    write(project, {"clean.py": CLEAN, "unfixable.py": EVAL, "a.py": AUTOCAST})
    before = {name: (project / name).stat() for name in ("clean.py", "unfixable.py")}
    os.utime(project / "clean.py", ns=(1_000_000_000, 1_000_000_000))
    before["clean.py"] = (project / "clean.py").stat()
    assert invoke("fix", "--write").exit_code == 1
    for name, info in before.items():
        after = (project / name).stat()
        assert (after.st_ino, after.st_mtime_ns, after.st_size) == (info.st_ino, info.st_mtime_ns, info.st_size)
    assert (project / "a.py").read_text() == AUTOCAST_FIXED


def test_write_atomically_replaces_in_one_step_and_keeps_the_mode(project: Path) -> None:
    target = project / "m.py"
    target.write_bytes(b"old\n")
    os.chmod(target, 0o640)
    write_atomically(target, b"new\n")
    assert target.read_bytes() == b"new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in project.iterdir()) == ["m.py"]


def test_a_failed_write_leaves_the_original_and_no_temporary_file(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(project, {"a.py": AUTOCAST})

    def refuse(source, destination):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    result = invoke("fix", "--write", "--no-cache")
    assert result.exit_code == 2
    assert "a.py: cannot write the fix: Permission denied" in result.stderr
    assert (project / "a.py").read_text() == AUTOCAST
    assert sorted(p.name for p in project.iterdir()) == ["a.py"]


def test_a_file_changed_while_fixing_is_left_alone(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from trainlint import runner

    write(project, {"a.py": AUTOCAST})
    real = runner.process_source

    def edit_meanwhile(path, data, task):
        outcome = real(path, data, task)
        Path(path).write_text("x = 2\n")
        return outcome

    monkeypatch.setattr(runner, "process_source", edit_meanwhile)
    result = invoke("fix", "--write", "--no-cache")
    assert (project / "a.py").read_text() == "x = 2\n"
    assert "a.py: changed on disk while it was being fixed; left as it is" in result.stderr


# --- diffs ------------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_dry_run_diff_applies_with_git_apply(project: Path, tmp_path_factory, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {
        "plain.py": AUTOCAST.encode(),
        "src/crlf.py": AUTOCAST.replace("\n", "\r\n").encode(),
        "bom.py": b"\xef\xbb\xbf" + AUTOCAST.encode(),
        "latin.py": LATIN1.encode("latin-1"),
        "no_newline.py": AUTOCAST.rstrip("\n").encode(),
    }
    (project / "src").mkdir()
    write_bytes(project, files)
    patch = invoke("fix").stdout_bytes
    assert patch.count(b"\n--- a/") + patch.startswith(b"--- a/") == len(files)
    assert b"+++ b/src/crlf.py\n" in patch
    expected = tmp_path_factory.mktemp("expected")
    shutil.copytree(project, expected, dirs_exist_ok=True)
    monkeypatch.chdir(expected)
    assert invoke("fix", "--write").exit_code == 0
    monkeypatch.chdir(project)
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "apply", "-"], cwd=project, input=patch, check=True, capture_output=True)
    for name in files:
        assert (project / name).read_bytes() == (expected / name).read_bytes(), name
