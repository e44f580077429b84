"""Loops over data loaders, and which of them are training loops.

A training loop iterates something loader-like and, in its body, calls
``.backward()`` or an optimizer's ``.step()``. Rules about per-step behaviour
(graph-carrying accumulators, unbounded histories, batch keyword arguments,
moving batches to the device) all start from these loops.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, FrozenSet, List, Optional, Set, Tuple

import libcst as cst

from trainlint.analysis import walk
from trainlint.analysis.imports import dotted

if TYPE_CHECKING:
    from trainlint.analysis import ModuleFacts

# Wrappers whose first argument is what is really iterated.
ITERATION_WRAPPERS = frozenset({"enumerate", "tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "iter"})
LOADER_NAME = re.compile(r"(loader|dataloader|(^|_)dl$|batches$)", re.IGNORECASE)
LOADER_FACTORIES = ("DataLoader",)
OPTIMIZER_NAME = re.compile(r"(optim|opt$|optimizer|scaler)", re.IGNORECASE)


@dataclass(frozen=True)
class LoaderLoop:
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
        collector = _LoopsAndAssignments()
        walk.visit(facts.module, collector)
        self.loader_names = self._names_bound_to_loaders(collector.assignments)
        self.loops: List[LoaderLoop] = []
        for loop in collector.loops:
            iterable, enumerated = _unwrap_iterable(facts, loop.iter)
            if not self.is_loader(iterable):
                continue
            batch = loop.target
            if enumerated and isinstance(batch, cst.Tuple) and len(batch.elements) == 2:
                batch = batch.elements[1].value
            self.loops.append(LoaderLoop(loop, iterable, batch, _steps_optimizer(loop.body)))
        self._by_node: Dict[cst.For, LoaderLoop] = {loop.node: loop for loop in self.loops}

    def _names_bound_to_loaders(self, assignments) -> FrozenSet[str]:
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
            calls = _CallCollector()
            walk.visit(loop.node.body, calls)
            for call in calls.calls:
                name = dotted(call.func)
                if name:
                    names.add(name.rsplit(".", 1)[-1])
        return frozenset(names)


def _steps_optimizer(body: cst.BaseSuite) -> bool:
    calls = _CallCollector()
    walk.visit(body, calls)
    for call in calls.calls:
        if isinstance(call.func, cst.Attribute):
            method = call.func.attr.value
            owner = dotted(call.func.value) or ""
            if method == "backward":
                return True
            if method == "step" and OPTIMIZER_NAME.search(owner.rsplit(".", 1)[-1]):
                return True
    return False


class _CallCollector(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.calls: List[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)


class _LoopsAndAssignments(cst.CSTVisitor):
    """One walk collecting every ``for`` loop and every assignment."""

    def __init__(self) -> None:
        super().__init__()
        self.loops: List[cst.For] = []
        self.assignments: List[Tuple[cst.BaseExpression, cst.BaseExpression]] = []

    def visit_For(self, node: cst.For) -> None:
        self.loops.append(node)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self.assignments.append((target.target, node.value))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self.assignments.append((node.target, node.value))
