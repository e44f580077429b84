"""A content-addressed cache of check results, so an unchanged file is not parsed again.

One JSON file per (trainlint version, effective rule settings), mapping each
path to the digest of its bytes and its diagnostics. JSON, not pickle: the
cache lives inside the checked project, and unpickling a file that came with
a cloned repository would run its code. Each table also records a
fingerprint of trainlint's own source files, so editing a rule invalidates
what it reported before. A table is loaded once and saved once per run,
atomically: concurrent runs can lose each other's new entries but never
corrupt the cache, and an unreadable or foreign table is treated as empty.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any, Dict, List, Optional

from trainlint import __version__
from trainlint.diagnostics import Applicability, CellPosition, Diagnostic, Edit, FixSummary, Location
from trainlint.engine import RuleSettings

CACHE_DIRNAME = ".trainlint_cache"
_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by trainlint.\n"


def digest(data: bytes, size: int = 16) -> str:
    """A short hash of ``data``: BLAKE2b, the same function and digests as ``hashlib.blake2b``."""
    return _blake2b()(data, digest_size=size).hexdigest()


@functools.lru_cache(maxsize=None)
def _blake2b():
    """``blake2b`` from CPython's own ``_blake2`` module, which ``hashlib`` re-exports: ``import hashlib`` also loads
    OpenSSL for its other algorithms, ~5 ms of every cached run's start (a pre-commit hook's), for a hash it does not
    use. ``hashlib``'s where an interpreter lacks the module."""
    try:
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - every CPython 3.6+ build has it
        from hashlib import blake2b
    return blake2b


def settings_key(settings: RuleSettings) -> str:
    state = json.dumps([sorted(settings.codes), settings.options, settings.describe_fixes], sort_keys=True, default=str)
    return digest(state.encode(), size=8)


@functools.lru_cache(maxsize=None)
def code_fingerprint() -> str:
    """Changes whenever a source file of trainlint or of its rules changes (size or mtime)."""
    import trainlint
    import trainlint.rules

    roots = {os.path.dirname(trainlint.__file__), os.path.dirname(trainlint.rules.__file__)}
    files = sorted({os.path.join(folder, name) for root in roots for folder, _, names in os.walk(root) for name in names if name.endswith(".py")})
    state = []
    for path in files:
        try:
            info = os.stat(path)
        except OSError:
            continue
        state.append(f"{path}:{info.st_size}:{info.st_mtime_ns}")
    return digest("\n".join(state).encode(), size=8)


def _location(data: List[int]) -> Location:
    return Location(int(data[0]), int(data[1]))


def _encode(diagnostic: Diagnostic) -> Dict[str, Any]:
    fix = diagnostic.fix
    return {
        "code": diagnostic.code,
        "name": diagnostic.name,
        "message": diagnostic.message,
        "start": [diagnostic.location.row, diagnostic.location.column],
        "end": [diagnostic.end_location.row, diagnostic.end_location.column],
        "cell": None if diagnostic.cell is None else [diagnostic.cell.cell, *diagnostic.cell.location, *diagnostic.cell.end_location],
        "fix": None
        if fix is None
        else {
            "applicability": fix.applicability.value,
            "message": fix.message,
            "edits": [[e.content, [e.location.row, e.location.column], [e.end_location.row, e.end_location.column]] for e in fix.edits],
        },
    }


def _decode(path: str, data: Dict[str, Any]) -> Diagnostic:
    fix = data["fix"]
    summary = None
    if fix is not None:
        edits = tuple(Edit(str(content), _location(start), _location(end)) for content, start, end in fix["edits"])
        summary = FixSummary(Applicability(fix["applicability"]), str(fix["message"]), edits)
    cell = data.get("cell")
    position = None if cell is None else CellPosition(int(cell[0]), _location(cell[1:3]), _location(cell[3:5]))
    return Diagnostic(
        path, str(data["code"]), str(data["name"]), str(data["message"]), _location(data["start"]), _location(data["end"]), summary, position
    )


class ResultCache:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._tables: Dict[str, Dict[str, Any]] = {}
        self._dirty: set = set()

    def _file(self, key: str) -> Path:
        return self.directory / __version__ / f"{key}.json"

    def _table(self, key: str) -> Dict[str, Any]:
        table = self._tables.get(key)
        if table is None:
            table = {}
            try:
                with open(self._file(key), "rb") as handle:
                    document = json.load(handle)
                if isinstance(document, dict) and document.get("code") == code_fingerprint():
                    table = document["files"]
            except (OSError, ValueError, KeyError, TypeError):
                pass  # a missing, corrupt or foreign cache is an empty one
            self._tables[key] = table if isinstance(table, dict) else {}
        return self._tables[key]

    def get(self, path: str, settings: RuleSettings, content_digest: str) -> Optional[List[Diagnostic]]:
        entry = self._table(settings_key(settings)).get(path)
        try:
            if entry is None or entry["digest"] != content_digest:
                return None
            return [_decode(path, data) for data in entry["diagnostics"]]
        except (KeyError, TypeError, ValueError, IndexError):
            return None  # an entry of the wrong shape is a miss; it is overwritten after checking

    def put(self, path: str, settings: RuleSettings, content_digest: str, diagnostics: List[Diagnostic]) -> None:
        key = settings_key(settings)
        self._table(key)[path] = {"digest": content_digest, "diagnostics": [_encode(d) for d in diagnostics]}
        self._dirty.add(key)

    def save(self) -> None:
        if not self._dirty:
            return
        try:
            self._prepare_directory()
            for key in self._dirty:
                target = self._file(key)
                # a name of this process's own (not `tempfile`'s, whose import costs a cached run ~6 ms): concurrent
                # runs never share it, and one left by a dead process of the same id is overwritten
                temp = target.with_name(f".tmp-{os.getpid()}-{target.name}")
                fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                try:
                    with os.fdopen(fd, "w", encoding="utf-8") as handle:
                        json.dump({"code": code_fingerprint(), "files": self._tables[key]}, handle, separators=(",", ":"))
                    os.replace(temp, target)
                finally:
                    if os.path.exists(temp):
                        os.unlink(temp)
        except OSError:
            pass  # a cache that cannot be written only costs speed
        self._dirty.clear()

    def _prepare_directory(self) -> None:
        (self.directory / __version__).mkdir(parents=True, exist_ok=True)
        for name, content in ((".gitignore", "# Automatically created by trainlint.\n*\n"), ("CACHEDIR.TAG", _TAG)):
            marker = self.directory / name
            if not marker.exists():
                marker.write_text(content, encoding="utf-8")


def remove_caches(root: Path) -> List[Path]:
    """``trainlint clean``: delete every cache folder under ``root`` (as ``ruff clean`` does); returns them.

    Only folders named ``.trainlint_cache`` that hold trainlint's CACHEDIR.TAG are removed,
    so a folder of that name that trainlint did not make is left alone.
    """
    import shutil

    removed: List[Path] = []
    for folder, subfolders, _ in os.walk(root):
        if CACHE_DIRNAME in subfolders:
            subfolders.remove(CACHE_DIRNAME)
            cache = Path(folder) / CACHE_DIRNAME
            if _is_ours(cache):
                shutil.rmtree(cache)
                removed.append(cache)
    return removed


def _is_ours(cache: Path) -> bool:
    try:
        return (cache / "CACHEDIR.TAG").read_text(encoding="utf-8") == _TAG
    except (OSError, UnicodeDecodeError):
        return False
