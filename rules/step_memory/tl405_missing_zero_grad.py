"""TL405 missing-zero-grad: a training loop that steps an optimizer and never clears its gradients."""

from __future__ import annotations

import ast
import re
from typing import Dict, List, NamedTuple, Optional, Set, Tuple

import libcst as cst

from trainlint.analysis import dotted
from trainlint.analysis.calls import runs_backward, stepped_optimizer
from trainlint.step_words import OPTIMIZER_NAME
from trainlint.analysis.graph_values import GraphValues
from trainlint.analysis.steps import Loop, Loops
from trainlint.analysis.walk import walk
from trainlint.diagnostics import Applicability
from trainlint.rule import CstFix, Rule

# A call that clears gradients by its name, wherever it is defined: `self.reset_grad()` (StarGAN),
# `zero_grad(model)`, `utils.clear_grads(net)` (fixtures/TL405_missing_zero_grad/ok_reset_grad_helper.py).
CLEARING_NAME = re.compile(r"(zero|clear|reset)_?grad|grads?_(zero|clear|reset)", re.IGNORECASE)
# In-place calls that clear a gradient tensor: `p.grad.zero_()`, `p.grad.data.zero_()`, `p.grad.detach_()`.
GRADIENT_CLEARING_METHODS = frozenset({"zero_", "detach_", "fill_", "mul_"})
PARAMETER_METHODS = frozenset({"parameters", "named_parameters"})
DISTRIBUTED_AUTOGRAD = "torch.distributed.autograd."
# `with accelerator.accumulate(model):` (fixtures/TL405_missing_zero_grad/bad_accelerate_accumulate.py).
ACCUMULATE = "accumulate"
TORCH_OPTIMIZERS = "torch.optim."
NOT_OPTIMIZERS = ("torch.optim.lr_scheduler.", "torch.optim.swa_utils.")


class Stepped(NamedTuple):
    """An optimizer stepped in a loop: its first step call there, and how the loop spells it."""

    step: cst.Call
    optimizer: cst.BaseExpression
    name: str


