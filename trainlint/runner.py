"""Run check or fix over many files: per-file work, a process pool, the results.

The per-file functions are top-level and take only picklable arguments so the
same code runs in-process (few files, stdin, tests) and in worker processes.
"""

from __future__ import annotations

import os
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator, List, Optional, Sequence, Tuple

from trainlint.cache import ResultCache, digest
from trainlint.diagnostics import Diagnostic, syntax_error
from trainlint.engine import RuleSettings, fix_source, lint_source, unified_diff
from trainlint.source import DecodeError, SourceText, decode, write_atomically

# Below this many files a pool costs more than it saves.
MIN_FILES_FOR_POOL = 16


@dataclass
class FileOutcome:
    path: str
    diagnostics: List[Diagnostic] = field(default_factory=list)
    errors: List[str] = field(default_factory=list)
    applied: Counter = field(default_factory=Counter)
    diff: bytes = b""  # in the file's own encoding, so that `git apply` matches its lines
    warnings: List[str] = field(default_factory=list)


@dataclass(frozen=True)
class FileTask:
    path: str  # as displayed and as opened
    settings: RuleSettings
    mode: str = "check"  # "check" | "diff" | "write"
    unsafe_fixes: bool = False


def _read(path: str) -> Tuple[Optional[bytes], Optional[str]]:
    try:
        with open(path, "rb") as handle:
            return handle.read(), None
    except OSError as error:
        return None, f"{path}: cannot read: {error.strerror}"


def _decoded(path: str, data: bytes, outcome: FileOutcome) -> Optional[SourceText]:
    try:
        return decode(data)
    except DecodeError as error:
        outcome.diagnostics.append(syntax_error(path, error.row, error.column, str(error)))
        return None


def process_source(path: str, data: bytes, task: FileTask) -> Tuple[FileOutcome, Optional[bytes]]:
    """Lint or fix one file's bytes; return the outcome and the new bytes (None: unchanged)."""
    outcome = FileOutcome(path)
    source = _decoded(path, data, outcome)
    if source is None:
        return outcome, None
    if task.mode == "check":
        result = lint_source(source.text, path, task.settings)
        outcome.diagnostics, outcome.errors = result.diagnostics, result.errors
        return outcome, None
    fixed = fix_source(source.text, path, task.settings, task.unsafe_fixes)
    outcome.diagnostics, outcome.errors, outcome.applied = fixed.remaining.diagnostics, fixed.errors, fixed.applied
    if fixed.text == source.text:
        return outcome, None
    try:
        new_data = source.encode(fixed.text)
    except UnicodeEncodeError as error:
        outcome.errors.append(f"{path}: the fixed code cannot be written as {source.encoding} ({error.reason}); left as it is")
        outcome.applied.clear()
        return outcome, None
    outcome.diff = _diff(source, fixed.text, path)
    return outcome, new_data


def _diff(source: SourceText, fixed_text: str, path: str) -> bytes:
    """The unified diff encoded like the file itself, BOM included, so that it applies to the file's bytes."""
    bom = "\ufeff" if source.encoding == "utf-8-sig" else ""
    text = unified_diff(bom + source.text, bom + fixed_text, path)
    return text.encode("utf-8" if bom else source.encoding, errors="replace")


def process_file(task: FileTask) -> FileOutcome:
    """Check or fix one file; whatever goes wrong is reported for this file and the run goes on."""
    try:
        data, problem = _read(task.path)
        if data is None:
            return FileOutcome(task.path, errors=[problem])
        outcome, new_data = process_source(task.path, data, task)
        if new_data is not None and task.mode == "write":
            _write_if_unchanged(task.path, data, new_data, outcome)
        return outcome
    except Exception as error:  # noqa: BLE001 - one file's crash must not end the run
        return FileOutcome(
            task.path, errors=[f"{task.path}: internal error: {type(error).__name__}: {error}; this is a trainlint bug"]
        )


def _write_if_unchanged(path: str, original: bytes, new_data: bytes, outcome: FileOutcome) -> None:
    """Write the fix only if nobody changed the file since it was read."""
    current, problem = _read(path)
    if current != original:
        outcome.warnings.append(f"{path}: changed on disk while it was being fixed; left as it is")
        outcome.applied.clear()
        return
    try:
        write_atomically(Path(path), new_data)
    except OSError as error:
        outcome.errors.append(f"{path}: cannot write the fix: {error.strerror}")
        outcome.applied.clear()


def _process_chunk(tasks: Sequence[FileTask]) -> List[FileOutcome]:
    return [process_file(task) for task in tasks]


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def run_tasks(
    tasks: Sequence[FileTask],
    jobs: int,
    cache: Optional[ResultCache] = None,
    on_done: Optional[Callable[[int], None]] = None,
) -> Iterator[FileOutcome]:
    """Serve what the cache knows, process the rest in-process or in a pool, refresh the cache.

    In fix modes the cache only spares files it knows to be clean.
    """
    if cache is None:
        yield from _process_all(tasks, jobs, on_done)
        return
    pending: List[FileTask] = []
    digests = {}
    for task in tasks:
        data, _ = _read(task.path)
        if data is None:
            pending.append(task)
            continue
        digests[task.path] = digest(data)
        known = cache.get(task.path, task.settings, digests[task.path])
        if known is None or (task.mode != "check" and known):
            pending.append(task)
            continue
        if on_done:
            on_done(1)
        yield FileOutcome(task.path, diagnostics=list(known))
    for task, outcome in zip(pending, _process_all(pending, jobs, on_done)):
        if task.mode == "check" and not outcome.errors and task.path in digests:
            cache.put(task.path, task.settings, digests[task.path], outcome.diagnostics)
        yield outcome
    cache.save()


def _process_all(
    tasks: Sequence[FileTask], jobs: int, on_done: Optional[Callable[[int], None]]
) -> Iterator[FileOutcome]:
    """Process tasks in-process or in a pool of ``jobs`` workers, in chunks to keep overhead low."""
    if jobs <= 1 or len(tasks) < MIN_FILES_FOR_POOL:
        for task in tasks:
            yield process_file(task)
            if on_done:
                on_done(1)
        return
    chunk_size = max(1, min(64, len(tasks) // (jobs * 8)))
    chunks = [tasks[i : i + chunk_size] for i in range(0, len(tasks), chunk_size)]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for outcomes in pool.map(_process_chunk, chunks):
            yield from outcomes
            if on_done:
                on_done(len(outcomes))


def collect(outcomes: Iterable[FileOutcome]) -> List[FileOutcome]:
    return sorted(outcomes, key=lambda outcome: outcome.path)
