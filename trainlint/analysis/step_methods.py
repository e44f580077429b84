"""Which functions run once per training step.

Per-step code is where per-step growth happens: a list appended there grows
by one element every step, a tensor stored there is one more graph every
step. A function runs per step when it is

* called inside a training loop of the same module
  (:meth:`TrainingLoops.functions_called_per_step`; a loop whose step is a
  function of its own, ``total += train_step(model, batch)``, is one too),
* named like a step hook: ``*step*`` (``training_step``, ``train_step``,
  ``on_step_end``), ``on_*batch*`` (``on_train_batch_end``), ``log_step``;
  or ``log``/``update``, but only in a module that trains (it has a training
  loop or one of the hooks above): elsewhere those names mean anything, or
* called from a function that runs per step (``training_step`` calling
  ``self._shared_step``).

Callees are matched by name, as :mod:`trainlint.analysis.calls` explains.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, FrozenSet, Optional, Set

import libcst as cst

from trainlint.analysis.calls import CallGraph
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


class StepMethods:
    """The functions of a module that run once per training step."""

    def __init__(self, facts: "ModuleFacts") -> None:
        self.facts = facts
        calls = facts.fact(CallGraph)
        loops = facts.fact(TrainingLoops)
        hooks = {f.name.value for f in calls.functions if STEP_HOOK_NAME.search(f.name.value)}
        trains = bool(hooks) or any(loop.is_training for loop in loops.loops)
        names = set(loops.functions_called_per_step()) | hooks | (GENERIC_HOOK_NAMES if trains else set())
        self.functions: FrozenSet[cst.FunctionDef] = frozenset(_close_over_calls(calls, names))

    def step_function_of(self, node: cst.CSTNode) -> Optional[cst.FunctionDef]:
        """The function containing ``node`` when that function runs once per step, else None."""
        function = enclosing_function(self.facts, node)
        return function if function is not None and function in self.functions else None


def _close_over_calls(calls: CallGraph, names: Set[str]) -> Set[cst.FunctionDef]:
    """The functions named in ``names``, plus every function they call, transitively."""
    chosen: Set[cst.FunctionDef] = set()
    pending = [f for f in calls.functions if f.name.value in names]
    while pending:
        function = pending.pop()
        if function not in chosen:
            chosen.add(function)
            pending.extend(calls.called_by(function))
    return chosen
