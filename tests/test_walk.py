"""The fast traversal visits exactly the semantic nodes LibCST's own traversal visits, in the same order."""

from __future__ import annotations

from pathlib import Path
from typing import List

import libcst as cst
import pytest

from trainlint.analysis import ModuleFacts, walk

ROOT = Path(__file__).resolve().parent.parent

EVERY_SYNTAX = '''
"""doc"""
from __future__ import annotations
import os.path as p, sys
from . import x
from .m import (a as b, c)
@decorator(1)
class K[T](Base, metaclass=M):
    x: int = 1
    @property
    async def f(self, a, /, b: int = 2, *args, c, d=3, **kw) -> T:
        async with ctx() as (u, v), other:
            async for i in aiter():
                yield i
        global g
        nonlocal_ = lambda q, *r, s=1, **t: (q, r, s, t)
        return await z
def g():
    nonlocal_ = 1
    try:
        raise E("x") from None
    except* (A, B) as group:
        pass
    else:
        pass
    finally:
        del a[1:2:3], b.c
    match command:
        case [x, y, *rest] if x > 0:
            pass
        case {"k": v, **others}:
            pass
        case Point(x=0) | None:
            pass
        case _:
            pass
    while not done: continue
    assert x, f"{x!r:>{width}} {'nested' + f'{y}'}"
    type Alias[U] = list[U]
    x = [i for i in range(3) if i] + list({k: v for k, v in d.items()}) + [*{1, 2}]
    y = (yield from gen()) if a else b @ c ** -d
    z = a if b else c
    w = (n := 10) and not x or y
    print(*args, **kw, sep="")
    x += 1; y: int
    with (open(p) as f, open(q) as g):
        pass
    for q in r:
        break
    else:
        s = x[::2], x[1, 2], "a" "b", ..., (), {1}, -x, ~y, a < b <= c is not d
    if a:
        pass
    elif b:
        pass
    else:
        raise
    return [i async for i in aiter()]
from m import *
'''


def _libcst_order(module: cst.Module) -> List[cst.CSTNode]:
    order: List[cst.CSTNode] = []

    class Recorder(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if not isinstance(node, walk.TRIVIA):
                order.append(node)
            return True

    module.visit(Recorder())
    return order


SOURCES = [pytest.param(EVERY_SYNTAX, id="every-syntax")] + [
    pytest.param(path.read_text(encoding="utf-8"), id=str(path.relative_to(ROOT)))
    for path in sorted((ROOT / "fixtures").rglob("bad_*.py"))[:12]
]


@pytest.mark.parametrize("source", SOURCES)
def test_walk_matches_libcst_traversal(source: str) -> None:
    module = cst.parse_module(source)
    expected = _libcst_order(module)
    actual = list(walk.walk(module))
    assert len(actual) == len(expected)
    assert all(a is b for a, b in zip(actual, expected))


@pytest.mark.parametrize("source", SOURCES[:1])
def test_parents_are_in_source_preorder(source: str) -> None:
    module = cst.parse_module(source)
    facts = ModuleFacts(module, source)
    assert list(facts.parents) == _libcst_order(module)[1:]
    assert all(child in walk.children(parent) for child, parent in facts.parents.items())


def test_visit_honours_false_and_leave() -> None:
    module = cst.parse_module("def f():\n    g(1)\nh(2)\n")
    seen = []

    class SkipFunctions(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            seen.append("enter def")
            return False

        def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
            seen.append("leave def")

        def visit_Call(self, node: cst.Call) -> None:
            seen.append(module.code_for_node(node))

    walk.visit(module, SkipFunctions())
    assert seen == ["enter def", "leave def", "h(2)"]


def test_linting_a_file_keeps_none_of_its_tree_in_the_walk_memo() -> None:
    """The memo holds every node of the tree it walked: kept across files, a run over a
    repository would keep every tree alive (736 MiB for diffusers with -j1 before this test)."""
    from trainlint.engine import RuleSettings, lint_source
    from trainlint.registry import ALL_CODES

    source = "import torch\nfor x, y in loader:\n    loss = model(x).sum()\n    loss.backward()\n    total += loss\n"
    result = lint_source(source, "train.py", RuleSettings(codes=ALL_CODES))
    assert result.module is not None  # the rules ran on a parsed tree
    assert walk._CHILDREN == {}
