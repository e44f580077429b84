"""Positions in one text as trainlint and as the Language Server Protocol count them.

trainlint's locations are 1-based rows and 1-based columns counted in code points
(LibCST's and CPython's). LSP positions are 0-based lines and 0-based characters
counted in the *position encoding* the client and server agreed on: UTF-16 code
units unless the client offered another (a character outside the Basic
Multilingual Plane, an emoji, is two of them). Lines end at ``\\r\\n``, ``\\r`` or
``\\n`` in both, never at the other characters ``str.splitlines`` breaks on
(form feed, U+2028...), so the lines are split here rather than by a library.

This module imports nothing from pygls: the conversions are tested on their own.
"""

from __future__ import annotations

import bisect
import re
from typing import List, NamedTuple, Tuple

from trainlint.diagnostics import Location

_LINE_END = re.compile(r"\r\n|\r|\n")

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"


class Position(NamedTuple):
    """An LSP position: 0-based line, 0-based character in the negotiated encoding's units."""

    line: int
    character: int


class TextEdit(NamedTuple):
    """Replace the text from ``start`` to ``end`` (LSP positions) with ``new_text``."""

    start: Position
    end: Position
    new_text: str


def _units(text: str, encoding: str) -> int:
    """How many code units of ``encoding`` the text takes."""
    if encoding == UTF32:
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


class LineIndex:
    """Where each line of a text starts, to turn code-point offsets into positions and back."""

    def __init__(self, text: str, encoding: str = UTF16) -> None:
        self.text = text
        self.encoding = encoding
        self._starts: List[int] = [0] + [match.end() for match in _LINE_END.finditer(text)]

    def _line_text(self, line: int) -> str:
        """The line's content without its line ending."""
        start = self._starts[line]
        end = self._starts[line + 1] if line + 1 < len(self._starts) else len(self.text)
        return self.text[start:end].rstrip("\r\n")

    def position_at_offset(self, offset: int) -> Position:
        """The position of a code-point offset (an offset inside a ``\\r\\n`` counts as its start)."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self._starts, offset) - 1
        column = min(offset - self._starts[line], len(self._line_text(line)))
        return Position(line, _units(self._line_text(line)[:column], self.encoding))

    def offset_at_position(self, position: Position) -> int:
        """The code-point offset of an LSP position; a character past the end of its line means the line's end."""
        if position.line >= len(self._starts):
            return len(self.text)
        line = max(position.line, 0)
        content = self._line_text(line)
        units = 0
        for column, char in enumerate(content):
            if units >= position.character:
                return self._starts[line] + column
            units += _units(char, self.encoding)
        return self._starts[line] + len(content)

    def offset_at_location(self, location: Location) -> int:
        """The code-point offset of a trainlint location (1-based row and column), clamped to the text."""
        if location.row > len(self._starts):
            return len(self.text)
        line = max(location.row - 1, 0)
        return self._starts[line] + min(max(location.column - 1, 0), len(self._line_text(line)))

    def range_of(self, start: Location, end: Location) -> Tuple[Position, Position]:
        """The LSP range of a finding. A zero-width finding (a syntax error's point) is widened to
        the character it points at, or to the end of its line, so that an editor can underline it."""
        first, last = self.offset_at_location(start), self.offset_at_location(end)
        if last <= first:
            line = bisect.bisect_right(self._starts, first) - 1
            line_end = self._starts[line] + len(self._line_text(line))
            last = first + 1 if first < line_end else line_end
            if last == first and first > self._starts[line]:  # at the end of a line: underline its last character
                first -= 1
        return self.position_at_offset(first), self.position_at_offset(last)


def _lines(text: str) -> List[str]:
    """The lines of a text with their line endings, split where LSP splits them."""
    starts = [0] + [match.end() for match in _LINE_END.finditer(text)]
    return [text[start:end] for start, end in zip(starts, starts[1:] + [len(text)]) if start < end]


def _trim(before: str, after: str) -> Tuple[int, int, int]:
    """How much of ``before`` to keep at the start and at the end (and of ``after`` at the end) so that
    only what differs is replaced; never splitting a ``\r\n``, whose middle is no LSP position."""
    prefix, limit = 0, min(len(before), len(after))
    while prefix < limit and before[prefix] == after[prefix]:
        prefix += 1
    suffix, limit = 0, limit - prefix
    while suffix < limit and before[-1 - suffix] == after[-1 - suffix]:
        suffix += 1
    if 0 < prefix < len(before) and before[prefix - 1] == "\r" and before[prefix] == "\n":
        prefix -= 1
    end = len(before) - suffix
    if 0 < end < len(before) and before[end - 1] == "\r" and before[end] == "\n":
        suffix -= 1
    return prefix, len(before) - suffix, len(after) - suffix


def text_edits(before: str, after: str, encoding: str = UTF16) -> List[TextEdit]:
    """Edits that turn ``before`` into ``after``, one per changed run of lines (so that an editor keeps
    the cursor, folds and marks elsewhere), each trimmed to the characters that differ."""
    import difflib

    old, new = _lines(before), _lines(after)
    old_starts = [0]
    for line in old:
        old_starts.append(old_starts[-1] + len(line))
    index = LineIndex(before, encoding)
    edits = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        replaced, replacement = "".join(old[i1:i2]), "".join(new[j1:j2])
        keep_start, keep_end, new_end = _trim(replaced, replacement)
        base = old_starts[i1]
        edits.append(
            TextEdit(
                index.position_at_offset(base + keep_start),
                index.position_at_offset(base + keep_end),
                replacement[keep_start:new_end],
            )
        )
    return edits


def apply_edits(text: str, edits: List[TextEdit], encoding: str = UTF16) -> str:
    """What an editor does with non-overlapping edits against the same text (the server checks its own
    edits with it before sending them)."""
    index = LineIndex(text, encoding)
    spans = [(index.offset_at_position(e.start), index.offset_at_position(e.end), e.new_text) for e in edits]
    for start, end, new_text in sorted(spans, reverse=True):
        text = text[:start] + new_text + text[end:]
    return text
