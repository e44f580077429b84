"""The flags Ruff users reach for: --show-fixes/-files/-settings, --statistics formats, -o and its
variable, --fix-only, --fixable/--unfixable, per-file ignores and inline --config on the command line,
--isolated, `rule --all`/`--output-format json`, `clean`, -n and --color."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.shell.support import AUTOCAST, AUTOCAST_FIXED, EVAL, PRINT, PRINT_FIXED, invoke, notebook, write
from trainlint.config import tomllib_module

pytestmark = pytest.mark.usefixtures("project")

CLEAN_TEXT = "x = 1\n"


def findings(result) -> list:
    return [line for line in result.stdout.splitlines() if ": TL" in line]


def test_show_fixes_lists_what_was_fixed_per_file_and_rule(project: Path) -> None:
    write(project, {"a.py": AUTOCAST * 2, "sub/b.py": AUTOCAST, "e.py": EVAL})
    result = invoke("check", "--fix", "--show-fixes", "--no-cache")
    assert result.stdout.split("e.py:1:1")[0] == ""  # the remaining finding first, as without the flag
    listing = result.stdout.split("Fixed 3 findings:\n", 1)[1]
    assert listing.startswith("- a.py:\n    2 × TL701 (demo-cuda-autocast)\n- sub/b.py:\n    1 × TL701 (demo-cuda-autocast)\n\n")
    assert result.stdout.endswith("Found 4 findings (3 fixed, 1 remaining).\n")
    assert "Fixed" not in invoke("check", "--show-fixes", "--no-cache").stdout  # nothing is fixed without --fix


def test_show_files_lists_what_a_run_would_check(project: Path) -> None:
    write(project, {"a.py": AUTOCAST, "sub/b.py": CLEAN_TEXT, "build/gen.py": EVAL, ".gitignore": "ignored.py\n", "ignored.py": EVAL})
    result = invoke("check", "--show-files")
    assert (result.exit_code, result.stdout) == (0, "a.py\nsub/b.py\n")
    assert not (project / ".trainlint_cache").exists()


def test_show_settings_on_a_nested_project(project: Path) -> None:
    write(
        project,
        {
            "pyproject.toml": '[tool.trainlint]\nselect = ["TL7"]\n',
            "sub/trainlint.yaml": "extend-select: [TL801]\nper-file-ignores:\n  'b*.py': [TL702]\nunsafe-fixes: true\n",
            "sub/b.py": EVAL,
        },
    )
    result = invoke("check", "--show-settings", "sub")
    assert result.exit_code == 0
    head, body = result.stdout.split("\n\n", 1)
    assert head == "Resolved settings for: sub/b.py\nSettings path: sub/trainlint.yaml"
    settings = tomllib_module().loads(body.replace("  # select minus", "\n# select minus"))
    assert settings["select"] == ["TL701", "TL702", "TL801"]  # the nearest file: sub's, not the root's TL7
    assert settings["per-file-ignores"] == {"b*.py": ["TL702"]}
    assert settings["rules-for-this-file"] == ["TL701", "TL801"]
    assert settings["unsafe-fixes"] is True and settings["root"] == "sub"
    root = invoke("check", "--show-settings", "--isolated", "sub/b.py").stdout
    assert "Settings path: none" in root and 'select = ["TL701", "TL702", "TL801"]' in root


def settings_blocks(stdout: str) -> dict:
    """Each block of --show-settings, by the file it was resolved for: its settings path and its settings as TOML."""
    blocks = {}
    for block in stdout.split("\nResolved settings for: "):
        head, body = block.split("\n\n", 1)
        target, source = head.replace("Resolved settings for: ", "").split("\nSettings path: ")
        blocks[target] = (source, tomllib_module().loads(body))
    return blocks


def test_show_settings_shows_each_configuration_under_a_folder_and_each_path(project: Path) -> None:
    write(
        project,
        {
            "pyproject.toml": '[tool.trainlint]\nselect = ["TL7"]\n',
            "a.py": EVAL,
            "sub/trainlint.yaml": "select: [TL801]\nper-file-ignores: {}\n",
            "sub/b.py": EVAL,
            "sub/c.py": EVAL,
            "tests/test_d.py": EVAL,
        },
    )
    whole = settings_blocks(invoke("check", "--show-settings", ".").stdout)
    assert {target: (source, settings["select"]) for target, (source, settings) in whole.items()} == {
        "a.py": ("pyproject.toml", ["TL701", "TL702"]),
        "sub/b.py": ("sub/trainlint.yaml", ["TL801"]),  # the first file under sub's own configuration
    }
    assert whole["sub/b.py"][1]["per-file-ignores"] == {}
    named = settings_blocks(invoke("check", "--show-settings", "sub/c.py", "tests", "a.py").stdout)
    assert list(named) == ["sub/c.py", "tests/test_d.py", "a.py"]
    assert named["tests/test_d.py"][1]["rules-for-this-file"] == ["TL701", "TL702"]  # the default test ignores hit no TL7


@pytest.mark.parametrize("flag", ["--show-files", "--show-settings"])
def test_show_flags_on_a_missing_path_are_an_error_as_in_a_check(project: Path, flag: str) -> None:
    write(project, {"a.py": EVAL})
    result = invoke("check", flag, "a.py", "missing.py")
    assert (result.exit_code, result.stderr) == (2, "error: missing.py: No such file or directory\n")
    assert "a.py" in result.stdout and "missing.py" not in result.stdout


def test_show_settings_names_the_torch_the_fixes_target(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(project, {"pyproject.toml": '[project]\ndependencies = ["torch>=2.4"]\n[tool.trainlint]\n', "a.py": EVAL, "b/c.py": EVAL})
    declared = settings_blocks(invoke("check", "--show-settings", "a.py").stdout)["a.py"][1]
    assert declared["target-torch"] == "2.4"
    monkeypatch.chdir(project / "b")  # --isolated reads the dependencies of the working directory: none here
    assumed = settings_blocks(invoke("check", "--show-settings", "--isolated", "c.py").stdout)["c.py"][1]
    assert assumed["target-torch"] == "1.10"


@pytest.mark.parametrize("output_format", ["github", "sarif"])
def test_statistics_refuses_formats_it_cannot_honour(project: Path, output_format: str) -> None:
    write(project, {"e.py": EVAL})
    result = invoke("check", "--statistics", "--output-format", output_format)
    assert (result.exit_code, result.stdout) == (2, "")
    assert f"--statistics cannot be shown as --output-format {output_format}" in result.stderr


def test_statistics_in_json(project: Path) -> None:
    write(project, {"e.py": EVAL})
    result = invoke("check", "--statistics", "--output-format", "json")
    assert json.loads(result.stdout) == [{"code": "TL702", "name": "demo-eval", "count": 1, "fixable": False, "fixable_count": 0}]


def test_output_file_from_the_environment(project: Path) -> None:
    write(project, {"e.py": EVAL})
    result = invoke("check", "--output-format", "json", env={"TRAINLINT_OUTPUT_FILE": "report.json"})
    assert (result.exit_code, result.stdout) == (1, "")
    assert json.loads((project / "report.json").read_text())[0]["code"] == "TL702"


def test_fix_only_reports_what_it_fixed_and_exits_0(project: Path) -> None:
    write(project, {"a.py": AUTOCAST, "e.py": EVAL, "p.py": PRINT})
    result = invoke("check", "--fix-only", "--no-cache")
    assert (result.exit_code, result.stdout) == (0, "Fixed 1 finding.\n1 unsafe fix available with `--unsafe-fixes`.\n")
    assert (project / "a.py").read_text() == AUTOCAST_FIXED
    assert invoke("check", "--fix-only", "--no-cache", "--exit-non-zero-on-fix", "--unsafe-fixes").exit_code == 1
    assert invoke("check", "--fix-only", "--no-cache").stdout == "No findings fixed.\n"


def test_unfixable_rules_are_neither_fixed_nor_marked(project: Path) -> None:
    write(project, {"a.py": AUTOCAST, "p.py": PRINT})
    check = invoke("check", "--unsafe-fixes", "--unfixable", "TL701", "--no-cache")
    assert "a.py:3:6: TL701 `torch" in check.stdout and "p.py:1:1: TL801 [*]" in check.stdout
    result = invoke("check", "--fix", "--unsafe-fixes", "--unfixable", "TL701", "--no-cache")
    assert result.stdout.endswith("Found 2 findings (1 fixed, 1 remaining).\n")
    assert (project / "a.py").read_text() == AUTOCAST and (project / "p.py").read_text() == PRINT_FIXED


def test_fixable_limits_fixes_to_the_named_rules(project: Path) -> None:
    write(project, {"a.py": AUTOCAST, "p.py": PRINT})
    result = invoke("fix", "--write", "--unsafe-fixes", "--fixable", "TL8", "--no-cache")
    assert (project / "a.py").read_text() == AUTOCAST and (project / "p.py").read_text() == PRINT_FIXED
    assert findings(result) == ["a.py:3:6: TL701 `torch.cuda.amp.autocast` is deprecated"]
    bad = invoke("check", "--fixable", "TL9")
    assert bad.exit_code == 2 and "Unknown rule selector `TL9` in `--fixable`" in bad.stderr


@pytest.mark.parametrize("option", [("--fixable", "TL8"), ("--unfixable", "TL701")])
def test_fixable_and_unfixable_hold_in_notebooks_too(project: Path, option: tuple) -> None:
    """A notebook's cells are fixed like a module: only the fixable rules' fixes are written (round 7 found a
    notebook fixed by a rule that --unfixable had excluded)."""
    write(project, {"n.ipynb": notebook(AUTOCAST, PRINT)})
    result = invoke("fix", "--write", "--unsafe-fixes", *option, "--no-cache")
    _, autocast, printing = ["".join(cell["source"]) for cell in json.loads((project / "n.ipynb").read_text())["cells"]]
    assert "with torch.cuda.amp.autocast():" in autocast and "import logging" in autocast  # the import goes first
    assert printing == 'logging.info("hi")\n'
    assert findings(result) == ["n.ipynb:cell 2:5:6: TL701 `torch.cuda.amp.autocast` is deprecated"]


def test_per_file_ignores_on_the_command_line(project: Path) -> None:
    write(project, {"trainlint.yaml": "per-file-ignores:\n  'e.py': [TL702]\n", "e.py": EVAL, "tests/t.py": EVAL})
    assert findings(invoke("check", "--no-cache")) == ["tests/t.py:1:1: TL702 Use of `eval`"]
    replaced = invoke("check", "--no-cache", "--per-file-ignores", "tests/*:TL702")
    assert findings(replaced) == ["e.py:1:1: TL702 Use of `eval`"]
    extended = invoke("check", "--no-cache", "--extend-per-file-ignores", "tests/*:TL7,TL8")
    assert (extended.exit_code, findings(extended)) == (0, [])
    bad = invoke("check", "--per-file-ignores", "tests/*")
    assert bad.exit_code == 2 and "is not PATTERN:CODES" in bad.stderr


def test_isolated_ignores_configuration_files(project: Path) -> None:
    write(project, {"trainlint.yaml": "ignore: [TL702]\n", "e.py": EVAL})
    assert invoke("check", "--no-cache").exit_code == 0
    assert findings(invoke("check", "--no-cache", "--isolated")) == ["e.py:1:1: TL702 Use of `eval`"]
    both = invoke("check", "--isolated", "--config", "trainlint.yaml")
    assert both.exit_code == 2 and "cannot be combined with --isolated" in both.stderr


def test_inline_config_overrides_win_over_the_file(project: Path) -> None:
    write(project, {"trainlint.yaml": "ignore: [TL702]\n", "e.py": EVAL, "a.py": AUTOCAST})
    result = invoke("check", "--no-cache", "--config", "ignore = []", "--config", 'select = ["TL702"]')
    assert findings(result) == ["e.py:1:1: TL702 Use of `eval`"]
    assert findings(invoke("check", "--no-cache", "--isolated", "--config", 'ignore = ["TL7"]')) == []


@pytest.mark.parametrize(
    "override, message",
    [
        ("selekt = []", "`--config` override: unknown key `selekt` in the top level; did you mean `select`? (valid keys: select, ignore,"),
        ("options.TL999.min-args = 2", "`--config` override: `options.TL999` names no rule (rules with options: TL702)"),
        ("unsafe-fixes = 1", "`--config` override: `unsafe-fixes` must be true or false, got 1"),
        ("select = [", "is neither a file nor a `key = value` override in TOML"),
        ('select = ["TL9"]', "Unknown rule selector `TL9`"),
    ],
)
def test_a_bad_inline_override_is_an_error(project: Path, override: str, message: str) -> None:
    result = invoke("check", "--config", override)
    assert result.exit_code == 2 and result.stderr.startswith("trainlint: error: ") and message in result.stderr


def test_rule_all_and_json(project: Path) -> None:
    everything = invoke("rule", "--all")
    assert everything.exit_code == 0
    assert [line for line in everything.stdout.splitlines() if line.startswith("# ")] == [
        "# syntax-error (TL001)",
        "# demo-cuda-autocast (TL701)",
        "# demo-eval (TL702)",
        "# demo-print (TL801)",
    ]
    one = json.loads(invoke("rule", "demo-eval", "--output-format", "json").stdout)
    assert (one["code"], one["name"], one["fix"]) == ("TL702", "demo-eval", "Fix is not available.")
    assert one["explanation"].startswith("# demo-eval (TL702)")
    assert [record["code"] for record in json.loads(invoke("rule", "--all", "--output-format", "json").stdout)] == ["TL001", "TL701", "TL702", "TL801"]
    assert invoke("rule").exit_code == 2 and invoke("rule", "TL702", "--all").exit_code == 2


def test_clean_removes_the_caches_it_made(project: Path) -> None:
    write(project, {"e.py": EVAL, "sub/e.py": EVAL, "other/.trainlint_cache/keep.txt": "not ours"})
    invoke("check")
    (project / "sub").joinpath("trainlint.yaml").write_text("{}\n")
    invoke("check", "sub", "--cache-dir", "sub/.trainlint_cache")
    assert (project / ".trainlint_cache").is_dir() and (project / "sub/.trainlint_cache").is_dir()
    result = invoke("clean")
    assert (result.exit_code, sorted(result.stdout.splitlines())) == (
        0,
        ["Removing cache at: .trainlint_cache", "Removing cache at: sub/.trainlint_cache"],
    )
    assert not (project / ".trainlint_cache").exists() and not (project / "sub/.trainlint_cache").exists()
    assert (project / "other/.trainlint_cache/keep.txt").exists()


def test_n_is_no_cache(project: Path) -> None:
    write(project, {"e.py": EVAL})
    assert invoke("check", "-n").exit_code == 1
    assert not (project / ".trainlint_cache").exists()


@pytest.mark.parametrize("choice, colored", [("always", True), ("never", False), ("auto", False)])
def test_color_choice(project: Path, choice: str, colored: bool) -> None:
    write(project, {"e.py": EVAL})
    result = invoke("check", "--color", choice, env={"FORCE_COLOR": ""})
    assert ("\x1b[" in result.stdout) is colored
    assert "\x1b[" not in invoke("check", "--color", "never", env={"FORCE_COLOR": "1"}).stdout
    assert "\x1b[" not in invoke("check", "--color", "always", "--output-format", "json").stdout
