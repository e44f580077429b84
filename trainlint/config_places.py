"""Where a key or value of a configuration file is written, to point at a mistake as Ruff does.

tomllib and ``yaml.safe_load`` keep no positions, so on an error the file is
read again: YAML is composed into nodes that carry them, TOML is scanned by
:class:`_TomlPlaces`. Only an error gets here, so none of this is on the
start-up path of a check.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from trainlint.config import KeyPath, tomllib_module

Span = Tuple[int, int, Optional[int]]  # line, start and end column, from 0; no end: the value goes on past the line


def locate(path: Path, keys: KeyPath, at_value: bool) -> Optional[Tuple[Span, str]]:
    """Where a key (or its value) of the trainlint table is in the file, and that line's text; None if not found.

    """
    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if path.suffix == ".toml":
        span, line_breaks = _toml_place(text, ("tool", "trainlint") + keys, at_value), r"\r?\n"
    else:
        span, line_breaks = _yaml_place(text, keys, at_value), "\r\n|[\r\n\x85\u2028\u2029]"  # PyYAML's line breaks
    return None if span is None else (span, re.split(line_breaks, text)[span[0]])


def snippet(line_number: int, source: str, start: int, end: Optional[int]) -> str:
    """Ruff's frame: a gutter with the line number, the line, and carets from ``start`` to ``end``
    (to the end of the line when the value goes on past it). Tabs are expanded alike in both lines."""
    source = source.rstrip()
    end = len(source) if end is None else end
    pad = len(source[:start].expandtabs(4))
    width = max(len(source[:end].expandtabs(4)) - pad, 1)
    gutter = " " * len(str(line_number))
    return f"{gutter} |\n{line_number} | {source.expandtabs(4)}\n{gutter} | {' ' * pad}{'^' * width}"


def _yaml_place(text: str, keys: KeyPath, at_value: bool) -> Optional[Span]:
    """Follow ``keys`` down the composed YAML nodes (of duplicate keys the last, as ``safe_load`` keeps it)."""
    import yaml

    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:  # the file changed since it was loaded
        return None
    key_node = node
    for key in keys:
        if isinstance(node, yaml.MappingNode):
            pairs = [(k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == str(key)]
            if not pairs:
                return None  # a key merged in with `<<:`, or one that is not written as `str(key)` (`true`)
            key_node, node = pairs[-1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            key_node = node = node.value[key]
        else:
            return None
    chosen = node if at_value else key_node
    if chosen is None:
        return None
    start, end = chosen.start_mark, chosen.end_mark
    return start.line, start.column, end.column if end.line == start.line else None


def _toml_place(text: str, keys: KeyPath, at_value: bool) -> Optional[Span]:
    """A ``[header]`` table has no value of its own to point at: its key stands for it."""
    try:
        places = _TomlPlaces(text)
    except tomllib_module().TOMLDecodeError:  # a quoted key that is not one: the file changed since it was loaded
        return None
    return (places.values.get(keys) if at_value else None) or places.keys.get(keys)


class _TomlPlaces:
    """Where each key and value of a TOML document is, by its full key path.

    A lenient reader of the structure only (headers, dotted and quoted keys, inline
    tables, arrays): it runs on a document tomllib has already accepted, and every
    step takes a token, so it ends whatever the text.
    """

    def __init__(self, text: str) -> None:
        self.tokens = _toml_tokens(text)
        self.index = 0
        self.keys: Dict[KeyPath, Span] = {}
        self.values: Dict[KeyPath, Span] = {}
        table: KeyPath = ()
        while self._peek():
            if self._peek() == "\n":
                self.index += 1
            elif self._peek() == "[":
                table = self._header()
            else:
                self._key_value(table)

    def _peek(self) -> str:
        return self.tokens[self.index][0] if self.index < len(self.tokens) else ""

    def _take(self) -> Tuple[str, int, int]:
        token = self.tokens[self.index] if self.index < len(self.tokens) else ("", -1, 0)
        self.index += 1
        return token

    def _header(self) -> KeyPath:
        while self._peek() == "[":  # [table] or [[array of tables]]
            self.index += 1
        table = self._key(())
        while self._peek() not in ("\n", ""):
            self.index += 1
        return table

    def _key(self, table: KeyPath) -> KeyPath:
        """A dotted key; each part is placed, so ``a.b.c = 1`` places ``a`` and ``a.b`` too."""
        keys = table
        while True:
            text, line, column = self._take()
            keys += (_toml_key(text),)
            self.keys.setdefault(keys, (line, column, column + len(text)))
            if self._peek() != ".":
                return keys
            self.index += 1

    def _key_value(self, table: KeyPath) -> None:
        keys = self._key(table)
        self.index += 1  # =
        self.values[keys] = self._value(keys)

    def _value(self, keys: KeyPath) -> Span:
        text, line, column = self._take()
        if text in ("[", "{"):
            end = self._items(keys, "]" if text == "[" else "}")
        else:
            end = _token_end(text, line, column)
            while self._peek() not in ("\n", ",", "]", "}", ""):
                end = _token_end(*self._take())
        return line, column, end[1] if end[0] == line else None

    def _items(self, keys: KeyPath, closing: str) -> Tuple[int, int]:
        """An array's elements (placed as ``keys + (index,)``) or an inline table's keys; where the closing bracket ends."""
        count = 0
        while True:
            while self._peek() in ("\n", ","):
                self.index += 1
            if self._peek() in (closing, ""):
                return _token_end(*self._take())
            if closing == "}":
                self._key_value(keys)
            else:
                element = keys + (count,)
                self.keys[element] = self.values[element] = self._value(element)
                count += 1


def _toml_tokens(text: str) -> List[Tuple[str, int, int]]:
    """Each token's text, line and column (from 0), blanks and comments left out; a newline is a token."""
    token = re.compile(
        r"[ \t\r]+|#[^\n]*"  # blanks and comments, left out
        r'|"""(?:\\[\s\S]|[^\\])*?"{3,5}'  # a multi-line string (up to two quotes may end its text)
        r"|'''[\s\S]*?'{3,5}"
        r'|"(?:\\.|[^"\\\n])*"'  # a string
        r"|'[^'\n]*'"
        r"|[\w-]+"  # a bare key, or a word of a value
        r"|[\s\S]"  # any other character alone
    )
    tokens: List[Tuple[str, int, int]] = []
    line = line_start = 0
    for match in token.finditer(text):
        found = match.group()
        if found[0] not in " \t\r#":
            tokens.append((found, line, match.start() - line_start))
        if "\n" in found:
            line += found.count("\n")
            line_start = match.start() + found.rindex("\n") + 1
    return tokens


def _token_end(text: str, line: int, column: int) -> Tuple[int, int]:
    """The line and column just past a token (a multi-line string ends on a later line)."""
    if "\n" not in text:
        return line, column + len(text)
    return line + text.count("\n"), len(text) - text.rindex("\n") - 1


def _toml_key(text: str) -> str:
    """A key as tomllib reads it: a quoted key may hold escapes."""
    return next(iter(tomllib_module().loads(f"{text} = 0"))) if text[:1] in ("'", '"') else text
