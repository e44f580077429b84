"""Reading and writing Python source without losing a byte.

Text is decoded exactly as Python would (PEP 263 declaration, UTF-8 BOM),
except that a declared codec this Python lacks is read as UTF-8 (see
:func:`_decode_unregistered_codec`), and newlines are left untranslated, so that ``encode(decode(data)) == data`` for
every file we can read. Writes are atomic and keep the file's mode.
"""

from __future__ import annotations

import io
import os
import stat
import tokenize
from pathlib import Path
from typing import NamedTuple


class DecodeError(ValueError):
    """The bytes are not text in the encoding the file declares."""

    def __init__(self, message: str, row: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.row = row
        self.column = column


class SourceText(NamedTuple):
    text: str
    encoding: str  # "utf-8-sig" when the file starts with a BOM

    def encode(self, text: str) -> bytes:
        return text.encode(self.encoding)


def decode(data: bytes) -> SourceText:
    """Decode as CPython would, or raise :class:`DecodeError` saying where and why not."""
    if b"\x00" in data:
        raise DecodeError("The file contains null bytes; it does not look like Python source")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        message = str(error)
        if message.startswith("encoding problem"):
            raise DecodeError("The file starts with a UTF-8 BOM but declares another encoding") from None
        if message.startswith("unknown encoding"):
            return _decode_unregistered_codec(data, message)
        if not message.startswith("invalid or missing encoding declaration"):
            raise DecodeError(message[:1].upper() + message[1:]) from None
        encoding = "utf-8"  # a bad byte on the first two lines: decoding below says where
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        raise _undecodable(data, encoding, error) from None
    return SourceText(text, encoding)


def _decode_unregistered_codec(data: bytes, message: str) -> SourceText:
    """Read a file whose declared codec this Python lacks as UTF-8, where its bytes are UTF-8.

    Source-transforming codecs (``future_fstrings``, ``pyxl``) are registered by
    a ``.pth`` file of the project's own environment, not of the linter's: the
    file is valid Python there, and its text is UTF-8 that the codec rewrites on
    import. Ruff reads every file as UTF-8 alike. Writing a fix back as UTF-8
    keeps every byte the fix does not touch. Bytes that are not UTF-8 leave
    nothing to read: that stays a TL001 naming the codec.
    """
    try:
        return SourceText(data.decode("utf-8"), "utf-8")
    except UnicodeDecodeError:
        raise DecodeError(message[:1].upper() + message[1:] + ", and the file is not UTF-8") from None


def _undecodable(data: bytes, encoding: str, error: UnicodeDecodeError) -> DecodeError:
    """Where decoding failed, as a 1-based row and column (in bytes) of the first bad byte."""
    row = data.count(b"\n", 0, error.start) + 1
    column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
    hint = "" if encoding != "utf-8" else " (declare the encoding with a `# -*- coding: ... -*-` line)"
    return DecodeError(f"Cannot decode the file as {encoding}: {error.reason}{hint}", row, column)


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so that readers see the old or the new file, never a mix.

    The temporary file lives in the same directory (a rename across file
    systems is not atomic) and takes over the original's permission bits and,
    where this process may set them (root fixing a user's checkout), its owner
    and group. ``path`` must not be a symlink: the rename would replace the
    link itself (the runner resolves links first).
    """
    import tempfile  # only a fix that writes needs it: kept off the start-up path of a check

    info = os.stat(path)
    fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".trainlint-tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        _keep_owner(temp_name, info)
        os.chmod(temp_name, stat.S_IMODE(info.st_mode))  # after chown, which may clear set-id bits
        os.replace(temp_name, path)
    except BaseException:
        try:
            os.unlink(temp_name)
        except FileNotFoundError:
            pass
        raise


def _keep_owner(temp_name: str, info: os.stat_result) -> None:
    created = os.stat(temp_name)
    if (created.st_uid, created.st_gid) == (info.st_uid, info.st_gid):
        return
    try:
        os.chown(temp_name, info.st_uid, info.st_gid)
    except PermissionError:
        pass  # only root may give a file away; the file then belongs to whoever fixed it
