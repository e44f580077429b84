"""The command line: exit codes, summary lines, fix modes, rule selection, stdin, colours, entry points."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.shell.support import (
    AUTOCAST,
    AUTOCAST_FIXED,
    CLEAN,
    EVAL,
    PRINT,
    PRINT_FIXED,
    REPO,
    console_script,
    demo_env,
    invoke,
    run_script,
    write,
)
from trainlint import __version__, runner

pytestmark = pytest.mark.usefixtures("project")

A_TL701 = "a.py:3:6: TL701 [*] `torch.cuda.amp.autocast` is deprecated"
E_TL702 = "e.py:1:1: TL702 Use of `eval`"
P_TL801 = "p.py:1:1: TL801 `print` found"
UNSAFE_HINT = "1 unsafe fix available with `--unsafe-fixes`."
ALL_THREE = 'import torch\nwith torch.cuda.amp.autocast():\n    print(eval("1"))\n'


def three_files(root: Path) -> None:
    write(root, {"a.py": AUTOCAST, "e.py": EVAL, "p.py": PRINT})


def codes_of(result) -> set:
    return {item["code"] for item in json.loads(result.stdout)}


# --- check ------------------------------------------------------------------------------------


def test_check_clean_project_passes(project: Path) -> None:
    write(project, {"ok.py": CLEAN})
    result = invoke("check")
    assert (result.exit_code, result.stdout) == (0, "All checks passed!\n")


def test_check_reports_findings_markers_and_summary(project: Path) -> None:
    three_files(project)
    result = invoke("check")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        A_TL701,
        E_TL702,
        P_TL801,  # an unsafe fix gets no [*] without --unsafe-fixes
        "Found 3 findings (1 fixable with `trainlint fix --write`).",
        UNSAFE_HINT,
    ]
    assert result.stderr == ""


def test_unsafe_fixes_mark_unsafe_findings_fixable_and_drop_the_hint(project: Path) -> None:
    three_files(project)
    result = invoke("check", "--unsafe-fixes")
    assert result.stdout.splitlines() == [
        A_TL701,
        E_TL702,
        "p.py:1:1: TL801 [*] `print` found",
        "Found 3 findings (2 fixable with `trainlint fix --write`).",
    ]


def test_hint_counts_several_unsafe_fixes_in_plural(project: Path) -> None:
    write(project, {"p.py": PRINT * 2})
    assert invoke("check").stdout.splitlines()[-1] == "2 unsafe fixes available with `--unsafe-fixes`."


def test_summary_without_fixable_findings(project: Path) -> None:
    write(project, {"e.py": EVAL})
    assert invoke("check").stdout.splitlines() == [E_TL702, "Found 1 finding."]


# --- fix modes --------------------------------------------------------------------------------


def test_fix_without_write_prints_a_diff_writes_nothing_and_exits_1(project: Path) -> None:
    three_files(project)
    result = invoke("fix")
    assert result.exit_code == 1
    assert result.stdout == (
        "--- a/a.py\n+++ b/a.py\n@@ -1,4 +1,4 @@\n import torch\n \n"
        "-with torch.cuda.amp.autocast():\n"
        '+with torch.autocast("cuda"):\n'
        "     pass\n"
    )
    assert result.stderr.splitlines() == ["Would fix 1 finding.", UNSAFE_HINT]  # the patch on stdout stays clean
    assert (project / "a.py").read_text() == AUTOCAST


def test_fix_dry_run_without_changes_exits_0(project: Path) -> None:
    write(project, {"e.py": EVAL})
    result = invoke("fix")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "No fixes available.\n")


@pytest.mark.parametrize("command", [["check", "--diff"], ["fix", "--diff"], ["fix", "--diff", "--write"]])
def test_diff_flag_is_the_dry_run(project: Path, command) -> None:
    three_files(project)
    dry_run = invoke("fix")
    result = invoke(*command)
    assert (result.exit_code, result.stdout) == (1, dry_run.stdout)
    assert (project / "a.py").read_text() == AUTOCAST


@pytest.mark.parametrize("command", [["fix", "--write"], ["check", "--fix"]])
def test_write_applies_safe_fixes_only_and_exits_1_while_findings_remain(project: Path, command) -> None:
    three_files(project)
    result = invoke(*command)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [E_TL702, P_TL801, "Found 3 findings (1 fixed, 2 remaining).", UNSAFE_HINT]
    assert (project / "a.py").read_text() == AUTOCAST_FIXED
    assert (project / "p.py").read_text() == PRINT


def test_write_with_unsafe_fixes_applies_them_too(project: Path) -> None:
    write(project, {"a.py": AUTOCAST, "p.py": PRINT})
    result = invoke("fix", "--write", "--unsafe-fixes")
    assert (result.exit_code, result.stdout) == (0, "Fixed 2 findings.\n")
    assert (project / "p.py").read_text() == PRINT_FIXED
    assert invoke("check").stdout == "All checks passed!\n"


def test_exit_non_zero_on_fix(project: Path) -> None:
    write(project, {"a.py": AUTOCAST, "b.py": AUTOCAST})
    assert invoke("fix", "--write").exit_code == 0
    write(project, {"a.py": AUTOCAST})
    assert invoke("check", "--fix", "--exit-non-zero-on-fix").exit_code == 1
    assert invoke("check", "--fix", "--exit-non-zero-on-fix").exit_code == 0  # nothing left to change


def test_exit_zero_keeps_findings_but_not_errors(project: Path) -> None:
    three_files(project)
    result = invoke("check", "--exit-zero")
    assert result.exit_code == 0 and A_TL701 in result.stdout
    assert invoke("fix", "--exit-zero").exit_code == 0
    assert invoke("check", "--exit-zero", "--select", "TL999").exit_code == 2


# --- selection --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "flags, expected",
    [
        ([], {"TL701", "TL702", "TL801"}),
        (["--select", "TL701"], {"TL701"}),
        (["--select", "TL7"], {"TL701", "TL702"}),
        (["--select", "tl8"], {"TL801"}),
        (["--select", "demo-print"], {"TL801"}),
        (["--select", "TL701,TL801"], {"TL701", "TL801"}),
        (["--select", "TL701", "--select", "TL702"], {"TL701", "TL702"}),
        (["--select", "ALL", "--ignore", "TL7"], {"TL801"}),
        (["--ignore", "demo-eval"], {"TL701", "TL801"}),
        (["--select", "TL701", "--extend-select", "TL8"], {"TL701", "TL801"}),
        (["--select", "TL001"], set()),  # syntax errors are always on; selecting them is harmless
    ],
)
def test_select_ignore_extend_select(project: Path, flags, expected) -> None:
    write(project, {"m.py": ALL_THREE})
    assert codes_of(invoke("check", "--output-format", "json", *flags)) == expected


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--select", "TL9"], "Unknown rule selector `TL9` in `--select` on the command line"),
        (["--ignore", "TL7011"], "Unknown rule selector `TL7011` in `--ignore` on the command line; did you mean `TL701`?"),
        (["--extend-select", "demo-prin"], "in `--extend-select` on the command line; did you mean `demo-print`?"),
        (["--select", "E501"], "Unknown rule selector `E501`"),
    ],
)
def test_unknown_selector_is_a_one_line_error_exit_2(project: Path, flags, message) -> None:
    write(project, {"m.py": ALL_THREE})
    result = invoke("check", *flags)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and message in result.stderr
    assert result.stderr.startswith("trainlint: error: ")


def test_unknown_selector_says_what_is_valid(project: Path) -> None:
    """No close match to suggest: the error still tells the user what a selector may be."""
    write(project, {"m.py": ALL_THREE})
    from_cli = invoke("check", "--select", "E501")
    write(project, {"trainlint.yaml": "select: [XYZ]\n"})
    for result in (from_cli, invoke("check")):
        assert result.exit_code == 2
        assert "(valid: a rule code, a code prefix such as `TL2`, a rule name, or `ALL`; see `trainlint rules`)" in result.stderr


# --- report options ---------------------------------------------------------------------------


def test_statistics_text(project: Path) -> None:
    write(project, {"a.py": AUTOCAST, "b.py": AUTOCAST, "e.py": EVAL})
    result = invoke("check", "--statistics", "-q")
    assert result.exit_code == 1
    assert result.stdout == "2\tTL701\t[*] demo-cuda-autocast\n1\tTL702\t[ ] demo-eval\n"


def test_statistics_json_has_no_summary(project: Path) -> None:
    write(project, {"a.py": AUTOCAST, "b.py": AUTOCAST, "p.py": PRINT})
    result = invoke("check", "--statistics", "--output-format", "json")
    assert json.loads(result.stdout) == [
        {"code": "TL701", "name": "demo-cuda-autocast", "count": 2, "fixable": True, "fixable_count": 2},
        {"code": "TL801", "name": "demo-print", "count": 1, "fixable": False, "fixable_count": 0},
    ]


def test_quiet_prints_findings_only(project: Path) -> None:
    three_files(project)
    result = invoke("check", "-q")
    assert (result.exit_code, result.stdout.splitlines()) == (1, [A_TL701, E_TL702, P_TL801])
    write(project, {"a.py": CLEAN, "e.py": CLEAN, "p.py": CLEAN})
    assert (invoke("check", "--quiet").stdout, invoke("check", "--quiet").exit_code) == ("", 0)


@pytest.fixture
def low_analysis_limit(monkeypatch: pytest.MonkeyPatch) -> str:
    """Code over 100 bytes gets only a syntax check and a warning (the real limit is 1 MiB): returns such code."""
    monkeypatch.setattr(runner, "MAX_ANALYSED_BYTES", 100)
    return CLEAN * 50


@pytest.mark.parametrize(
    "args, finding",
    [(["check"], f"{E_TL702}\n"), (["check", "--statistics"], "1\tTL702\t[ ] demo-eval\n"), (["fix", "--write"], f"{E_TL702}\n")],
)
def test_quiet_drops_the_warnings_of_files(project: Path, low_analysis_limit: str, args, finding: str) -> None:
    """As Ruff's --quiet: "Print diagnostics, but nothing else"."""
    write(project, {"big.py": low_analysis_limit, "e.py": EVAL})
    assert "warning: big.py: 0.0 MiB, larger than the " in invoke(*args, "--no-cache").stderr
    result = invoke(*args, "--no-cache", "-q")
    assert (result.exit_code, result.stdout, result.stderr) == (1, finding, "")


