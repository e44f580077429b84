"""Two `fix --write` runs (and a `check`) on the same tree at once corrupt neither the files nor the cache."""

from __future__ import annotations

import json
from pathlib import Path

from tests.reliability.processes import finish, fixable_tree, leftovers, start, states
from tests.shell.support import run_script
from trainlint.cache import CACHE_DIRNAME

FILES = 60


def test_concurrent_fixes_and_a_check(project: Path) -> None:
    paths = fixable_tree(project, FILES)
    # A cold check first, so that both fixers read a cache table while the concurrent check rewrites it.
    assert run_script("check", "-q", cwd=project).returncode == 1
    runs = [start(project, "fix", "--write", "-j", "2"), start(project, "fix", "--write", "-j", "2"), start(project, "check", "-q", "-j", "2")]
    results = [finish(run, timeout=120) for run in runs]
    assert sum(stderr.count("changed on disk") for _, _, stderr in results) > 0  # the runs really contended for files
    for returncode, _, stderr in results[:2]:
        # 1 where a run found a file already fixed by the other ("changed on disk ... left as it is") and reported it as it read it
        assert returncode in (0, 1), stderr
        assert "error" not in stderr, stderr
        assert set(stderr.splitlines()) <= {f"warning: {p.relative_to(project)}: changed on disk while it was being fixed; left as it is" for p in paths}
    assert results[2][0] in (0, 1), results[2][2]
    assert states(paths) == {"original": 0, "fixed": FILES, "other": 0}
    assert leftovers(project) == []
    tables = list((project / CACHE_DIRNAME).rglob("*.json"))
    assert tables
    for table in tables:
        assert json.loads(table.read_text())["files"]  # whole, never interleaved
    cached, fresh = run_script("check", cwd=project), run_script("check", "--no-cache", cwd=project)
    assert (cached.returncode, cached.stdout) == (fresh.returncode, fresh.stdout) == (0, b"All checks passed!\n")
