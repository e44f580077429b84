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
  loop or one of the hooks above): elsewhere those names mean anything.
  A getter so named is no hook: ``def step(self): return (self.epoch,
  self.iteration)`` reads where a logger is, runs no step, and does not
  make a module of meters train (their ``update`` may run once an epoch), or
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
        hooks = {f.name.value for f in calls.functions if STEP_HOOK_NAME.search(f.name.value) and not _is_getter(calls, f)}
        trains = bool(hooks) or any(loop.is_training for loop in loops.loops)
        names = set(loops.functions_called_per_step()) | hooks | (GENERIC_HOOK_NAMES if trains else set())
        self.functions: FrozenSet[cst.FunctionDef] = frozenset(_close_over_calls(calls, names))

    def step_function_of(self, node: cst.CSTNode) -> Optional[cst.FunctionDef]:
        """The function containing ``node`` when that function runs once per step, else None."""
        function = enclosing_function(self.facts, node)
        return function if function is not None and function in self.functions else None


def _is_getter(calls: CallGraph, function: cst.FunctionDef) -> bool:
    """No argument but ``self``, and a body that only returns a value made without a call to this module's code.

    A function returning what a same-module function or an optimizer step
    gives (``return self._step_impl()``, ``return self.optimizer.step()``)
    does the step's work, so it stays a hook.
    """
    params = function.params
    names = [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]
    variadic = isinstance(params.star_arg, cst.Param) or params.star_kwarg is not None
    calls_nothing = not calls.called_by(function) and function not in calls.training_functions
    return names in ([], ["self"]) and not variadic and _only_returns_a_value(function) and calls_nothing


def _only_returns_a_value(function: cst.FunctionDef) -> bool:
    """The body, its docstring aside, is one ``return <value>``."""
    body = function.body
    if isinstance(body, cst.IndentedBlock):
        lines = list(body.body[1:] if function.get_docstring() is not None else body.body)
    else:
        lines = [body]  # ``def step(self): return self._step``
    if len(lines) != 1 or not isinstance(lines[0], (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        return False
    small = lines[0].body
    return len(small) == 1 and isinstance(small[0], cst.Return) and small[0].value is not None


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