@pytest.mark.parametrize("args", [["check"], ["check", "--fix"], ["fix"]])
def test_stdin_warnings_show_unless_quiet(project: Path, low_analysis_limit: str, args) -> None:
    loud = invoke(*args, "-", stdin=low_analysis_limit.encode())
    assert "warning: -: 0.0 MiB, larger than the " in loud.stderr
    quiet = invoke(*args, "-q", "-", stdin=low_analysis_limit.encode())
    assert (quiet.exit_code, quiet.stderr) == (0, "")
    assert quiet.stdout == (low_analysis_limit if "--fix" in args else "")


@pytest.mark.parametrize("args", [[], ["--statistics"]])
def test_quiet_drops_no_files_found_but_keeps_errors(project: Path, args) -> None:
    """An error explains the exit code of 2, so --quiet keeps it, as Ruff's does."""
    assert invoke("check", "-q", *args).stderr == ""
    write(project, {"e.py": EVAL})
    result = invoke("check", "-q", *args, "missing.py", "e.py")
    assert result.exit_code == 2
    assert result.stderr == "error: missing.py: No such file or directory\n"


def test_output_file_takes_the_report(project: Path) -> None:
    three_files(project)
    result = invoke("check", "--output-format", "json", "-o", "report.json")
    assert (result.exit_code, result.stdout) == (1, "")
    assert len(json.loads((project / "report.json").read_text())) == 3


