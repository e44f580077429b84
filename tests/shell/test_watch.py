"""`trainlint check --watch`: a check now and after each change, bounded here by a number of checks
(in-process) or by Ctrl-C (a real process)."""

from __future__ import annotations

import io
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests.shell.support import CLEAN, EVAL, console_script, demo_env, invoke, write
from trainlint.watch import snapshot, watch

pytestmark = pytest.mark.usefixtures("project")


def test_snapshot_sees_python_and_configuration_files_only(project: Path) -> None:
    write(project, {"a.py": CLEAN, "b.pyi": CLEAN, "notes.txt": "", "trainlint.yaml": "{}\n", ".venv/lib/x.py": CLEAN, "__pycache__/y.py": CLEAN})
    assert sorted(Path(path).name for path in snapshot(["."])) == ["a.py", "b.pyi", "trainlint.yaml"]


def test_snapshot_sees_the_configuration_above_a_watched_path(project: Path) -> None:
    write(project, {"src/a.py": CLEAN, "pyproject.toml": "[tool.trainlint]\n"})
    before = {top: snapshot([top]) for top in ("src", "src/a.py")}
    assert all(str(project / "pyproject.toml") in listed for listed in before.values())
    write(project, {".gitignore": "a.py\n"})  # created above the watched folder and file: a change
    assert all(snapshot([top]) != listed for top, listed in before.items())


def test_a_change_triggers_another_check(project: Path) -> None:
    write(project, {"a.py": CLEAN})
    checks = []

    def check() -> int:
        checks.append((project / "a.py").read_text())
        if len(checks) == 1:  # change the file once the first check is done, from elsewhere
            threading.Timer(0.2, lambda: (project / "a.py").write_text(EVAL + EVAL)).start()
        return len(checks)

    stream = io.StringIO()
    assert watch(check, ["."], interval=0.05, max_checks=2, stream=stream) == 2
    assert checks == [CLEAN, EVAL + EVAL]
    assert [line.split("] ", 1)[1] for line in stream.getvalue().splitlines()] == [
        "Starting linter in watch mode...",
        "Watching for file changes.",
        "File change detected...",
        "Watching for file changes.",
    ]


def test_watch_does_not_read_stdin(project: Path) -> None:
    result = invoke("check", "--watch", "-")
    assert result.exit_code == 2 and "--watch checks files, not stdin" in result.stderr


def _wait_for(stream, text: str, deadline: float) -> str:
    seen = ""
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        seen += line
        if text in line:
            return seen
    raise AssertionError(f"no {text!r} in time; got {seen!r}")


def _default_sigint() -> None:
    """Ctrl-C as a terminal delivers it: a suite started in the background (`pytest &`) hands its children SIGINT
    ignored, and Python then never raises KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_a_real_watch_run_until_ctrl_c(project: Path) -> None:
    write(project, {"a.py": CLEAN})
    process = subprocess.Popen(
        [console_script(), "check", "--watch", "--no-cache"],
        cwd=project, env=demo_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=_default_sigint,
    )
    killer = threading.Timer(90, process.kill)  # a hung watch ends the reads below (EOF) instead of the test run
    killer.start()
    try:
        deadline = time.monotonic() + 60
        _wait_for(process.stderr, "Watching for file changes.", deadline)
        (project / "a.py").write_text(EVAL)
        seen = _wait_for(process.stderr, "Watching for file changes.", deadline)
        assert "File change detected..." in seen
        process.send_signal(signal.SIGINT)
        stdout, _ = process.communicate(timeout=30)
    finally:
        killer.cancel()
        process.kill()
    assert process.returncode == 130
    assert stdout.splitlines() == ["All checks passed!", "a.py:1:1: TL702 Use of `eval`", "Found 1 finding."]
