"""Shared facts about one module, computed once and only when a rule asks.

Rules query these instead of re-deriving them, so that two rules needing the
import table or the parent of a node pay for it once per file.
"""

from __future__ import annotations

import functools
import heapq
from typing import Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Tuple, TypeVar

import libcst as cst

from trainlint.analysis.imports import ImportTable, dotted
from trainlint.analysis.walk import children, memoised, remember


T = TypeVar("T")


Numbered = List[Tuple[int, cst.CSTNode]]  # nodes with their number in source pre-order


class StatementIndex(NamedTuple):
    """The index of one top-level statement's nodes, numbered from the statement (0)."""

    parents: Dict[cst.CSTNode, cst.CSTNode]  # the statement (with the module it was indexed in) and every node below
    by_type: Dict[type, Numbered]
    children: Dict[cst.CSTNode, List[cst.CSTNode]]  # the walk's memo for the same nodes


class StatementIndexes:
    """The index of each top-level statement of the module indexed last: the language server keeps one per
    document. Its parser gives a statement that neither an edit nor the lines before it changed as the very
    node of the version before (trainlint/incremental_parse.py), and that statement's index is taken as it was."""

    def __init__(self) -> None:
        self.statements: Dict[cst.CSTNode, StatementIndex] = {}
        self.positions: Dict[cst.CSTNode, Any] = {}  # node_positions.Generated, by statement: the engine's


class ModuleFacts:
    def __init__(self, module: cst.Module, text: str, indexes: Optional[StatementIndexes] = None) -> None:
        """``indexes``: the statement indexes of the module's document, where its previous version was linted."""
        self.module = module
        self.text = text
        self._indexes = indexes
        self._facts: Dict[Callable[["ModuleFacts"], Any], Any] = {}
        self._nodes: Dict[Tuple[type, ...], List[cst.CSTNode]] = {}

    def fact(self, kind: Callable[["ModuleFacts"], T]) -> T:
        """The fact ``kind`` (a class taking these facts) for this module, computed once.

        Analyses live in their own modules under ``trainlint.analysis`` and are
        requested by type, e.g. ``self.facts.fact(TrainingLoops)``, so a new
        analysis needs no change here.
        """
        try:
            return self._facts[kind]
        except KeyError:
            value = self._facts[kind] = kind(self)
            return value

    def forget(self) -> None:
        """Drop the analyses and the index. Each analysis refers back to these facts, a reference cycle that only
        the cyclic garbage collector would free; dropped here, a file's objects go as soon as its lint is done."""
        self._facts.clear()
        self._nodes.clear()
        self.__dict__.pop("parents", None)
        self.__dict__.pop("imports", None)
        self.__dict__.pop("_by_type", None)

    @functools.cached_property
    def imports(self) -> ImportTable:
        return ImportTable(self.nodes(cst.Import, cst.ImportFrom))

    def qualified_name(self, node: cst.BaseExpression) -> Optional[str]:
        return self.imports.qualified_name(node)

    @functools.cached_property
    def parents(self) -> Dict[cst.CSTNode, cst.CSTNode]:
        """Each node's parent, inserted in source pre-order (analyses rely on that order)."""
        if self._indexes is None:
            parents, self._by_type = _index([(child, self.module) for child in children(self.module)])
            return parents
        return self._index_by_statement(self._indexes)

    def _index_by_statement(self, indexes: StatementIndexes) -> Dict[cst.CSTNode, cst.CSTNode]:
        """The same index, made of each top-level statement's: the one of the version before where the
        statement is the same node, else built; the indexes kept for the next version are this module's."""
        parents: Dict[cst.CSTNode, cst.CSTNode] = {}
        by_type: Dict[type, Numbered] = {}
        kept: Dict[cst.CSTNode, StatementIndex] = {}
        for statement in children(self.module):
            index = indexes.statements.get(statement)
            if index is None:
                found, numbered = _index([(statement, self.module)])
                index = StatementIndex(found, numbered, memoised(found))
            else:
                remember(index.children)
            offset = len(parents)
            parents.update(index.parents)
            parents[statement] = self.module  # the module it was indexed in may be the version before's
            for kind, nodes in index.by_type.items():
                by_type.setdefault(kind, []).extend([(offset + number, node) for number, node in nodes])
            kept[statement] = index
        indexes.statements = kept
        indexes.positions = {statement: found for statement, found in indexes.positions.items() if statement in kept}
        self._by_type = by_type
        return parents

    def nodes(self, *kinds: type) -> List[cst.CSTNode]:
        """Every node of exactly these types (``cst.For``, ``cst.Call``...), in source order.

        Built in the same pass as :attr:`parents`, so asking for the calls of a
        module costs a dictionary lookup rather than another traversal.
        """
        found = self._nodes.get(kinds)
        if found is None:
            self.parents  # noqa: B018 - builds the index
            numbered = heapq.merge(*(self._by_type.get(kind, ()) for kind in kinds))
            found = self._nodes[kinds] = [node for _, node in numbered]
        return found

    def preorder(self) -> Iterator[cst.CSTNode]:
        """The module and every node below it, in source pre-order."""
        yield self.module
        yield from self.parents

    def parent(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        return self.parents.get(node)

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        parent = self.parents.get(node)
        while parent is not None:
            yield parent
            parent = self.parents.get(parent)

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def torch_name(self) -> str:
        """How this module spells ``torch`` (``th`` after ``import torch as th``)."""
        return self.imports.local_name_for_module("torch") or "torch"


def _index(roots: List[Tuple[cst.CSTNode, cst.CSTNode]]) -> Tuple[Dict[cst.CSTNode, cst.CSTNode], Dict[type, Numbered]]:
    """Each node's parent, in source pre-order from the roots (each given with its parent), and the nodes
    by type, each with its number in that order."""
    parents: Dict[cst.CSTNode, cst.CSTNode] = {}
    by_type: Dict[type, Numbered] = {}
    stack = list(reversed(roots))
    while stack:
        node, parent = stack.pop()
        by_type.setdefault(type(node), []).append((len(parents), node))
        parents[node] = parent
        stack.extend((child, node) for child in reversed(children(node)))
    return parents, by_type


__all__ = ["ModuleFacts", "StatementIndexes", "dotted"]
