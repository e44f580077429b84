"""Jupyter notebooks: their code cells as one Python module, and fixes written back into the JSON.

A training loop in cell 7 uses the loader built in cell 3, so the code cells
are analysed together, in order, as one module (as Ruff does). IPython syntax
(``%magic``, ``!shell``, ``?help``, ``x?``) is not Python: each such line is
replaced by a placeholder statement that keeps the line count, so every line
of the module maps back to one line of one cell. The placeholder is an import
of a module named after the escape (``import _ipython_escape_3``): a statement
wherever the escape stood, and one that the fixes see as part of a cell's
import block, so an import or helper a fix adds lands with the imports rather
than above the first ``!pip install``. A cell run by another
interpreter (``%%bash``, ``%%writefile``...), or one VS Code marks as another
language, is left out.

Fixes are made on that module, then its lines are handed back to the cells
they came from (a fix never moves a line into another cell: new lines join the
cell of the line before them, so an import added at the top goes into the
first code cell). Only the ``source`` values of the changed cells are replaced
in the JSON text itself, so outputs, metadata, key order, indentation, escapes
and the final newline stay byte for byte what they were.

The standard library's ``json`` reads notebooks: ``import nbformat`` (with
jsonschema and its dependencies) costs more than checking a typical script,
and the structure trainlint relies on is checked here.
"""

from __future__ import annotations

import io
import json
import re
import tokenize
from json.decoder import scanstring
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

from trainlint.diagnostics import CellPosition, Diagnostic, Location, syntax_error
from trainlint.source import DecodeError

SUFFIX = ".ipynb"

# The cell magics whose body is Python run in the kernel; the body of any other
# (%%bash, %%writefile, %%html...) is not Python, so such a cell is skipped.
PYTHON_CELL_MAGICS = frozenset({"capture", "debug", "prun", "time", "timeit"})

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")  # lines as Python counts them, with their endings
_ESCAPE = re.compile(
    r"""^[ \t]*(?:
        [%!?]                                  # %magic, %%cell magic, !shell, ?help
      | [A-Za-z_][\w.]*[ \t]*\?{1,2}[ \t]*$     # obj? and obj??
      | [A-Za-z_][\w.,\t ()\[\]]*=[ \t]*[!%]     # files = !ls, t = %timeit -o f()
    )""",
    re.VERBOSE,
)
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_ONLY_AST = 0x400  # ast.PyCF_ONLY_AST, without importing ast


class NotebookError(DecodeError):
    """The file is not a notebook trainlint can read; reported as TL001 at ``row``:``column`` of the JSON."""


class WriteBackError(ValueError):
    """The fixed module cannot be put back into the cells it came from; the notebook is left as it is."""


def is_notebook(path: str) -> bool:
    return path.endswith(SUFFIX)


def lines_of(text: str) -> List[str]:
    return _LINE.findall(text)


class CodeCell(NamedTuple):
    """One code cell as analysed: ``code`` is its source as IPython runs it (a leading indentation
    removed, IPython lines masked), ending in a newline, with as many lines as the source."""

    number: int  # 1-based, counting every cell (markdown too), as Ruff and the JSON count them
    source: str  # as the notebook holds it
    code: str
    masked: Dict[str, str]  # placeholder line (without its ending) -> the line it stands for (without its ending)
    indent: str  # removed from the start of each line, as IPython does when a cell's first line is indented
    error: Optional[Tuple[int, int, str]] = None  # (row, column, message) when the cell is not Python; its code is then blank lines


