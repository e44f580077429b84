"""``trainlint check --watch``: check, then check again whenever a Python file or a configuration
file under the paths changes, until Ctrl-C.

Polling with the standard library (a snapshot of sizes and modification times twice a
second) instead of a file-system notification library: a tree that trainlint checks in
well under a second is listed in milliseconds, and nothing is added to the dependencies.
Folders trainlint never checks by default (.git, virtualenvs, caches...) are not listed; the
configuration and ignore files of the folders above each path are (the settings come from there).
"""

from __future__ import annotations

import fnmatch
import os
import sys
import time
from typing import Callable, Dict, Optional, Sequence, TextIO, Tuple

from trainlint.config import CONFIG_FILENAMES
from trainlint.discovery import IGNORE_FILES, SOURCE_SUFFIXES
from trainlint.settings import DEFAULT_EXCLUDE

Snapshot = Dict[str, Tuple[int, int]]  # path -> (size, modification time in ns)

_WATCHED_NAMES = frozenset(CONFIG_FILENAMES + IGNORE_FILES)


def snapshot(paths: Sequence[str]) -> Snapshot:
    """Size and modification time of every file whose change calls for a new check."""
    found: Snapshot = {}
    for top in paths:
        _record_ancestors(found, top)
        if os.path.isfile(top):
            _record(found, top)
            continue
        for folder, subfolders, files in os.walk(top):
            subfolders[:] = [name for name in subfolders if not any(fnmatch.fnmatchcase(name, p) for p in DEFAULT_EXCLUDE)]
            for name in files:
                if name.endswith(SOURCE_SUFFIXES) or name in _WATCHED_NAMES:
                    _record(found, os.path.join(folder, name))
    return found


def _record_ancestors(found: Snapshot, top: str) -> None:
    """The configuration and ignore files of the folders above ``top``: the ``pyproject.toml`` that
    configures ``trainlint check --watch src/`` sits in the folder above it. A file created there
    since the last snapshot is a change too, so every name is looked for each time."""
    folder = os.path.dirname(os.path.abspath(top))
    while True:
        for name in _WATCHED_NAMES:
            _record(found, os.path.join(folder, name))
        parent = os.path.dirname(folder)
        if parent == folder:
            return
        folder = parent


def _record(found: Snapshot, path: str) -> None:
    try:
        info = os.stat(path)
    except OSError:  # removed while listed: its absence is the change
        return
    found[path] = (info.st_size, info.st_mtime_ns)


def watch(
    check: Callable[[], int],
    paths: Sequence[str],
    interval: float = 0.5,
    max_checks: Optional[int] = None,
    stream: TextIO = sys.stderr,
) -> int:
    """Run ``check`` now and after every change; return 130 at Ctrl-C (or the last exit code
    after ``max_checks`` runs, which the tests use to bound a run)."""
    _say(stream, "Starting linter in watch mode...")
    runs, code, before = 0, 0, snapshot(paths)
    try:
        while True:
            code = check()
            runs += 1
            _say(stream, "Watching for file changes.")
            if max_checks is not None and runs >= max_checks:
                return code
            if code >= 128:  # interrupted while checking
                return code
            while True:
                time.sleep(interval)
                now = snapshot(paths)
                if now != before:
                    before = now
                    break
            _say(stream, "File change detected...")
    except KeyboardInterrupt:
        return 130


def _say(stream: TextIO, message: str) -> None:
    stream.write(f"[{time.strftime('%H:%M:%S')}] {message}\n")
    stream.flush()
