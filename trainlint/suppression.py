"""Suppression comments: ``# noqa``, ``# noqa: TL101``, ``# trainlint: ignore[TL101]``.

Comments are found with the tokenizer, so a ``# noqa`` inside a string does
not count. This runs only for files that have findings.
"""

from __future__ import annotations

import io
import re
import tokenize
from typing import Dict, FrozenSet, Optional

ALL = None  # a blanket suppression

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_IGNORE = re.compile(r"#\s*trainlint:\s*ignore(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)
_SKIP_FILE = re.compile(r"^[ \t]*#[ \t]*trainlint:[ \t]*skip-file\b", re.MULTILINE | re.IGNORECASE)

Codes = Optional[FrozenSet[str]]


def skips_file(text: str) -> bool:
    return _SKIP_FILE.search(text) is not None


def _codes(raw: Optional[str]) -> Codes:
    if raw is None or not raw.strip():
        return ALL
    return frozenset(code.upper() for code in re.split(r"[\s,]+", raw.strip()) if code)


def line_suppressions(text: str) -> Dict[int, Codes]:
    """Map each 1-based row that carries a suppression to its codes (None: all)."""
    found: Dict[int, Codes] = {}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return found
    for token in tokens:
        if token.type != tokenize.COMMENT:
            continue
        for pattern in (_NOQA, _IGNORE):
            match = pattern.search(token.string)
            if match is None:
                continue
            row = token.start[0]
            codes = _codes(match.group("codes"))
            previous = found.get(row, frozenset())
            found[row] = ALL if codes is ALL or previous is ALL else previous | codes
    return found


def is_suppressed(suppressions: Dict[int, Codes], code: str, start_row: int, end_row: int) -> bool:
    for row in {start_row, end_row}:
        if row in suppressions:
            codes = suppressions[row]
            if codes is ALL or code in codes:
                return True
    return False