class MissingZeroGrad(Rule):
    """## What it does
    Finds a training loop that runs `backward()` and an optimizer step in
    every iteration, but never clears the gradients of that optimizer's
    parameters.

    The loop can have any shape (`for` over a loader, `range`, `zip`,
    `tqdm(...)`, `while` with `next(it)`), and its step can sit in a
    same-module function or method it calls. Gradients count as cleared
    when, somewhere in an iteration (directly or in a function it calls),
    the optimizer's `zero_grad()` runs, or the `zero_grad()` of a model it
    optimizes, or `p.grad = None`/`p.grad.zero_()` over parameters, or a
    helper named like one (`reset_grad()`, `zero_grad(model)`). When a
    loop steps several optimizers (a GAN's generator and discriminator),
    each must be cleared: the finding names the one that never is.

    Deliberately silent: gradient accumulation that clears every N steps
    (any clearing in the loop counts, however rare); `torch.distributed.autograd`
    (gradients live in a per-iteration context); frameworks that clear for
    you: Lightning's `training_step` (no loop of yours), DeepSpeed engines
    (`engine.backward(loss)` and `engine.step()`, which zeroes the gradients
    itself); an optimizer built in the iteration over tensors built in it
    (a latent cloned into a new leaf at each denoising step): they have no
    earlier gradient.

    Accelerate's `accelerator.accumulate(model)` is no such framework: it
    only decides whether gradients are synchronised, and its prepared
    optimizer skips `step()` and `zero_grad()` between synchronising
    steps. Clearing is still the loop's job (`optimizer.zero_grad()` in
    the block, as Accelerate's own examples do), so a loop under it that
    never clears is reported. (Only a DeepSpeed configuration, chosen
    outside the script, would clear in its engine; the same script runs
    without one.)

    ## Why is this bad
    `backward()` adds to `.grad`; it does not overwrite it. Without clearing,
    the gradient used by step *n* is the sum of the gradients of all *n*
    steps so far: updates grow with every step, and training silently
    diverges or stalls. Nothing raises; the loss curve is the only symptom.

    ## Example
    ```python
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    ```

    ## Use instead
    ```python
    for x, y in loader:
        loss = criterion(model(x), y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    ```

    ## Fix safety
    The fix inserts `<optimizer>.zero_grad(set_to_none=True)` before the
    `backward()` whose gradients that optimizer applies; under
    `accelerator.accumulate(...)`, after the optimizer's step instead:
    there the clearing runs only on synchronising steps, and before the
    backward it would drop the gradients of the window's earlier batches.
    It is unsafe: it
    changes what training computes, which is the point, and a loop that
    meant to accumulate gradients over a whole run (rare, but possible)
    would now clear them. No fix is offered when the backward runs in
    another function than the step, or on a line the fix cannot put a
    statement before.

    ## Evidence
    `fixtures/TL405_missing_zero_grad/` (bad cases and their fixed
    snapshots, ok traps) and `tests/test_runtime_TL405.py`, which shows the
    bad scripts' gradient norms growing with every step and the fixed
    scripts training exactly like `reference_trainer`.
    """

    fix = Applicability.UNSAFE

    def leave_Module(self, original_node: cst.Module) -> None:
        loops = self.facts.fact(Loops)
        reported: Dict[cst.Call, Tuple[Loop, Stepped, List[cst.Call]]] = {}
        for loop in loops.running(runs_backward):  # outer first: an inner loop's finding replaces the outer's
            for stepped, backwards in self._uncleared(loops, loop):
                reported[stepped.step] = (loop, stepped, backwards)
        for loop, stepped, backwards in reported.values():
            self._report(loops, loop, stepped, backwards)

    # ----- detection ------------------------------------------------------------------

    def _uncleared(self, loops: Loops, loop: Loop) -> List[Tuple[Stepped, List[cst.Call]]]:
        """The optimizers stepped in ``loop`` whose gradients nothing in an iteration clears, with its backwards."""
        calls: List[cst.Call] = loops.nodes_in(loop, cst.Call)  # type: ignore[assignment]
        backwards = [c for c in calls if runs_backward(c) and not self._is_distributed(c.func)]
        if not backwards or self._framework_clears(loops, loop, calls, backwards):
            return []
        stepped = self._stepped(calls)
        if not stepped:
            return []
        if self._clears_every_parameter(loops, loop, calls):
            return []
        zeroed = [c.func.value for c in calls if _method(c) == "zero_grad"]  # type: ignore[attr-defined]
        return [
            (s, backwards)
            for s in stepped.values()
            if not any(self._clears(z, s, stepped) for z in zeroed) and not self._fresh_each_iteration(s, loop)
        ]

    def _stepped(self, calls: List[cst.Call]) -> Dict[str, Stepped]:
        """The optimizers stepped by ``calls``: named like one (``optimizer.step()``), or built by ``torch.optim``."""
        stepped: Dict[str, Stepped] = {}
        for call in calls:
            optimizer = stepped_optimizer(call)
            if optimizer is None and _method(call) == "step" and self._built_by_torch_optim(call.func.value):  # type: ignore[attr-defined]
                optimizer = call.func.value  # type: ignore[attr-defined]
            if optimizer is not None:
                stepped.setdefault(self._identity(optimizer), Stepped(call, optimizer, dotted(optimizer) or self.facts.code(optimizer)))
        return stepped

    def _identity(self, optimizer: cst.BaseExpression) -> str:
        """What tells optimizers apart: the dotted name (``self.opt_g``), else the expression in one spelling
        (``opts["g"]`` and ``opts['g']``, ``opts[0]`` and ``opts[ 0 ]`` are one optimizer, as the pre-screen's ``_step``
        takes them)."""
        name = dotted(optimizer)
        if name is not None:
            return name
        code = self.facts.code(optimizer)
        try:
            return ast.dump(ast.parse(code.strip(), mode="eval").body)
        except SyntaxError:  # pragma: no cover - the code of an expression parses
            return code

    def _is_distributed(self, expression: cst.BaseExpression) -> bool:
        return (self.facts.qualified_name(expression) or "").startswith(DISTRIBUTED_AUTOGRAD)

    def _framework_clears(self, loops: Loops, loop: Loop, calls: List[cst.Call], backwards: List[cst.Call]) -> bool:
        """Gradients managed by something else: a distributed autograd context, or an engine that steps and clears."""
        contexts = [item.item for w in loops.nodes_in(loop, cst.With) for item in w.items]  # type: ignore[attr-defined]
        contexts += [item.item for a in self.facts.ancestors(loop) if isinstance(a, cst.With) for item in a.items]
        if any(self._is_distributed(context.func if isinstance(context, cst.Call) else context) for context in contexts):
            return True
        return bool(_engines(backwards) & {dotted(c.func.value) for c in calls if _method(c) == "step"})  # type: ignore[attr-defined]

    def _clears_every_parameter(self, loops: Loops, loop: Loop, calls: List[cst.Call]) -> bool:
        """A clearing that is not one optimizer's or model's: ``p.grad = None``, ``p.grad.zero_()``, ``reset_grad()``."""
        if any(_method(c) != "zero_grad" and CLEARING_NAME.search(dotted(c.func) or "") for c in calls):
            return True
        if any(_method(c) in GRADIENT_CLEARING_METHODS and _of_gradient(c.func.value) for c in calls):  # type: ignore[attr-defined]
            return True
        targets = [t.target for a in loops.nodes_in(loop, cst.Assign) for t in a.targets]  # type: ignore[attr-defined]
        targets += [t for d in loops.nodes_in(loop, cst.Del) for t in _deleted(d)]  # type: ignore[arg-type]
        return any(isinstance(t, cst.Attribute) and t.attr.value == "grad" for t in targets)

    def _clears(self, zeroed: cst.BaseExpression, stepped: Stepped, all_stepped: Dict[str, Stepped]) -> bool:
        """Whether ``zeroed.zero_grad()`` clears the gradients ``stepped`` applies.

        With one optimizer in the loop, any ``zero_grad()`` does (the model's,
        a wrapper's). With several, ``x.zero_grad()`` clears another stepped
        optimizer's, or a model that is provably not among this optimizer's
        parameters, does not.
        """
        name = dotted(zeroed) or (self.facts.code(zeroed) if isinstance(zeroed, cst.Subscript) else None)  # ``opts["d"]``
        if name is None or len(all_stepped) == 1 or self._identity(zeroed) == self._identity(stepped.optimizer):
            return True
        if self._identity(zeroed) in all_stepped:
            return False
        if OPTIMIZER_NAME.search(name.rsplit(".", 1)[-1]):
            return True
        models = self._models_optimized(stepped.optimizer)
        return models is None or any(name == m or name.startswith(m + ".") or m.startswith(name + ".") for m in models)

    def _fresh_each_iteration(self, stepped: Stepped, loop: Loop) -> bool:
        """An optimizer built in the iteration over parameters built in it: fresh leaves have no old gradient.

        ``x = latents.detach().clone(); x.requires_grad = True; opt = SGD([x])``
        inside a denoising loop (diffusers' pix2pix-zero), or a new model per
        trial: each iteration steps tensors that did not exist before it.
        """
        graph = self.facts.fact(GraphValues)
        value = self._bound_in(graph, stepped.optimizer, loop)
        if not isinstance(value, cst.Call) or not value.args:
            return False
        names = [
            n for n in walk(value.args[0].value)
            if isinstance(n, cst.Name) and not _is_attribute_or_callee(self.facts.parent(n), n)
        ]
        return bool(names) and all(self._bound_in(graph, n, loop) is not None for n in names)

    def _bound_in(self, graph: GraphValues, name: cst.BaseExpression, loop: Loop) -> Optional[cst.BaseExpression]:
        """The value ``name`` is assigned where it is read, when that assignment runs in ``loop``'s body."""
        binding = graph.reaching_binding(name) if isinstance(name, cst.Name) else None
        if binding is None or not binding.assigns or binding.path or not graph.contains(loop.body, binding.statement):
            return None
        return binding.value

    def _built_by_torch_optim(self, receiver: cst.BaseExpression) -> bool:
        """``adam`` after ``adam = torch.optim.Adam(...)``, ``self.solver`` after ``self.solver = optim.SGD(...)``."""
        values = self._assigned_values(receiver)
        return bool(values) and all(
            isinstance(v, cst.Call) and (self.facts.qualified_name(v.func) or "").startswith(TORCH_OPTIMIZERS)
            and not (self.facts.qualified_name(v.func) or "").startswith(NOT_OPTIMIZERS)
            for v in values
        )

    def _assigned_values(self, name: cst.BaseExpression) -> List[Optional[cst.BaseExpression]]:
        """What ``name`` is assigned: the binding a local name sees here, every assignment of an attribute chain."""
        if dotted(name) is None:
            return []
        graph = self.facts.fact(GraphValues)
        if isinstance(name, cst.Name):
            binding = graph.reaching_binding(name)
            return [binding.value] if binding is not None and binding.assigns and not binding.path else [None]
        return [value for target, value, _ in graph.assignments() if dotted(target) == dotted(name)]

    def _models_optimized(self, optimizer: cst.BaseExpression) -> Optional[Set[str]]:
        """``{"netG"}`` for an optimizer built as ``Adam(netG.parameters())``; None when not known."""
        values = self._assigned_values(optimizer)
        if not values:
            return None
        models: Set[str] = set()
        for value in values:
            calls = [n for n in walk(value) if isinstance(n, cst.Call)] if value is not None else []
            found = {dotted(c.func.value) for c in calls if _method(c) in PARAMETER_METHODS} - {None}  # type: ignore[attr-defined]
            if not found:
                return None
            models |= found  # type: ignore[arg-type]
        return models or None

    # ----- message and fix ------------------------------------------------------------

    def _report(self, loops: Loops, loop: Loop, stepped: Stepped, backwards: List[cst.Call]) -> None:
        message = (
            f"`{self.facts.code(stepped.step)}` runs every iteration of this loop but nothing in it clears the "
            f"gradients of `{stepped.name}`: each `backward()` adds to those of all earlier steps, so every update "
            "applies their running sum"
        )
        inside = [c for c in loops.nodes_in(loop, cst.Call) if _method(c) == "zero_grad"]
        outside = [c for c in self._zero_grads_around(loop) if c not in inside]
        if inside:
            message += f" (`{self.facts.code(inside[0])}` clears another network's)"
        elif outside:
            message += f" (`{self.facts.code(outside[0])}` runs outside the loop, not every step)"
        self.report(stepped.step, message, fix=self._fix(stepped, backwards))

    def _zero_grads_around(self, loop: Loop) -> List[cst.Call]:
        """The ``zero_grad()`` calls of the function (or module) that holds ``loop``."""
        graph = self.facts.fact(GraphValues)
        scope = graph.scope_of(loop)
        return [c for c in self.facts.nodes(cst.Call) if _method(c) == "zero_grad" and graph.contains(scope, c)]

    def _fix(self, stepped: Stepped, backwards: List[cst.Call]) -> Optional[CstFix]:
        clearing = f"{self.facts.code(stepped.optimizer)}.zero_grad(set_to_none=True)"
        inserted = cst.parse_statement(f"{clearing}\n")
        if self._under_accumulate(stepped.step):
            line = _statement_of(self.facts, stepped.step)
            if line is None:
                return None
            return CstFix(
                message=f"Insert `{clearing}` after `{self.facts.code(stepped.step)}`",
                applicability=Applicability.UNSAFE,
                replacements={line: cst.FlattenSentinel([line, inserted])},
            )
        backward = self._backward_before(stepped, backwards)
        line = _statement_of(self.facts, backward) if backward is not None else None
        if line is None:
            return None
        before = inserted.with_changes(leading_lines=line.leading_lines)
        return CstFix(
            message=f"Insert `{clearing}` before `{self.facts.code(backward)}`",
            applicability=Applicability.UNSAFE,
            replacements={line: cst.FlattenSentinel([before, line.with_changes(leading_lines=())])},
        )

    def _under_accumulate(self, step: cst.Call) -> bool:
        """The step runs in ``with accelerator.accumulate(...):``, whose optimizer clears only on synchronising steps."""
        return any(
            isinstance(a, cst.With) and any(_method(item.item) == ACCUMULATE for item in a.items)
            for a in self.facts.ancestors(step)
        )

    def _backward_before(self, stepped: Stepped, backwards: List[cst.Call]) -> Optional[cst.Call]:
        """The backward whose gradients ``stepped`` applies, in the step's own function.

        The first backward after the last step of another optimizer that
        precedes this step (a GAN's generator backward comes after the
        discriminator's step); the first backward of the function when none
        precedes it.
        """
        graph = self.facts.fact(GraphValues)
        scope = graph.scope_of(stepped.step)
        own = [b for b in backwards if graph.scope_of(b) is scope]
        before = [b for b in own if graph.precedes(b, stepped.step)]
        other_steps = [
            c
            for c in self.facts.nodes(cst.Call)
            if graph.scope_of(c) is scope and graph.precedes(c, stepped.step) and stepped_optimizer(c) is not None
            and (dotted(stepped_optimizer(c)) or "") != stepped.name  # type: ignore[arg-type]
        ]
        after_others = [b for b in before if not any(graph.precedes(b, s) for s in other_steps)]
        chosen = after_others or before or own
        return chosen[0] if chosen else None