class Notebook:
    """A parsed notebook: its document, its code cells and their concatenation."""

    def __init__(self, text: str, document: dict, cells: List[CodeCell], token: str) -> None:
        self.text = text  # the JSON text (a UTF-8 BOM, if any, removed)
        self.document = document
        self.cells = cells
        self.token = token
        self.code = "".join(cell.code for cell in cells)
        self.rows: List[Tuple[int, int]] = [
            (cell.number, row) for cell in cells for row in range(1, len(lines_of(cell.code)) + 1)
        ]

    @classmethod
    def parse(cls, text: str) -> "Notebook":
        try:
            document = json.loads(text)
        except json.JSONDecodeError as error:
            raise NotebookError(f"Invalid notebook JSON: {error.msg}", error.lineno, error.colno) from None
        except RecursionError:
            raise NotebookError("Invalid notebook JSON: nested too deeply") from None
        cells = document.get("cells") if isinstance(document, dict) else None
        if not isinstance(cells, list):
            old = isinstance(document, dict) and "worksheets" in document
            hint = " (nbformat 3; convert it with `jupyter nbconvert --to notebook`)" if old else ""
            raise NotebookError(f"Not a Jupyter notebook in nbformat 4: no `cells` list{hint}")
        sources: List[Tuple[int, str]] = []
        for index, cell in enumerate(cells if _is_python(document) else ()):
            if not isinstance(cell, dict) or cell.get("cell_type") != "code":
                continue
            source = cell.get("source", "")
            if isinstance(source, list) and all(isinstance(line, str) for line in source):
                source = "".join(source)
            if not isinstance(source, str):
                raise NotebookError(f"Cell {index + 1}: `source` must be a string or a list of strings")
            if not _runs_elsewhere(source) and _cell_is_python(cell):
                sources.append((index + 1, source))
        token = _unused_token("".join(source for _, source in sources))
        counter = iter(range(1 << 30))
        code_cells = [_code_cell(number, source, token, counter) for number, source in sources]
        return cls(text, document, code_cells, token)

    def syntax_errors(self, path: str) -> List[Diagnostic]:
        """TL001 for each cell that does not parse on its own (an exercise's ``model = # TODO``); such a
        cell stands in the module as blank lines, so that the other cells are still checked and fixed."""
        errors, start = [], 0
        for cell in self.cells:
            if cell.error is not None:
                row, column, message = cell.error
                errors.append(self.place(syntax_error(path, start + row, column, message)))
            start += len(lines_of(cell.code))
        return errors

    def place(self, diagnostic: Diagnostic, rows: Optional[Sequence[Tuple[int, int]]] = None) -> Diagnostic:
        """The diagnostic with its cell and its location within the cell (its own rows stay those of the module)."""
        rows = self.rows if rows is None else rows
        if not rows:
            return diagnostic
        cell, row = _cell_row(rows, diagnostic.location.row)
        end_cell, end_row = _cell_row(rows, diagnostic.end_location.row)
        shift = next((len(c.indent) for c in self.cells if c.number == cell), 0)
        start = Location(row, diagnostic.location.column + shift)
        end = Location(end_row, diagnostic.end_location.column + shift) if end_cell == cell else start
        return diagnostic._replace(cell=CellPosition(cell, start, end))

    def display_code(self) -> str:
        """The code cells as written, each ending in a newline: the same rows as ``code``, for showing source lines."""
        return "".join(_ending_in_newline(cell.source) for cell in self.cells)

    def rewritten(self, fixed: str) -> Tuple[str, List[Tuple[int, int]]]:
        """The notebook's JSON text with the fixed module put back into its cells, and the (cell, row) of
        each line of ``fixed``. Raises WriteBackError when that cannot be done faithfully."""
        old = lines_of(self.code)
        written = [line for cell in self.cells for line in lines_of(cell.source)]  # line for line with ``old``
        if len(written) != len(old):
            raise WriteBackError("the cells' lines do not match the code that was analysed")
        by_cell: List[List[str]] = [[] for _ in self.cells]
        seen: List[set] = [set() for _ in self.cells]
        rows: List[Tuple[int, int]] = []
        for line, (owner, old_index) in zip(lines_of(fixed), _owners(self.cells, old, lines_of(fixed))):
            cell = self.cells[owner]
            content, ending = line.rstrip("\r\n"), line[len(line.rstrip("\r\n")) :]
            if cell.error is not None:  # a cell that does not parse is never changed
                if old_index is None and content.strip():
                    raise WriteBackError(f"a fix would add code to cell {cell.number}, which does not parse")
                by_cell[owner].append(line)
                rows.append((cell.number, len(by_cell[owner])))
                continue
            key = _placeholder(content, cell, self.token)
            if key is not None:
                if key in seen[owner]:
                    raise WriteBackError(f"a fix copied a line of IPython syntax in cell {cell.number}")
                seen[owner].add(key)
            if old_index is not None:  # unchanged: the line exactly as the cell holds it
                content = written[old_index].rstrip("\r\n")
            else:
                content = _as_written(content, key, cell)
            by_cell[owner].append(content + ending)
            rows.append((cell.number, len(by_cell[owner])))
        changed: Dict[int, str] = {}
        for cell, new_lines, found in zip(self.cells, by_cell, seen):
            if cell.error is not None:
                continue
            if len(found) != len(cell.masked):
                raise WriteBackError(f"a fix removed a line of IPython syntax from cell {cell.number}")
            new_source = _with_original_ending("".join(new_lines), cell.source)
            if new_source != cell.source:
                changed[cell.number - 1] = new_source
        text = _replace_sources(self.text, self.document, changed)
        self._verify(text, changed)
        return text, rows

    def _verify(self, text: str, changed: Dict[int, str]) -> None:
        """The new JSON must hold the same document but for the changed sources, and its code must parse."""
        try:
            again = Notebook.parse(text)
        except NotebookError as error:
            raise WriteBackError(f"the rewritten notebook does not read back ({error})") from None
        expected = json.loads(self.text)
        for index, source in changed.items():
            expected["cells"][index]["source"] = again.document["cells"][index]["source"]
            if _joined(again.document["cells"][index]["source"]) != source:
                raise WriteBackError(f"cell {index + 1} does not hold the fixed code")
        if again.document != expected:
            raise WriteBackError("the rewrite changed more than the sources of the fixed cells")
        if [(c.number, c.error is None) for c in again.cells] != [(c.number, c.error is None) for c in self.cells]:
            raise WriteBackError("a fixed cell no longer parses on its own")
        try:
            compile(again.code, "<notebook>", "exec", flags=_ONLY_AST, dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
            raise WriteBackError(f"the fixed cells do not parse ({error})") from None


def read_notebook(data: bytes) -> Tuple[Notebook, str]:
    """The notebook in ``data`` and the BOM to put back in front of it ("" when none). Raises NotebookError."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        row = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise NotebookError(f"Cannot decode the notebook as UTF-8: {error.reason}", row, column) from None
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    return Notebook.parse(text[len(bom) :]), bom


def display_code(text: str) -> str:
    """The code cells of the notebook JSON ``text`` as trainlint numbers their rows ("" if it is not one)."""
    try:
        return Notebook.parse(text.lstrip("\ufeff")).display_code()
    except NotebookError:
        return ""


# --- reading the cells --------------------------------------------------------------------------


def _is_python(document: dict) -> bool:
    """A notebook whose kernel runs another language (R, Julia...) has no Python to check."""
    metadata = document.get("metadata")
    info = metadata.get("language_info") if isinstance(metadata, dict) else None
    name = info.get("name") if isinstance(info, dict) else None
    return not isinstance(name, str) or name.lower() in ("python", "python3", "ipython", "ipython3")


def _cell_is_python(cell: dict) -> bool:
    """A code cell that VS Code marks as another language (``"vscode": {"languageId": "shellscript"}``: a
    ``pip install`` line, a pasted log) is not Python, whatever the notebook's kernel."""
    metadata = cell.get("metadata")
    editor = metadata.get("vscode") if isinstance(metadata, dict) else None
    language = editor.get("languageId") if isinstance(editor, dict) else None
    return not isinstance(language, str) or language.lower() == "python"


def _runs_elsewhere(source: str) -> bool:
    """A cell magic other than the timing and capturing ones hands the whole cell to another program."""
    for line in lines_of(source):
        stripped = line.strip()
        if not stripped:
            continue
        if not stripped.startswith("%%"):
            return False
        name = stripped[2:].split(None, 1)[0] if len(stripped) > 2 else ""
        return name not in PYTHON_CELL_MAGICS
    return False


def _unused_token(text: str) -> str:
    """A marker for the placeholder comments that no cell contains, so each placeholder is found again."""
    token = "_ipython_escape"
    while token in text:
        token += "_"
    return token


def _code_cell(number: int, source: str, token: str, counter) -> CodeCell:
    """The cell as analysed. A cell that is Python already is left as it is (``"%d" % n`` stays); one
    that is not Python even masked is a syntax error of its own, standing in the module as blank lines."""
    code = _ending_in_newline(source)
    if _syntax_problem(code) is None:
        return CodeCell(number, source, code, {}, "")
    code, masked, indent = _mask(code, token, counter)
    problem = _syntax_problem(code)
    if problem is not None:
        code = "".join(line[len(line.rstrip("\r\n")) :] for line in lines_of(code))
    return CodeCell(number, source, code, masked, indent, problem)


def _ending_in_newline(source: str) -> str:
    """A cell's source as a part of the module: nbformat's last line has no newline; the module's cells each end in one."""
    return source if source.endswith(("\n", "\r")) or not source else source + "\n"


def _mask(code: str, token: str, counter) -> Tuple[str, Dict[str, str], str]:
    """The cell's code as IPython runs it, each IPython line replaced by ``import <token>_N`` (same
    indentation); what each placeholder stands for; and the leading indentation removed from every
    line (IPython removes the first line's indentation from each line that starts with it)."""
    code, removed = _dedented(code)
    masked: Dict[str, str] = {}
    out: List[str] = []
    continued, indent = False, ""
    for line in lines_of(code):
        content = line.rstrip("\r\n")
        if continued or (_ESCAPE.match(content) and _starts_statement(out)):
            if not continued:  # a continuation line takes the indentation of the escape it continues
                indent = content[: len(content) - len(content.lstrip(" \t"))]
            placeholder = f"{indent}import {token}_{next(counter)}"
            masked[placeholder] = content
            out.append(placeholder + line[len(content) :])
            continued = content.endswith("\\")  # an escape line continued on the next line
        else:
            out.append(line)
    return "".join(out), masked, removed


def _starts_statement(lines_before: List[str]) -> bool:
    """Does a new statement start after these lines (not inside brackets, a string or a backslash
    continuation)? Only there is ``%`` IPython syntax: ``% (epoch, loss))`` continuing a format is Python."""
    try:
        for _ in tokenize.generate_tokens(io.StringIO("".join(lines_before)).readline):
            pass
    except tokenize.TokenError:  # the text so far ends inside a bracket, a string or a continued line
        return False
    except SyntaxError:  # an error of its own above: the line is judged by itself
        return True
    return True


def _dedented(code: str) -> Tuple[str, str]:
    """``code`` without the indentation of its first non-blank line, as IPython runs a cell pasted
    indented; the indentation removed ("" when none). Lines that do not start with it keep theirs."""
    lines = lines_of(code)
    first = next((line for line in lines if line.strip()), "")
    indent = first[: len(first) - len(first.lstrip(" \t"))]
    if not indent:
        return code, ""
    return "".join(line[len(indent) :] if line.startswith(indent) else line for line in lines), indent


def _syntax_problem(code: str) -> Optional[Tuple[int, int, str]]:
    """CPython's syntax error in ``code`` as (row, column, message), or None when it parses."""
    try:
        compile(code, "<cell>", "exec", flags=_ONLY_AST, dont_inherit=True)
    except SyntaxError as error:
        return error.lineno or 1, error.offset or 1, f"SyntaxError: {error.msg}"
    except (RecursionError, MemoryError):
        return 1, 1, "The cell is nested too deeply to parse"
    except ValueError:  # null bytes
        return 1, 1, "The cell contains null bytes"
    return None


def _cell_row(rows: Sequence[Tuple[int, int]], row: int) -> Tuple[int, int]:
    """(cell, row in cell) of a 1-based module row; a row past the end (an error at end of file) is in the last cell."""
    if 1 <= row <= len(rows):
        return rows[row - 1]
    cell, last = rows[-1]
    return cell, last + max(0, row - len(rows))


def _joined(source) -> str:
    return "".join(source) if isinstance(source, list) else source


# --- putting fixed code back --------------------------------------------------------------------


def _owners(cells: Sequence[CodeCell], old: List[str], new: List[str]) -> List[Tuple[int, Optional[int]]]:
    """For each line of the fixed module, the cell (position in ``cells``) it belongs to, and the index
    of the old line it is (None for a new or changed line).

    Unchanged lines stay in their cell; new lines join the cell of the line
    before them (the first cell at the top). A changed block that spans a cell
    boundary is split where its new lines best match the old lines of each
    cell, so no line ever moves into another cell's place.
    """
    import difflib  # only a fix that changed a notebook gets here: kept off a check's start-up path

    old_owner = [position for position, cell in enumerate(cells) for _ in lines_of(cell.code)]
    owners: List[Tuple[int, Optional[int]]] = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            owners.extend((old_owner[i], i) for i in range(i1, i2))
        elif tag == "insert":
            owners.extend([(old_owner[i1 - 1] if i1 > 0 else 0, None)] * (j2 - j1))
        elif tag == "replace":
            owners.extend((owner, None) for owner in _split_block(old[i1:i2], old_owner[i1:i2], new[j1:j2]))
    return owners


def _split_block(old: List[str], owner: List[int], new: List[str]) -> List[int]:
    """Owners for the new lines of a replaced block: contiguous runs, one per old cell in order, chosen to
    keep as many characters as possible matched with the same cell's old lines."""
    groups: List[Tuple[int, str]] = []
    for line, cell in zip(old, owner):
        if groups and groups[-1][0] == cell:
            groups[-1] = (cell, groups[-1][1] + line)
        else:
            groups.append((cell, line))
    if len(groups) == 1:
        return [groups[0][0]] * len(new)
    if len(groups) * len(new) ** 2 > 20_000:
        raise WriteBackError("a fix changed code across too many cells at once to put it back cell by cell")

    import difflib

    def matched(a: str, b: str) -> int:
        return sum(block.size for block in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_matching_blocks())

    # best[k][s]: the most characters matched giving new[:s] to the first k groups; split[k][s]: where group k starts
    best = [[-1] * (len(new) + 1) for _ in range(len(groups) + 1)]
    split = [[0] * (len(new) + 1) for _ in range(len(groups) + 1)]
    best[0][0] = 0
    for k, (_, text) in enumerate(groups, start=1):
        for s in range(len(new) + 1):
            for start in range(s + 1):
                if best[k - 1][start] < 0:
                    continue
                score = best[k - 1][start] + matched(text, "".join(new[start:s]))
                if score > best[k][s]:
                    best[k][s], split[k][s] = score, start
    owners: List[int] = []
    end = len(new)
    for k in range(len(groups), 0, -1):
        start = split[k][end]
        owners[:0] = [groups[k - 1][0]] * (end - start)
        end = start
    return owners


def _placeholder(content: str, cell: CodeCell, token: str) -> Optional[str]:
    """The placeholder of ``cell`` that this line of the fixed module is (at any indentation), if any.
    A placeholder that is not the cell's own was moved there from another cell: that is refused."""
    stripped = content.lstrip(" \t")
    if not stripped.startswith(f"import {token}_"):
        return None
    key = next((k for k in cell.masked if k.lstrip(" \t") == stripped), None)
    if key is None:
        raise WriteBackError(f"a fix moved a line of IPython syntax out of cell {cell.number}")
    return key


def _as_written(content: str, placeholder: Optional[str], cell: CodeCell) -> str:
    """A new or changed line of the fixed module as the cell will hold it: a placeholder becomes the
    IPython line it stands for (re-indented with it, should a fix have re-indented it), and the
    indentation IPython removed from the cell goes back in front of every line that is not blank."""
    if placeholder is not None:
        content = _reindented(cell.masked[placeholder], placeholder, content[: len(content) - len(content.lstrip(" \t"))])
    return cell.indent + content if content.strip() else content


def _reindented(original: str, placeholder: str, indent: str) -> str:
    """The masked line as it was, moved to ``indent`` if a fix re-indented its placeholder."""
    old_indent = placeholder[: len(placeholder) - len(placeholder.lstrip(" \t"))]
    if indent == old_indent or not original.startswith(old_indent):
        return original
    return indent + original[len(old_indent) :]


def _with_original_ending(code: str, source: str) -> str:
    """The cell's new code ending as its source did (nbformat's last line has no newline; the module's
    cells each end in one), so that a fix adds no blank line at the bottom of a cell."""
    original_end = source[len(source.rstrip("\r\n")) :]
    return code.rstrip("\r\n") + original_end


def _replace_sources(text: str, document: dict, changed: Dict[int, str]) -> str:
    """``text`` with the ``source`` value of each changed cell re-written in the style of the old value."""
    if not changed:
        return text
    spans = _source_spans(text)
    ascii_only = text.isascii()
    out, position = [], 0
    for index in sorted(changed):
        if index not in spans:
            raise WriteBackError(f"cell {index + 1} has no `source` to rewrite")
        key_start, start, end = spans[index]
        out.append(text[position:start])
        old_value = document["cells"][index]["source"]
        out.append(_render_source(changed[index], old_value, text, key_start, start, end, ascii_only))
        position = end
    out.append(text[position:])
    return "".join(out)


def _render_source(source: str, old_value, text: str, key_start: int, start: int, end: int, ascii_only: bool) -> str:
    """The new value as the notebook wrote the old one: one string, or a list of lines laid out alike."""
    if isinstance(old_value, str):
        return json.dumps(source, ensure_ascii=ascii_only)
    items = [json.dumps(line, ensure_ascii=ascii_only) for line in re.findall(r"[^\n]*\n|[^\n]+", source)]
    if not items:
        return "[]"
    old = text[start:end]
    opening, separator, closing = _list_layout(old, text, key_start)
    return "[" + opening + separator.join(items) + closing + "]"


def _list_layout(old: str, text: str, key_start: int) -> Tuple[str, str, str]:
    """(after ``[``, between items, before ``]``) as the old list value used them, or as nbformat would."""
    inner = old[1:-1]
    if inner.strip():
        opening = inner[: len(inner) - len(inner.lstrip())]
        closing = inner[len(inner.rstrip()) :]
        first_end = json.JSONDecoder().raw_decode(inner, len(opening))[1]
        rest = inner[first_end:]
        if rest.strip():  # as between the old first and second items
            separator = rest[: len(rest) - len(rest.lstrip(", \t\r\n"))]
        else:  # one item: as json.dumps would separate them in this layout
            separator = "," + opening if opening else ", "
        return opening, separator, closing
    # An empty list ([] in every style): lay out like nbformat, one line per item, indented one level deeper.
    line_start = text.rfind("\n", 0, key_start) + 1
    indent = text[line_start:key_start]
    if not text.startswith(("{\n", "{\r\n")) or indent.strip():
        return "", ", ", ""
    newline = "\r\n" if text.startswith("{\r\n") else "\n"
    unit = _WHITESPACE.match(text, 1).group().lstrip("\r\n") or " "
    return newline + indent + unit, "," + newline + indent + unit, newline + indent


def _source_spans(text: str) -> Dict[int, Tuple[int, int, int]]:
    """For each cell index: where its ``source`` key starts, and where its value starts and ends, in ``text``."""
    spans: Dict[int, Tuple[int, int, int]] = {}
    for key, _, start, end in _members(text, _skip(text, 0)):
        if key != "cells":
            continue
        spans = {}  # a repeated key: the last one counts, as for json.loads
        for index, (element_start, _) in enumerate(_elements(text, start)):
            if text[element_start] != "{":
                continue
            for cell_key, key_start, value_start, value_end in _members(text, element_start):
                if cell_key == "source":
                    spans[index] = (key_start, value_start, value_end)
    return spans


_DECODER = json.JSONDecoder()


def _skip(text: str, position: int) -> int:
    return _WHITESPACE.match(text, position).end()


def _members(text: str, position: int) -> List[Tuple[str, int, int, int]]:
    """(key, key start, value start, value end) of the object starting at ``text[position] == "{"``."""
    found = []
    position = _skip(text, position + 1)
    while text[position] != "}":
        key_start = position
        key, position = scanstring(text, position + 1)
        position = _skip(text, _skip(text, position) + 1)  # past the colon
        end = _DECODER.raw_decode(text, position)[1]
        found.append((key, key_start, position, end))
        position = _skip(text, end)
        if text[position] == ",":
            position = _skip(text, position + 1)
    return found


def _elements(text: str, position: int) -> List[Tuple[int, int]]:
    """(start, end) of each element of the array starting at ``text[position] == "["``."""
    found = []
    position = _skip(text, position + 1)
    while text[position] != "]":
        end = _DECODER.raw_decode(text, position)[1]
        found.append((position, end))
        position = _skip(text, end)
        if text[position] == ",":
            position = _skip(text, position + 1)
    return found