def test_output_format_from_the_environment(project: Path) -> None:
    three_files(project)
    assert len(json.loads(invoke("check", env={"TRAINLINT_OUTPUT_FORMAT": "json"}).stdout)) == 3


# --- stdin ------------------------------------------------------------------------------------


def test_check_stdin_shows_dash_as_the_path(project: Path) -> None:
    result = invoke("check", "-", stdin=AUTOCAST.encode())
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == "-:3:6: TL701 [*] `torch.cuda.amp.autocast` is deprecated"


def test_stdin_filename_names_the_code_for_messages_and_config(project: Path) -> None:
    write(project, {"trainlint.yaml": "per-file-ignores:\n  'tests/*': [TL701]\n"})
    result = invoke("check", "--stdin-filename", "src/x.py", stdin=AUTOCAST.encode())
    assert result.stdout.splitlines()[0].startswith("src/x.py:3:6: TL701")
    assert invoke("check", "-", "--stdin-filename", "tests/x.py", stdin=AUTOCAST.encode()).exit_code == 0


def test_stdin_takes_the_configuration_of_the_working_directory(project: Path) -> None:
    write(project, {"trainlint.yaml": "ignore: [TL701]\n"})
    assert invoke("check", "-", stdin=AUTOCAST.encode()).exit_code == 0


