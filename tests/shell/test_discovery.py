"""Which files are checked: pruned folders, .gitignore, explicit paths, --force-exclude, symlink loops, missing paths."""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path
from typing import List

import pytest

from tests.shell.support import CLEAN, EVAL, invoke, write
from trainlint.settings import DEFAULT_EXCLUDE, Settings

pytestmark = pytest.mark.usefixtures("project")


def checked(*args: str) -> List[str]:
    """The paths reported (every test file holds one `eval` finding)."""
    result = invoke("check", "-q", "--no-cache", *args)
    return [line.split(":", 1)[0] for line in result.stdout.splitlines()]


def test_pruned_folders(project: Path) -> None:
    names = [
        "m.py", "stub.pyi", "pkg/m.py",
        ".git/hooks/h.py", ".venv/lib/v.py", "venv/lib/v.py", "myenv/lib/v.py", ".tox/t.py",
        "__pycache__/c.py", "pkg/__pycache__/c.py", "build/b.py", "dist/d.py", "node_modules/n.py",
        "x.egg-info/e.py", ".trainlint_cache/c.py", "notes.txt",
    ]  # fmt: skip
    write(project, {name: EVAL for name in names})
    write(project, {"myenv/pyvenv.cfg": "home = /usr/bin\n"})  # a virtualenv under any name
    assert checked() == ["m.py", "pkg/m.py", "stub.pyi"]


def test_gitignore_with_negation_anchoring_and_nested_files(project: Path) -> None:
    names = ["m.py", "gen/g.py", "a.tmp.py", "keep.tmp.py", "sub/local.py", "sub/m.py", "sub/x/local.py", "top.py", "sub/top.py"]
    write(project, {name: EVAL for name in names})
    write(project, {".gitignore": "gen/\n*.tmp.py\n!keep.tmp.py\n/top.py\n", "sub/.gitignore": "local.py\n"})
    (project / ".git").mkdir()
    assert checked() == ["keep.tmp.py", "m.py", "sub/m.py", "sub/top.py"]
    assert len(checked("--no-respect-gitignore")) == len(names)


def test_a_nested_gitignore_can_reinclude(project: Path) -> None:
    write(project, {"a/x.py": EVAL, "a/b/x.py": EVAL, ".gitignore": "x.py\n", "a/b/.gitignore": "!x.py\n"})
    assert checked() == ["a/b/x.py"]


def test_gitignore_classes_escapes_and_trailing_spaces_follow_git(project: Path) -> None:
    """As `git check-ignore` decides: `[!0-9]` negates, a backslash quotes `#`, `!`, `[` and a space."""
    names = ["data1.py", "dataa.py", "#notes.py", "!keep.py", "x[1].py", "x1.py", "sp .py", "a-b.py", "ab.py", "trail.py"]
    write(project, {name: EVAL for name in names})
    patterns = ["data[!0-9].py", "\\#notes.py", "\\!keep.py", "x\\[1\\].py", "sp\\ .py", "a[-]b.py", "trail.py   "]
    write(project, {".gitignore": "\n".join(patterns) + "\n"})
    assert checked() == ["ab.py", "data1.py", "x1.py"]


def test_gitignore_of_the_repository_applies_when_checking_a_subfolder(project: Path) -> None:
    (project / ".git").mkdir()
    write(project, {".gitignore": "*_pb2.py\n", "src/m.py": EVAL, "src/m_pb2.py": EVAL})
    assert checked("src") == ["src/m.py"]


def test_respect_gitignore_false_in_configuration(project: Path) -> None:
    write(project, {".gitignore": "gen/\n", "gen/g.py": EVAL, "trainlint.yaml": "respect-gitignore: false\n"})
    assert checked() == ["gen/g.py"]


def test_an_explicit_file_is_checked_even_when_excluded(project: Path) -> None:
    write(project, {"build/b.py": EVAL, "gen/g.py": EVAL, ".gitignore": "gen/\n", "script": EVAL})
    assert checked("build/b.py", "gen/g.py", "script") == ["build/b.py", "gen/g.py", "script"]


def test_force_exclude_drops_excluded_explicit_files(project: Path) -> None:
    write(project, {"build/b.py": EVAL, "gen/g.py": EVAL, "src/m.py": EVAL, ".gitignore": "gen/\n", "trainlint.yaml": "extend-exclude: [src]\n"})
    result = invoke("check", "--force-exclude", "build/b.py", "gen/g.py", "src/m.py")
    assert (result.exit_code, result.stdout) == (0, "All checks passed!\n")
    assert result.stderr == "warning: No Python files found under the given path(s)\n"


def test_force_exclude_keeps_other_explicit_files(project: Path) -> None:
    write(project, {"build/b.py": EVAL, "m.py": EVAL})
    assert checked("--force-exclude", "build/b.py", "m.py") == ["m.py"]


def test_force_exclude_drops_excluded_explicit_folders(project: Path) -> None:
    write(project, {"build/b.py": EVAL, "gen/g.py": EVAL, "legacy/l.py": EVAL, "src/m.py": EVAL})
    write(project, {".gitignore": "gen/\n", "trainlint.yaml": "extend-exclude: [legacy]\n"})
    assert checked("build", "gen", "legacy", "src") == ["build/b.py", "gen/g.py", "legacy/l.py", "src/m.py"]
    assert checked("--force-exclude", "build", "gen", "legacy", "src") == ["src/m.py"]


def test_force_exclude_never_drops_the_project_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A checkout may live in a folder whose name is excluded (``~/build/project``, ``dist``)."""
    project = tmp_path / "build"
    write(project, {"m.py": EVAL})
    monkeypatch.chdir(project)
    assert checked("--force-exclude", ".") == checked("--force-exclude", str(project)) == ["m.py"]


def test_directory_symlink_loop_terminates_and_each_file_is_checked_once(project: Path) -> None:
    write(project, {"pkg/m.py": EVAL, "pkg/sub/s.py": EVAL})
    os.symlink("..", project / "pkg" / "sub" / "up")
    os.symlink("pkg", project / "alias")
    assert checked() == ["pkg/m.py", "pkg/sub/s.py"]


def test_a_missing_path_is_an_error_and_the_rest_is_checked(project: Path) -> None:
    write(project, {"m.py": EVAL})
    result = invoke("check", "missing.py", "m.py")
    assert result.exit_code == 2
    assert result.stdout.startswith("m.py:1:1: TL702")
    assert "missing.py: No such file or directory" in result.stderr


def test_no_python_files_is_a_warning(project: Path) -> None:
    write(project, {"notes.txt": "x\n"})
    result = invoke("check")
    assert (result.exit_code, result.stdout) == (0, "All checks passed!\n")
    assert result.stderr == "warning: No Python files found under the given path(s)\n"


def test_the_same_file_named_twice_is_checked_once(project: Path) -> None:
    write(project, {"m.py": EVAL, "ok.py": CLEAN})
    assert checked("m.py", "./m.py", ".") == ["m.py"]


@pytest.mark.parametrize("pattern", [*DEFAULT_EXCLUDE, "*.py[cod]", "data?", "[!a]*", "a|b", "(x)"])
@pytest.mark.parametrize("name", ["build", "x.egg-info", "venv2", "data1", "module.pyc", "abc", "a|b", "(x)", ".git"])
def test_name_patterns_exclude_exactly_what_fnmatch_matches(tmp_path: Path, pattern: str, name: str) -> None:
    settings = Settings(root=tmp_path, config_path=None, codes=frozenset(), exclude=(pattern,))
    assert settings.is_excluded(tmp_path / "pkg" / name) == fnmatch.fnmatchcase(name, pattern)
