"""Writes: one rename from the same folder, owner and mode kept, links followed only inside the run, no stale write."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.shell.support import AUTOCAST, AUTOCAST_FIXED, EVAL, invoke, write
from trainlint import runner

pytestmark = pytest.mark.usefixtures("project", "demo_registry")

A_TL701 = "3:6: TL701 [*] `torch.cuda.amp.autocast` is deprecated"


def test_the_fix_arrives_by_one_rename_of_a_complete_file_from_the_same_folder(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(project, {"pkg/a.py": AUTOCAST})
    renames = []
    real_replace = os.replace

    def spy(source, destination):
        renames.append((Path(source).parent, Path(destination), Path(source).read_text(), Path(destination).read_text()))
        real_replace(source, destination)

    monkeypatch.setattr(os, "replace", spy)
    assert invoke("fix", "--write", "--no-cache").exit_code == 0
    assert renames == [(project / "pkg", project / "pkg" / "a.py", AUTOCAST_FIXED, AUTOCAST)]


def test_an_interrupt_before_the_rename_leaves_the_old_file_and_no_temporary(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(project, {"a.py": AUTOCAST})

    def interrupted(source, destination):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    result = invoke("fix", "--write", "--no-cache")
    assert result.exit_code == 130
    assert result.stderr == "trainlint: interrupted: every file is either as it was or completely fixed\n"
    assert sorted(p.name for p in project.iterdir()) == ["a.py"]
    assert (project / "a.py").read_text() == AUTOCAST


@pytest.mark.skipif(os.geteuid() != 0, reason="only root may give a file to another owner")
def test_owner_and_group_are_kept(project: Path) -> None:
    write(project, {"a.py": AUTOCAST})
    os.chown(project / "a.py", 4242, 4343)
    assert invoke("fix", "--write", "--no-cache").exit_code == 0
    info = (project / "a.py").stat()
    assert ((project / "a.py").read_text(), info.st_uid, info.st_gid) == (AUTOCAST_FIXED, 4242, 4343)


# --- symlinks ---------------------------------------------------------------------------------


def test_a_link_inside_the_run_is_fixed_at_its_target_and_stays_a_link(project: Path) -> None:
    write(project, {"real/m.py": AUTOCAST})
    os.symlink("real/m.py", project / "link.py")
    assert invoke("fix", "--write", "--no-cache").exit_code == 0
    assert os.readlink(project / "link.py") == "real/m.py"
    assert (project / "real" / "m.py").read_text() == AUTOCAST_FIXED


@pytest.fixture
def outside(tmp_path_factory) -> Path:
    """A folder outside the working directory, holding a fixable file."""
    folder = tmp_path_factory.mktemp("outside")
    write(folder, {"m.py": AUTOCAST})
    return folder


@pytest.mark.parametrize("link", ["src/link.py", "src/linked_folder"])
def test_a_link_out_of_the_run_is_checked_but_not_written(project: Path, outside: Path, link: str) -> None:
    target = outside / "m.py" if link.endswith(".py") else outside
    (project / "src").mkdir()
    os.symlink(target, project / link)
    shown = link if link.endswith(".py") else f"{link}/m.py"
    result = invoke("fix", "--write", "--no-cache", "src")
    assert result.exit_code == 1
    assert result.stdout.startswith(f"{shown}:{A_TL701}\n")
    assert f"warning: {shown}: links to {outside / 'm.py'}, outside the paths being fixed; not written" in result.stderr
    assert (outside / "m.py").read_text() == AUTOCAST
    assert os.path.islink(project / link)


def test_a_link_named_on_the_command_line_is_fixed_at_its_target(project: Path, outside: Path) -> None:
    os.symlink(outside / "m.py", project / "link.py")
    assert invoke("fix", "--write", "--no-cache", "link.py").exit_code == 0
    assert (outside / "m.py").read_text() == AUTOCAST_FIXED
    assert os.path.islink(project / "link.py")


# --- a fix that is not written ----------------------------------------------------------------


def test_a_file_changed_on_disk_keeps_its_findings_in_the_report(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shell's test covers the warning; here: the unwritten fix is not counted and its finding is still shown."""
    write(project, {"a.py": AUTOCAST})
    real = runner.process_source

    def edit_meanwhile(path, data, task):
        outcome = real(path, data, task)
        Path(path).write_text(AUTOCAST + "# edited\n")
        return outcome

    monkeypatch.setattr(runner, "process_source", edit_meanwhile)
    result = invoke("fix", "--write", "--no-cache")
    assert result.exit_code == 1
    assert result.stdout == f"a.py:{A_TL701}\nFound 1 finding (0 fixed, 1 remaining).\n"
    assert (project / "a.py").read_text() == AUTOCAST + "# edited\n"


# --- the cache under concurrent writers -------------------------------------------------------


def test_the_cache_keys_findings_by_the_bytes_that_were_checked(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process rewrites a file between the cache lookup and the check: the findings are stored under
    the digest of what was checked, so going back to the old content does not serve the new content's findings."""
    write(project, {"m.py": AUTOCAST})
    real = runner.process_file

    def rewritten_meanwhile(task):
        write(project, {"m.py": EVAL})
        return real(task)

    monkeypatch.setattr(runner, "process_file", rewritten_meanwhile)
    assert "m.py:1:1: TL702" in invoke("check").stdout
    monkeypatch.setattr(runner, "process_file", real)
    write(project, {"m.py": AUTOCAST})
    findings = json.loads(invoke("check", "--output-format", "json").stdout)
    assert [finding["code"] for finding in findings] == ["TL701"]


def test_a_file_with_hard_links_is_not_separated_from_them(project: Path) -> None:
    """Replacing one name of a hard-linked file would leave its other names with the old code."""
    write(project, {"a.py": AUTOCAST})
    os.link(project / "a.py", project / "other_name.py")
    result = invoke("fix", "--write", "--no-cache", "a.py")
    assert result.exit_code == 1
    assert "warning: a.py: has 2 hard links, which replacing it would separate; not written" in result.stderr
    assert (project / "a.py").read_text() == (project / "other_name.py").read_text() == AUTOCAST
    assert (project / "a.py").stat().st_ino == (project / "other_name.py").stat().st_ino
