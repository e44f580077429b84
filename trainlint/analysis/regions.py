"""Loops of any shape, and what each one runs per iteration.

A training loop is not always ``for batch in loader``: ``for step in
range(max_steps)``, ``for x, y in zip(...)``, ``while True: batch =
next(it)`` train just as well, and so does a loop whose step is a method of
its own (``self.train_step(batch)``). What decides is the effect: what the
loop body runs, directly or through the same-module functions it calls.

This module answers that for every ``for`` and ``while`` loop of a module:
which nodes run once per iteration (:meth:`LoopRegions.nodes_in`), and which
loops run a call matching a predicate (:func:`loops_running`). It is the
stop-gap for the effect-based loop model of issue 13 (``TrainingLoops`` still
knows only loops over loaders) and is meant to be folded into it.

Callees are matched by name as :mod:`trainlint.analysis.calls` explains;
the body of a ``for`` loop is its block (the iterable is evaluated once),
nested loops and nested definitions (an LBFGS ``closure``) included.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Dict, FrozenSet, List, Set, Tuple, Union

import libcst as cst

from trainlint.analysis.calls import CallGraph, callee

if TYPE_CHECKING:
    from trainlint.analysis import ModuleFacts

Loop = Union[cst.For, cst.While]


class LoopRegions:
    """Every loop of a module, and the nodes each one runs per iteration."""

    def __init__(self, facts: "ModuleFacts") -> None:
        self.facts = facts
        self.loops: List[Loop] = facts.nodes(cst.For, cst.While)  # source order: outer loops first
        self._loop_of_body = {loop.body: loop for loop in self.loops}
        self._reached: Dict[Loop, FrozenSet[cst.FunctionDef]] = {}
        self._index: Dict[Tuple[type, ...], Tuple[Dict[Loop, List[cst.CSTNode]], Dict[cst.FunctionDef, List[cst.CSTNode]]]] = {}

    def loops_containing(self, node: cst.CSTNode) -> List[Loop]:
        """The loops whose body contains ``node`` in this function or an enclosing one, innermost first."""
        return [self._loop_of_body[a] for a in self.facts.ancestors(node) if a in self._loop_of_body]

    def functions_reached(self, loop: Loop) -> FrozenSet[cst.FunctionDef]:
        """The same-module functions the loop body may call, directly or through each other."""
        found = self._reached.get(loop)
        if found is None:
            graph = self.facts.fact(CallGraph)
            named = {c for c in map(callee, self._direct(loop, (cst.Call,))) if c is not None}
            chosen: Set[cst.FunctionDef] = set()
            pending = graph.resolve(named)
            while pending:
                function = pending.pop()
                if function not in chosen:
                    chosen.add(function)
                    pending.extend(graph.called_by(function))
            found = self._reached[loop] = frozenset(chosen)
        return found

    def nodes_in(self, loop: Loop, *kinds: type) -> List[cst.CSTNode]:
        """Nodes of exactly these types that run per iteration: in the body, or in a function it reaches."""
        _, by_function = self._indexed(kinds)
        nodes = list(self._direct(loop, kinds))
        for function in self.functions_reached(loop):
            nodes.extend(by_function.get(function, ()))
        return nodes

    def _direct(self, loop: Loop, kinds: Tuple[type, ...]) -> List[cst.CSTNode]:
        by_loop, _ = self._indexed(kinds)
        return by_loop.get(loop, [])

    def _indexed(self, kinds: Tuple[type, ...]):
        """Nodes of ``kinds`` by each loop body and each function that contains them (one pass, memoised)."""
        index = self._index.get(kinds)
        if index is None:
            by_loop: Dict[Loop, List[cst.CSTNode]] = {}
            by_function: Dict[cst.FunctionDef, List[cst.CSTNode]] = {}
            for node in self.facts.nodes(*kinds):
                for ancestor in self.facts.ancestors(node):
                    loop = self._loop_of_body.get(ancestor)
                    if loop is not None:
                        by_loop.setdefault(loop, []).append(node)
                    elif type(ancestor) is cst.FunctionDef:
                        by_function.setdefault(ancestor, []).append(node)
            index = self._index[kinds] = (by_loop, by_function)
        return index


def loops_running(facts: "ModuleFacts", predicate: Callable[[cst.Call], bool]) -> List[Loop]:
    """The loops, outer first, whose iterations run a call for which ``predicate`` holds."""
    regions = facts.fact(LoopRegions)
    return [loop for loop in regions.loops if any(predicate(c) for c in regions.nodes_in(loop, cst.Call))]
