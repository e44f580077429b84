"""The functions of a module, which of them each one calls, and which of them train.

A training step is often a function of its own (``loss = train_step(model,
batch)`` inside the loop over the loader), so "this loop trains" and "this
function runs once per step" both need to see through same-module calls.

Callees are matched by name, the linter seeing one file and no types:
``meter.update_losses(...)`` reaches every method ``update_losses`` of the
module, ``reset(...)`` every module-level function ``reset`` (a plain call
never reaches a method: ``set(keys)`` is not ``Metrics.set``). A call on
``self`` or ``cls`` in a method of a class of the module is dispatched
instead: the method that class has or inherits (``Names.resolve_callable``)
and each override in its same-module subclasses, not a method of the same
name in an unrelated class (DomainBed's ``Mixup.update`` calls
``self.predict``, which is ``ERM.predict``, not ``ERMPlusPlus.predict``;
fixtures/TL404_eval_without_no_grad/ok_self_method_of_another_class.py).
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

import libcst as cst

from trainlint.analysis.imports import dotted
from trainlint.analysis.names import Names
from trainlint.step_words import BACKWARD_METHODS, optimizer_name_match

if TYPE_CHECKING:
    from trainlint.analysis import ModuleFacts


Callee = Tuple[str, bool]  # (last component of the callee, called as ``x.name(...)``)


def steps_training(call: cst.Call) -> bool:
    """``loss.backward()``, ``accelerator.backward(loss)``, ``self.manual_backward(loss)``, or an
    optimizer's or scaler's ``.step()``: the calls that make a step a training step."""
    return runs_backward(call) or _optimizer_step_owner(call) is not None


def runs_backward(call: cst.Call) -> bool:
    """``loss.backward()``, ``scaler.scale(loss).backward()``, ``accelerator.backward(loss)``, ``self.manual_backward(loss)``."""
    return isinstance(call.func, cst.Attribute) and call.func.attr.value in BACKWARD_METHODS


def stepped_optimizer(call: cst.Call) -> Optional[cst.BaseExpression]:
    """The optimizer an optimizer step updates: ``opt`` for ``opt.step()`` and for ``scaler.step(opt)``.

    The receiver is recognised by its name (``optimizer``, ``self.G_optim``,
    ``opt``, ``grad_scaler``); a scaler stepping no argument gives None.
    """
    match = _optimizer_step_owner(call)
    if match is None:
        return None
    if match.group(0).lower() != "scaler":
        return call.func.value  # type: ignore[attr-defined]
    return call.args[0].value if call.args and not call.args[0].keyword and not call.args[0].star else None


def _optimizer_step_owner(call: cst.Call) -> Optional["re.Match[str]"]:
    """For ``<owner>.step(...)``, where the owner's last name reads as an optimizer or scaler (or the owner is an
    item of a container named like them: ``opts["g"]``): that match."""
    if not isinstance(call.func, cst.Attribute) or call.func.attr.value != "step":
        return None
    owner = call.func.value
    indexed = isinstance(owner, cst.Subscript)
    return optimizer_name_match((dotted(owner.value if indexed else owner) or "").rsplit(".", 1)[-1], indexed)  # type: ignore[attr-defined]


def callee(call: cst.Call) -> Optional[Callee]:
    name = dotted(call.func)
    return (name.rsplit(".", 1)[-1], "." in name) if name else None


class CallGraph:
    """Every function definition, the calls each one makes, and the ones that train.

    Built from ``facts.parents``, which lists every node after its parent:
    cheaper than another LibCST traversal of the module.
    """

    def __init__(self, facts: "ModuleFacts") -> None:
        self.facts = facts
        self.functions: List[cst.FunctionDef] = []
        self.methods: Set[cst.FunctionDef] = set()
        self.calls_in: Dict[cst.FunctionDef, List[cst.Call]] = {}
        self._stepping: Set[cst.FunctionDef] = set()  # functions with a training call of their own
        self._steps_outside_functions = False  # a training call in the module's own code
        self._steps_outside_loops: Set[cst.FunctionDef] = set()  # ... that runs once per call
        self._calls_outside_loops: Dict[cst.FunctionDef, List[cst.Call]] = {}
        self._function_of_call: Dict[cst.Call, cst.FunctionDef] = {}
        self._resolved: Dict[cst.Call, List[cst.FunctionDef]] = {}
        self._named: Dict[Callee, List[cst.FunctionDef]] = {}
        self._called_by: Dict[cst.FunctionDef, List[cst.FunctionDef]] = {}
        function_of: Dict[cst.CSTNode, cst.FunctionDef] = {}
        looped: Set[cst.CSTNode] = set()  # nodes inside a loop body of their own function
        loop_bodies: Set[cst.CSTNode] = set()
        for node, parent in facts.parents.items():
            function = parent if isinstance(parent, cst.FunctionDef) else function_of.get(parent)
            if function is not None:
                function_of[node] = function
                if parent is not function and (parent in loop_bodies or parent in looped):
                    looped.add(node)
            kind = type(node)
            if kind is cst.For or kind is cst.While:
                loop_bodies.add(node.body)
            elif kind is cst.FunctionDef:
                self.functions.append(node)
                self.calls_in[node] = []
                self._calls_outside_loops[node] = []
                if isinstance(facts.parent(parent), cst.ClassDef):
                    self.methods.add(node)
            elif kind is cst.Call and function is None:
                self._steps_outside_functions = self._steps_outside_functions or steps_training(node)
            elif kind is cst.Call:
                in_loop = node in looped
                self._function_of_call[node] = function
                self.calls_in[function].append(node)
                if not in_loop:
                    self._calls_outside_loops[function].append(node)
                if steps_training(node):
                    self._stepping.add(function)
                    if not in_loop:
                        self._steps_outside_loops.add(function)

    def called_by(self, function: cst.FunctionDef) -> List[cst.FunctionDef]:
        """The functions of the module that ``function`` may call."""
        found = self._called_by.get(function)
        if found is None:
            found = self._called_by[function] = self.resolve_calls(self.calls_in[function])
        return found

    def resolve(self, callees: Iterable[Callee]) -> List[cst.FunctionDef]:
        """The functions of the module that calls naming ``callees`` may reach, matched by name."""
        wanted = set(callees)
        return [f for f in self.functions if (f.name.value, f in self.methods) in wanted]

    def resolve_call(self, call: cst.Call) -> List[cst.FunctionDef]:
        """The functions of the module that ``call`` may run: dispatched on ``self``/``cls`` in a method, else by name."""
        found = self._resolved.get(call)
        if found is None:
            dispatched = self._dispatched(call)
            if dispatched is None:
                named = callee(call)
                dispatched = self._by_name(named) if named is not None else []
            found = self._resolved[call] = dispatched
        return found

    def resolve_calls(self, calls: Iterable[cst.Call]) -> List[cst.FunctionDef]:
        """The functions of the module that any of ``calls`` may run, each once."""
        found: Dict[cst.FunctionDef, None] = {}
        for call in calls:
            found.update(dict.fromkeys(self.resolve_call(call)))
        return list(found)

    def _by_name(self, named: Callee) -> List[cst.FunctionDef]:
        found = self._named.get(named)
        if found is None:
            found = self._named[named] = self.resolve([named])
        return found

    def _dispatched(self, call: cst.Call) -> Optional[List[cst.FunctionDef]]:
        """For ``self.m(...)``/``cls.m(...)`` in a method of a class here: ``m`` of that class (own or inherited,
        or a function stored in ``self.m``) and the overrides of its subclasses here; None for any other call."""
        func = call.func
        if not (type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value in ("self", "cls")):
            return None
        function = self._function_of_call.get(call)
        names = self.facts.fact(Names)
        owner = names.method_class(function)
        if owner is None:
            return None
        found = [d for d in names.resolve_callable(func) if type(d) is cst.FunctionDef]
        for subclass in self._subclasses.get(owner, ()):
            override = names.method(subclass, func.attr.value)
            if override is not None:
                found.append(override)
        return list(dict.fromkeys(found))  # type: ignore[arg-type]

    @functools.cached_property
    def _subclasses(self) -> Dict[cst.ClassDef, List[cst.ClassDef]]:
        """Each class of the module and the classes of the module that inherit from it."""
        names = self.facts.fact(Names)
        found: Dict[cst.ClassDef, List[cst.ClassDef]] = {}
        for class_def in self.facts.nodes(cst.ClassDef):
            for base in names.class_hierarchy(class_def)[1:]:  # type: ignore[arg-type]
                found.setdefault(base, []).append(class_def)  # type: ignore[arg-type]
        return found

    def reachable_from(self, functions: Iterable[cst.FunctionDef]) -> FrozenSet[cst.FunctionDef]:
        """``functions`` and every function they may call, transitively."""
        chosen: Set[cst.FunctionDef] = set()
        pending = list(functions)
        while pending:
            function = pending.pop()
            if function not in chosen:
                chosen.add(function)
                pending.extend(self.called_by(function))
        return frozenset(chosen)

    @functools.cached_property
    def training_functions(self) -> FrozenSet[cst.FunctionDef]:
        """Functions that train: a backward or optimizer step of their own, or in a function they call."""
        training = set(self._stepping)
        changed = bool(training)
        while changed:
            changed = False
            for function in self.functions:
                if function not in training and any(f in training for f in self.called_by(function)):
                    training.add(function)
                    changed = True
        return frozenset(training)

    @functools.cached_property
    def functions_stepping_once(self) -> FrozenSet[cst.FunctionDef]:
        """Functions that run one training step per call: a backward or optimizer step outside
        their own loops, or a call (outside their loops) of a function that does.

        ``train_step(model, batch)`` is one; ``train_one_epoch(model, loader)``,
        which loops over the data and steps in the loop, is not.
        """
        once = set(self._steps_outside_loops)
        changed = bool(once)
        while changed:
            changed = False
            for function in self.functions:
                if function not in once and any(f in once for f in self.resolve_calls(self._calls_outside_loops[function])):
                    once.add(function)
                    changed = True
        return frozenset(once)

    @property
    def trains_anywhere(self) -> bool:
        """A backward or an optimizer step anywhere in the module, in a function or in the module's own code."""
        return self._steps_outside_functions or bool(self._stepping)

    def any_steps_once(self, calls: Iterable[cst.Call]) -> bool:
        """Whether one of ``calls`` reaches a same-module function that runs one training step per call."""
        if not self._steps_outside_loops:
            return False
        return any(f in self.functions_stepping_once for f in self.resolve_calls(calls))
