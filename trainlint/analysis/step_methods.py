"""Which functions run once per training step.

Per-step code is where per-step growth happens: a list appended there grows
by one element every step, a tensor stored there is one more graph every
step. A function runs per step when it is

* called inside a training loop of the same module
  (:meth:`TrainingLoops.functions_called_per_step`),
* named like a step hook: ``*step*`` (``training_step``, ``train_step``,
  ``on_step_end``), ``on_*batch*`` (``on_train_batch_end``), ``log_step``;
  or ``log``/``update``, but only in a module that trains (it has a training
  loop or one of the hooks above): elsewhere those names mean anything, or
* called from a function that runs per step (``training_step`` calling
  ``self._shared_step``).

A loop over a loader is a step loop when it trains itself (a training loop)
or when its body calls a same-module function that runs ``backward()``,
directly or through its own callees: ``for batch in loader: total +=
train_step(model, batch)``. The functions such a loop calls run per step.

Callees are matched by name, the linter seeing one file and no types:
``self.update_losses(...)`` and ``meter.update_losses(...)`` reach every
method ``update_losses`` of the module, ``reset(...)`` every module-level
function ``reset`` (a plain call never reaches a method: ``set(keys)`` is
not ``Metrics.set``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Dict, FrozenSet, List, Optional, Set, Tuple

import libcst as cst

from trainlint.analysis.graph_values import backward_loss
from trainlint.analysis.imports import dotted
from trainlint.analysis.loops import LoaderLoop, TrainingLoops
from trainlint.analysis.walk import walk

if TYPE_CHECKING:
    from trainlint.analysis import ModuleFacts

STEP_HOOK_NAME = re.compile(r"(^|_)step(_|$)|^on_\w*batch\w*$|^log_step$")
GENERIC_HOOK_NAMES = frozenset({"log", "update"})


def enclosing_function(facts: "ModuleFacts", node: cst.CSTNode) -> Optional[cst.FunctionDef]:
    """The innermost function definition containing ``node``."""
    for ancestor in facts.ancestors(node):
        if isinstance(ancestor, cst.FunctionDef):
            return ancestor
    return None


Callee = Tuple[str, bool]  # (last component of the callee, called as ``x.name(...)``)


class _Calls:
    """Every function definition, and the callees each one names.

    Built from ``facts.parents``, which lists every node after its parent:
    cheaper than another LibCST traversal of the module.
    """

    def __init__(self, facts: "ModuleFacts") -> None:
        self.functions: List[cst.FunctionDef] = []
        self.methods: Set[cst.FunctionDef] = set()
        self.callees: Dict[cst.FunctionDef, Set[Callee]] = {}
        self.backpropagating: Set[cst.FunctionDef] = set()  # functions with a backward call of their own
        function_of: Dict[cst.CSTNode, cst.FunctionDef] = {}
        for node, parent in facts.parents.items():
            function = parent if isinstance(parent, cst.FunctionDef) else function_of.get(parent)
            if function is not None:
                function_of[node] = function
            if isinstance(node, cst.FunctionDef):
                self.functions.append(node)
                self.callees[node] = set()
                if isinstance(facts.parent(parent), cst.ClassDef):
                    self.methods.add(node)
            elif isinstance(node, cst.Call) and function is not None:
                callee = _callee(node)
                if callee is not None:
                    self.callees[function].add(callee)
                if backward_loss(node) is not None:
                    self.backpropagating.add(function)

    def called_by(self, function: cst.FunctionDef) -> List[cst.FunctionDef]:
        """The functions of the module that ``function`` may call."""
        return self.resolve(self.callees[function])

    def resolve(self, callees: Set[Callee]) -> List[cst.FunctionDef]:
        """The functions of the module that calls naming ``callees`` may reach."""
        return [f for f in self.functions if (f.name.value, f in self.methods) in callees]

    def training_functions(self) -> Set[cst.FunctionDef]:
        """Functions that run ``backward()`` themselves or through a function they call."""
        training = set(self.backpropagating)
        changed = True
        while changed:
            changed = False
            for function in self.functions:
                if function not in training and any(f in training for f in self.called_by(function)):
                    training.add(function)
                    changed = True
        return training


def _callee(call: cst.Call) -> Optional[Callee]:
    name = dotted(call.func)
    return (name.rsplit(".", 1)[-1], "." in name) if name else None


class StepMethods:
    """The functions of a module that run once per training step."""

    def __init__(self, facts: "ModuleFacts") -> None:
        self.facts = facts
        calls = _Calls(facts)
        loops = facts.fact(TrainingLoops)
        driving = _loops_driving_steps(calls, loops.loops)
        self._driving_loops: FrozenSet[cst.For] = frozenset(driving)
        hooks = {f.name.value for f in calls.functions if STEP_HOOK_NAME.search(f.name.value)}
        trains = bool(hooks) or bool(driving) or any(loop.is_training for loop in loops.loops)
        called = {name for callees in driving.values() for name, _ in callees}
        names = set(loops.functions_called_per_step()) | called | hooks | (GENERIC_HOOK_NAMES if trains else set())
        self.functions: FrozenSet[cst.FunctionDef] = frozenset(_close_over_calls(calls, names))

    def in_step_loop(self, node: cst.CSTNode) -> bool:
        """Inside a training loop, or a loader loop whose body calls a same-module function that trains."""
        enclosing = self.facts.fact(TrainingLoops).enclosing(node)
        return any(loop.is_training or loop.node in self._driving_loops for loop in enclosing)

    def step_function_of(self, node: cst.CSTNode) -> Optional[cst.FunctionDef]:
        """The function containing ``node`` when that function runs once per step, else None."""
        function = enclosing_function(self.facts, node)
        return function if function is not None and function in self.functions else None


def _loops_driving_steps(calls: _Calls, loops: List[LoaderLoop]) -> Dict[cst.For, Set[Callee]]:
    """Loader loops that are not training loops themselves but call a same-module function that trains.

    Maps each such loop to the callees its body names. Loops are few, so
    their bodies are walked here rather than indexing every call.
    """
    candidates = [loop for loop in loops if not loop.is_training]
    if not candidates or not calls.backpropagating:
        return {}
    training = calls.training_functions()
    driving: Dict[cst.For, Set[Callee]] = {}
    for loop in candidates:
        callees = {c for c in map(_callee, (n for n in walk(loop.node.body) if isinstance(n, cst.Call))) if c is not None}
        if any(f in training for f in calls.resolve(callees)):
            driving[loop.node] = callees
    return driving


def _close_over_calls(calls: _Calls, names: Set[str]) -> Set[cst.FunctionDef]:
    """The functions named in ``names``, plus every function they call, transitively."""
    chosen: Set[cst.FunctionDef] = set()
    pending = [f for f in calls.functions if f.name.value in names]
    while pending:
        function = pending.pop()
        if function not in chosen:
            chosen.add(function)
            pending.extend(calls.called_by(function))
    return chosen
