"""A content-addressed cache of check results, so an unchanged file is not parsed again.

One pickle per (trainlint version, effective rule settings), mapping each path
to the digest of its bytes and its diagnostics. It is loaded once and saved
once per run, atomically: concurrent runs can lose each other's new entries
but never corrupt the cache, and an unreadable cache is treated as empty.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from trainlint import __version__
from trainlint.diagnostics import Diagnostic
from trainlint.engine import RuleSettings

CACHE_DIRNAME = ".trainlint_cache"
_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by trainlint.\n"

Entry = Tuple[str, List[Diagnostic]]  # (content digest, diagnostics)


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def settings_key(settings: RuleSettings) -> str:
    state = json.dumps([sorted(settings.codes), settings.options], sort_keys=True, default=str)
    return hashlib.blake2b(state.encode(), digest_size=8).hexdigest()


class ResultCache:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._tables: Dict[str, Dict[str, Entry]] = {}
        self._dirty: set = set()

    def _file(self, key: str) -> Path:
        return self.directory / __version__ / f"{key}.pickle"

    def _table(self, key: str) -> Dict[str, Entry]:
        table = self._tables.get(key)
        if table is None:
            try:
                with open(self._file(key), "rb") as handle:
                    table = pickle.load(handle)
                if not isinstance(table, dict):
                    table = {}
            except Exception:  # noqa: BLE001 - a missing or corrupt cache is an empty one
                table = {}
            self._tables[key] = table
        return table

    def get(self, path: str, settings: RuleSettings, content_digest: str) -> Optional[List[Diagnostic]]:
        entry = self._table(settings_key(settings)).get(path)
        if entry is None or not isinstance(entry, tuple) or entry[0] != content_digest:
            return None
        return entry[1]

    def put(self, path: str, settings: RuleSettings, content_digest: str, diagnostics: List[Diagnostic]) -> None:
        key = settings_key(settings)
        self._table(key)[path] = (content_digest, diagnostics)
        self._dirty.add(key)

    def save(self) -> None:
        if not self._dirty:
            return
        try:
            self._prepare_directory()
            for key in self._dirty:
                target = self._file(key)
                fd, temp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
                with os.fdopen(fd, "wb") as handle:
                    pickle.dump(self._tables[key], handle, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(temp, target)
        except OSError:
            pass  # a cache that cannot be written only costs speed
        self._dirty.clear()

    def _prepare_directory(self) -> None:
        (self.directory / __version__).mkdir(parents=True, exist_ok=True)
        for name, content in ((".gitignore", "# Automatically created by trainlint.\n*\n"), ("CACHEDIR.TAG", _TAG)):
            marker = self.directory / name
            if not marker.exists():
                marker.write_text(content, encoding="utf-8")
