"""Loops over data loaders, and which of them are training loops.

A training loop iterates something loader-like and, in its body, calls
``.backward()`` or an optimizer's ``.step()``, directly or through a
same-module function (``loss = train_step(model, batch)``). Rules about per-step behaviour
(graph-carrying accumulators, unbounded histories, batch keyword arguments,
moving batches to the device) all start from these loops.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Dict, FrozenSet, List, NamedTuple, Optional, Set, Tuple

import libcst as cst

from trainlint.analysis.calls import CallGraph, steps_training
from trainlint.analysis.imports import dotted

if TYPE_CHECKING:
    from trainlint.analysis import ModuleFacts

# Wrappers whose first argument is what is really iterated.
ITERATION_WRAPPERS = frozenset({"enumerate", "tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "iter"})
LOADER_NAME = re.compile(r"(loader|dataloader|(^|_)dl$|batches$)", re.IGNORECASE)
LOADER_FACTORIES = ("DataLoader",)


class LoaderLoop(NamedTuple):
    node: cst.For
    loader: cst.BaseExpression  # the iterated loader, wrappers removed
    batch: cst.BaseExpression  # the loop target bound to each batch (enumerate's index removed)
    is_training: bool


def _unwrap_iterable(facts: "ModuleFacts", expression: cst.BaseExpression) -> Tuple[cst.BaseExpression, bool]:
    """Strip ``enumerate(...)``/``tqdm(...)``; report whether ``enumerate`` was one of them."""
    enumerated = False
    while isinstance(expression, cst.Call) and expression.args:
        name = dotted(expression.func)
        qualified = facts.qualified_name(expression.func) or name
        if name not in ITERATION_WRAPPERS and qualified not in ITERATION_WRAPPERS:
            break
        enumerated = enumerated or name == "enumerate"
        expression = expression.args[0].value
    return expression, enumerated


class TrainingLoops:
    """All loops over loader-like iterables in a module."""

    def __init__(self, facts: "ModuleFacts") -> None:
        self.facts = facts
        self.loader_names = self._names_bound_to_loaders()
        self._calls_in_body = self._calls_by_loop_body()
        self.loops: List[LoaderLoop] = []
        for loop in facts.nodes(cst.For):
            iterable, enumerated = _unwrap_iterable(facts, loop.iter)
            if not self.is_loader(iterable):
                continue
            batch = loop.target
            if enumerated and isinstance(batch, cst.Tuple) and len(batch.elements) == 2:
                batch = batch.elements[1].value
            self.loops.append(LoaderLoop(loop, iterable, batch, self._trains(self._calls_in_body[loop])))
        self._by_node: Dict[cst.For, LoaderLoop] = {loop.node: loop for loop in self.loops}

    def _trains(self, calls: List[cst.Call]) -> bool:
        """A backward or optimizer step in the body, or in a same-module function the body calls."""
        return any(steps_training(call) for call in calls) or self.facts.fact(CallGraph).any_trains(calls)

    def _calls_by_loop_body(self) -> Dict[cst.For, List[cst.Call]]:
        """The calls inside each ``for`` loop's body (nested loops included), from the shared index."""
        loop_of_body = {loop.body: loop for loop in self.facts.nodes(cst.For)}
        calls: Dict[cst.For, List[cst.Call]] = {loop: [] for loop in loop_of_body.values()}
        for call in self.facts.nodes(cst.Call):
            for ancestor in self.facts.ancestors(call):
                loop = loop_of_body.get(ancestor)
                if loop is not None:
                    calls[loop].append(call)
        return calls

    def _names_bound_to_loaders(self) -> FrozenSet[str]:
        assignments = [(t.target, a.value) for a in self.facts.nodes(cst.Assign) for t in a.targets]
        assignments += [(a.target, a.value) for a in self.facts.nodes(cst.AnnAssign) if a.value is not None]
        names: Set[str] = set()
        for target, value in assignments:
            if isinstance(value, cst.Call):
                callee = self.facts.qualified_name(value.func) or dotted(value.func) or ""
                if callee.endswith(LOADER_FACTORIES):
                    name = dotted(target)
                    if name:
                        names.add(name)
        return frozenset(names)

    def is_loader(self, expression: cst.BaseExpression) -> bool:
        """Loader-like: bound to ``DataLoader(...)`` here, or named like one (``train_loader``)."""
        if isinstance(expression, cst.Call):
            callee = self.facts.qualified_name(expression.func) or dotted(expression.func) or ""
            if callee.endswith(LOADER_FACTORIES):
                return True
            name = dotted(expression.func) or ""  # self.train_dataloader()
            return bool(LOADER_NAME.search(name.rsplit(".", 1)[-1]))
        name = dotted(expression)
        if name is None:
            return False
        return name in self.loader_names or bool(LOADER_NAME.search(name.rsplit(".", 1)[-1]))

    def loop_of(self, node: cst.For) -> Optional[LoaderLoop]:
        return self._by_node.get(node)

    def enclosing(self, node: cst.CSTNode) -> List[LoaderLoop]:
        """Loader loops that contain ``node``, innermost first."""
        return [self._by_node[a] for a in self.facts.ancestors(node) if a in self._by_node]

    def in_training_loop(self, node: cst.CSTNode) -> bool:
        return any(loop.is_training for loop in self.enclosing(node))

    def functions_called_per_step(self) -> FrozenSet[str]:
        """Names of functions and methods called inside a training loop body (``f`` for ``self.f(...)``)."""
        names: Set[str] = set()
        for loop in self.loops:
            if not loop.is_training:
                continue
            for call in self._calls_in_body[loop.node]:
                name = dotted(call.func)
                if name:
                    names.add(name.rsplit(".", 1)[-1])
        return frozenset(names)

