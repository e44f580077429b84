"""Run check or fix over many files: per-file work, a process pool, the results.

The per-file functions are top-level and take only picklable arguments so the
same code runs in-process (few files, stdin, tests) and in worker processes.

What a user's files can rely on (tests/reliability/):

- only regular files are read (a FIFO named ``x.py`` is refused, never waited on);
- a fix is written only to a real path inside the paths named on the command
  line, only if the file still holds the bytes that were fixed, never through a
  hard link, and atomically; a fix that is not written leaves the file's
  findings in the report;
- SIGINT or SIGTERM stops the run between files: workers finish the file in
  hand, queued work is dropped, and every file is either old or new;
- cached findings are keyed by the digest of the very bytes that were checked.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import warnings
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, FrozenSet, Iterable, Iterator, List, NamedTuple, Optional, Sequence, Tuple

from trainlint.cache import ResultCache, digest
from trainlint.diagnostics import Diagnostic, syntax_error
from trainlint.engine import FixResult, RuleSettings, fix_source, lint_source, python_verdict, reraise_interruption, unified_diff
from trainlint.notebook import is_notebook
from trainlint.source import DecodeError, SourceText, decode, write_atomically

# Below this many files a pool costs more than it saves.
MIN_FILES_FOR_POOL = 16
# Larger files get CPython's syntax check only. They are generated code (tables, protobufs),
# not training scripts, and LibCST plus the analysis cost minutes on them: a 5 MB table takes
# ~2.5 min to check and ~4.5 min to fix. The largest of 423 files in three large training
# repositories is 0.2 MB.
MAX_ANALYSED_BYTES = 1 << 20


@dataclass
class FileOutcome:
    path: str
    diagnostics: List[Diagnostic] = field(default_factory=list)
    errors: List[str] = field(default_factory=list)
    applied: Counter = field(default_factory=Counter)
    diff: bytes = b""  # in the file's own encoding, so that `git apply` matches its lines
    warnings: List[str] = field(default_factory=list)
    digest: str = ""  # of the bytes that were checked: the cache key of these diagnostics
    found: List[Diagnostic] = field(default_factory=list)  # before fixing: reported instead if the fix is not written


class FileTask(NamedTuple):
    path: str  # as displayed and as opened
    settings: RuleSettings
    mode: str = "check"  # "check" | "diff" | "write"
    unsafe_fixes: bool = False
    roots: Tuple[str, ...] = ()  # real paths named on the command line; "write" stays inside them
    fixable: Optional[FrozenSet[str]] = None  # --fixable/--unfixable: the rules allowed to fix (None: all)
    cached: bool = False  # the outcome goes into the result cache, keyed by the digest of the bytes checked


def _read(path: str) -> Tuple[Optional[bytes], Optional[str]]:
    """The file's bytes, or why not. A FIFO or device named ``x.py`` is refused, never waited on."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        return None, f"{path}: cannot read: {error.strerror}"
    with open(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None, f"{path}: cannot read: not a regular file"
        try:
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
    """Lint or fix one file's bytes; return the outcome and the new bytes (None: unchanged).

    Compiling the checked code makes CPython warn about it (3.12+: "SyntaxWarning: invalid
    escape sequence", 410 lines of stderr on one repository): those are about the user's
    code, not trainlint, and a linter must not print them, with or without ``-q``.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.filterwarnings("ignore", "invalid escape sequence", DeprecationWarning)  # its category before 3.12
        return _process_source(path, data, task)


def _process_source(path: str, data: bytes, task: FileTask) -> Tuple[FileOutcome, Optional[bytes]]:
    if is_notebook(path):
        return _process_notebook(path, data, task)
    outcome = FileOutcome(path)
    source = _decoded(path, data, outcome)
    if source is None:
        return outcome, None
    if len(data) > MAX_ANALYSED_BYTES:
        return _syntax_only(path, len(data), source, outcome), None
    if task.mode == "check":
        result = lint_source(source.text, path, task.settings)
        outcome.diagnostics, outcome.errors = result.diagnostics, result.errors
        return outcome, None
    fixed, remaining, found = _fix(source.text, path, task)
    outcome.diagnostics, outcome.errors, outcome.applied = remaining, fixed.errors, fixed.applied
    if fixed.text == source.text:
        return outcome, None
    try:
        new_data = source.encode(fixed.text)
    except UnicodeEncodeError as error:
        _not_fixed(outcome, found)
        outcome.errors.append(f"{path}: the fixed code cannot be written as {source.encoding} ({error.reason}); left as it is")
        return outcome, None
    outcome.diff = _diff(source, fixed.text, path)
    outcome.found = found
    return outcome, new_data


def _fix(text: str, path: str, task: FileTask) -> Tuple[FixResult, List[Diagnostic], List[Diagnostic]]:
    """Fix ``text`` with the fixable rules (``--fixable``/``--unfixable``; all selected ones by default): the result,
    the findings left after it and those found before it. Every selected rule still reports, before and after."""
    if task.fixable is None:
        fixed = fix_source(text, path, task.settings, task.unsafe_fixes)
        return fixed, fixed.remaining.diagnostics, fixed.found
    fixed = fix_source(text, path, replace(task.settings, codes=task.settings.codes & task.fixable), task.unsafe_fixes)
    remaining = lint_source(fixed.text, path, task.settings).diagnostics
    found = lint_source(text, path, task.settings).diagnostics if fixed.text != text else remaining
    return fixed, remaining, found


def _process_notebook(path: str, data: bytes, task: FileTask) -> Tuple[FileOutcome, Optional[bytes]]:
    """A notebook's code cells are linted and fixed as one module; the fix goes back into their ``source``."""
    from trainlint.notebook import NotebookError, WriteBackError, read_notebook

    outcome = FileOutcome(path)
    try:
        notebook, bom = read_notebook(data)
    except NotebookError as error:
        outcome.diagnostics.append(syntax_error(path, error.row, error.column, str(error)))
        return outcome, None
    broken = notebook.syntax_errors(path)  # cells that do not parse; the others are still checked
    if len(notebook.code) > MAX_ANALYSED_BYTES:
        _syntax_only(path, len(notebook.code), SourceText(notebook.code, "utf-8"), outcome)
        outcome.diagnostics = broken + [notebook.place(d) for d in outcome.diagnostics]
        return outcome, None
    if task.mode == "check":
        result = lint_source(notebook.code, path, task.settings)
        outcome.diagnostics, outcome.errors = broken + [notebook.place(d) for d in result.diagnostics], result.errors
        return outcome, None
    fixed, remaining, found_in_code = _fix(notebook.code, path, task)
    outcome.errors, outcome.applied = fixed.errors, fixed.applied
    found = broken + [notebook.place(d) for d in found_in_code]
    if fixed.text == notebook.code:
        outcome.diagnostics = broken + [notebook.place(d) for d in remaining]
        return outcome, None
    try:
        text, rows = notebook.rewritten(fixed.text)
    except WriteBackError as error:
        _not_fixed(outcome, found)
        outcome.errors.append(f"{path}: {error}; the notebook was left unchanged")
        return outcome, None
    outcome.diagnostics = broken + [notebook.place(d, rows) for d in remaining]
    if text == notebook.text:  # the fix changed only what a cell's end does not keep (trailing blank lines)
        return outcome, None
    outcome.diff = unified_diff(bom + notebook.text, bom + text, path).encode("utf-8")
    outcome.found = found
    return outcome, (bom + text).encode("utf-8")


def _syntax_only(path: str, size: int, source: SourceText, outcome: FileOutcome) -> FileOutcome:
    mib = 1 << 20
    outcome.warnings.append(
        f"{path}: {size / mib:.1f} MiB, larger than the {MAX_ANALYSED_BYTES / mib:g} MiB trainlint analyses"
        " (generated code?); only its syntax was checked"
    )
    error = python_verdict(source.text, path)[0]
    outcome.diagnostics = [error] if error else []
    return outcome


def _not_fixed(outcome: FileOutcome, found: List[Diagnostic]) -> None:
    """The fixes will not be written: report the file's findings as they are, and no fix as applied."""
    outcome.diagnostics = list(found)
    outcome.applied.clear()
    outcome.diff = b""


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
        if task.cached:
            outcome.digest = digest(data)
        if new_data is not None and task.mode == "write":
            _write_if_unchanged(task, data, new_data, outcome)
        return outcome
    except Exception as error:  # noqa: BLE001 - one file's crash must not end the run
        reraise_interruption(error)
        return FileOutcome(
            task.path, errors=[f"{task.path}: internal error: {type(error).__name__}: {error}; this is a trainlint bug"]
        )


def _write_if_unchanged(task: FileTask, original: bytes, new_data: bytes, outcome: FileOutcome) -> None:
    """Write the fix to the file's real path (a symlink stays a symlink), unless there is a reason not to."""
    target = os.path.realpath(task.path)
    refusal = _why_not_written(task, target, original)
    if refusal:
        _not_fixed(outcome, outcome.found)
        outcome.warnings.append(f"{task.path}: {refusal}")
        return
    try:
        write_atomically(Path(target), new_data)
    except OSError as error:
        _not_fixed(outcome, outcome.found)
        outcome.errors.append(f"{task.path}: cannot write the fix: {error.strerror}")


def _why_not_written(task: FileTask, target: str, original: bytes) -> str:
    """Why the fix must not replace ``target`` ("" when it may)."""
    if task.roots and not any(_inside(target, root) for root in task.roots):
        return f"links to {target}, outside the paths being fixed; not written"
    current, _ = _read(target)
    if current != original:
        return "changed on disk while it was being fixed; left as it is"
    links = os.stat(target).st_nlink
    if links > 1:  # the new file would have this name only; the other names would keep the old code
        return f"has {links} hard links, which replacing it would separate; not written"
    return ""


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class Interrupted(KeyboardInterrupt):
    """The run was stopped by a signal; the exit status is 128 + ``signum``, as a shell reports it."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise_interrupted(signum: int, frame: object) -> None:
    raise Interrupted(signum)


@contextlib.contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """Within, SIGTERM unwinds like Ctrl-C, so a terminated ``fix --write`` stops as cleanly as an interrupted one.

    (Dying by SIGTERM's default action would keep every file whole, writes being
    atomic, but would leave the temporary file of a write in progress behind.)
    """
    try:
        previous = signal.signal(signal.SIGTERM, _raise_interrupted)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


# In a worker process: set when the run is interrupted; the worker then finishes the file in hand and stops.
_stop_requested = False
_stop_event = None


def _init_worker(stop_event) -> None:
    """A signal only raises a flag in a worker: raising an exception in its loop would break the pool
    and print a traceback per worker. The parent process decides how the run ends."""
    global _stop_event
    _stop_event = stop_event
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _request_stop)


def _request_stop(signum: int, frame: object) -> None:
    global _stop_requested
    _stop_requested = True


def _process_chunk(tasks: Sequence[FileTask]) -> List[FileOutcome]:
    """Process tasks until done or told to stop; fewer outcomes than tasks means the worker was stopped."""
    outcomes = []
    for task in tasks:
        if _stop_requested or (_stop_event is not None and _stop_event.is_set()):
            break
        outcomes.append(process_file(task))
    return outcomes


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
    for task in tasks:
        data, _ = _read(task.path)
        if data is None:
            pending.append(task)
            continue
        known = cache.get(task.path, task.settings, digest(data))
        if known is None or (task.mode != "check" and known):
            pending.append(task)
            continue
        if on_done:
            on_done(1)
        yield FileOutcome(task.path, diagnostics=list(known))
    pending = [task._replace(cached=True) for task in pending]
    by_path = {task.path: task for task in pending}
    for outcome in _process_all(pending, jobs, on_done):
        task = by_path[outcome.path]
        # The digest of the bytes that were checked, not of those looked up above: another
        # process (a concurrent `fix --write`) may have rewritten the file in between.
        if task.mode == "check" and not (outcome.errors or outcome.warnings) and outcome.digest:
            cache.put(task.path, task.settings, outcome.digest, outcome.diagnostics)
        yield outcome
    cache.save()


def _process_all(
    tasks: Sequence[FileTask], jobs: int, on_done: Optional[Callable[[int], None]]
) -> Iterator[FileOutcome]:
    """Process tasks in-process or in a pool of ``jobs`` workers, in chunks to keep overhead low.

    The pool is handed the largest files first, in chunks small enough that the last ones even out the workers'
    loads (a 2,000-line training script parsed last would leave the other worker idle); outcomes come back in that
    order, each naming its file."""
    if jobs <= 1 or len(tasks) < MIN_FILES_FOR_POOL:
        for task in tasks:
            yield process_file(task)
            if on_done:
                on_done(1)
        return
    # Imported here: they cost ~30 ms of start-up, a third of checking one file that no rule triggers on.
    import concurrent.futures
    import multiprocessing

    tasks = sorted(tasks, key=_size, reverse=True)
    chunk_size = max(1, min(64, len(tasks) // (jobs * 16)))
    chunks = [tasks[i : i + chunk_size] for i in range(0, len(tasks), chunk_size)]
    context = multiprocessing.get_context()
    stop = context.Event()
    pool = concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_init_worker, initargs=(stop,))
    try:
        for chunk, outcomes in zip(chunks, pool.map(_process_chunk, chunks)):
            if len(outcomes) < len(chunk):
                raise Interrupted()  # a worker was sent a signal
            yield from outcomes
            if on_done:
                on_done(len(outcomes))
    except BaseException:
        stop.set()  # interrupted (or abandoned): workers finish the file in hand, queued chunks are dropped
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _size(task: FileTask) -> int:
    try:
        return os.path.getsize(task.path)
    except OSError:
        return 0


def collect(outcomes: Iterable[FileOutcome]) -> List[FileOutcome]:
    return sorted(outcomes, key=lambda outcome: outcome.path)
