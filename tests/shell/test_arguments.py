"""Parsing the command line (click): help, version, usage errors with did-you-mean, option values,
environment variables, where PATHS may go."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.shell.support import AUTOCAST, EVAL, PRINT, invoke, write
from trainlint.report import FORMATS

pytestmark = pytest.mark.usefixtures("project")


def test_no_command_prints_the_help_and_exits_0() -> None:
    result = invoke()
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.startswith("Usage: trainlint [OPTIONS] COMMAND")
    for command in ("check", "fix", "rule", "rules", "completion"):
        assert f"\n  {command} " in result.stdout, command


@pytest.mark.parametrize(
    "args, message",
    [
        (["check", "--bogus"], "No such option '--bogus'."),
        (["check", "--sel", "TL7"], "No such option '--sel'."),  # no abbreviations
        (["check", "--selekt", "TL7"], "No such option '--selekt'. Did you mean '--select'?"),
        (["fix", "--wrte"], "No such option '--wrte'. Did you mean '--write'?"),
        (["rules", "extra"], "Got unexpected extra argument (extra)"),
        (["chek"], "No such command 'chek'. Did you mean 'check'?"),
        (["check", "--jobs", "0"], "Invalid value for '-j' / '--jobs': 0 is not in the range x>=1."),
        (["check", "-j", "two"], "Invalid value for '-j' / '--jobs': 'two' is not a valid integer range."),
        (["check", "--output-format", "xml"], "Invalid value for '--output-format'"),
        (["check", "--config", "."], "Invalid value for '--config': File '.' is a directory."),
        (["completion", "tcsh"], "Invalid value for '{bash|zsh|fish}': 'tcsh' is not one of 'bash', 'zsh', 'fish'."),
    ],
)
def test_usage_errors_exit_2_with_the_commands_usage(args, message: str) -> None:
    result = invoke(*args)
    assert result.exit_code == 2 and result.stdout == ""
    usage = "trainlint" if args[0] == "chek" else f"trainlint {args[0]}"
    assert result.stderr.startswith(f"Usage: {usage} [OPTIONS]"), result.stderr
    assert f"Try '{usage} --help' for help." in result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr


def test_help_and_version_exit_0() -> None:
    from trainlint import __version__

    for flag in ("-V", "--version"):
        assert (invoke(flag).exit_code, invoke(flag).stdout) == (0, f"trainlint {__version__}\n")
    for args in (["--help"], ["-h"], ["check", "-h"], ["fix", "--help"], ["rule", "-h"], ["rules", "--help"], ["completion", "-h"]):
        result = invoke(*args)
        usage = " ".join(["trainlint", *args[:-1]])
        assert result.exit_code == 0 and result.stdout.startswith(f"Usage: {usage} "), args


def test_help_names_the_environment_variables() -> None:
    help_text = " ".join(invoke("check", "--help").stdout.split())
    for variable in ("TRAINLINT_OUTPUT_FORMAT", "TRAINLINT_NO_CACHE", "TRAINLINT_CACHE_DIR"):
        assert f"env var: {variable}" in help_text


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
    assert result.stderr.startswith(f"Usage: trainlint {args[0]} [OPTIONS]")
    assert "Error: `-` (read the code from stdin) cannot be combined with other paths" in result.stderr
    assert (project / "a.py").read_text() == AUTOCAST


def test_boolean_pairs_default_to_the_configuration(project: Path) -> None:
    write(project, {"trainlint.yaml": "unsafe-fixes: true\n", "p.py": PRINT})
    assert "unsafe fix" not in invoke("check", "--no-cache").stdout
    assert "1 unsafe fix available" in invoke("check", "--no-cache", "--no-unsafe-fixes").stdout


def test_output_format_variable_must_name_a_format(project: Path) -> None:
    write(project, {"e.py": EVAL})
    result = invoke("check", env={"TRAINLINT_OUTPUT_FORMAT": "xml"})
    assert result.exit_code == 2 and result.stdout == ""
    assert "Invalid value for '--output-format' (env var: 'TRAINLINT_OUTPUT_FORMAT'): 'xml' is not one of" in result.stderr
    assert all(f"'{name}'" in result.stderr for name in FORMATS)
    assert invoke("check", "--output-format", "json", env={"TRAINLINT_OUTPUT_FORMAT": "xml"}).stdout.startswith("[")


@pytest.mark.parametrize("value, cached", [("1", False), ("Yes", False), ("on", False), ("0", True), ("false", True), ("", True)])
def test_no_cache_variable(project: Path, value: str, cached: bool) -> None:
    write(project, {"e.py": EVAL})
    assert invoke("check", env={"TRAINLINT_NO_CACHE": value}).exit_code == 1
    assert (project / ".trainlint_cache").exists() == cached


def test_no_cache_variable_that_is_not_a_boolean_is_an_error(project: Path) -> None:
    result = invoke("check", env={"TRAINLINT_NO_CACHE": "maybe"})
    assert result.exit_code == 2 and "(env var: 'TRAINLINT_NO_CACHE'): 'maybe' is not a valid boolean" in result.stderr


def test_the_cache_folder_may_not_be_a_file(project: Path) -> None:
    write(project, {"e.py": EVAL, "taken": ""})
    assert invoke("check", "--cache-dir", "taken").exit_code == 2
    result = invoke("check", env={"TRAINLINT_CACHE_DIR": "taken"})
    assert result.exit_code == 2 and "(env var: 'TRAINLINT_CACHE_DIR'): Directory 'taken' is a file." in result.stderr
    assert invoke("check", env={"TRAINLINT_CACHE_DIR": "elsewhere"}).exit_code == 1
    assert (project / "elsewhere").is_dir() and not (project / ".trainlint_cache").exists()


@pytest.mark.parametrize(
    "target, message",
    [
        (".", "Error: Invalid value for '-o' / '--output-file' (env var: 'TRAINLINT_OUTPUT_FILE'): File '.' is a directory."),
        ("missing/report.txt", "trainlint: error: cannot write the report to missing/report.txt: the folder missing does not exist"),
    ],
)
def test_a_report_file_that_cannot_be_written_fails_before_the_run(project: Path, target: str, message: str) -> None:
    write(project, {"a.py": AUTOCAST})
    result = invoke("fix", "--write", "-o", target)
    assert result.exit_code == 2 and message in result.stderr
    assert (project / "a.py").read_text() == AUTOCAST


def test_the_environment_of_a_run_is_restored_afterwards() -> None:
    """``invoke`` puts ``env`` in os.environ for the run only."""
    invoke("rules", env={"TRAINLINT_TEST_ONLY": "1"})
    assert "TRAINLINT_TEST_ONLY" not in os.environ