@pytest.mark.parametrize("command", [["fix", "--write", "-"], ["check", "--fix", "-"]])
def test_stdin_fix_writes_code_to_stdout_and_report_to_stderr(project: Path, command) -> None:
    result = invoke(*command, stdin=(AUTOCAST + PRINT).encode())
    assert result.stdout == AUTOCAST_FIXED + PRINT
    assert result.stderr.splitlines() == [
        "-:5:1: TL801 `print` found",
        "Found 2 findings (1 fixed, 1 remaining).",
        UNSAFE_HINT,
    ]
    assert result.exit_code == 1


def test_stdin_fix_keeps_unfixable_code_byte_for_byte(project: Path) -> None:
    source = "x = 1\r\ny = '\xe9'\r\n".encode("latin-1")
    result = invoke("fix", "--write", "-", stdin=b"# coding: latin-1\r\n" + source)
    assert result.stdout_bytes == b"# coding: latin-1\r\n" + source
    assert result.exit_code == 0


def test_stdin_dry_run_prints_the_diff(project: Path) -> None:
    result = invoke("fix", "--stdin-filename", "x.py", stdin=AUTOCAST.encode())
    assert result.exit_code == 1
    assert result.stdout.startswith("--- a/x.py\n+++ b/x.py\n")


def test_stdin_full_format_shows_the_source_line(project: Path) -> None:
    result = invoke("check", "-", "--output-format", "full", stdin=AUTOCAST.encode())
    assert "   3 | with torch.cuda.amp.autocast():" in result.stdout




@pytest.mark.parametrize("stdin_filename", ["build/x.py", "gen/x.py", "legacy/x.py"])
def test_force_exclude_passes_excluded_stdin_through_untouched(project: Path, stdin_filename: str) -> None:
    """Editors pipe every buffer with --force-exclude; an excluded one is neither reported nor fixed (as Ruff)."""
    write(project, {".gitignore": "gen/\n", "trainlint.yaml": "extend-exclude: [legacy]\n"})
    check = invoke("check", "--force-exclude", "--stdin-filename", stdin_filename, "-", stdin=AUTOCAST.encode())
    assert (check.exit_code, check.stdout) == (0, "All checks passed!\n")
    fix = invoke("check", "--fix", "--force-exclude", "--stdin-filename", stdin_filename, "-", stdin=AUTOCAST.encode())
    assert (fix.exit_code, fix.stdout) == (0, AUTOCAST)
    diff = invoke("fix", "--force-exclude", "--stdin-filename", stdin_filename, stdin=AUTOCAST.encode())
    assert (diff.exit_code, diff.stdout) == (0, "")


def test_force_exclude_still_checks_stdin_named_after_an_included_path(project: Path) -> None:
    result = invoke("check", "--fix", "--force-exclude", "--stdin-filename", "src/x.py", "-", stdin=AUTOCAST.encode())
    assert (result.exit_code, result.stdout) == (0, AUTOCAST_FIXED)
# --- colours ----------------------------------------------------------------------------------


def test_no_colour_when_not_a_terminal(project: Path) -> None:
    three_files(project)
    assert "\x1b[" not in invoke("check").stdout


def test_force_color_and_no_color(project: Path) -> None:
    three_files(project)
    assert "\x1b[" in invoke("check", env={"FORCE_COLOR": "1"}).stdout
    assert "\x1b[" not in invoke("check", env={"FORCE_COLOR": "1", "NO_COLOR": "1"}).stdout
    assert "\x1b[" not in invoke("check", "--output-format", "json", env={"FORCE_COLOR": "1"}).stdout