def _method(call: cst.CSTNode) -> Optional[str]:
    func = getattr(call, "func", None)
    return func.attr.value if isinstance(func, cst.Attribute) else None


def _engines(backwards: List[cst.Call]) -> Set[Optional[str]]:
    """Receivers of ``engine.backward(loss)`` (a loss passed in): engines that also step and clear."""
    return {dotted(b.func.value) for b in backwards if b.args and _method(b) == "backward"} - {None}  # type: ignore[attr-defined]


def _is_attribute_or_callee(parent: Optional[cst.CSTNode], name: cst.Name) -> bool:
    """``attr`` in ``x.attr``, or ``list`` in ``list(...)``: a name that is not a value read here."""
    return (isinstance(parent, cst.Attribute) and parent.attr is name) or (isinstance(parent, cst.Call) and parent.func is name)


def _deleted(node: cst.Del) -> List[cst.BaseExpression]:
    """``p.grad`` and ``q.grad`` for ``del p.grad, q.grad``."""
    target = node.target
    return [e.value for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else [target]


def _of_gradient(receiver: cst.BaseExpression) -> bool:
    """``p.grad``, ``p.grad.data``: a parameter's gradient tensor."""
    return "grad" in (dotted(receiver) or "").split(".")[1:]


def _statement_of(facts, node: cst.CSTNode) -> Optional[cst.SimpleStatementLine]:
    """The statement line holding ``node``, when a statement can be inserted before it."""
    for ancestor in facts.ancestors(node):
        if isinstance(ancestor, cst.SimpleStatementLine):
            return ancestor
        if isinstance(ancestor, (cst.SimpleStatementSuite, cst.BaseCompoundStatement, cst.Lambda)):
            return None
    return None
