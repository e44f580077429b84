"""Suppression comments: ``# noqa``, ``# noqa: TL101``, ``# trainlint: ignore[TL101]``, ``# trainlint: skip-file``.

Comments are found with the tokenizer, so a ``# noqa`` inside a string does
not count. ``ignore[...]`` also takes rule names; ``# noqa`` takes codes only,
as flake8's grammar does. Line suppressions are looked up only for files that
have findings.
"""

from __future__ import annotations

import io
import re
import tokenize
from typing import Dict, FrozenSet, List, Optional, Tuple

ALL = None  # a blanket suppression

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_IGNORE = re.compile(r"#\s*trainlint:\s*ignore(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)
_MARKER = re.compile(r"noqa|trainlint", re.IGNORECASE)  # every suppression comment contains one
_SKIP_FILE = re.compile(r"^[ \t]*#[ \t]*trainlint:[ \t]*skip-file\b", re.MULTILINE | re.IGNORECASE)

Codes = Optional[FrozenSet[str]]


def _comments(text: str) -> Optional[List[Tuple[int, bool, str]]]:
    """(row, alone on its line, text) of every comment, or None when the text cannot be tokenized."""
    try:
        # Universal newlines: a lone "\r" ends a line for LibCST's positions, so it must here too.
        tokens = list(tokenize.generate_tokens(io.StringIO(text, newline=None).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    return [(t.start[0], not t.line[: t.start[1]].strip(), t.string) for t in tokens if t.type == tokenize.COMMENT]


def skips_file(text: str) -> bool:
    """A ``# trainlint: skip-file`` comment on its own line; the same text inside a string does not count."""
    if _SKIP_FILE.search(text) is None:
        return False
    comments = _comments(text)
    return comments is None or any(alone and _SKIP_FILE.match(comment) for _, alone, comment in comments)


def _codes(raw: Optional[str]) -> Codes:
    """The codes of a suppression; rule names are accepted too (``ignore[cuda-amp-on-other-device]``)."""
    from trainlint import registry

    if raw is None or not raw.strip():
        return ALL
    items = [item for item in re.split(r"[\s,]+", raw.strip()) if item]
    return frozenset(getattr(registry.find_entry(item), "code", item.upper()) for item in items)


def line_suppressions(text: str) -> Dict[int, Codes]:
    """Map each 1-based row that carries a suppression to its codes (None: all)."""
    found: Dict[int, Codes] = {}
    if _MARKER.search(text) is None:
        return found  # tokenizing costs ~3 ms on a training script; most files have no marker at all
    for row, _, comment in _comments(text) or ():
        for pattern in (_NOQA, _IGNORE):
            match = pattern.search(comment)
            if match is None:
                continue
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