def test_colours_on_a_real_terminal_unless_no_color(project: Path) -> None:
    """A subprocess whose stdout is a pseudo-terminal: colours, and none with NO_COLOR."""
    pty = pytest.importorskip("pty")
    three_files(project)

    def terminal_output(extra_env) -> bytes:
        leader, follower = pty.openpty()
        env = {**demo_env(), **extra_env}
        process = subprocess.run(
            [sys.executable, "-m", "trainlint", "check", "--no-cache"], cwd=project, stdout=follower, env=env, timeout=60
        )
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(leader)
        assert process.returncode == 1
        return b"".join(chunks)

    assert b"\x1b[31mTL701\x1b[0m" in terminal_output({})
    plain = terminal_output({"NO_COLOR": "1"})
    assert b"\x1b[" not in plain and b"a.py:3:6: TL701 [*]" in plain


# --- rule documentation -----------------------------------------------------------------------


@pytest.mark.parametrize("key", ["TL701", "tl701", "demo-cuda-autocast"])
def test_rule_shows_its_documentation(key: str) -> None:
    result = invoke("rule", key)
    assert result.exit_code == 0
    assert result.stdout.startswith("# demo-cuda-autocast (TL701)\n\nFix is sometimes available")
    assert "## What it does\nReports `torch.cuda.amp.autocast(...)`" in result.stdout


def test_rule_documents_its_options() -> None:
    result = invoke("rule", "demo-eval")
    assert "## Options\nSet under `[tool.trainlint.options.TL702]`:\n- `min-args` (default `1`)" in result.stdout


def test_rule_syntax_error_is_documented() -> None:
    assert invoke("rule", "TL001").stdout.startswith("# syntax-error (TL001)")


@pytest.mark.parametrize(
    "key, hint",
    [
        ("TL7011", "did you mean `TL701`?"),
        ("demo-evil", "did you mean `demo-eval`?"),
        ("demo-cu", "did you mean `demo-cuda-autocast`?"),  # the first words of a long name
    ],
)
def test_unknown_rule_is_exit_2_with_did_you_mean(key: str, hint: str) -> None:
    result = invoke("rule", key)
    assert result.exit_code == 2
    assert result.stderr == f"trainlint: error: Unknown rule `{key}`; {hint} (see `trainlint rules`)\n"


def test_rules_table() -> None:
    result = invoke("rules")
    assert result.exit_code == 0
    rows = [line.split(None, 3) for line in result.stdout.splitlines()]
    assert rows[0] == ["code", "name", "fix", "summary"]
    assert [row[:3] for row in rows[1:]] == [
        ["TL001", "syntax-error", "none"],
        ["TL701", "demo-cuda-autocast", "safe"],
        ["TL702", "demo-eval", "none"],
        ["TL801", "demo-print", "unsafe"],
    ]
    assert rows[2][3] == "Reports `torch.cuda.amp.autocast(...)`."  # its docstring adds "(test-only rule)": asides are dropped


# --- internal errors --------------------------------------------------------------------------


