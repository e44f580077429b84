"""Bad input gives a clear message or finding, the run goes on, and the exit code follows the contract.

Covered in tests/shell already: syntax errors, undecodable bytes, a binary file,
an unknown encoding (test_source.py), a directory symlink loop and a missing
path (test_discovery.py). Here: everything else the issue lists.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import libcst
import pytest

from tests.shell.support import AUTOCAST, EVAL, console_script, demo_env, invoke, write
from trainlint import runner

E_TL702 = "m.py:1:1: TL702 Use of `eval`"


@pytest.fixture
def demo(project: Path, demo_registry: None) -> Path:
    write(project, {"m.py": EVAL})  # a good file beside the bad one: it must still be checked
    return project


# --- the newest syntax LibCST parses, with the real rules -----------------------------------------------------

TRAINING_LOOP = """import torch


def train(model, loader, optimizer):
    losses = []
    for batch in loader:
        optimizer.zero_grad()
        loss = model(batch).sum()
        loss.backward()
        optimizer.step()
        losses.append(loss)
    return losses
"""
NEWEST_SYNTAX = {
    "match (3.10)": "match command:\n    case {'lr': lr, **rest} if rest:\n        pass\n    case [x, *_] | (x,):\n        pass\n    case Point(x=0):\n        pass\n",
    "except* (3.11)": "try:\n    pass\nexcept* (ValueError, TypeError) as group:\n    print(group.exceptions)\n",
    "PEP 695 generics (3.12)": "class Box[T: int, *Shape, **P]:\n    def get[S](self, x: S) -> S:\n        return x\n",
    "PEP 695 type alias (3.12)": "type Batch[T] = dict[str, T]\n",
    "PEP 696 defaults (3.13)": "def first[T = int](xs: list[T]) -> T:\n    return xs[0]\n",
    "PEP 701 f-string nesting (3.12)": 'name = f"{f"{f"{1 + 1}"}"!r:>{10}}"\ntext = f"{"\\n".join(["a", "b"])}"\n',
    "PEP 750 t-strings (3.14)": 'message = t"step {1}"\n',
    "PEP 758 except without parentheses (3.14)": "try:\n    pass\nexcept ValueError, TypeError:\n    pass\n",
}


@pytest.mark.parametrize("feature", NEWEST_SYNTAX)
def test_newest_syntax_is_checked_and_fixed(project: Path, feature: str) -> None:
    """With all real rules selected: no syntax error, no crash, the loop's defect found and fixed, nothing else touched."""
    source = TRAINING_LOOP + "\n\n" + NEWEST_SYNTAX[feature]
    libcst.parse_module(source)  # if this raises, LibCST (not trainlint) cannot parse the feature
    write(project, {"m.py": source})
    checked = invoke("check", "--no-cache", "-q")
    assert (checked.exit_code, checked.stderr) == (1, "")
    assert [line.split()[1] for line in checked.stdout.splitlines()] == ["TL401"]
    fixed = invoke("fix", "--write", "--unsafe-fixes", "--no-cache")
    assert (fixed.exit_code, fixed.stderr) == (0, "")
    before, after = source.splitlines(), (project / "m.py").read_text().splitlines()
    changed = [row for row, (old, new) in enumerate(zip(before, after), 1) if old != new]
    assert (len(after), changed) == (len(before), [11])  # only `losses.append(loss)`, which the fix detaches


# --- files that cannot be read ---------------------------------------------------------------------------------


