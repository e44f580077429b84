"""Configuration errors point at their place, as Ruff's do: ``path:line:col: message``, then the
line with carets under the key (an unknown one) or the value (a bad one). Where the place cannot be
found, the error is the one line ``path: message``."""

from __future__ import annotations

from pathlib import Path
from typing import Tuple

import pytest

from tests.shell.support import EVAL, invoke, write
from trainlint.config import ConfigError, parse_config

pytestmark = pytest.mark.usefixtures("project")


def framed(stderr: str) -> Tuple[str, str, str]:
    """The first line, the line number in the gutter, and the text the carets are under."""
    first, gutter, source, carets = stderr.splitlines()
    number, _, shown = source.partition(" | ")
    margin = " " * len(number) + " |"
    assert gutter == margin and carets.startswith(margin + " ")
    marks = carets[len(margin) + 1 :]
    start = len(marks) - len(marks.lstrip(" "))
    assert set(marks[start:]) == {"^"}
    return first, number, shown[start : len(marks)]


# (file, text, line:col, the text under the carets, how the message starts)
TOML = [
    ('[tool.trainlint]\nselekt = ["TL7"]\n', "2:1", "selekt", "unknown key `selekt` in [tool.trainlint]"),
    ('tool.trainlint.selekt = ["TL7"]\n', "1:16", "selekt", "unknown key `selekt`"),
    ("[ tool . trainlint ]\r\n\tselekt = 1\r\n", "2:2", "selekt", "unknown key `selekt`"),
    ('[tool.trainlint]\nunsafe-fixes = "yes"  # not a boolean\n', "2:16", '"yes"', "`unsafe-fixes` must be true or false"),
    ("[tool.trainlint]\nexclude = [\n  1,\n]\n", "2:11", "[", "`exclude` must be a list of strings, got [1]"),
    ('[tool.trainlint]\nselect = [\n    "TL7",  # demo\n    "TL9",\n]\n', "4:5", '"TL9"', "Unknown rule selector `TL9` in `select`"),
    ('[tool.trainlint]\nignore = "TL9"\n', "2:10", '"TL9"', "Unknown rule selector `TL9` in `ignore`"),
    ('[tool.trainlint.per-file-ignores]\n"tests/*" = ["TL7", "TL99"]\n', "2:21", '"TL99"', "Unknown rule selector `TL99`"),
    ('[tool.trainlint.per-file-ignores]\n"*.py" = 7\n', "2:10", "7", "`per-file-ignores` entry `*.py` must be a list"),
    ('[tool.trainlint.options."TL703"]\nmin-args = 2\n', "1:25", '"TL703"', "`options.TL703` names no rule"),
    ("[tool.trainlint.options.TL702]\nmin-arg = 2\n", "2:1", "min-arg", "unknown option `min-arg` for TL702"),
    ("[tool.trainlint]\noptions = { TL702 = { min-args = 0 } }\n", "2:34", "0", "`options.TL702.min-args` must be a positive integer"),
    ("[tool.trainlint]\noptions.TL702 = 2\n", "2:17", "2", "`options.TL702` must be a table of options"),
    ("[tool]\ntrainlint = 3\n", "2:13", "3", "[tool.trainlint] must be a table"),
]
YAML = [
    ("extend_select: [TL7]\n", "1:1", "extend_select", "unknown key `extend_select` in the top level"),
    ("unsafe-fixes: maybe\n", "1:15", "maybe", "`unsafe-fixes` must be true or false"),
    ("exclude: {a: 1}\n", "1:10", "{a: 1}", "`exclude` must be a list of strings"),
    ("select:\n  - TL7\n  - TL9\n", "3:5", "TL9", "Unknown rule selector `TL9` in `select`"),
    ("select: [TL7,\r\n  TL9]\r\n", "2:3", "TL9", "Unknown rule selector `TL9` in `select`"),
    ("ignore: TL9  # one selector\n", "1:9", "TL9", "Unknown rule selector `TL9` in `ignore`"),
    ("select: [TL7]\nselect: [TL9]\n", "2:10", "TL9", "Unknown rule selector `TL9`"),  # the last one counts
    ("per-file-ignores:\n  'tests/*': [TL7, TL99]\n", "2:20", "TL99", "Unknown rule selector `TL99` in `per-file-ignores`"),
    ("per-file-ignores: [TL7]\n", "1:19", "[TL7]", "`per-file-ignores` must map glob patterns"),
    ("- select\n", "1:1", "- select", "the top level must be a mapping"),
    ("options:\n  TL703: {min-args: 2}\n", "2:3", "TL703", "`options.TL703` names no rule"),
    ("options: {TL702: 2}\n", "1:18", "2", "`options.TL702` must be a table of options"),
    ("options: {TL702: {min-arg: 2}}\n", "1:19", "min-arg", "unknown option `min-arg` for TL702"),
    ("options:\n  demo-eval:\n    min-args: '2'\n", "3:15", "'2'", "`options.demo-eval.min-args` must be an integer"),
]
CASES = [("pyproject.toml", *case) for case in TOML] + [("trainlint.yaml", *case) for case in YAML]