def test_a_crashing_rule_is_exit_2_and_the_rest_is_reported(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.shell.demo_rules import DemoEval

    def crash(self, node):
        raise RuntimeError("boom")

    monkeypatch.setattr(DemoEval, "visit_Call", crash)
    write(project, {"a.py": AUTOCAST, "m.py": ALL_THREE})
    result = invoke("check")
    assert result.exit_code == 2
    assert A_TL701 in result.stdout and "m.py:2:6: TL701" in result.stdout
    assert "TL702 (demo-eval) crashed on m.py: RuntimeError: boom" in result.stderr


def test_a_run_with_errors_never_says_all_checks_passed(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.shell.demo_rules import DemoEval

    def crash(self, node):
        raise RuntimeError("boom")

    monkeypatch.setattr(DemoEval, "visit_Call", crash)
    write(project, {"m.py": EVAL, "clean.py": CLEAN})
    result = invoke("check", "--no-cache")
    assert (result.exit_code, result.stdout) == (2, "1 error kept trainlint from checking everything (see stderr).\n")
    result = invoke("check", "--no-cache", "m.py", "missing.py")
    assert result.exit_code == 2
    assert result.stdout.splitlines()[-1] == "2 errors kept trainlint from checking everything (see stderr)."


def test_an_unexpected_error_in_one_file_is_exit_2_and_the_run_goes_on(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from trainlint import runner

    real = runner.process_source

    def flaky(path, data, task):
        if path == "e.py":
            raise MemoryError("simulated")
        return real(path, data, task)

    monkeypatch.setattr(runner, "process_source", flaky)
    three_files(project)
    result = invoke("check", "--no-cache")
    assert result.exit_code == 2
    assert A_TL701 in result.stdout and P_TL801 in result.stdout
    assert "e.py: internal error: MemoryError: simulated; this is a trainlint bug" in result.stderr


def test_console_entry_point_turns_a_crash_into_exit_2(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    from trainlint import cli, docs

    def broken():
        raise KeyError("x")

    monkeypatch.setattr(docs, "rules_table", broken)
    monkeypatch.setattr(sys, "argv", ["trainlint", "rules"])
    with pytest.raises(SystemExit) as exit_info:
        cli.main()
    assert exit_info.value.code == 2
    assert "internal error" in capsys.readouterr().err


# --- real processes ---------------------------------------------------------------------------


def test_installed_console_script(project: Path) -> None:
    three_files(project)
    result = run_script("check", "--no-cache", cwd=project)
    assert result.returncode == 1
    assert result.stdout.decode().splitlines()[:3] == [A_TL701, E_TL702, P_TL801]
    fixed = run_script("fix", "--write", "-", cwd=project, stdin=AUTOCAST.encode())
    assert (fixed.returncode, fixed.stdout.decode()) == (0, AUTOCAST_FIXED)
    assert run_script("--version", cwd=project).stdout.decode() == f"trainlint {__version__}\n"


def test_python_dash_m(project: Path) -> None:
    three_files(project)
    result = subprocess.run(
        [sys.executable, "-m", "trainlint", "check", "--no-cache", "-q"], cwd=project, capture_output=True, env=demo_env(), timeout=60
    )
    assert (result.returncode, result.stdout.decode().splitlines()) == (1, [A_TL701, E_TL702, P_TL801])


def test_the_console_script_flushes_its_buffered_report_before_it_leaves(project: Path) -> None:
    """The console script leaves by os._exit (no interpreter teardown) once its streams are
    flushed: a report still in stdout's buffer is written, or, when the reader has gone, the
    run ends with a quiet exit 1. PYTHONUNBUFFERED is dropped so that stdout buffers, as in a hook."""
    three_files(project)
    env = {key: value for key, value in demo_env().items() if key != "PYTHONUNBUFFERED"}
    command = [console_script(), "check", "--no-cache"]
    done = subprocess.run(command, cwd=project, capture_output=True, env=env, timeout=60)
    assert done.returncode == 1 and done.stdout.decode().splitlines()[:3] == [A_TL701, E_TL702, P_TL801]
    process = subprocess.Popen(command, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    process.stdout.close()  # before the report is written: the flush at exit meets a closed pipe
    stderr = process.stderr.read().decode()
    assert (process.wait(timeout=60), stderr) == (1, "")


def test_the_readme_pre_commit_snippet_names_this_release_and_its_hooks() -> None:
    """The snippet's `rev` is the tag of this version (`v` + __version__), and its hook ids exist."""
    import re

    import yaml

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## pre-commit\n", 1)[1]
    snippet = yaml.safe_load(section.split("```yaml\n", 1)[1].split("```", 1)[0])
    repo = snippet["repos"][0]
    assert repo["rev"] == f"v{__version__}"
    hook_ids = {hook["id"] for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    assert {hook["id"] for hook in repo["hooks"]} == hook_ids
    assert re.search(rf"`rev: v{re.escape(__version__)}` is the tag of this release", " ".join(section.split()))


def test_the_repository_hooks_use_the_documented_entries() -> None:
    import yaml

    hooks = {hook["id"]: hook for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    assert hooks["trainlint"]["entry"] == "trainlint check --force-exclude"
    assert hooks["trainlint-fix"]["entry"] == "trainlint fix --write --force-exclude"
    for hook in hooks.values():
        assert hook["language"] == "python" and hook["require_serial"] is True
        assert hook["types_or"] == ["python", "pyi", "jupyter"]
