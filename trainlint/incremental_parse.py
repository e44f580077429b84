"""Parse a new version of an open document by parsing again only the top-level statements an edit changed.

The language server lints a document at every edit, and LibCST's parse of the
whole text is a third of the lint of a 500-line script, while an edit usually
touches one top-level statement. So the text is cut into chunks, one per
top-level statement: from the line its first token (or first decorator) is on,
which CPython's tree gives (built for the syntax verdict anyway), up to the line
the next one starts on. A chunk whose text the previous version also had takes
the node that version parsed; the others are parsed, each on its own, with
``libcst.parse_module`` (followed by a ``pass`` line, as in the text a
statement follows it: at the end of a text LibCST's footer can drop a line).
Parsed so, a chunk gives its statement (with no leading lines), any header
(only the first chunk has one) and, as the ``pass`` line's leading lines, the
blank and comment lines after it that its indented block does not keep: in
the whole module those are the next statement's leading lines. The last chunk
is parsed as it is: its footer is the module's.

What a chunk's nodes hold beyond its own text is relative to the module's
default indent and newline (a block indented by the default has
``indent=None``, a newline that is the default ``value=None``), which LibCST
detects from the first indented block and the first newline of the text it is
given and which its native parser does not take from a ``PartialParserConfig``.
So a module is assembled only where the nodes of every chunk holding an
indented block are relative to the indent the whole text's parse detects (its
first block's), and those of every chunk holding a newline to the text's first
newline; anything else unusual (CPython has no tree, its statement lines do
not cut the text into chunks that parse to exactly one statement each, a chunk
fails to parse) falls back to the full parse, as does the first version (whose
statements are then kept as the chunks the next version may take). Assembled,
the module is the one the full parse gives (``deep_equals``, the same code):
tests/test_incremental_parse.py checks both, and scripts/check_incremental_parse.py
checks them over whole repositories, with edits of each statement.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import libcst as cst

_NEWLINE = re.compile(r"\r\n?|\n")  # line ends as CPython and LibCST count them (not form feeds, not U+2028)
_NO_INDENT = "    "  # the default indent LibCST gives a module without an indented block
_NEXT = "pass\n"  # the statement a chunk is parsed with, in place of the one after it in the text
_SUITES = ("body", "handlers", "orelse", "finalbody", "cases")  # a compound statement's blocks, in source order


@dataclass(eq=False)
class Chunk:
    """One top-level statement parsed on its own, with what the module around it takes from the parse."""

    header: Sequence[cst.EmptyLine]  # the module's header, in the first chunk only
    statement: cst.BaseStatement  # without leading lines, but in the first chunk
    footer: Sequence[cst.EmptyLine]  # the next statement's leading lines, or the module's footer
    has_trailing_newline: bool
    first_indent: Optional[str]  # the indent of its first indented block, None if it has none
    indent: Optional[str]  # the default indent its nodes are relative to, None if it has no indented block
    newline: Optional[str]  # the default newline its nodes are relative to, None if its text has no newline
    # the statement with the leading lines it was last placed with (the footer of the chunk before it)
    placed: Optional[Tuple[Sequence[cst.EmptyLine], cst.BaseStatement]] = None


class IncrementalParser:
    """Parses the successive versions of one document; keeps the chunks of the version parsed last.

    Not thread-safe: the language server uses one per document, on its engine thread.
    """

    def __init__(self) -> None:
        from trainlint.analysis import StatementIndexes

        # what the lint of the module it gave last kept per top-level statement (its part of the parent
        # index, the walk's children, its generated ranges), taken for the statements an edit did not touch
        # (they are the same nodes): ModuleFacts and NodePositions read it through the engine
        self.indexes = StatementIndexes()
        # by chunk text and whether it is the last; a list, as two statements can read the same
        self._chunks: Dict[Tuple[str, bool], List[Chunk]] = {}
        self.reused = 0  # how many statements the last parse took from the version before (0: a full parse)

    def parse(self, text: str, tree: Any) -> cst.Module:
        """The LibCST module of ``text``, as ``libcst.parse_module(text)`` gives it (and raises its errors).

        ``tree`` is CPython's tree of the same text (``ast.Module``), or None where it has none.
        """
        texts = _chunk_texts(text, tree)
        if texts is None or not self._chunks:
            return self._full_parse(text, texts)
        previous, self._chunks = self._chunks, {}
        chunks: List[Chunk] = []
        reused = 0
        for number, chunk_text in enumerate(texts):
            key = (chunk_text, number == len(texts) - 1)
            kept = previous.get(key)
            reused += bool(kept)
            chunk = kept.pop() if kept else _parse_chunk(*key)
            if chunk is None or (chunks and (chunk.header or chunk.statement.leading_lines)):
                return self._full_parse(text, texts)
            self._chunks.setdefault(key, []).append(chunk)
            chunks.append(chunk)
        module = _assembled(chunks, _first_newline(text))
        if module is None:
            return self._full_parse(text, texts)
        self.reused = reused
        return module

    def _full_parse(self, text: str, texts: Optional[List[str]]) -> cst.Module:
        """Parse the whole text, and keep its statements as the chunks the next version may reuse."""
        self._chunks, self.reused = {}, 0
        module = cst.parse_module(text)
        if texts is not None and len(texts) == len(module.body):
            for number, (chunk_text, chunk) in enumerate(zip(texts, _chunks_of(module, texts))):
                self._chunks.setdefault((chunk_text, number == len(texts) - 1), []).append(chunk)
        return module


def _chunk_texts(text: str, tree: Any) -> Optional[List[str]]:
    """The text cut where each top-level statement starts (the first chunk also holds what precedes the first
    statement); None where CPython has no tree or its lines do not cut the text."""
    if tree is None or not tree.body:
        return None
    starts: List[int] = []
    for statement in tree.body:
        decorators = getattr(statement, "decorator_list", None)
        line = decorators[0].lineno if decorators else statement.lineno
        if starts and line <= starts[-1]:
            if line == starts[-1]:
                continue  # `a = 1; b = 2`: one statement line for LibCST
            return None
        starts.append(line)
    offsets = [0]
    for match in _NEWLINE.finditer(text):
        offsets.append(match.end())
    if starts[-1] > len(offsets):
        return None
    cuts = [0] + [offsets[line - 1] for line in starts[1:]] + [len(text)]
    return [text[begin:end] for begin, end in zip(cuts, cuts[1:])]


def _parse_chunk(text: str, last: bool) -> Optional[Chunk]:
    """One chunk parsed on its own; None if it does not parse to one statement.

    But for the last, a chunk is parsed with a statement after it, as in the whole text: at the end of a
    text LibCST's footer drops lines (``x = 1\\n\\n   # c\\n`` gives back ``x = 1\\n   # c\\n``, LibCST 1.9)
    that it keeps as the next statement's leading lines.
    """
    try:
        module = cst.parse_module(text if last else text + _NEXT)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # noqa: BLE001 - a syntax error or a LibCST failure: the full parse says which
        return None
    if len(module.body) != (1 if last else 2):
        return None
    statement = module.body[0]
    footer = module.footer if last else module.body[1].leading_lines
    block = _first_block(statement)
    indent = None if block is None else module.default_indent
    newline = module.default_newline if _NEWLINE.search(text) else None
    return Chunk(module.header, statement, footer, module.has_trailing_newline, indent, indent, newline)


def _chunks_of(module: cst.Module, texts: List[str]) -> List[Chunk]:
    """The chunks of a module parsed whole, one per statement (``texts``, the statements' chunk texts)."""
    chunks = []
    last = len(module.body) - 1
    for number, (statement, text) in enumerate(zip(module.body, texts)):
        block = _first_block(statement)
        indent = None if block is None else module.default_indent
        first_indent = None if block is None else block.indent or module.default_indent
        placed = number > 0 and bool(statement.leading_lines)
        chunk = Chunk(
            module.header if number == 0 else (),
            statement.with_changes(leading_lines=()) if placed else statement,
            module.body[number + 1].leading_lines if number < last else module.footer,
            module.has_trailing_newline if number == last else True,
            first_indent,
            indent,
            module.default_newline if _NEWLINE.search(text) else None,
            (statement.leading_lines, statement) if placed else None,
        )
        chunks.append(chunk)
    return chunks


def _first_block(node: cst.CSTNode) -> Optional[cst.IndentedBlock]:
    """The statement's first indented block: the one whose indent LibCST takes as the default. Blocks are only
    in compound statements' suites, and compound statements only in blocks."""
    if isinstance(node, cst.IndentedBlock):
        return node
    if isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        return None
    for name in _SUITES:
        value = getattr(node, name, None)
        for part in value if isinstance(value, (list, tuple)) else (value,):
            block = _first_block(part) if isinstance(part, cst.CSTNode) else None
            if block is not None:
                return block
    return None


def _placed(chunk: Chunk, leading: Sequence[cst.EmptyLine]) -> cst.BaseStatement:
    """The chunk's statement with these leading lines: the node made for it last time where those were the
    same lines, so that a statement neither an edit nor the lines before it changed is the very node of the
    version before (even where the edit was in the statement before it, whose footer they are)."""
    if not leading:
        return chunk.statement
    if chunk.placed is None or not _same_lines(chunk.placed[0], leading):
        chunk.placed = (leading, chunk.statement.with_changes(leading_lines=leading))
    return chunk.placed[1]


def _same_lines(these: Sequence[cst.EmptyLine], those: Sequence[cst.EmptyLine]) -> bool:
    return these is those or (len(these) == len(those) and all(a.deep_equals(b) for a, b in zip(these, those)))


def _first_newline(text: str) -> Optional[str]:
    match = _NEWLINE.search(text)
    return match.group() if match else None


def _assembled(chunks: List[Chunk], newline: Optional[str]) -> Optional[cst.Module]:
    """The module the chunks make, or None where a chunk's nodes would differ in the whole module's parse."""
    indent = next((chunk.first_indent for chunk in chunks if chunk.first_indent is not None), _NO_INDENT)
    body: List[cst.BaseStatement] = []
    leading: Sequence[cst.EmptyLine] = ()
    for chunk in chunks:
        if chunk.indent not in (None, indent) or chunk.newline not in (None, newline):
            return None
        body.append(_placed(chunk, leading))
        leading = chunk.footer
    return cst.Module(
        body=body,
        header=chunks[0].header,
        footer=chunks[-1].footer,
        encoding="utf-8",
        default_indent=indent,
        default_newline=newline or "\n",
        has_trailing_newline=chunks[-1].has_trailing_newline,
    )
