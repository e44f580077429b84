"""Configuration: discovery (nearest file wins), keys, rule options, and one-line errors (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.shell.support import EVAL, PRINT, invoke, write

pytestmark = pytest.mark.usefixtures("project")

ALL_THREE = 'import torch\nwith torch.cuda.amp.autocast():\n    print(eval("1"))\n'


def findings(*args: str) -> set:
    result = invoke("check", "--output-format", "json", *args)
    assert result.exit_code in (0, 1), result.stderr
    return {(Path(f["filename"]).relative_to(Path.cwd()).as_posix(), f["code"]) for f in json.loads(result.stdout)}


# --- discovery --------------------------------------------------------------------------------


def test_nearest_configuration_above_each_file_wins(project: Path) -> None:
    write(
        project,
        {
            "trainlint.yaml": "select: [TL8]\n",
            "m.py": ALL_THREE,
            "sub/pyproject.toml": '[tool.trainlint]\nselect = ["TL701"]\n',
            "sub/m.py": ALL_THREE,
            "sub/deeper/m.py": ALL_THREE,
        },
    )
    assert findings() == {("m.py", "TL801"), ("sub/m.py", "TL701"), ("sub/deeper/m.py", "TL701")}


def test_pyproject_without_a_trainlint_table_is_skipped(project: Path) -> None:
    write(project, {"trainlint.yaml": "select: [TL8]\n", "sub/pyproject.toml": "[tool.black]\nline-length = 100\n", "sub/m.py": ALL_THREE})
    assert findings() == {("sub/m.py", "TL801")}


@pytest.mark.parametrize("name", ["trainlint.yaml", ".trainlint.yaml", "pyproject.toml"])
def test_each_configuration_file_name(project: Path, name: str) -> None:
    text = '[tool.trainlint]\nselect = ["TL702"]\n' if name == "pyproject.toml" else "select: [TL702]\n"
    write(project, {name: text, "m.py": ALL_THREE})
    assert findings() == {("m.py", "TL702")}


def test_dot_trainlint_yaml_wins_in_its_folder(project: Path) -> None:
    write(project, {".trainlint.yaml": "select: [TL702]\n", "trainlint.yaml": "select: [TL8]\n", "m.py": ALL_THREE})
    assert findings() == {("m.py", "TL702")}


def test_config_flag_overrides_discovery(project: Path) -> None:
    write(project, {"sub/trainlint.yaml": "select: [TL701]\n", "sub/m.py": ALL_THREE, "elsewhere/strict.yaml": "select: [TL702]\n"})
    assert findings("--config", "elsewhere/strict.yaml") == {("sub/m.py", "TL702")}


def test_patterns_of_a_config_flag_file_are_relative_to_the_working_directory(project: Path) -> None:
    write(project, {"ci/lint.yaml": "per-file-ignores:\n  'tests/*': [TL7]\n", "tests/m.py": ALL_THREE})
    assert findings("--config", "ci/lint.yaml") == {("tests/m.py", "TL801")}


def test_command_line_overrides_configuration(project: Path) -> None:
    write(project, {"trainlint.yaml": "select: [TL8]\nextend-select: [TL702]\n", "m.py": ALL_THREE})
    assert findings() == {("m.py", "TL801"), ("m.py", "TL702")}
    assert findings("--select", "TL701") == {("m.py", "TL701")}
    assert findings("--ignore", "TL801") == {("m.py", "TL702")}


# --- keys -------------------------------------------------------------------------------------


def test_per_file_ignores(project: Path) -> None:
    write(
        project,
        {
            "pyproject.toml": '[tool.trainlint.per-file-ignores]\n"tests/*" = ["TL7"]\n"scripts/run.py" = ["demo-print"]\n',
            "m.py": ALL_THREE,
            "tests/m.py": ALL_THREE,
            "scripts/run.py": ALL_THREE,
        },
    )
    assert findings() == {
        ("m.py", "TL701"), ("m.py", "TL702"), ("m.py", "TL801"),
        ("tests/m.py", "TL801"),
        ("scripts/run.py", "TL701"), ("scripts/run.py", "TL702"),
    }  # fmt: skip


def test_exclude_replaces_and_extend_exclude_adds_to_the_defaults(project: Path) -> None:
    write(project, {"m.py": EVAL, "generated/g.py": EVAL, "build/b.py": EVAL})
    assert findings() == {("m.py", "TL702"), ("generated/g.py", "TL702")}  # build/ is excluded by default
    write(project, {"trainlint.yaml": "extend-exclude: [generated]\n"})
    assert findings() == {("m.py", "TL702")}
    write(project, {"trainlint.yaml": "exclude: [generated]\n"})
    assert findings() == {("m.py", "TL702"), ("build/b.py", "TL702")}
    write(project, {"trainlint.yaml": "exclude: ['generated/*.py']\n"})
    assert ("generated/g.py", "TL702") not in findings()


def test_unsafe_fixes_from_configuration(project: Path) -> None:
    write(project, {"trainlint.yaml": "unsafe-fixes: true\n", "p.py": PRINT})
    assert invoke("check").stdout.startswith("p.py:1:1: TL801 [*] `print` found")
    assert invoke("fix", "--write").exit_code == 0
    assert invoke("check", "--no-unsafe-fixes").stdout == "All checks passed!\n"


def test_rule_options_reach_the_rule(project: Path) -> None:
    write(project, {"m.py": 'eval("1")\neval("1", {})\n'})
    assert findings() == {("m.py", "TL702")} and len(json.loads(invoke("check", "--output-format", "json").stdout)) == 2
    write(project, {"pyproject.toml": "[tool.trainlint.options.TL702]\nmin-args = 2\n"})
    rows = [f["location"]["row"] for f in json.loads(invoke("check", "--output-format", "json").stdout)]
    assert rows == [2]
    write(project, {"pyproject.toml": "[tool.trainlint.options.demo-eval]\nmin-args = 3\n"})  # by rule name
    assert findings() == set()


# --- errors: naming the file (as other paths are shown) and the key, exit 2, no traceback -------
# Where the key or value is shown, and the carets under it: test_config_positions.py.

CONFIG_ERRORS = [
    ("pyproject.toml", '[tool.trainlint]\nselekt = ["TL7"]\n', "unknown key `selekt` in [tool.trainlint]; did you mean `select`? (valid keys: select,"),
    ("trainlint.yaml", "extend_select: [TL7]\n", "unknown key `extend_select` in the top level; did you mean `extend-select`?"),
    ("trainlint.yaml", "select: [TL9]\n", "Unknown rule selector `TL9` in `select` (valid: a rule code,"),
    ("trainlint.yaml", "ignore: [TL7011]\n", "Unknown rule selector `TL7011` in `ignore`; did you mean `TL701`?"),
    ("trainlint.yaml", "extend-select: [demo-prnt]\n", "Unknown rule selector `demo-prnt` in `extend-select`; did you mean `demo-print`?"),
    ("trainlint.yaml", "per-file-ignores: {'tests/*': [TL99]}\n", 'Unknown rule selector `TL99` in `per-file-ignores` ("tests/*")'),
    ("trainlint.yaml", "per-file-ignores: [TL7]\n", "`per-file-ignores` must map glob patterns to lists of rule codes"),
    ("trainlint.yaml", "per-file-ignores: {'*.py': 7}\n", "`per-file-ignores` entry `*.py` must be a list of rule codes"),
    ("trainlint.yaml", "select: [1, 2]\n", "`select` must be a list of strings, got [1, 2]"),
    ("trainlint.yaml", "exclude: 3\n", "`exclude` must be a list of strings, got 3"),
    ("trainlint.yaml", "unsafe-fixes: maybe\n", "`unsafe-fixes` must be true or false, got 'maybe'"),
    ("pyproject.toml", "[tool.trainlint]\ntarget-torch = 2.3\n", '`target-torch` must be a torch version written as a string, such as "2.3", got 2.3'),
    ("trainlint.yaml", "target-torch: latest\n", "`target-torch` must be a torch version written as a string, such as \"2.3\", got 'latest'"),
    ("trainlint.yaml", "- select\n", "the top level must be a mapping of settings"),
    ("trainlint.yaml", "select: [TL7\nignore: []\n", "invalid YAML: expected ',' or ']', but got ':' (at line 2, column 7)"),
    ("pyproject.toml", "[tool.trainlint\n", "invalid TOML: "),
    ("pyproject.toml", "[tool]\ntrainlint = 3\n", "[tool.trainlint] must be a table"),
    ("trainlint.yaml", "options: [TL702]\n", "`options` must map rule codes to tables of options"),
    ("trainlint.yaml", "options: {TL703: {min-args: 2}}\n", "`options.TL703` names no rule; did you mean `TL702`?"),
    ("trainlint.yaml", "options: {TL702: 2}\n", "`options.TL702` must be a table of options"),
    ("trainlint.yaml", "options: {TL702: {min-arg: 2}}\n", "unknown option `min-arg` for TL702; did you mean `min-args`? (valid options: min-args)"),
    ("trainlint.yaml", "options: {TL701: {min-args: 2}}\n", "unknown option `min-args` for TL701 (valid options: none)"),
    ("trainlint.yaml", "options: {TL702: {min-args: '2'}}\n", "`options.TL702.min-args` must be an integer, got '2'"),
    ("trainlint.yaml", "options: {TL702: {min-args: true}}\n", "`options.TL702.min-args` must be an integer, got True"),
    ("trainlint.yaml", "options: {demo-eval: {min-args: 0}}\n", "`options.demo-eval.min-args` must be a positive integer, got 0"),
]


@pytest.mark.parametrize("name, text, message", CONFIG_ERRORS, ids=[m[:40] for _, _, m in CONFIG_ERRORS])
def test_configuration_error_exits_2_naming_the_file_and_key(project: Path, name: str, text: str, message: str) -> None:
    write(project, {name: text, "m.py": ALL_THREE})
    result = invoke("check")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    first_line = result.stderr.splitlines()[0]
    assert first_line.startswith(f"trainlint: error: {name}:")  # relative to the working directory
    assert message in first_line


def test_errors_in_a_config_named_with_the_flag(project: Path) -> None:
    write(project, {"ci.yaml": "selekt: [TL7]\n", "bare.toml": "[tool.black]\n", "setup.cfg": "[flake8]\n", "m.py": EVAL})
    for args, message in [
        (["--config", "ci.yaml"], "trainlint: error: ci.yaml:1:1: unknown key `selekt`"),
        (["--config", "bare.toml"], "trainlint: error: bare.toml: no [tool.trainlint] table\n"),
        (["--config", "setup.cfg"], "trainlint: error: setup.cfg: unsupported configuration file"),
    ]:
        result = invoke("check", *args)
        assert result.exit_code == 2 and result.stderr.startswith(message)


def test_a_configuration_outside_the_working_directory_is_shown_by_its_full_path(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(project, {"ci.yaml": "selekt: [TL7]\n", "work/m.py": EVAL})
    monkeypatch.chdir(project / "work")
    result = invoke("check", "--config", "../ci.yaml")
    assert result.exit_code == 2 and result.stderr.startswith(f"trainlint: error: {project / 'ci.yaml'}:1:1: unknown key `selekt`")


def test_missing_config_flag_file_is_a_usage_error(project: Path) -> None:
    result = invoke("check", "--config", "nope.yaml")
    assert result.exit_code == 2 and "does not exist" in result.stderr


def test_an_empty_yaml_file_is_the_defaults(project: Path) -> None:
    write(project, {"trainlint.yaml": "", "m.py": ALL_THREE})
    assert {code for _, code in findings()} == {"TL701", "TL702", "TL801"}
