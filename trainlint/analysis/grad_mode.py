"""Whether code runs with autograd recording: outside ``no_grad``/``inference_mode``.

A value computed under ``torch.no_grad()`` carries no graph, so storing it
across steps is harmless; rules about graph-carrying values ask here first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

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
