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

from trainlint.analysis.imports import dotted
from trainlint.analysis.loops import TrainingLoops

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
                name = dotted(node.func)
                if name:
                    self.callees[function].add((name.rsplit(".", 1)[-1], "." in name))

    def called_by(self, function: cst.FunctionDef) -> List[cst.FunctionDef]:
        """The functions of the module that ``function`` may call."""
        callees = self.callees[function]
        return [f for f in self.functions if (f.name.value, f in self.methods) in callees]


class StepMethods:
    """The functions of a module that run once per training step."""

    def __init__(self, facts: "ModuleFacts") -> None:
        self.facts = facts
        calls = _Calls(facts)
        loops = facts.fact(TrainingLoops)
        hooks = {f.name.value for f in calls.functions if STEP_HOOK_NAME.search(f.name.value)}
        trains = bool(hooks) or any(loop.is_training for loop in loops.loops)
        names = set(loops.functions_called_per_step()) | hooks | (GENERIC_HOOK_NAMES if trains else set())
        self.functions: FrozenSet[cst.FunctionDef] = frozenset(_close_over_calls(calls, names))

    def step_function_of(self, node: cst.CSTNode) -> Optional[cst.FunctionDef]:
        """The function containing ``node`` when that function runs once per step, else None."""
        function = enclosing_function(self.facts, node)
        return function if function is not None and function in self.functions else None


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
