"""Ignore files as git reads them (.git/info/exclude, core.excludesFile, .ignore besides .gitignore),
and no warning about the checked code on stderr."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.shell.support import EVAL, demo_env, invoke, write

pytestmark = pytest.mark.usefixtures("project")


@pytest.fixture
def home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder of its own, and no system git configuration, so the user's real settings stay out."""
    folder = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for variable in ("XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL"):
        monkeypatch.delenv(variable, raising=False)
    return folder


def checked(*args: str) -> list:
    result = invoke("check", "--show-files", *args)
    assert result.exit_code == 0, result.stderr
    return result.stdout.splitlines()


def test_info_exclude_of_the_repository(project: Path, home: Path) -> None:
    write(project, {".git/info/exclude": "# local\nscratch_*.py\n", "scratch_1.py": EVAL, "sub/scratch_2.py": EVAL, "keep.py": EVAL})
    assert checked() == ["keep.py"]
    assert checked("sub") == []  # also when the walk starts below the repository root
    assert checked("--no-respect-gitignore") == ["keep.py", "scratch_1.py", "sub/scratch_2.py"]
    assert checked("scratch_1.py") == ["scratch_1.py"]  # named, it is checked...
    assert checked("--force-exclude", "scratch_1.py") == []  # ...unless --force-exclude


def test_core_excludes_file_from_the_global_configuration(project: Path, home: Path) -> None:
    write(home, {".gitconfig": '[user]\n\tname = x\n[core]\n\texcludesFile = "~/global-ignore"\n', "global-ignore": "*_generated.py\n"})
    write(project, {".git/config": "[core]\n\tbare = false\n", "model_generated.py": EVAL, "model.py": EVAL})
    assert checked() == ["model.py"]


def test_core_excludes_file_set_in_an_included_configuration(project: Path, home: Path) -> None:
    write(
        home,
        {
            ".gitconfig": "[include]\n\tpath = dotfiles/git.local\n[user]\n\tname = x\n",
            "dotfiles/git.local": "[core]\n\texcludesFile = ~/global-ignore\n",
            "global-ignore": "*_generated.py\n",
        },
    )
    write(project, {".git/config": "", "model_generated.py": EVAL, "model.py": EVAL})
    assert checked() == ["model.py"]


def test_default_excludes_file_and_repository_config_override(project: Path, home: Path) -> None:
    write(home, {".config/git/ignore": "a.py\n", "other-ignore": "b.py\n"})
    write(project, {".git/config": "", "a.py": EVAL, "b.py": EVAL})
    assert checked() == ["b.py"]  # unset: $XDG_CONFIG_HOME/git/ignore
    write(project, {".git/config": f"[core]\n\texcludesfile = {home / 'other-ignore'}\n"})
    assert checked(str(project)) == ["a.py"]  # the repository's setting wins over the default


def test_a_gitignore_wins_over_info_exclude(project: Path, home: Path) -> None:
    write(project, {".git/info/exclude": "*.py\n", ".gitignore": "!keep.py\n", "keep.py": EVAL, "drop.py": EVAL})
    assert checked() == ["keep.py"]


def test_dot_ignore_files_and_their_precedence(project: Path, home: Path) -> None:
    write(project, {".ignore": "vendored/\n", "vendored/lib.py": EVAL, "sub/.gitignore": "x.py\n", "sub/.ignore": "!x.py\n", "sub/x.py": EVAL})
    assert checked() == ["sub/x.py"]  # .ignore beside a .gitignore wins


def test_linked_worktrees_share_the_main_repositorys_exclude(project: Path, home: Path) -> None:
    main_git = project / "main" / ".git"
    write(project, {"main/.git/info/exclude": "tmp_*.py\n", "main/.git/worktrees/wt/commondir": "../..\n", "wt/tmp_1.py": EVAL, "wt/ok.py": EVAL})
    (project / "wt" / ".git").write_text(f"gitdir: {main_git / 'worktrees' / 'wt'}\n")
    assert checked("wt") == ["wt/ok.py"]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_same_files_as_git_lists(project: Path, home: Path) -> None:
    """What git itself leaves out (`git ls-files --others --exclude-standard`) is what trainlint leaves out."""
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(home)}
    subprocess.run(["git", "init", "-q", "."], cwd=project, check=True, env=env)
    write(home, {".gitconfig": "[core]\n\texcludesFile = ~/.gitignore_global\n", ".gitignore_global": "*.tmp.py\n"})
    write(
        project,
        {
            ".git/info/exclude": "local/\n",
            ".gitignore": "build*/\n!build_keep/\n*.gen.py\n",
            "pkg/.gitignore": "/only_here.py\n",
            "a.py": EVAL, "b.tmp.py": EVAL, "local/c.py": EVAL, "build_x/d.py": EVAL, "build_keep/e.py": EVAL,
            "f.gen.py": EVAL, "pkg/only_here.py": EVAL, "pkg/g.py": EVAL, "pkg/sub/only_here.py": EVAL,
        },
    )
    listed = subprocess.run(["git", "ls-files", "--others", "--exclude-standard"], cwd=project, env=env, capture_output=True, text=True, check=True)
    by_git = sorted(path for path in listed.stdout.splitlines() if path.endswith(".py"))
    assert by_git == ["a.py", "build_keep/e.py", "pkg/g.py", "pkg/sub/only_here.py"]
    assert checked() == by_git


def test_warnings_about_the_checked_code_never_reach_stderr(project: Path) -> None:
    """CPython warns while compiling "\\d" in a string (SyntaxWarning since 3.12, DeprecationWarning
    before, shown here with -W always): the warning is about the user's code, not trainlint."""
    code = 'import re\nPATTERN = re.compile("\\d+")\n'
    write(project, {"one/a.py": code, **{f"many/m{i}.py": code for i in range(20)}})
    for target, jobs in (("one", "1"), ("many", "2")):  # in-process, and in worker processes
        process = subprocess.run(
            [sys.executable, "-W", "always", "-m", "trainlint", "check", "--no-cache", "-j", jobs, target],
            cwd=project, env=demo_env(), capture_output=True, text=True, timeout=120,
        )
        assert (process.returncode, process.stderr) == (0, ""), target
