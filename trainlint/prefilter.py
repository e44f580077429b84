"""Which selected rules are worth running on a file, decided from its text alone.

Parsing with LibCST is the largest cost of a run, so a file is parsed only if
the trigger text of some selected rule (declared in ``rules/__init__.py``)
occurs in its code. Its code, not its prose: in a model repository many
mentions of ``backward`` or ``step`` are in docstrings and comments ("kept
for backward compatibility", doctests of an optimizer). Looking past them
takes the files of pytorch-image-models that need parsing from 56 of 315
(26% of its bytes) to 39 (17%), with the same findings.

Prose is recognised by one regular expression that scans strings and
comments left to right, as the tokenizer does, so a ``#`` inside a string is
not a comment and quotes inside a comment do not open a string. A triple-quoted
string that begins its line is taken for prose (a docstring, or a text block
passed as an argument); every other string is kept, because rules read some
strings as code (``{"pin_memory": True}`` given to a DataLoader as ``**kwargs``).
The scan is only a prefilter: where it misreads (nested same-type quotes in a
Python 3.12 f-string), a file is parsed or skipped on slightly wrong text,
and findings never depend on it beyond that.
"""

from __future__ import annotations

import re
from typing import Dict, FrozenSet, List, Optional

from trainlint.registry import ENTRIES_BY_CODE

# Each string body is written as an unrolled loop ("normal* (special normal*)*"),
# which the regex engine runs several times faster than an alternation per character.
_TRIPLE_DOUBLE = r'"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"""'
_TRIPLE_SINGLE = r"'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''"
_DOUBLE = r'"[^"\\\r\n]*(?:\\.[^"\\\r\n]*)*"'
_SINGLE = r"'[^'\\\r\n]*(?:\\.[^'\\\r\n]*)*'"
_STRING_OR_COMMENT = re.compile(
    rf"(?P<triple>{_TRIPLE_DOUBLE}|{_TRIPLE_SINGLE})|{_DOUBLE}|{_SINGLE}|#[^\r\n]*",
    re.DOTALL,
)  # every branch opens with a quote or a `#`, so the engine skips to the next of them without trying each character
_PROSE_HEAD = re.compile(r"[ \t]*[A-Za-z]{0,2}\Z")  # what may precede a triple-quoted string on its line for it to be prose


def code_text(text: str) -> str:
    """``text`` without its comments and docstring-like strings (a triple-quoted string removed with the indentation
    and the prefix before it on its line)."""
    pieces: List[str] = []
    kept_from = 0
    for match in _STRING_OR_COMMENT.finditer(text):
        start = match.start()
        if match.group("triple") is not None:
            line = text.rfind("\n", 0, start) + 1  # after whatever was matched before: a head of prose holds no quote
            if not _PROSE_HEAD.match(text, line, start):
                continue  # a string that is code
            start = line
        elif text[start] != "#":
            continue  # a one-line string: kept
        pieces.append(text[kept_from:start])
        kept_from = match.end()
    pieces.append(text[kept_from:])
    return "".join(pieces)


def identifier_text(text: str) -> str:
    """``text`` without its comments and strings, but an f-string's replacement fields (code), where its identifiers
    are."""
    pieces: List[str] = []
    kept_from = 0
    for match in _STRING_OR_COMMENT.finditer(text):
        start = match.start()
        pieces.append(text[kept_from:start])
        if text[start] != "#" and "f" in text[max(0, start - 2) : start].lower():  # `f"`, `rf'`
            pieces.append(_replacement_fields(match.group()))
        kept_from = match.end()
    pieces.append(text[kept_from:])
    return " ".join(pieces)


def _replacement_fields(literal: str) -> str:
    """What an f-string's braces hold (``{x!r:>{width}}``), without its literal text and ``{{``/``}}`` escapes."""
    fields: List[str] = []
    depth = 0
    index = 0
    while index < len(literal):
        char = literal[index]
        if depth == 0 and char in "{}" and literal[index + 1 : index + 2] == char:
            index += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        elif depth:
            fields.append(char)
        index += 1
    return "".join(fields)


def triggered_codes(text: str, codes: FrozenSet[str]) -> List[str]:
    """The selected rules whose trigger text occurs in the code: the only ones worth running."""
    found = _triggered(text, codes)
    return _triggered(code_text(text), frozenset(found)) if found else found


def _triggered(text: str, codes: FrozenSet[str]) -> List[str]:
    seen: Dict[int, bool] = {}  # rules share parts (TL402, TL403 and TL405 the per-step code): each is searched once
    return sorted(code for code in codes if any(occurs(trigger, text, seen) for trigger in ENTRIES_BY_CODE[code].triggers))


def occurs(trigger, text: str, seen: Optional[Dict[int, bool]] = None) -> bool:
    """A trigger is a substring, or a tuple of parts that must all occur; a part may be a compiled regular
    expression, or a tuple of alternatives (substrings or regular expressions). ``seen`` keeps the answer for each
    part already searched in ``text``, by identity."""
    if isinstance(trigger, str):
        return trigger in text
    seen = {} if seen is None else seen
    return all(_part_occurs(part, text, seen) for part in trigger)


def _part_occurs(part, text: str, seen: Dict[int, bool]) -> bool:
    if isinstance(part, str):
        return part in text
    found = seen.get(id(part))
    if found is None:
        if isinstance(part, tuple):
            found = any(_part_occurs(alternative, text, seen) for alternative in part)
        else:
            found = part.search(text) is not None
        seen[id(part)] = found
    return found
