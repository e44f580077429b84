"""The result cache and the worker pool change how fast findings come, never which."""

from __future__ import annotations

import concurrent.futures
import json
from pathlib import Path

import pytest

from tests.shell.support import AUTOCAST, EVAL, PRINT, invoke, write
from trainlint import cache, runner

pytestmark = pytest.mark.usefixtures("project")

FILES = 20  # more than runner.MIN_FILES_FOR_POOL, so that --jobs 2 uses the pool


@pytest.fixture
def many_files(project: Path) -> Path:
    assert FILES > runner.MIN_FILES_FOR_POOL
    sources = [AUTOCAST, EVAL, PRINT, AUTOCAST + PRINT, "x = 1\n"]
    write(project, {f"pkg{i % 3}/m{i}.py": sources[i % len(sources)] for i in range(FILES)})
    write(project, {"broken.py": "print(1\n"})
    return project


@pytest.fixture
def lint_calls(monkeypatch: pytest.MonkeyPatch) -> list:
    """Paths linted in this process (the pool's workers are not counted)."""
    calls = []
    real = runner.lint_source

    def counting(text, path, settings):
        calls.append(path)
        return real(text, path, settings)

    monkeypatch.setattr(runner, "lint_source", counting)
    return calls


def cache_files(root: Path) -> list:
    return sorted((root / cache.CACHE_DIRNAME).rglob("*.json"))


def report(*args: str) -> str:
    result = invoke("check", "--output-format", "json", *args)
    assert result.exit_code == 1, result.stderr
    return result.stdout


def test_same_findings_with_and_without_cache_and_pool(many_files: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pools = []

    class CountedPool(concurrent.futures.ProcessPoolExecutor):
        def __init__(self, *args, **kwargs):
            pools.append(kwargs.get("max_workers"))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", CountedPool)
    baseline = report("--no-cache", "-j", "1")
    assert len(json.loads(baseline)) == 4 * 5 + 1
    assert not (many_files / cache.CACHE_DIRNAME).exists()  # --no-cache writes nothing
    assert report("--no-cache", "-j", "2") == baseline
    assert pools == [2]
    assert report("-j", "2") == baseline  # cold: fills the cache
    assert report("-j", "1") == baseline  # warm
    assert report("-j", "2") == baseline
    assert pools == [2, 2]  # the warm run with -j 2 had nothing left for a pool


def test_a_warm_run_reads_every_file_from_the_cache(many_files: Path, lint_calls: list) -> None:
    cold = report("-j", "1")
    assert len(lint_calls) == FILES + 1
    lint_calls.clear()
    assert report("-j", "1") == cold
    assert lint_calls == []


def test_an_edited_file_is_checked_again(many_files: Path, lint_calls: list) -> None:
    report("-j", "1")
    lint_calls.clear()
    write(many_files, {"pkg0/m0.py": EVAL})  # was AUTOCAST
    findings = json.loads(report("-j", "1"))
    assert lint_calls == ["pkg0/m0.py"]
    assert [f["code"] for f in findings if f["filename"].endswith("pkg0/m0.py")] == ["TL702"]


def test_other_settings_use_other_entries(many_files: Path) -> None:
    report("-j", "1")
    assert {f["code"] for f in json.loads(report("-j", "1", "--select", "TL702"))} - {"TL001"} == {"TL702"}
    assert len(cache_files(many_files)) == 2


def test_a_corrupt_cache_is_ignored_and_rewritten(many_files: Path) -> None:
    baseline = report("-j", "1")
    (table,) = cache_files(many_files)
    for garbage in (b"\x80\x04 not json", b'{"code": 1}', b"[]"):
        table.write_bytes(garbage)
        assert report("-j", "1") == baseline
        assert json.loads(table.read_text())["files"]


def test_an_entry_of_the_wrong_shape_is_a_miss(many_files: Path) -> None:
    baseline = report("-j", "1")
    (table,) = cache_files(many_files)
    document = json.loads(table.read_text())
    document["files"]["pkg0/m0.py"] = {"digest": document["files"]["pkg0/m0.py"]["digest"], "diagnostics": [{"code": 1}]}
    table.write_text(json.dumps(document))
    assert report("-j", "1") == baseline


def test_a_change_to_trainlint_itself_invalidates_the_cache(many_files: Path, lint_calls: list, monkeypatch: pytest.MonkeyPatch) -> None:
    report("-j", "1")
    lint_calls.clear()
    monkeypatch.setattr(cache, "code_fingerprint", lambda: "edited-rule")
    report("-j", "1")
    assert len(lint_calls) == FILES + 1


def test_the_cache_folder_is_tagged_and_ignored_by_git(many_files: Path) -> None:
    report()
    folder = many_files / cache.CACHE_DIRNAME
    assert (folder / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"


def test_cache_dir_option(many_files: Path, tmp_path_factory) -> None:
    elsewhere = tmp_path_factory.mktemp("cache")
    report("--cache-dir", str(elsewhere))
    assert not (many_files / cache.CACHE_DIRNAME).exists()
    assert len(list(elsewhere.rglob("*.json"))) == 1


def test_fixing_after_a_cached_check_still_fixes(many_files: Path) -> None:
    report()
    result = invoke("fix", "--write")
    assert result.stdout.splitlines()[-2].startswith("Found ")
    assert "(8 fixed," in result.stdout
    assert "TL701" not in report()


def test_runs_from_a_subfolder_share_the_cache_beside_the_configuration(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(project, {"trainlint.yaml": "ignore: [TL801]\n", "pkg/a.py": AUTOCAST})
    monkeypatch.chdir(project / "pkg")
    assert invoke("check", ".").exit_code == 1
    assert len(cache_files(project)) == 1
    assert not (project / "pkg" / cache.CACHE_DIRNAME).exists()