def run_for(seconds: int, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The real console script, with the demo rules, killed if it hangs."""
    return subprocess.run([console_script(), *args], cwd=cwd, capture_output=True, env=demo_env(), timeout=seconds, text=True)


def test_a_fifo_named_py_is_refused_without_waiting_on_it(demo: Path) -> None:
    os.mkfifo(demo / "pipe.py")
    result = run_for(60, "check", cwd=demo)  # opening a FIFO for reading would block until a writer comes
    assert (result.returncode, result.stdout.splitlines()[0]) == (2, E_TL702)
    assert "error: pipe.py: cannot read: not a regular file" in result.stderr


def test_a_fifo_named_on_the_command_line_is_refused_as_such(demo: Path) -> None:
    """Not "Not a directory": a path that is no folder is read as a file, and refused as one."""
    os.mkfifo(demo / "pipe.py")
    result = run_for(60, "check", "pipe.py", "m.py", cwd=demo)
    assert (result.returncode, result.stdout.splitlines()[0]) == (2, E_TL702)
    assert result.stderr.splitlines() == ["error: pipe.py: cannot read: not a regular file"]


def test_a_folder_named_like_a_python_file_is_walked(demo: Path) -> None:
    write(demo, {"pkg.py/inner.py": AUTOCAST})
    for args in ((), ("pkg.py", "m.py")):
        result = invoke("check", "--no-cache", "-q", *args)
        assert (result.exit_code, result.stdout.splitlines()) == (1, [E_TL702, "pkg.py/inner.py:3:6: TL701 [*] `torch.cuda.amp.autocast` is deprecated"])


def test_an_unreadable_file_is_an_error_and_the_rest_is_checked(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """chmod 000 does not stop root, so the refusal is simulated where the file is opened."""
    write(demo, {"secret.py": EVAL})
    real_open = os.open

    def refuse_secret(path, flags, *args, **kwargs):
        if str(path).endswith("secret.py"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse_secret)
    result = invoke("check", "-q")
    assert (result.exit_code, result.stdout.splitlines()) == (2, [E_TL702])
    assert "error: secret.py: cannot read: Permission denied" in result.stderr


def test_a_dangling_symlink_is_an_error_and_the_rest_is_checked(demo: Path) -> None:
    os.symlink("gone.py", demo / "dangling.py")
    result = invoke("check", "--no-cache", "-q")
    assert (result.exit_code, result.stdout.splitlines()) == (2, [E_TL702])
    assert "error: dangling.py: cannot read: No such file or directory" in result.stderr


# --- LibCST's own limits and failures --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source, finding",
    [
        ("print(" + "[" * 3000 + "]" * 3000 + ")\n", "m.py:1:206: TL001 SyntaxError: too many nested parentheses"),
        ("print(1" + " + 1" * 20000 + ")\n", "m.py:1:1: TL001 The file is nested too deeply to parse"),
    ],
    ids=["3000 nested brackets", "a sum of 20000 terms"],
)
def test_code_nested_beyond_the_parsers_limits_is_a_finding_not_a_crash(demo: Path, source: str, finding: str) -> None:
    """LibCST 1.9's native parser dies by SIGSEGV on both (from ~1500 brackets, ~10000 terms): CPython refuses them first.

    A real process, so that a segmentation fault fails the test instead of killing pytest.
    """
    write(demo, {"m.py": source})
    result = run_for(60, "check", "--no-cache", "-q", cwd=demo)
    assert (result.returncode, result.stdout.splitlines()) == (1, [finding])


def test_valid_code_too_deep_to_analyse_is_an_error_and_the_rest_is_checked(demo: Path) -> None:
    write(demo, {"deep.py": "print(1" + " + 1" * 600 + ")\n"})  # CPython compiles it; walking its tree overflows
    result = invoke("check", "--no-cache", "-q")
    assert (result.exit_code, result.stdout.splitlines()) == (2, [E_TL702])
    assert "error: deep.py: the code is nested too deeply to analyse; it was not checked" in result.stderr


class PanicException(BaseException):
    """Stands in for pyo3's PanicException, which a panic in LibCST's Rust parser raises: not an Exception."""


@pytest.mark.parametrize("failure", [TypeError("super(type, obj): obj must be an instance"), PanicException("index out of bounds")])
def test_a_libcst_crash_is_an_error_naming_libcst_and_the_rest_is_checked(
    demo: Path, monkeypatch: pytest.MonkeyPatch, failure: BaseException
) -> None:
    """LibCST 1.9 raises TypeError on `() if 0 else(lambda:())`, valid Python; a Rust panic raises a BaseException."""
    write(demo, {"odd.py": "print(() if 0 else(lambda:()))\n"})
    real_parse = libcst.parse_module

    def parse(source, *args, **kwargs):
        if "lambda" in source:
            raise failure
        return real_parse(source, *args, **kwargs)

    monkeypatch.setattr(libcst, "parse_module", parse)
    result = invoke("check", "--no-cache", "-q")
    assert (result.exit_code, result.stdout.splitlines()) == (2, [E_TL702])
    version = libcst_version()
    assert f"error: odd.py: LibCST {version} failed to parse this file ({type(failure).__name__}: {failure}); it was not checked" in result.stderr


def libcst_version() -> str:
    from importlib.metadata import version

    return version("libcst")


def test_a_final_cr_newline_that_libcst_drops_blocks_the_fix_with_a_clear_error(demo: Path) -> None:
    """LibCST 1.9 writes `x = 1\\r` back as `x = 1`: such a file is reported, never fixed."""
    source = AUTOCAST.replace("\n", "\r").encode()
    (demo / "cr.py").write_bytes(source)
    result = invoke("fix", "--write", "--no-cache")
    assert result.exit_code == 2
    assert (demo / "cr.py").read_bytes() == source
    assert "cr.py:3:6: TL701 [*]" in result.stdout
    assert "error: LibCST would not write cr.py back byte for byte (it drops a final CR newline), so no fix is applied" in result.stderr


# --- a 5 MB generated file -------------------------------------------------------------------------------------


def generated_table(size: int) -> str:
    rows, total, index = ["import torch\n\nTABLE = [\n"], 0, 0
    while total < size:
        row = f'    ({index}, {index * 0.5!r}, "token_{index:07d}", {{"id": {index}, "weight": {index % 97 / 7:.6f}}}),\n'
        rows.append(row)
        total += len(row)
        index += 1
    return "".join(rows) + "]\n\nwith torch.cuda.amp.autocast():\n    pass\n"


def test_a_5_mb_generated_file_gets_a_syntax_check_and_a_warning_in_seconds(demo: Path) -> None:
    """Analysed, this file would take ~2.5 minutes to check and ~4.5 to fix (see runner.MAX_ANALYSED_BYTES)."""
    write(demo, {"table.py": generated_table(5_000_000)})
    os.utime(demo / "table.py", ns=(10**9, 10**9))
    started = time.monotonic()
    result = invoke("fix", "--write")  # not -q, which drops warnings
    elapsed = time.monotonic() - started
    assert (result.exit_code, result.stdout.splitlines()[0]) == (1, E_TL702)
    assert "warning: table.py: 4.8 MiB, larger than the 1 MiB trainlint analyses (generated code?); only its syntax was checked" in result.stderr
    assert (demo / "table.py").stat().st_mtime_ns == 10**9
    assert elapsed < 20, f"{elapsed:.1f} s"
    assert runner.MAX_ANALYSED_BYTES < 5_000_000


def test_a_5_mb_file_with_a_syntax_error_gets_its_finding(demo: Path) -> None:
    write(demo, {"table.py": generated_table(5_000_000) + "print(1\n"})
    result = invoke("check", "--no-cache", "-q", "table.py")
    assert (result.exit_code, result.stdout) == (1, f"table.py:{generated_table(5_000_000).count(chr(10)) + 1}:6: TL001 SyntaxError: '(' was never closed\n")


def test_null_bytes_are_a_syntax_error_where_compile_raises_value_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Python 3.10's compile() raises ValueError for a null byte (3.11+ raise SyntaxError): an editor's
    buffer, which no decoder has screened, must still get its TL001 finding."""
    from trainlint import engine

    def compile_as_on_3_10(source: str, *args: object, **kwargs: object) -> object:
        if "\0" in source:
            raise ValueError("source code string cannot contain null bytes")
        return compile(source, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(engine, "compile", compile_as_on_3_10, raising=False)
    tree, error, beyond_limits = engine.python_tree('x = "a\0b"\n', "buffer.py")
    assert (tree, beyond_limits) == (None, False)
    assert (error.code, error.message) == ("TL001", "SyntaxError: source code string cannot contain null bytes")
