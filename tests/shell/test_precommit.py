"""The real pre-commit runs our hooks (their entries copied from .pre-commit-hooks.yaml) in a scratch repository.

The hooks are declared as ``repo: local`` with ``language: system`` so that
pre-commit runs the ``trainlint`` of this environment without a network; the
demo rules stand in for the real ones (demo_site/sitecustomize.py).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.shell.support import AUTOCAST, AUTOCAST_FIXED, REPO, demo_env, notebook

PRE_COMMIT = shutil.which("pre-commit", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))

pytestmark = [
    pytest.mark.skipif(shutil.which("git") is None, reason="needs git"),
    pytest.mark.skipif(PRE_COMMIT is None, reason="needs pre-commit"),
]


def local_hooks() -> dict:
    hooks = []
    for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text()):
        local = {key: hook[key] for key in ("id", "name", "entry", "types_or", "require_serial")}
        hooks.append({**local, "language": "system"})
    return {"repos": [{"repo": "local", "hooks": hooks}]}


def test_check_fails_fix_rewrites_then_check_passes(tmp_path: Path) -> None:
    env = demo_env()
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])  # this venv's trainlint
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit-home")
    repo = tmp_path / "repo"
    repo.mkdir()

    def run(*command: str) -> subprocess.CompletedProcess:
        return subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, timeout=120)

    def pre_commit(hook: str) -> subprocess.CompletedProcess:
        return run(PRE_COMMIT, "run", hook, "--files", "train.py", "build/generated.py", "train.ipynb")

    run("git", "init", "-q")
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(local_hooks()))
    (repo / "build").mkdir()
    (repo / "train.py").write_text(AUTOCAST)
    (repo / "build" / "generated.py").write_text(AUTOCAST)  # excluded by default: --force-exclude drops it
    (repo / "train.ipynb").write_text(notebook(AUTOCAST))  # pre-commit tags it `jupyter`
    run("git", "add", ".pre-commit-config.yaml", "train.py", "build/generated.py", "train.ipynb")

    check = pre_commit("trainlint")
    assert check.returncode == 1, check.stdout + check.stderr
    assert "train.py:3:6: TL701 [*] `torch.cuda.amp.autocast` is deprecated" in check.stdout
    assert "train.ipynb:cell 2:3:6: TL701 [*] `torch.cuda.amp.autocast` is deprecated" in check.stdout
    assert "generated.py" not in check.stdout

    fix = pre_commit("trainlint-fix")
    assert fix.returncode == 1  # pre-commit fails a run in which a hook modified files
    assert "files were modified by this hook" in fix.stdout
    assert (repo / "train.py").read_text() == AUTOCAST_FIXED
    assert (repo / "train.ipynb").read_text() == notebook(AUTOCAST_FIXED)
    assert (repo / "build" / "generated.py").read_text() == AUTOCAST

    run("git", "add", "train.py", "train.ipynb")
    again = pre_commit("trainlint")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "Passed" in again.stdout
