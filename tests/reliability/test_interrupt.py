"""`fix --write` stopped by SIGINT or SIGTERM leaves every file either as it was or completely fixed."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import libcst as cst
import pytest

from trainlint import runner
from trainlint.analysis import ModuleFacts
from trainlint.engine import RuleSettings, _Dispatcher
from trainlint.runner import FileTask, Interrupted
from tests.reliability.processes import finish, fixable_tree, leftovers, start, states

FILES = 300


@pytest.mark.parametrize(
    "signum, whole_group, jobs",
    [
        (signal.SIGINT, True, "2"),  # Ctrl-C in a terminal: the main process and its workers all get it
        (signal.SIGTERM, False, "2"),  # `kill PID`: only the main process gets it
        (signal.SIGTERM, False, "1"),  # no pool: the signal lands in the middle of the file loop
    ],
)
def test_a_killed_fix_leaves_each_file_old_or_new(project: Path, signum: int, whole_group: bool, jobs: str) -> None:
    paths = fixable_tree(project, FILES)
    process = start(project, "fix", "--write", "--no-cache", "-j", jobs)
    try:
        deadline = time.monotonic() + 60
        while states(paths)["fixed"] == 0 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        (os.killpg if whole_group else os.kill)(process.pid, signum)
        returncode, _, stderr = finish(process, timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    counts = states(paths)
    assert counts["other"] == 0
    assert 0 < counts["fixed"] < FILES, counts  # stopped mid-run, not before it started or after it ended
    assert returncode == 128 + signum, stderr
    assert stderr.endswith("trainlint: interrupted: every file is either as it was or completely fixed\n"), stderr
    assert leftovers(project) == []
    with pytest.raises(ProcessLookupError):
        os.killpg(process.pid, 0)  # no worker outlived the run


def _interrupt_masked_by_a_failing_finally(*args: object) -> None:
    """What LibCST's position recorder does when a signal lands inside it: its ``finally``
    raises KeyError, which replaces the interrupt (kept only as ``__context__``)."""
    try:
        raise Interrupted(signal.SIGTERM)
    finally:
        raise KeyError("IndentedBlock(...)")


def test_an_interrupt_masked_by_a_librarys_finally_still_stops_the_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text("import torch\n")
    monkeypatch.setattr(runner, "process_source", _interrupt_masked_by_a_failing_finally)
    with pytest.raises(Interrupted) as raised:
        runner.process_file(FileTask(str(path), RuleSettings(frozenset({"TL201"}))))
    assert raised.value.signum == signal.SIGTERM


def test_an_interrupt_masked_inside_a_rule_is_not_taken_for_a_rule_crash() -> None:
    class MaskingRule:
        code, name = "TL799", "masking"
        visit_Name = staticmethod(_interrupt_masked_by_a_failing_finally)

    facts = ModuleFacts(cst.parse_module("x = 1\n"), "x = 1\n")
    with pytest.raises(Interrupted):
        _Dispatcher([MaskingRule()], "train.py").run(facts)
