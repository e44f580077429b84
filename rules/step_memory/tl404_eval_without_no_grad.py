"""TL404 eval-without-no-grad: an evaluation loop that records an autograd graph it never uses."""

from __future__ import annotations

import re
from typing import FrozenSet, List, Optional, Set, Union

import libcst as cst

from trainlint.analysis import dotted
from trainlint.analysis.grad_mode import GradMode
from trainlint.analysis.graph_values import GraphValues, is_store_target
from trainlint.analysis.steps import COMPREHENSIONS, Comprehension, EvaluationLoop, EvaluationLoops, Loop, Loops, enclosing_function
from trainlint.diagnostics import Applicability
from trainlint.rule import CstFix, Import, Rule

# Autograd in the loop: evaluation that needs gradients (saliency maps, input attributions).
# (`torch.autograd.Variable` differentiates nothing: a loop wrapping inputs in it is still an evaluation.)
AUTOGRAD_FUNCTIONS = frozenset(
    f"{module}.{name}"
    for module in ("torch.autograd", "torch.func", "functorch")
    for name in ("grad", "backward", "vjp", "jvp", "jacrev", "jacfwd", "hessian")
)
AUTOGRAD_MODULES = ("torch.autograd.functional.",)
GRADIENT_METHODS = frozenset({"requires_grad_", "retain_grad", "register_hook", "attribute", "perturb"})
GRAD_ON = frozenset({"torch.enable_grad", "torch.autograd.enable_grad"})
GRAD_SWITCH = frozenset({"torch.set_grad_enabled", "torch.autograd.set_grad_enabled"})
# Adversarial attacks called as objects (`atk(images, labels)` of torchattacks, advertorch's
# `adversary.perturb`): they differentiate through the model and fail under no_grad
# (fixtures/TL404_eval_without_no_grad/ok_needs_gradients.py).
ATTACK_NAME = re.compile(r"(^|_)(atk|attack|attacker|adversary|pgd|fgsm|cw)(_|$)", re.IGNORECASE)
STORING_METHODS = frozenset({"append", "extend", "insert", "add", "put"})