@pytest.mark.parametrize("name, text, position, underlined, message", CASES, ids=[f"{c[0]}:{c[4][:40]}" for c in CASES])
def test_the_carets_are_under_the_key_or_value(project: Path, name: str, text: str, position: str, underlined: str, message: str) -> None:
    write(project, {name: text, "m.py": EVAL})
    result = invoke("check")
    assert result.exit_code == 2 and result.stdout == ""
    first, number, marked = framed(result.stderr)
    assert first.startswith(f"trainlint: error: {name}:{position}: {message}")
    assert (number, marked) == (position.split(":")[0], underlined)


def test_the_frame(project: Path) -> None:
    write(project, {"pyproject.toml": "[project]\nname = 'x'\n" + "\n" * 8 + '[tool.trainlint]\nselekt = ["TL7"]\n', "m.py": EVAL})
    assert invoke("check").stderr == (
        "trainlint: error: pyproject.toml:12:1: unknown key `selekt` in [tool.trainlint]; did you mean `select`? "
        "(valid keys: select, ignore, extend-select, per-file-ignores, exclude, extend-exclude, include, extend-include, unsafe-fixes, respect-gitignore, target-torch, options)\n"
        "   |\n"
        '12 | selekt = ["TL7"]\n'
        "   | ^^^^^^\n"
    )


@pytest.mark.parametrize(
    "text, key",
    [("<<: {selekt: [TL7]}\n", "selekt"), ("true: 1\n", "True")],  # merged in; not written as `str(key)`
    ids=["merge-key", "boolean-key"],
)
def test_a_key_that_cannot_be_found_is_one_line_naming_the_file(project: Path, text: str, key: str) -> None:
    write(project, {"trainlint.yaml": text, "m.py": EVAL})
    result = invoke("check")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"trainlint: error: trainlint.yaml: unknown key `{key}` in the top level")
    assert result.stderr.count("\n") == 1


def test_a_file_changed_since_it_was_read_is_one_line_naming_the_file(project: Path) -> None:
    write(project, {"pyproject.toml": '[tool.trainlint]\nselect = ["TL7"]\n', "trainlint.yaml": "select: [TL7\n"})
    for name in ("pyproject.toml", "trainlint.yaml"):  # the key is gone; the YAML no longer parses
        with pytest.raises(ConfigError) as raised:
            parse_config({"selekt": 1}, project / name)
        assert str(raised.value).startswith(f"{name}: unknown key `selekt`") and "\n" not in str(raised.value)


def test_a_table_from_no_file() -> None:
    with pytest.raises(ConfigError, match=r"^configuration: `unsafe-fixes` must be true or false, got 1$"):
        parse_config({"unsafe-fixes": 1}, None)
