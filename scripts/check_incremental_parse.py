"""Check the language server's incremental parse against LibCST's full parse over whole repositories.

For every .py file that both CPython and LibCST parse: the module assembled
from all its chunks, each parsed on its own (as though every statement had
changed). Then the incremental parser is given the file (a full parse; its
statements are kept), then edits of sampled top-level statements, each
followed by the file again (only the edited statement is new to the parser). Each edit deletes the statement, duplicates
it, or appends a comment to its chunk's last line (which may move that line
between a block's footer and the next statement's leading lines). After each
version the parser's module must ``deep_equals`` ``libcst.parse_module`` of
the same text and generate the same code (the text, but where LibCST's own
round trip loses a final line of blanks). Counts how many versions
after the first were assembled from chunks and how many fell back to the full parse. With
``--lint``, each version is also linted as the server lints it (all rules, the
document's parser, its statement indexes) and as ``trainlint check`` does, and
the findings with their fixes' edits must be the same.

    python scripts/check_incremental_parse.py PATH [PATH ...] [--statements N] [--lint] [--every N]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Iterator, List, Tuple

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import libcst as cst  # noqa: E402

from trainlint.engine import python_tree  # noqa: E402
from trainlint.incremental_parse import IncrementalParser, _assembled, _chunk_texts, _first_newline, _parse_chunk  # noqa: E402
from trainlint.source import decode  # noqa: E402

FIRST = "the file"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--statements", type=int, default=3, help="statements edited per file, evenly spaced")
    parser.add_argument("--lint", action="store_true", help="also compare the findings of each version with the CLI's")
    parser.add_argument("--every", type=int, default=1, help="check only every N-th file of each path (a sample)")
    args = parser.parse_args()
    counts = {"files": 0, "all chunks assembled": 0, "versions": 0, "assembled": 0, "fell back": 0, "different": 0}
    for root in args.paths:
        for path in list(_python_files([root]))[:: args.every]:
            _check_file(path, args.statements, args.lint, counts)
        print(f"after {root}: " + ", ".join(f"{value} {name}" for name, value in counts.items()), flush=True)
    return 1 if counts["different"] else 0


def _check_file(path: Path, statements: int, lint: bool, counts: dict) -> None:
    try:
        text = decode(path.read_bytes()).text
    except Exception:  # noqa: BLE001 - undecodable: not this check's business
        return
    tree = python_tree(text, str(path))[0]
    texts = _chunk_texts(text, tree)
    if texts is None:
        return
    try:
        expected = cst.parse_module(text)
    except BaseException:  # noqa: BLE001 - LibCST refuses it: the server parses it whole, as the CLI does
        return
    counts["files"] += 1
    chunks = [_parse_chunk(chunk_text, number == len(texts) - 1) for number, chunk_text in enumerate(texts)]
    whole = None if None in chunks else _assembled(chunks, _first_newline(text))  # type: ignore[arg-type]
    if whole is not None:
        counts["all chunks assembled"] += 1
        if not whole.deep_equals(expected) or whole.code != expected.code:
            counts["different"] += 1
            print(f"{path}: every chunk parsed on its own: the module differs from the full parse", flush=True)
    incremental = IncrementalParser()
    compare = _compare_lints if lint else _compare
    compare(incremental, text, path, FIRST, counts)
    for number, edit, edited in _edits(texts, statements):
        if python_tree(edited, str(path))[0] is None:
            continue
        compare(incremental, edited, path, f"{edit} statement {number}", counts)
        compare(incremental, text, path, f"the file after {edit} statement {number}", counts)


def _compare(incremental: IncrementalParser, text: str, path: Path, what: str, counts: dict) -> None:
    tree = python_tree(text, str(path))[0]
    try:
        expected = cst.parse_module(text)
    except BaseException:  # noqa: BLE001 - an edit LibCST refuses: the incremental parse must raise too
        try:
            incremental.parse(text, tree)
        except BaseException:  # noqa: BLE001
            return
        counts["different"] += 1
        print(f"{path}: {what}: parsed, where LibCST's full parse fails", flush=True)
        return
    module = incremental.parse(text, tree)
    counts["versions"] += 1
    if what != FIRST:  # the first version is always parsed whole
        counts["assembled" if incremental.reused else "fell back"] += 1
    if not module.deep_equals(expected) or module.code != expected.code:
        counts["different"] += 1
        print(f"{path}: {what}: the module differs from the full parse", flush=True)


def _compare_lints(incremental: IncrementalParser, text: str, path: str, what: str, counts: dict) -> None:
    from trainlint.engine import RuleSettings, lint_source
    from trainlint.registry import ALL_CODES

    settings = RuleSettings(ALL_CODES)
    found = lint_source(text, str(path), settings, parser=incremental)
    expected = lint_source(text, str(path), settings)
    counts["versions"] += 1
    if what != FIRST:  # the first version is always parsed whole
        counts["assembled" if incremental.reused else "fell back"] += 1
    counts["findings"] = counts.get("findings", 0) + len(expected.diagnostics)
    if found.diagnostics != expected.diagnostics or found.errors != expected.errors:
        counts["different"] += 1
        print(f"{path}: {what}: the findings differ from the CLI's", flush=True)


def _edits(texts: List[str], statements: int) -> Iterator[Tuple[int, str, str]]:
    """(statement number, edit, edited text) for up to ``statements`` statements, evenly spaced."""
    step = max(1, len(texts) // max(1, statements))
    for number in range(0, len(texts) if statements else 0, step):
        before, chunk, after = "".join(texts[:number]), texts[number], "".join(texts[number + 1 :])
        if len(texts) > 1:
            yield number, "deleted", before + after
        yield number, "duplicated", before + chunk + (chunk if chunk.endswith(("\n", "\r")) else "\n" + chunk) + after
        yield number, "commented", before + _commented(chunk) + after


def _commented(chunk: str) -> str:
    """The chunk with a comment at the end of its last line."""
    body = chunk.rstrip("\r\n")
    return body + "  # edited" + chunk[len(body) :]


def _python_files(paths: List[Path]) -> Iterator[Path]:
    for path in paths:
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*.py") if p.is_file())
        elif path.suffix == ".py":
            yield path


if __name__ == "__main__":
    sys.exit(main())