class EvalWithoutNoGrad(Rule):
    """## What it does
    Finds an evaluation loop that runs its forward passes with autograd on:
    a loop that calls a model put in eval mode before it (`model.eval()`),
    or iterates a validation or test loader and calls a model, and runs no
    backward or optimizer step, outside `torch.no_grad()` and
    `torch.inference_mode()`.

    The loop can have any shape, a comprehension over batches included
    (`[model(x) for x, _ in test_loader]`), and a loop's forward pass can
    sit in a same-module function it calls, after that function's own
    `.eval()` (`validation_step` sets eval mode, then runs the model through
    a shared `infer` helper). Deliberately silent: a function
    decorated with `@torch.no_grad()`/`@torch.inference_mode()`, or called
    only under one of them in this module; loops inside such a context, or
    after `torch.set_grad_enabled(False)`; Lightning's `validation_step`,
    `test_step`, `predict_step` and evaluation hooks, which Lightning runs
    without grad (a `validation_step` that this module's own loop calls is
    a plain method, as in skorch's `fit_loop`); evaluation that needs gradients: `torch.autograd.grad`,
    `requires_grad_()` on inputs, reading `.grad` (saliency maps),
    `torch.enable_grad()`, an adversarial attack (`atk(images, labels)`,
    `adversary.perturb(...)`); pytest tests (`def test_*`), whose
    test-sized inputs make the graphs' memory no concern.

    ## Why is this bad
    `model.eval()` changes what dropout and batch normalisation do, not
    autograd: every forward pass still records its graph and keeps every
    activation that a backward would need. Evaluation then uses two to
    three times the memory it needs, runs slower, and runs out of memory
    on batch sizes that train fine.

    ## Example
    ```python
    model.eval()
    for x, y in val_loader:
        correct += (model(x).argmax(1) == y).sum().item()
    ```

    ## Use instead
    ```python
    model.eval()
    with torch.no_grad():
        for x, y in val_loader:
            correct += (model(x).argmax(1) == y).sum().item()
    ```

    ## Fix safety
    The fix wraps the loop (or the statement holding the comprehension) in
    `with torch.no_grad():`. It is safe when
    nothing the loop computes with grad leaves an iteration: the results
    are read as numbers (`.item()`, `argmax`, comparisons) or dropped. When
    an output is stored beyond the iteration (appended to a list, kept on
    an attribute, returned or yielded), the fix is unsafe: the stored
    tensors lose their `grad_fn`, and code that later backpropagates
    through them (a training step fed by this loop) would fail.

    ## Evidence
    `fixtures/TL404_eval_without_no_grad/` (bad cases and their fixed
    snapshots, ok traps) and `tests/test_runtime_TL404.py`, which shows the
    bad evaluations' outputs carrying a `grad_fn` and the fixed ones'
    not, with the same metrics.
    """

    fix = Applicability.SAFE

    def leave_Module(self, original_node: cst.Module) -> None:
        evaluation = self.facts.fact(EvaluationLoops)
        if not evaluation.loops:
            return
        grad = self.facts.fact(GradMode)
        reported: List[cst.CSTNode] = []
        for found in evaluation.loops:  # outer loops first: an inner loop of a reported loop is covered by its fix
            if any(found.loop in set(self.facts.ancestors(r)) or r in set(self.facts.ancestors(found.loop)) for r in reported):
                continue
            if grad.runs_without_grad(found.loop) or self._needs_gradients(found.loop) or self._in_a_test(found.loop):
                continue
            recording = self._recording(grad, found)
            if recording:
                reported.append(found.loop)
                self._report(found, recording[0])

    # ----- detection ------------------------------------------------------------------

    def _recording(self, grad: GradMode, found: EvaluationLoop) -> List[cst.Call]:
        """The loop's forward passes that record a graph: in its body, or in a function the body reaches with
        grad on (not through a call made under ``no_grad``, as a trainer's ``prediction_step`` calls
        ``compute_loss``)."""
        loops = self.facts.fact(Loops)
        if isinstance(found.loop, COMPREHENSIONS):
            return [c for c in found.forwards if not grad.runs_without_grad(c)]
        body = loops.body_nodes(found.loop, (cst.Call,))
        in_body = set(body)
        reached = grad.reached_with_grad(body)  # type: ignore[arg-type]
        return [c for c in found.forwards if self._records(grad, c, in_body, reached)]

    def _records(self, grad: GradMode, call: cst.Call, in_body: Set[cst.CSTNode], reached: FrozenSet[cst.FunctionDef]) -> bool:
        if call in in_body:
            return not grad.runs_without_grad(call)
        return enclosing_function(self.facts, call) in reached and not grad.switched_off_in_its_function(call)

    def _needs_gradients(self, loop: Union[Loop, Comprehension]) -> bool:
        """Autograd in an iteration, or an explicit ``enable_grad``: the evaluation differentiates something."""
        loops = self.facts.fact(Loops)
        for call in loops.iteration_nodes(loop, cst.Call):
            qualified = self.facts.qualified_name(call.func) or ""  # type: ignore[attr-defined]
            name = dotted(call.func) or ""  # type: ignore[attr-defined]
            if qualified in AUTOGRAD_FUNCTIONS or qualified.startswith(AUTOGRAD_MODULES) or qualified in GRAD_ON:
                return True
            if qualified in GRAD_SWITCH and not _is_false(call.args[0].value if call.args else None):  # type: ignore[attr-defined]
                return True
            if name.rsplit(".", 1)[-1] in GRADIENT_METHODS or any(ATTACK_NAME.search(part) for part in name.split(".")):
                return True
        if any(a.attr.value == "grad" for a in loops.iteration_nodes(loop, cst.Attribute)):  # type: ignore[attr-defined]
            return True
        return any(
            isinstance(a, cst.With) and any(self.facts.qualified_name(_callee(i.item)) in GRAD_ON for i in a.items)
            for a in self.facts.ancestors(loop)
        )

    def _in_a_test(self, loop: Union[Loop, Comprehension]) -> bool:
        """A pytest test (``def test_*``): its inputs are test-sized, and the memory of their graphs no concern."""
        return any(isinstance(a, cst.FunctionDef) and a.name.value.startswith("test_") for a in self.facts.ancestors(loop))

    def _escaping_outputs(self, loop: Union[Loop, Comprehension]) -> bool:
        """A value carrying a graph is stored beyond its iteration: appended, kept on an attribute, returned, yielded,
        or made an element of what a comprehension builds."""
        graph = self.facts.fact(GraphValues)
        if isinstance(loop, COMPREHENSIONS):
            elements = [loop.key, loop.value] if isinstance(loop, cst.DictComp) else [loop.elt]
            return any(graph.graph_atoms(e) for e in elements)
        for node in graph.facts.nodes(cst.Call, cst.AugAssign, cst.Assign, cst.Return, cst.Yield):
            if not graph.contains(loop.body, node):
                continue
            for value in self._stored_values(graph, loop, node):
                if value is not None and graph.graph_atoms(value):
                    return True
        return False

    def _stored_values(self, graph: GraphValues, loop: Loop, node: cst.CSTNode) -> List[Optional[cst.BaseExpression]]:
        if isinstance(node, cst.Call):
            func = node.func
            stores = isinstance(func, cst.Attribute) and func.attr.value in STORING_METHODS
            return [a.value for a in node.args] if stores else []
        if isinstance(node, (cst.Return, cst.Yield)):
            return [node.value] if isinstance(node.value, cst.BaseExpression) else []
        if isinstance(node, cst.AugAssign):
            return [node.value] if not self._bound_in_iteration(graph, loop, node.target, node) else []
        kept = [t.target for t in node.targets if not self._bound_in_iteration(graph, loop, t.target, node)]  # type: ignore[attr-defined]
        return [node.value] if kept else []  # type: ignore[attr-defined]

    def _bound_in_iteration(self, graph: GraphValues, loop: Loop, target: cst.BaseExpression, statement: cst.CSTNode) -> bool:
        """A plain local whose value no later iteration and no code after the loop reads: the next iteration drops it.

        ``total = total + out`` reads its previous value (it carries over), and
        a name read after the loop (before it is bound again) keeps the last
        iteration's value.
        """
        if isinstance(target, (cst.Tuple, cst.List)):
            return all(self._bound_in_iteration(graph, loop, e.value, statement) for e in target.elements)
        if not isinstance(target, cst.Name):
            return False
        reads = [r for r in graph.references(graph.scope_of(target), target.value) if not is_store_target(self.facts, r)]
        after_loop = any(graph.precedes(loop, read) and _binding_statement(graph, read) is statement for read in reads)
        value = getattr(statement, "value", None)
        carried = any(
            graph.contains(loop.body, read) and (graph.precedes(read, statement) or (value is not None and graph.contains(value, read)))
            for read in reads
        )
        return not after_loop and not carried

    # ----- message and fix ------------------------------------------------------------

    def _report(self, found: EvaluationLoop, forward: cst.Call) -> None:
        call = self.facts.code(forward.func)
        message = (
            f"this evaluation loop runs `{call}(...)` with autograd on: every forward pass records a graph and keeps "
            "its activations, which evaluation never uses (`eval()` switches dropout and batch norm, not gradient "
            "tracking)"
        )
        self.report(found.loop, message, fix=self._fix(found.loop))

    def _fix(self, loop: Union[Loop, Comprehension]) -> Optional[CstFix]:
        """Wrap the loop, or the statement holding the comprehension, in ``with torch.no_grad():``."""
        wrapped = loop if not isinstance(loop, COMPREHENSIONS) else _statement_of(self.facts, loop)
        if wrapped is None:
            return None  # a comprehension in a compound statement's header: no statement to wrap
        torch = self.facts.torch_name()
        replacement = cst.With(
            items=[cst.WithItem(cst.parse_expression(f"{torch}.no_grad()"))],
            body=cst.IndentedBlock(body=[wrapped.with_changes(leading_lines=())]),
            leading_lines=wrapped.leading_lines,
        )
        what = "loop" if wrapped is loop else "statement"
        return CstFix(
            message=f"Wrap the {what} in `with {torch}.no_grad():`",
            applicability=Applicability.UNSAFE if self._escaping_outputs(loop) else Applicability.SAFE,
            replacements={wrapped: replacement},
            imports=(Import("torch"),) if torch == "torch" else (),
        )


def _statement_of(facts, node: cst.CSTNode) -> Optional[cst.SimpleStatementLine]:
    """The statement line holding ``node``, when it stands in a block (not in a compound statement's header)."""
    for ancestor in facts.ancestors(node):
        if isinstance(ancestor, cst.SimpleStatementLine):
            return ancestor
        if isinstance(ancestor, (cst.BaseCompoundStatement, cst.SimpleStatementSuite)):
            return None
    return None


def _binding_statement(graph: GraphValues, read: cst.BaseExpression) -> Optional[cst.CSTNode]:
    binding = graph.reaching_binding(read) if isinstance(read, cst.Name) else None
    return binding.statement if binding is not None else None


def _is_false(value: Optional[cst.BaseExpression]) -> bool:
    return isinstance(value, cst.Name) and value.value == "False"


def _callee(expression: cst.BaseExpression) -> cst.BaseExpression:
    return expression.func if isinstance(expression, cst.Call) else expression
