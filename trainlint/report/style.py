"""ANSI colour, only when asked for (a TTY without NO_COLOR)."""

from __future__ import annotations

_CODES = {"bold": "1", "red": "31", "green": "32", "yellow": "33", "cyan": "36", "dim": "2"}


def paint(text: str, style: str, enabled: bool) -> str:
    if not enabled or not text:
        return text
    return f"\x1b[{_CODES[style]}m{text}\x1b[0m"
