"""Whether code runs with autograd recording: outside ``no_grad``/``inference_mode``.

A value computed under ``torch.no_grad()`` carries no graph, so storing it
across steps is harmless; rules about graph-carrying values ask here first.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

import libcst as cst

from trainlint.analysis.calls import CallGraph
from trainlint.analysis.imports import dotted
from trainlint.step_words import GRAD_FREE_HOOK, NO_GRAD_WRAPPER

if TYPE_CHECKING:
    from trainlint.analysis import ModuleFacts

NO_GRAD_CONTEXTS = frozenset({"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad"})


def _disables_grad(facts: "ModuleFacts", expression: cst.BaseExpression) -> bool:
    call = expression if isinstance(expression, cst.Call) else None
    target = call.func if call is not None else expression
    name = facts.qualified_name(target)
    if name in NO_GRAD_CONTEXTS:
        return True
    if name == "torch.set_grad_enabled" and call is not None and call.args:
        value = call.args[0].value
        return isinstance(value, cst.Name) and value.value == "False"
    return False


def in_no_grad(facts: "ModuleFacts", node: cst.CSTNode) -> bool:
    """True when ``node`` runs under a no-grad context manager or decorator."""
    for ancestor in facts.ancestors(node):
        if isinstance(ancestor, cst.With) and any(_disables_grad(facts, item.item) for item in ancestor.items):
            return True
        if isinstance(ancestor, (cst.FunctionDef,)):
            if any(_disables_grad(facts, d.decorator) for d in ancestor.decorators):
                return True
    return False


GRAD_SWITCH = frozenset({"torch.set_grad_enabled", "torch.autograd.set_grad_enabled"})


class GradMode:
    """Where a module's code runs with autograd off, also through the functions that call it.

    Beyond :func:`in_no_grad`: Lightning's evaluation hooks (when this module
    does not call them itself), code after a
    statement ``torch.set_grad_enabled(False)`` in its function or at module
    level, and a function whose every call in this module runs without grad
    (``with torch.no_grad(): evaluate(model, loader)``).
    """

    def __init__(self, facts: "ModuleFacts") -> None:
        self.facts = facts
        self._functions: Dict[cst.FunctionDef, bool] = {}
        self._switched_off = {
            self._scope_of(c) for c in facts.nodes(cst.Call) if self._switches_off(c) and isinstance(facts.parent(c), cst.Expr)
        }

    def runs_without_grad(self, node: cst.CSTNode) -> bool:
        off, function = self._switched_off_around(node)
        if off:
            return True
        if function is None:
            return self.facts.module in self._switched_off
        return self._only_called_without_grad(function)

    def switched_off_in_its_function(self, node: cst.CSTNode) -> bool:
        """Grad is off for ``node`` by what its own function shows (a block, a decorator, a switch, a hook),
        whatever its callers do."""
        return self._switched_off_around(node)[0]

    def reached_with_grad(self, calls: Iterable[cst.Call]) -> FrozenSet[cst.FunctionDef]:
        """The same-module functions ``calls`` may run with grad on: called where grad is on, directly or through
        functions so called. ``with torch.no_grad(): loss = self.compute_loss(...)`` reaches ``compute_loss``
        without grad, even where a training step calls it with grad elsewhere."""
        graph = self.facts.fact(CallGraph)
        found: Set[cst.FunctionDef] = set()
        pending = [c for c in calls if not self.switched_off_in_its_function(c)]
        while pending:
            for function in graph.resolve_call(pending.pop()):
                if function not in found:
                    found.add(function)
                    pending.extend(c for c in self._calls_in.get(function, ()) if not self.switched_off_in_its_function(c))
        return frozenset(found)

    def _switched_off_around(self, node: cst.CSTNode) -> Tuple[bool, Optional[cst.FunctionDef]]:
        """Whether the code around ``node``, up to its function, turns grad off; and that function (None at
        module level, or when the answer is already known)."""
        if in_no_grad(self.facts, node):
            return True, None
        for ancestor in self.facts.ancestors(node):
            if ancestor in self._switched_off:
                return True, None
            if type(ancestor) is cst.With and any(_wraps_no_grad(item.item) for item in ancestor.items):
                return True, None
            if type(ancestor) is cst.FunctionDef:
                if any(_wraps_no_grad(d.decorator) for d in ancestor.decorators) or self._framework_hook(ancestor):
                    return True, None
                return False, ancestor
        return False, None

    def _framework_hook(self, function: cst.FunctionDef) -> bool:
        """A hook named like Lightning's evaluation hooks that only the framework calls: a ``validation_step``
        this module calls itself (a hand-written trainer's loop, skorch's ``fit_loop``) is a plain method,
        without grad only where its callers are."""
        return bool(GRAD_FREE_HOOK.match(function.name.value)) and not self._call_sites.get(function)

    def _switches_off(self, call: cst.Call) -> bool:
        if self.facts.qualified_name(call.func) not in GRAD_SWITCH or not call.args:
            return False
        value = call.args[0].value
        return isinstance(value, cst.Name) and value.value == "False"

    def _scope_of(self, node: cst.CSTNode) -> cst.CSTNode:
        return next((a for a in self.facts.ancestors(node) if type(a) is cst.FunctionDef), self.facts.module)

    def _only_called_without_grad(self, function: cst.FunctionDef) -> bool:
        known = self._functions.get(function)
        if known is None:
            self._functions[function] = False  # a recursive call proves nothing
            sites = self._call_sites.get(function, [])
            known = self._functions[function] = bool(sites) and all(self.runs_without_grad(c) for c in sites)
        return known

    @functools.cached_property
    def _calls_in(self) -> Dict[cst.FunctionDef, List[cst.Call]]:
        """The calls each function's own code makes (a nested function's are its own)."""
        calls: Dict[cst.FunctionDef, List[cst.Call]] = {}
        for call in self.facts.nodes(cst.Call):
            function = self._scope_of(call)
            if type(function) is cst.FunctionDef:
                calls.setdefault(function, []).append(call)  # type: ignore[arg-type]
        return calls

    @functools.cached_property
    def _call_sites(self) -> Dict[cst.FunctionDef, List[cst.Call]]:
        """The calls of this module that may run each function (as ``CallGraph`` resolves them)."""
        graph = self.facts.fact(CallGraph)
        sites: Dict[cst.FunctionDef, List[cst.Call]] = {}
        for call in self.facts.nodes(cst.Call):
            for function in graph.resolve_call(call):  # type: ignore[arg-type]
                sites.setdefault(function, []).append(call)  # type: ignore[arg-type]
        return sites


def _wraps_no_grad(expression: cst.BaseExpression) -> bool:
    """``smart_inference_mode()``, ``utils.no_grad``: named like ``no_grad`` or ``inference_mode``."""
    target = expression.func if isinstance(expression, cst.Call) else expression
    name = dotted(target)
    return name is not None and NO_GRAD_WRAPPER.search(name.rsplit(".", 1)[-1]) is not None
