"""Loops of any shape, and what each one runs per iteration.

A training loop is not always ``for batch in loader``: ``for step in
range(max_steps)``, ``for x, y in zip(...)``, ``while True: batch =
next(it)`` train just as well, and so does a loop whose step is a method of
its own (``self.train_step(batch)``). What decides is the effect: what the
loop body runs, directly or through the same-module functions it calls.

This module answers that for every ``for`` and ``while`` loop of a module:
which nodes run once per iteration (:meth:`LoopRegions.nodes_in`), and which
loops run a call matching a predicate (:func:`loops_running`). It is the
stop-gap for the effect-based loop model of issue 13 (``TrainingLoops`` still
knows only loops over loaders) and is meant to be folded into it.

Evaluation loops are recognised the same way (:class:`EvaluationLoops`):
a loop that runs a forward pass of a model put in eval mode before it (or
iterates a validation/test loader and calls a model), and no backward or
optimizer step.

Callees are matched by name as :mod:`trainlint.analysis.calls` explains;
the body of a ``for`` loop is its block (the iterable is evaluated once),
nested loops and nested definitions (an LBFGS ``closure``) included.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Callable, Dict, FrozenSet, List, NamedTuple, Optional, Set, Tuple, Union

import libcst as cst

from trainlint.analysis.calls import CallGraph, callee, steps_training
from trainlint.analysis.graph_values import MODEL_NAME
from trainlint.analysis.imports import dotted
from trainlint.analysis.steps import _unwrap_iterable
from trainlint.analysis.walk import walk
from trainlint.step_words import EVALUATION_LOADER, EVALUATION_SPLIT

if TYPE_CHECKING:
    from trainlint.analysis import ModuleFacts

Loop = Union[cst.For, cst.While]
Comprehension = Union[cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp]
COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


class LoopRegions:
    """Every loop of a module, and the nodes each one runs per iteration."""

    def __init__(self, facts: "ModuleFacts") -> None:
        self.facts = facts
        self.loops: List[Loop] = facts.nodes(cst.For, cst.While)  # source order: outer loops first
        self._loop_of_body = {loop.body: loop for loop in self.loops}
        self._reached: Dict[Loop, FrozenSet[cst.FunctionDef]] = {}
        self._index: Dict[Tuple[type, ...], Tuple[Dict[Loop, List[cst.CSTNode]], Dict[cst.FunctionDef, List[cst.CSTNode]]]] = {}

    def loops_containing(self, node: cst.CSTNode) -> List[Loop]:
        """The loops whose body contains ``node`` in this function or an enclosing one, innermost first."""
        return [self._loop_of_body[a] for a in self.facts.ancestors(node) if a in self._loop_of_body]

    def functions_reached(self, loop: Loop) -> FrozenSet[cst.FunctionDef]:
        """The same-module functions the loop body may call, directly or through each other."""
        found = self._reached.get(loop)
        if found is None:
            graph = self.facts.fact(CallGraph)
            named = {c for c in map(callee, self.body_nodes(loop, (cst.Call,))) if c is not None}
            chosen: Set[cst.FunctionDef] = set()
            pending = graph.resolve(named)
            while pending:
                function = pending.pop()
                if function not in chosen:
                    chosen.add(function)
                    pending.extend(graph.called_by(function))
            found = self._reached[loop] = frozenset(chosen)
        return found

    def nodes_in(self, loop: Loop, *kinds: type) -> List[cst.CSTNode]:
        """Nodes of exactly these types that run per iteration: in the body, or in a function it reaches."""
        _, by_function = self._indexed(kinds)
        nodes = list(self.body_nodes(loop, kinds))
        for function in self.functions_reached(loop):
            nodes.extend(by_function.get(function, ()))
        return nodes

    def body_nodes(self, loop: Loop, kinds: Tuple[type, ...]) -> List[cst.CSTNode]:
        """Nodes of exactly these types in the loop body itself (nested loops and definitions included)."""
        by_loop, _ = self._indexed(kinds)
        return by_loop.get(loop, [])

    def _indexed(self, kinds: Tuple[type, ...]):
        """Nodes of ``kinds`` by each loop body and each function that contains them (one pass, memoised)."""
        index = self._index.get(kinds)
        if index is None:
            by_loop: Dict[Loop, List[cst.CSTNode]] = {}
            by_function: Dict[cst.FunctionDef, List[cst.CSTNode]] = {}
            for node in self.facts.nodes(*kinds):
                for ancestor in self.facts.ancestors(node):
                    loop = self._loop_of_body.get(ancestor)
                    if loop is not None:
                        by_loop.setdefault(loop, []).append(node)
                    elif type(ancestor) is cst.FunctionDef:
                        by_function.setdefault(ancestor, []).append(node)
            index = self._index[kinds] = (by_loop, by_function)
        return index


def iteration_nodes(facts: "ModuleFacts", loop: Union[Loop, Comprehension], kind: type) -> List[cst.CSTNode]:
    """Nodes of exactly type ``kind`` that run per iteration of a loop (see ``LoopRegions.nodes_in``) or of a
    comprehension (its element and conditions: the first iterable is evaluated once; callees are not followed)."""
    if not isinstance(loop, COMPREHENSIONS):
        return facts.fact(LoopRegions).nodes_in(loop, kind)
    once = set(walk(loop.for_in.iter))
    return [n for n in walk(loop) if type(n) is kind and n not in once]


def loops_running(facts: "ModuleFacts", predicate: Callable[[cst.Call], bool]) -> List[Loop]:
    """The loops, outer first, whose iterations run a call for which ``predicate`` holds."""
    regions = facts.fact(LoopRegions)
    return [loop for loop in regions.loops if any(predicate(c) for c in regions.nodes_in(loop, cst.Call))]


# Methods of a model that run no forward pass (`model.generate` of Hugging Face runs under no_grad itself).
NOT_FORWARD = frozenset({
    "eval", "train", "to", "cpu", "cuda", "half", "float", "double", "state_dict", "load_state_dict", "parameters",
    "named_parameters", "buffers", "modules", "children", "named_modules", "zero_grad", "apply", "requires_grad_",
    "generate", "save_pretrained", "register_forward_hook", "register_buffer", "get_parameter", "num_parameters",
})

# Method names that configure or inspect a model rather than run it (diffusers' `set_default_attn_processor`).
BOOKKEEPING_METHOD = re.compile(
    r"^(set|get|enable|disable|register|load|save|reset|init|prepare|fuse|unfuse|tie|resize|print|add|remove|freeze|unfreeze)_"
)


class EvaluationLoop(NamedTuple):
    loop: Union[Loop, Comprehension]  # `[model(x) for x in test_loader]` evaluates too
    forwards: List[cst.Call]  # the model calls it runs per iteration


class EvaluationLoops:
    """Loops that evaluate a model: a forward pass of it in eval mode (or over a validation/test loader), no training.

    Only loops that neither backpropagate nor step an optimizer, directly or
    through a same-module call. A model is in eval mode for a loop when the
    last mode call on it before the loop in its function is ``.eval()`` (or
    ``.train(False)``), or when ``.eval()`` runs in the loop; a forward pass
    is calling it, its ``forward``, or another method of it that is not
    bookkeeping (``model.encoder(src)``, ``self.model.decode(z)``).
    """

    def __init__(self, facts: "ModuleFacts") -> None:
        self.facts = facts
        regions = facts.fact(LoopRegions)
        self.loops: List[EvaluationLoop] = []
        for loop in regions.loops:
            calls: List[cst.Call] = regions.nodes_in(loop, cst.Call)  # type: ignore[assignment]
            if any(steps_training(c) for c in calls):
                continue
            forwards = self._forwards(loop, calls)
            if forwards:
                self.loops.append(EvaluationLoop(loop, forwards))
        for comprehension in facts.nodes(*COMPREHENSIONS):
            calls = iteration_nodes(facts, comprehension, cst.Call)  # type: ignore[assignment]
            forwards = [] if any(steps_training(c) for c in calls) else self._forwards(comprehension, calls)
            if forwards:
                self.loops.append(EvaluationLoop(comprehension, forwards))

    def _forwards(self, loop: Loop, calls: List[cst.Call]) -> List[cst.Call]:
        """The calls of ``calls`` that run a model in eval mode (or, over held-out data, one named like a model).

        A mode set in the loop body counts for the calls after it; a mode set
        in a function the loop calls belongs to that function's own code, and
        a forward pass inside a loop of a called function is that loop's.
        """
        modes = self._modes_before(loop)
        set_in_body = [c for c in self.facts.fact(LoopRegions).body_nodes(loop, (cst.Call,)) if _mode_set(c) is not None]
        for call in set_in_body:
            modes[dotted(call.func.value) or ""] = _mode_set(call)  # type: ignore[attr-defined, assignment]
        rebound = self._rebound_per_iteration(loop)
        own = self._loops_within(loop) | {loop}
        calls = [
            c for c in calls
            if _root(c.func) not in rebound and self._runs_in(c, loop, own) and not self._precedes_its_mode(c, set_in_body)
        ]
        in_eval = {model for model, mode in modes.items() if mode == "eval"}
        forwards = [c for c in calls if _models_called(c) & in_eval]
        if forwards or not self._iterates_held_out_data(loop):
            return forwards
        in_train = {model for model, mode in modes.items() if mode == "train"}
        return [c for c in calls if _named_like_model(c) and not _models_called(c) & in_train]

    def _runs_in(self, call: cst.Call, loop: cst.CSTNode, own: Set[cst.CSTNode]) -> bool:
        """``call`` runs as part of ``loop``'s iterations (``own``: it and its nested loops), not of a loop of a
        function it calls (a comprehension's calls may sit in a loop around it)."""
        innermost = self.facts.fact(LoopRegions).loops_containing(call)[:1]
        return not innermost or innermost[0] in own or innermost[0] in set(self.facts.ancestors(loop))

    def _precedes_its_mode(self, call: cst.Call, mode_calls: List[cst.Call]) -> bool:
        """``ckpt.get("ema")`` before ``ckpt.eval()`` in the same body ran before the mode was set."""
        return any(
            _models_called(call) & {dotted(m.func.value)} and self._order[call] < self._order[m]  # type: ignore[attr-defined]
            for m in mode_calls
        )

    def _rebound_per_iteration(self, loop: Loop) -> Set[str]:
        """Names that ``for`` targets in ``loop`` (its own included) bind anew each iteration: no model set up before it."""
        names: Set[str] = set()
        for node in [loop, *self.facts.fact(LoopRegions).body_nodes(loop, (cst.For,))]:
            if isinstance(node, cst.For):
                names |= _target_names(node.target)
        clause = loop.for_in if isinstance(loop, COMPREHENSIONS) else None
        while clause is not None:
            names |= _target_names(clause.target)
            clause = clause.inner_for_in
        return names

    def _modes_before(self, loop: Loop) -> Dict[str, str]:
        """The last mode set on each model before ``loop``, in the function (or module code) around it."""
        scope = next((a for a in self.facts.ancestors(loop) if type(a) is cst.FunctionDef), None)
        modes: Dict[str, str] = {}
        for call in self.facts.nodes(cst.Call):
            if self._order[call] >= self._order[loop]:
                break
            mode = _mode_set(call)
            if mode is None or next((a for a in self.facts.ancestors(call) if type(a) is cst.FunctionDef), None) is not scope:
                continue
            # `for m in models: m.eval()` sets the mode of each element, not of a later loop's `m`
            if any(
                isinstance(a, cst.For) and _root(call.func) in _target_names(a.target) and loop not in self._loops_within(a)
                for a in self.facts.ancestors(call)
            ):
                continue
            modes[dotted(call.func.value) or ""] = mode  # type: ignore[attr-defined]
        return modes

    def _loops_within(self, loop: Loop) -> Set[cst.CSTNode]:
        """The loops nested in ``loop``'s body."""
        return set(self.facts.fact(LoopRegions).body_nodes(loop, (cst.For, cst.While)))

    def _iterates_held_out_data(self, loop: Loop) -> bool:
        if not isinstance(loop, (cst.For, *COMPREHENSIONS)):
            return False
        iterable, _ = _unwrap_iterable(self.facts, loop.iter if isinstance(loop, cst.For) else loop.for_in.iter)
        if isinstance(iterable, cst.Call):
            iterable = iterable.func
        if isinstance(iterable, cst.Subscript) and len(iterable.slice) == 1:
            key = getattr(iterable.slice[0].slice, "value", None)
            return isinstance(key, cst.SimpleString) and bool(EVALUATION_SPLIT.match(str(key.evaluated_value)))
        name = dotted(iterable)
        return name is not None and bool(EVALUATION_LOADER.match(name.rsplit(".", 1)[-1]))

    @functools.cached_property
    def _order(self) -> Dict[cst.CSTNode, int]:
        return {node: index for index, node in enumerate(self.facts.parents)}


def _mode_set(call: cst.Call) -> Optional[str]:
    """``"eval"`` for ``m.eval()``/``m.train(False)``, ``"train"`` for ``m.train()``/``m.train(True)``, else None."""
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in ("eval", "train") or dotted(func.value) is None:
        return None
    if func.attr.value == "eval":
        return None if call.args else "eval"
    if not call.args:
        return "train"
    value = call.args[0].value
    if isinstance(value, cst.Name) and value.value in ("True", "False"):
        return "train" if value.value == "True" else "eval"
    return None


def _models_called(call: cst.Call) -> Set[str]:
    """What ``call`` may run the forward of: ``{"model"}`` for ``model(x)``, ``{"model.encoder", "model"}`` for
    ``model.encoder(x)``; nothing for bookkeeping methods (``model.to(device)``)."""
    name = dotted(call.func)
    if name is None:
        return set()
    if not isinstance(call.func, cst.Attribute):
        return {name}
    if call.func.attr.value in NOT_FORWARD or BOOKKEEPING_METHOD.match(call.func.attr.value):
        return set()
    return {name, name.rsplit(".", 1)[0]}


def _root(expression: cst.BaseExpression) -> Optional[str]:
    """``model`` for ``model.encoder.layer`` (through calls and subscripts too)."""
    while isinstance(expression, (cst.Attribute, cst.Subscript, cst.Call)):
        expression = expression.func if isinstance(expression, cst.Call) else expression.value
    return expression.value if isinstance(expression, cst.Name) else None


def _target_names(target: cst.BaseExpression) -> Set[str]:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return {n for e in target.elements for n in _target_names(e.value)}
    return set()


def _named_like_model(call: cst.Call) -> bool:
    name = dotted(call.func)
    return name is not None and bool(MODEL_NAME.search(name.rsplit(".", 1)[-1]))
