"""Parsing the command line: usage errors, option values, environment variables, where PATHS may go."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.shell.support import AUTOCAST, EVAL, PRINT, invoke, write

pytestmark = pytest.mark.usefixtures("project")


def test_no_command_is_a_usage_error_on_stderr() -> None:
    result = invoke()
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("usage: trainlint") and "COMMAND" in result.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["check", "--bogus"], "unrecognized arguments: --bogus"),
        (["check", "--sel", "TL7"], "unrecognized arguments: --sel"),  # no abbreviations, as with click
        (["rules", "extra"], "unrecognized arguments: extra"),
        (["chek"], "invalid choice: 'chek'"),
        (["check", "--jobs", "0"], "argument -j/--jobs: must be at least 1, not 0"),
        (["check", "-j", "two"], "argument -j/--jobs: 'two' is not an integer"),
        (["check", "--output-format", "xml"], "argument --output-format: invalid choice: 'xml'"),
        (["check", "--config", "."], "argument --config: '.' is a directory"),
    ],
)
def test_usage_errors_exit_2_with_argparse_messages(args, message: str) -> None:
    result = invoke(*args)
    assert result.exit_code == 2 and result.stdout == ""
    assert message in result.stderr and "Traceback" not in result.stderr


def test_help_and_version_exit_0() -> None:
    assert invoke("--version").stdout.startswith("trainlint, version ")
    for args in (["--help"], ["check", "-h"], ["fix", "--help"], ["rule", "--help"]):
        result = invoke(*args)
        assert result.exit_code == 0 and result.stdout.startswith("usage: trainlint"), args


def test_paths_may_come_between_and_after_options(project: Path) -> None:
    write(project, {"a.py": AUTOCAST, "e.py": EVAL, "-dash.py": EVAL})
    result = invoke("check", "a.py", "--no-cache", "e.py", "--exit-zero", "--", "-dash.py")
    assert result.exit_code == 0
    assert {line.split(":")[0] for line in result.stdout.splitlines() if ": TL" in line} == {"a.py", "e.py", "-dash.py"}


@pytest.mark.parametrize(
    "args", [["check", "-", "a.py"], ["fix", "-", "a.py"], ["check", "--fix", "a.py", "-"], ["check", "a.py", "--", "-"], ["check", "-", "-"]]
)
def test_stdin_beside_other_paths_is_a_usage_error(project: Path, args) -> None:
    """`-` is stdin only as the sole path; beside others it was looked up as a file named `-`."""
    write(project, {"a.py": AUTOCAST})
    result = invoke(*args, stdin=AUTOCAST.encode())
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.endswith("trainlint: error: `-` (read the code from stdin) cannot be combined with other paths\n")
    assert (project / "a.py").read_text() == AUTOCAST


def test_boolean_pairs_default_to_the_configuration(project: Path) -> None:
    write(project, {"trainlint.yaml": "unsafe-fixes: true\n", "p.py": PRINT})
    assert "unsafe fix" not in invoke("check", "--no-cache").stdout
    assert "1 unsafe fix available" in invoke("check", "--no-cache", "--no-unsafe-fixes").stdout


def test_output_format_variable_must_name_a_format(project: Path) -> None:
    write(project, {"e.py": EVAL})
    result = invoke("check", env={"TRAINLINT_OUTPUT_FORMAT": "xml"})
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("trainlint: error: ") and "TRAINLINT_OUTPUT_FORMAT" in result.stderr
    assert "text, full, json, github, sarif" in result.stderr
    assert invoke("check", "--output-format", "json", env={"TRAINLINT_OUTPUT_FORMAT": "xml"}).stdout.startswith("[")


@pytest.mark.parametrize("value, cached", [("1", False), ("Yes", False), ("on", False), ("0", True), ("false", True), ("", True)])
def test_no_cache_variable(project: Path, value: str, cached: bool) -> None:
    write(project, {"e.py": EVAL})
    assert invoke("check", env={"TRAINLINT_NO_CACHE": value}).exit_code == 1
    assert (project / ".trainlint_cache").exists() == cached


def test_no_cache_variable_that_is_not_a_boolean_is_an_error(project: Path) -> None:
    result = invoke("check", env={"TRAINLINT_NO_CACHE": "maybe"})
    assert result.exit_code == 2 and result.stderr.startswith("trainlint: error: ") and "TRAINLINT_NO_CACHE" in result.stderr


def test_the_cache_folder_may_not_be_a_file(project: Path) -> None:
    write(project, {"e.py": EVAL, "taken": ""})
    assert invoke("check", "--cache-dir", "taken").exit_code == 2
    result = invoke("check", env={"TRAINLINT_CACHE_DIR": "taken"})
    assert result.exit_code == 2 and "TRAINLINT_CACHE_DIR" in result.stderr
    assert invoke("check", env={"TRAINLINT_CACHE_DIR": "elsewhere"}).exit_code == 1
    assert (project / "elsewhere").is_dir() and not (project / ".trainlint_cache").exists()


@pytest.mark.parametrize("target", [".", "missing/report.txt"])
def test_a_report_file_that_cannot_be_written_fails_before_the_run(project: Path, target: str) -> None:
    write(project, {"a.py": AUTOCAST})
    result = invoke("fix", "--write", "-o", target)
    assert result.exit_code == 2 and result.stderr.startswith(f"trainlint: error: cannot write the report to {target}: ")
    assert (project / "a.py").read_text() == AUTOCAST


def test_the_environment_of_a_run_is_restored_afterwards() -> None:
    """``invoke`` puts ``env`` in os.environ for the run only."""
    invoke("rules", env={"TRAINLINT_TEST_ONLY": "1"})
    assert "TRAINLINT_TEST_ONLY" not in os.environ
