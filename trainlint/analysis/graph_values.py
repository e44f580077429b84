"""Which values carry an autograd graph, and which have been detached from it.

A loss tensor computed with autograd recording holds a ``grad_fn`` and,
through it, the graph of the whole step. Storing such a value beyond the
step (``total += loss``, ``losses.append(loss)``) keeps every step's graph
alive. Rules about memory ask here what an expression holds.

Sources of a graph, outside ``torch.no_grad()``/``torch.inference_mode()``
and outside evaluation step hooks (``validation_step``, which Lightning runs
without grad):

* a criterion call: a name bound to ``nn.<X>Loss(...)``, named like one
  (``criterion``, ``loss_fn``), or ``F.<x>_loss``/``F.cross_entropy``;
* a model call (``model(x)``, ``self.net(x)``, ``self(x)`` in a module
  class) and its ``.loss``;
* anything ``.backward()`` is called on (also through
  ``scaler.scale(loss)``, ``accelerator.backward(loss)``, a DeepSpeed
  engine's ``model.backward(loss)``, ``output["loss"].backward()``);
* arithmetic, views, reductions and ``torch.*`` functions of the above;
  same-module functions returning them; parameters that receive them at a
  call in this module.

Detaching: ``.item()``, ``.tolist()``, ``.detach()``, ``.numpy()``,
``float()``/``int()``, ``torch.tensor(...)``, ``.data``, comparisons.

Names are resolved by :class:`~trainlint.analysis.names.Names`: a use sees
the last binding before it of those that reach it (flow-aware), so ``loss =
loss.item()`` after ``backward()`` makes later uses plain numbers, and a
module-level name read in a function is followed to its module binding.
Unknown calls carry no graph: precision before recall.
"""

from __future__ import annotations

import enum
import functools
from typing import TYPE_CHECKING, Dict, FrozenSet, Iterable, List, Optional, Set, Tuple, Union

import libcst as cst

from trainlint.analysis import names as n
from trainlint.analysis.classes import enclosing_class
from trainlint.analysis.grad_mode import in_no_grad
from trainlint.analysis.imports import dotted
from trainlint.analysis.names import Binding, Names
from trainlint.analysis.values import string_value
from trainlint.analysis.walk import walk
from trainlint.step_words import (
    BACKWARD_OWNERS,
    EVALUATION_STEP,
    CASTS,
    CRITERION_NAME,
    DETACHING_ATTRIBUTES,
    DETACHING_METHODS,
    FUNCTIONAL_LOSSES,
    MODEL_FACTORY,
    MODEL_NAME,
)

if TYPE_CHECKING:
    from trainlint.analysis import ModuleFacts


class GraphKind(enum.IntEnum):
    """What a graph-carrying value is, ordered from most to least specific.

    The order matters when two possibilities meet (``a if c else b``, two
    call sites): the join is the larger kind, whose fixes are the more
    careful ones.
    """

    SCALAR = 1  # a scalar loss: ``.item()`` turns it into a number
    TENSOR = 2  # a tensor of unknown shape: only ``.detach()`` applies
    OUTPUT = 3  # a model's output: a tensor, or a structure holding tensors
    CONTAINER = 4  # a dict/list/tuple holding graph-carrying tensors


Kind = Optional[GraphKind]
MAX_DEPTH = 100  # nested kind queries; each takes a few Python frames

REDUCTIONS = frozenset({"mean", "sum", "norm", "prod", "std", "var", "max", "min", "amax", "amin", "logsumexp"})
DETACHING_TORCH_FUNCTIONS = frozenset({
    "tensor", "as_tensor", "from_numpy", "argmax", "argmin", "eq", "ne", "isnan", "isinf", "isfinite", "is_tensor",
    "numel", "zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like", "equal", "allclose",
})


def join(*kinds: Kind) -> Kind:
    """The kind of a value that may be any of ``kinds``."""
    present = [k for k in kinds if k is not None]
    return max(present) if present else None


def _combined(kind: Kind) -> Kind:
    """The kind of arithmetic on a value of ``kind`` (a model output used in arithmetic is a tensor)."""
    return GraphKind.TENSOR if kind is GraphKind.OUTPUT else kind


def _subscript_key(node: cst.Subscript) -> Optional[cst.BaseExpression]:
    if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        return node.slice[0].slice.value
    return None


def root_name(expression: cst.BaseExpression) -> Optional[cst.Name]:
    """The name an attribute/subscript chain starts from: ``output`` for ``output["loss"].sum``."""
    while isinstance(expression, (cst.Attribute, cst.Subscript)):
        expression = expression.value
    return expression if isinstance(expression, cst.Name) else None


def storage_path(expression: cst.BaseExpression) -> Optional[str]:
    """``self.h`` for ``self.h["loss"]`` or ``self.h[k][0]``: the long-lived object a store writes into."""
    while isinstance(expression, cst.Subscript):
        expression = expression.value
    return dotted(expression)


def backward_loss(call: cst.Call) -> Optional[cst.BaseExpression]:
    """The value a backward call differentiates, read from its syntax; None when ``call`` is not one.

    ``loss.backward()``, ``scaler.scale(loss).backward()``,
    ``accelerator.backward(loss)``, ``self.manual_backward(loss)``.
    ``x.backward(arg)`` gives ``x``, a tensor with a gradient, unless ``x`` is
    named like an engine; ``GraphValues`` reads ``arg`` when it is the loss.
    """
    func = call.func
    if not isinstance(func, cst.Attribute):
        return None
    positional = _positional(call)
    if func.attr.value == "manual_backward":
        return positional[0] if positional else None
    if func.attr.value != "backward":
        return None
    receiver = func.value
    if isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Attribute) and receiver.func.attr.value == "scale":
        return receiver.args[0].value if receiver.args else None
    owner = dotted(receiver) or ""
    if positional and BACKWARD_OWNERS.search(owner.rsplit(".", 1)[-1]):
        return positional[0]
    return receiver


Scope = Union[cst.Module, cst.FunctionDef, cst.ClassDef, cst.Lambda]

_UNVALUED = frozenset({n.DELETE, n.GLOBAL, n.NONLOCAL})


class GraphValues:
    """Graph-carrying values of one module (see the module docstring)."""

    def __init__(self, facts: "ModuleFacts") -> None:
        self.facts = facts
        self._names = facts.fact(Names)
        self._criteria = self._criterion_names()
        self._kinds: Dict[Union[cst.CSTNode, Binding, Tuple[cst.CSTNode, Tuple[int, ...]]], Kind] = {}
        self._depth = 0
        self._marks: Dict[Binding, GraphKind] = {}
        self._differentiated = self._resolve_backward_calls()

    # ----- scopes and bindings -------------------------------------------------------

    def scope_of(self, node: cst.CSTNode) -> Scope:
        """The function, lambda, class or module ``node`` runs in (a comprehension runs in the one around it)."""
        scope = self._names.scope_of(node)
        while type(scope) in n.COMPREHENSIONS:
            scope = self._names.parent_scope(scope)  # type: ignore[assignment]
        return scope  # type: ignore[return-value]

    def bindings(self, scope: Scope, name: str) -> List[Binding]:
        """Every binding of ``name`` directly in ``scope``, in source order (``del`` and declarations aside)."""
        return [b for b in self._names.bindings(scope, name) if b.kind not in _UNVALUED]

    def assignments(self) -> List[Tuple[cst.BaseExpression, cst.BaseExpression, cst.CSTNode]]:
        """Every ``target = value`` and ``target op= value`` in the module, as (target, value, statement)."""
        return list(self._assignments)

    @functools.cached_property
    def _assignments(self) -> List[Tuple[cst.BaseExpression, cst.BaseExpression, cst.CSTNode]]:
        found: List[Tuple[cst.BaseExpression, cst.BaseExpression, cst.CSTNode]] = []
        for statement in self.facts.nodes(cst.Assign, cst.AnnAssign, cst.AugAssign):
            if type(statement) is cst.Assign:
                found.extend((t.target, statement.value, statement) for t in statement.targets)  # type: ignore[attr-defined]
            elif statement.value is not None:  # type: ignore[attr-defined]
                found.append((statement.target, statement.value, statement))  # type: ignore[attr-defined]
        return found

    def precedes(self, first: cst.CSTNode, second: cst.CSTNode) -> bool:
        """True when ``first`` ends before ``second`` starts, in source order."""
        return self._names.precedes(first, second)

    def contains(self, outer: cst.CSTNode, inner: cst.CSTNode) -> bool:
        """True when ``inner`` is ``outer`` or inside it."""
        return self._names.contains(outer, inner)

    def references(
        self, within: cst.CSTNode, name: Optional[str] = None, attribute: Optional[str] = None
    ) -> List[cst.BaseExpression]:
        """The expressions spelled ``name``, or ``<anything>.<attribute>``, inside ``within``, in source order.

        Attribute names (``self.losses`` for ``losses``), keyword names and
        parameter names are not references to the name ``losses``.
        """
        found: List[cst.BaseExpression] = []
        if attribute is not None:
            found += [a for a in self._spelled.get(("attribute", attribute), ()) if self.contains(within, a)]
        if name is not None:
            found += [
                use for use in self._spelled.get(("name", name), ())
                if self.contains(within, use) and _names_a_value(self.facts.parent(use), use)
            ]
        return found

    @functools.cached_property
    def _spelled(self) -> Dict[Tuple[str, str], List[cst.BaseExpression]]:
        """Every ``Name`` by its text and every ``Attribute`` by its attribute, in source order."""
        found: Dict[Tuple[str, str], List[cst.BaseExpression]] = {}
        for node in self.facts.nodes(cst.Name, cst.Attribute):
            key = ("name", node.value) if type(node) is cst.Name else ("attribute", node.attr.value)  # type: ignore[attr-defined]
            found.setdefault(key, []).append(node)  # type: ignore[arg-type]
        return found

    def reaching_binding(self, name: cst.Name) -> Optional[Binding]:
        """The binding a use of ``name`` sees (for a store target, the one it replaces): of those that reach
        it (:meth:`Names.reaching`), the last before it in source order, else the last one carried round a loop."""
        found = self._names.reaching(name)
        before = [b for b in found if self.precedes(b.node, name)]
        return (before or found)[-1] if found else None

    def backpropagated(self, scope: Scope) -> FrozenSet[str]:
        """Dotted names whose values flow into a backward call in ``scope``.

        ``loss = ce + reg; loss.backward()`` gives ``loss``, ``ce``, ``reg``:
        summing into one of these builds the loss; it is not a history. A loop
        target passes the flow on to what the loop iterates: a penalty summed
        over ``for grad in grads`` backpropagates through ``grads``
        (fixtures/TL401_undetached_loss_accumulation/ok_gradients_kept_for_a_penalty.py).
        """
        return self._backpropagated.get(scope, frozenset())

    @functools.cached_property
    def _backpropagated(self) -> Dict[Scope, FrozenSet[str]]:
        flows: Dict[Scope, Set[str]] = {}
        for call, loss in self._differentiated:
            flows.setdefault(self.scope_of(call), set()).update(self.reads(loss))
        loop_targets = [  # `for grad in grads:` feeds `grads` into whatever the loop computes from `grad`
            (target, loop.iter) for loop in self.facts.nodes(cst.For) for target in walk(loop.target) if type(target) is cst.Name
        ]
        for scope, names in flows.items():
            assignments = [(storage_path(t), self.reads(v)) for t, v, _ in self._assignments if self.scope_of(t) is scope]
            assignments += [(t.value, self.reads(v)) for t, v in loop_targets if self.scope_of(t) is scope]  # type: ignore[attr-defined]
            changed = True
            while changed:
                changed = False
                for target, reads in assignments:
                    if target in names and not reads <= names:
                        names.update(reads)
                        changed = True
        return {scope: frozenset(names) for scope, names in flows.items()}

    def reads(self, expression: cst.CSTNode) -> Set[str]:
        """Every name and attribute chain read in ``expression`` (``self.reg`` and ``self``)."""
        nodes = list(walk(expression))
        names = (node for node in nodes if type(node) is cst.Name and _names_a_value(self.facts.parent(node), node))
        chains = (node for node in nodes if type(node) is cst.Attribute)
        return {name for name in map(dotted, (*names, *chains)) if name}

    def _resolve_backward_calls(self) -> List[Tuple[cst.Call, cst.BaseExpression]]:
        """What each backward call differentiates, with the bindings it marks as carrying a graph.

        ``x.backward(arg)`` is read from kinds, and kinds read the marks: the
        certain calls mark first, the ambiguous ones are read with those marks
        (never with their own), and the kinds read meanwhile are forgotten.
        """
        calls = [
            (call, loss)
            for call in self._names.calls_named("backward") + self._names.calls_named("manual_backward")
            for loss in (backward_loss(call),)
            if loss is not None and not self._calls_own_backward(call)
        ]
        self._marks = self._backward_marks([(call, loss) for call, loss in calls if _gradient(call, loss) is None])
        differentiated = [(call, self._differentiated_value(call, loss)) for call, loss in calls]
        self._marks = self._backward_marks(differentiated)
        self._kinds.clear()
        return differentiated

    def _calls_own_backward(self, call: cst.Call) -> bool:
        """``model.backward(x, a_1, a_2, y)`` on an instance of a same-module class that defines ``backward``
        (a from-scratch model computing its own gradients): that method runs, not autograd
        (fixtures/TL401_undetached_loss_accumulation/ok_from_scratch_model_own_backward.py)."""
        if not isinstance(call.func, cst.Attribute):
            return False
        names = self.facts.fact(Names)
        return any(names.method(c, "backward") is not None for c in self._receiver_classes(call.func.value, names))

    def _receiver_classes(self, receiver: cst.BaseExpression, names: Names) -> List[cst.ClassDef]:
        """Same-module classes ``receiver`` may be an instance of, following a parameter to its call sites."""
        classes = names.instance_classes(receiver)
        binding = self.reaching_binding(receiver) if isinstance(receiver, cst.Name) else None
        if binding is None or not binding.receives_argument:
            return classes
        function, parameter = binding.statement, binding.node
        for site in names.calls_of(function):
            argument = names.argument_for(site, function, parameter) if isinstance(parameter, cst.Param) else None
            if argument is not None:
                classes += names.instance_classes(argument)
        return classes

    def _differentiated_value(self, call: cst.Call, loss: cst.BaseExpression) -> cst.BaseExpression:
        """What ``call`` differentiates: ``loss`` as read syntactically, or ``arg`` for an engine's ``loss.backward(arg)``.

        ``x.backward(arg)`` is a tensor ``x`` differentiated with the gradient
        ``arg``, or an engine ``x`` differentiating the loss ``arg``
        (DeepSpeed's engine, usually named ``model``). A gradient is a plain
        tensor, not what is backpropagated from: an ``arg`` that carries a
        graph makes ``x`` an engine, as does binding ``x`` from
        ``deepspeed.initialize(...)``.
        """
        argument = _gradient(call, loss)
        if argument is not None and (self._bound_by_deepspeed(loss) or self.kind(argument) is not None):
            return argument
        return loss

    def _bound_by_deepspeed(self, receiver: cst.BaseExpression) -> bool:
        """``engine`` in ``engine, optimizer, _, _ = deepspeed.initialize(...)``."""
        binding = self.reaching_binding(receiver) if isinstance(receiver, cst.Name) else None
        if binding is None or not binding.assigns or binding.path != (0,) or not isinstance(binding.value, cst.Call):
            return False
        return self.facts.qualified_name(binding.value.func) == "deepspeed.initialize"

    def _backward_marks(self, differentiated: List[Tuple[cst.Call, cst.BaseExpression]]) -> Dict[Binding, GraphKind]:
        """Bindings whose value (or something inside it) is backpropagated by the calls of ``differentiated``.

        ``loss.backward()`` makes ``loss`` a scalar loss (a gradient argument
        makes it a tensor); ``output["loss"].backward()`` makes ``output`` a
        container of graph-carrying tensors.
        """
        marks: Dict[Binding, GraphKind] = {}
        for call, loss in differentiated:
            root = root_name(loss)
            if root is None or root.value in ("self", "cls"):
                continue
            binding = self.reaching_binding(root)
            if binding is None:
                continue
            if loss is not root:
                kind = GraphKind.CONTAINER
            elif _passes_gradient(call, loss):
                kind = GraphKind.TENSOR
            else:
                kind = GraphKind.SCALAR
            marks[binding] = join(marks.get(binding), kind)  # type: ignore[assignment]
        return marks

    # ----- kinds ----------------------------------------------------------------------

    def runs_without_grad(self, node: cst.CSTNode) -> bool:
        """Under ``no_grad``/``inference_mode``, or in an evaluation step hook (``validation_step``)."""
        if in_no_grad(self.facts, node):
            return True
        return any(isinstance(a, cst.FunctionDef) and EVALUATION_STEP.match(a.name.value) for a in self.facts.ancestors(node))

    def kind(self, expression: cst.BaseExpression) -> Kind:
        """What graph ``expression`` carries where it stands, or None when it carries none (or is unknown)."""
        return self._memoized(expression, self._kind)

    def binding_kind(self, binding: Binding) -> Kind:
        return self._memoized(binding, self._binding_kind)

    def _memoized(self, key, compute) -> Kind:
        """``compute(key)`` once. A cycle (through names, calls, parameters) or a chain deeper than
        MAX_DEPTH (generated code: ``x = x + 1`` a thousand times) carries nothing, instead of
        exhausting Python's stack."""
        if key in self._kinds:
            return self._kinds[key]
        if self._depth >= MAX_DEPTH:
            return None
        self._kinds[key] = None
        self._depth += 1
        try:
            result = compute(key)
        finally:
            self._depth -= 1
        self._kinds[key] = result
        return result

    def graph_atoms(self, expression: cst.BaseExpression) -> List[Tuple[cst.BaseExpression, GraphKind]]:
        """The outermost graph-carrying operands of ``expression``: where a detach belongs.

        ``loss_val * bs`` gives ``[loss_val]``; ``{"step": s, "loss": loss}``
        gives ``[loss]``; a comprehension is one atom of kind CONTAINER.
        """
        kind = self.kind(expression)
        if kind is None:
            return []
        if isinstance(expression, cst.BinaryOperation):
            return self.graph_atoms(expression.left) + self.graph_atoms(expression.right)
        if isinstance(expression, cst.UnaryOperation):
            return self.graph_atoms(expression.expression)
        if isinstance(expression, cst.IfExp):
            return self.graph_atoms(expression.body) + self.graph_atoms(expression.orelse)
        if isinstance(expression, (cst.Dict, cst.List, cst.Tuple, cst.Set)):
            return [atom for element in _element_values(expression) for atom in self.graph_atoms(element)]
        return [(expression, kind)]

    def _binding_kind(self, binding: Binding) -> Kind:
        return join(self._bound_value_kind(binding), self._marks.get(binding))

    def _bound_value_kind(self, binding: Binding) -> Kind:
        if binding.receives_argument:
            return self._parameter_kind(binding)
        if binding.value is None:
            return None
        if binding.iterates:
            return self._iterated_kind(binding.value, binding.path)
        if binding.augments:
            if self.runs_without_grad(binding.statement):
                return None
            target = binding.statement.target  # type: ignore[attr-defined]
            previous = self.reaching_binding(target) if isinstance(target, cst.Name) else None
            return _combined(join(self.kind(binding.value), self.binding_kind(previous) if previous else None))
        if not binding.assigns:
            return None  # an import, a definition, a ``with``/``except`` target, ``*rest``: not followed
        return self._element_kind(binding.value, binding.path) if binding.path else self.kind(binding.value)

    def _element_kind(self, value: cst.BaseExpression, path: Tuple[int, ...]) -> Kind:
        """The kind of ``value[path]``: a tuple literal's element, a same-module function's returned element.

        Memoised and cycle-guarded like ``kind()``: it follows calls into their
        callees' returns, and a function may return a call of itself (a retry
        after an out-of-memory error) or of a function that calls it back.
        """
        return self._memoized((value, path), self._unpacked_kind)

    def _unpacked_kind(self, key: Tuple[cst.BaseExpression, Tuple[int, ...]]) -> Kind:
        value, path = key
        for depth, index in enumerate(path):
            if isinstance(value, (cst.Tuple, cst.List)) and index < len(value.elements):
                element = value.elements[index]
                if isinstance(element, cst.StarredElement):
                    return None
                value = element.value
                continue
            if isinstance(value, cst.Call):
                returns = self._returns_of(value)
                if returns is not None:
                    return join(*(self._element_kind(r, path[depth:]) for r in returns))
            return GraphKind.TENSOR if self.kind(value) is not None else None
        return self.kind(value)

    def _iterated_kind(self, iterable: cst.BaseExpression, path: Tuple[int, ...]) -> Kind:
        """The kind of ``element[path]`` for one element of ``iterable``; None when unknown.

        ``losses.values()`` and ``losses.items()`` of a graph-carrying dict
        give tensors (and keys that are not); iterating a list or dict
        directly is unknown (keys or elements?), so it gives None.
        """
        if isinstance(iterable, (cst.Tuple, cst.List)) and not path:
            return join(*(self.kind(e) for e in _element_values(iterable)))
        if not isinstance(iterable, cst.Call):
            return GraphKind.TENSOR if not path and self.kind(iterable) is GraphKind.TENSOR else None
        function = dotted(iterable.func)
        arguments = [a.value for a in iterable.args]
        if function in ("enumerate", "zip") and path:
            sources = arguments[1:] if function == "enumerate" else arguments
            index = path[0] - (1 if function == "enumerate" else 0)
            return self._iterated_kind(sources[index], path[1:]) if 0 <= index < len(sources) else None
        if isinstance(iterable.func, cst.Attribute) and not arguments:
            if self.kind(iterable.func.value) in (GraphKind.OUTPUT, GraphKind.CONTAINER):
                method = iterable.func.attr.value
                if (method, path) in (("values", ()), ("items", (1,))):
                    return GraphKind.TENSOR
        return None

    def _kind(self, expression: cst.BaseExpression) -> Kind:
        if isinstance(expression, cst.Name):
            return self._name_kind(expression)
        if isinstance(expression, cst.Attribute):
            return self._attribute_kind(expression)
        if isinstance(expression, cst.Subscript):
            return self._subscript_kind(expression)
        if isinstance(expression, (cst.Dict, cst.List, cst.Tuple, cst.Set)):
            found = join(*(self.kind(e) for e in _element_values(expression)))
            return GraphKind.CONTAINER if found is not None else None
        if isinstance(expression, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
            return GraphKind.CONTAINER if self.kind(expression.elt) is not None else None
        if isinstance(expression, cst.DictComp):
            return GraphKind.CONTAINER if self.kind(expression.value) is not None else None
        if isinstance(expression, cst.IfExp):
            return join(self.kind(expression.body), self.kind(expression.orelse))
        if isinstance(expression, cst.NamedExpr):
            return self.kind(expression.value)
        if self.runs_without_grad(expression):
            return None
        if isinstance(expression, cst.Call):
            return self._call_kind(expression)
        if isinstance(expression, cst.BinaryOperation):
            return _combined(join(self.kind(expression.left), self.kind(expression.right)))
        if isinstance(expression, cst.UnaryOperation) and not isinstance(expression.operator, cst.Not):
            return _combined(self.kind(expression.expression))
        return None

    def _name_kind(self, name: cst.Name) -> Kind:
        binding = self.reaching_binding(name)
        if binding is None:
            return None
        kind = self.binding_kind(binding)
        if kind is None and binding.assigns and not binding.path and isinstance(binding.value, (cst.Dict, cst.List)):
            return GraphKind.CONTAINER if self._filled_with_graph(binding, name) else None
        if kind in (GraphKind.OUTPUT, GraphKind.CONTAINER) and self._loss_detached_in_place(binding, name):
            return None
        return kind

    def _loss_detached_in_place(self, binding: Binding, use: cst.Name) -> bool:
        """``output["loss"] = output["loss"].detach()`` before ``use``: the entry that carried the step's graph
        no longer does, and what else a step's output holds is not known here (packnet-sfm's fix of its
        stored outputs, docs/recall-audit.md #5; fixtures/TL401_undetached_loss_accumulation/ok_loss_entry_detached_in_place.py)."""
        for root, value, statement in self._fills.get(binding.name, ()):
            target = statement.targets[0].target if isinstance(statement, cst.Assign) else None
            key = _subscript_key(target) if isinstance(target, cst.Subscript) and target.value is root else None
            text = string_value(key) if key is not None else None
            detached = text is not None and "loss" in text and self.kind(value) is None
            if detached and self.precedes(statement, use) and self.reaching_binding(root) == binding:
                return True
        return False

    def _filled_with_graph(self, binding: Binding, use: cst.Name) -> bool:
        """``entry = {}; entry["loss"] = loss`` before ``use``: the literal now holds a graph-carrying value."""
        for root, value, statement in self._fills.get(binding.name, ()):
            if self.precedes(statement, use) and self.reaching_binding(root) == binding and self.kind(value) is not None:
                return True
        return False

    @functools.cached_property
    def _fills(self) -> Dict[str, List[Tuple[cst.Name, cst.BaseExpression, cst.CSTNode]]]:
        """Per local name, what is put into it: ``name[k] = value`` and ``name.append(value)``, as (name, value, statement)."""
        fills: Dict[str, List[Tuple[cst.Name, cst.BaseExpression, cst.CSTNode]]] = {}
        for target, value, statement in self._assignments:
            root = root_name(target) if isinstance(target, cst.Subscript) else None
            if root is not None and isinstance(statement, cst.Assign):
                fills.setdefault(root.value, []).append((root, value, statement))
        for call in self._names.calls_named("append"):
            receiver = call.func.value if isinstance(call.func, cst.Attribute) else None
            if isinstance(receiver, cst.Name) and len(call.args) == 1:
                fills.setdefault(receiver.value, []).append((receiver, call.args[0].value, call))
        return fills

    def _attribute_kind(self, node: cst.Attribute) -> Kind:
        attribute = node.attr.value
        if attribute in DETACHING_ATTRIBUTES:
            return None
        base = self.kind(node.value)
        model_call = isinstance(node.value, cst.Call) and self._is_model_call(node.value.func)
        if attribute == "loss" and (base is not None or model_call):
            return GraphKind.SCALAR
        if base in (GraphKind.OUTPUT, GraphKind.CONTAINER):
            return GraphKind.TENSOR
        return base

    def _subscript_kind(self, node: cst.Subscript) -> Kind:
        base = self.kind(node.value)
        if base in (GraphKind.OUTPUT, GraphKind.CONTAINER):
            key = _subscript_key(node)
            text = string_value(key) if key is not None else None
            return GraphKind.SCALAR if text is not None and "loss" in text else GraphKind.TENSOR
        return base

    def _call_kind(self, call: cst.Call) -> Kind:
        func = call.func
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in DETACHING_METHODS:
                return None
            base = self.kind(func.value)
            if base is not None:
                return _method_kind(base, method, call)
        returns = self._returns_of(call)
        if returns is not None:
            return join(*(self.kind(r) for r in returns))
        closure = self._step_closure(call)
        if closure:
            return join(*(self.kind(r) for f in closure for r in self._names.returns(f)))
        return self._library_call_kind(call)

    def _step_closure(self, call: cst.Call) -> List[cst.FunctionDef]:
        """``optimizer.step(closure)`` returns what the closure returns, the loss with its graph (LBFGS's contract;
        only an optimizer's ``step`` takes a function): the same-module functions passed to ``step``."""
        if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "step" and len(call.args) == 1):
            return []
        argument = call.args[0]
        if argument.keyword is not None and argument.keyword.value != "closure":
            return []
        return [f for f in self._names.resolve_callable(argument.value) if isinstance(f, cst.FunctionDef)]

    def _library_call_kind(self, call: cst.Call) -> Kind:
        name = dotted(call.func) or ""
        last = name.rsplit(".", 1)[-1]
        qualified = self.facts.qualified_name(call.func) or ""
        if name in CASTS and not qualified:
            return None
        if qualified.startswith("torch.nn.functional."):
            function = qualified.rsplit(".", 1)[-1]
            if function.endswith("_loss") or function in FUNCTIONAL_LOSSES:
                return GraphKind.TENSOR if _reduces_nothing(call) else GraphKind.SCALAR
        if last in self._criteria:
            return self._criteria[last]
        if CRITERION_NAME.search(last):
            return GraphKind.SCALAR
        if self._is_model_call(call.func):
            return GraphKind.OUTPUT
        arguments = join(*(self.kind(a.value) for a in call.args))
        if arguments is None:
            return None
        if qualified.startswith("torch.") and last not in DETACHING_TORCH_FUNCTIONS:
            single = len(call.args) == 1
            return GraphKind.SCALAR if single and last in REDUCTIONS else GraphKind.TENSOR
        if name == "sum" and not qualified and call.args:
            return _summed(self._summand_kind(call.args[0].value))
        return None

    def _summand_kind(self, argument: cst.BaseExpression) -> Kind:
        if isinstance(argument, (cst.GeneratorExp, cst.ListComp)):
            return self.kind(argument.elt)
        return GraphKind.TENSOR if self.kind(argument) is not None else None

    def _is_model_call(self, func: cst.BaseExpression) -> bool:
        """``model(...)``, ``self.net(...)``, ``model.forward(...)``, ``self(...)`` in a class with ``forward``.

        A name bound by an import, ``def`` or ``class`` is a function or a class,
        never a model instance, whatever it is called: ``evaluate_model``
        imported from a helper module returns what that helper returns.
        """
        name = dotted(func)
        if name is None:
            return False
        if name == "self":
            return self._in_class_with_forward(func)
        if isinstance(func, cst.Name) and any(b.kind in (n.IMPORT, n.DEF, n.CLASS) for b in self._names.reaching(func)):
            return False
        last = name.rsplit(".", 1)[-1]
        return bool(MODEL_NAME.search(last)) and not MODEL_FACTORY.search(last)

    def _in_class_with_forward(self, node: cst.CSTNode) -> bool:
        owner = enclosing_class(self.facts, node)
        return owner is not None and any(isinstance(s, cst.FunctionDef) and s.name.value == "forward" for s in owner.body.body)

    # ----- calls between functions of this module ------------------------------------

    def _callees(self, call: cst.Call) -> Optional[List[cst.FunctionDef]]:
        """Same-module functions ``call`` may run.

        What the names model resolves comes first: ``f(...)``, ``self.m(...)``,
        ``meter.update(...)`` on an instance made here, ``Class(...)``, and an
        instance called like a function, which for a ``torch.nn.Module`` runs
        its ``forward`` (``criterion = Criterion(); criterion(logits, y)``).
        Where the receiver cannot be followed (a parameter filled in another
        module), ``x.f(...)`` reaches every method ``f`` of the module and
        ``f(...)`` every module-level ``f``, as :mod:`trainlint.analysis.calls`
        explains.
        """
        name = dotted(call.func)
        if name is None:
            return None
        names = self._names
        resolved = [f for f in names.callees(call) if isinstance(f, cst.FunctionDef)]
        resolved += [
            method
            for class_def in names.instance_classes(call.func)
            for method in (names.method(class_def, "forward"),)
            if method is not None and method not in resolved
        ]
        if resolved:
            return resolved
        last = name.rsplit(".", 1)[-1]
        candidates = self._functions_by_name.get(last, [])
        wanted_method = "." in name
        chosen = [f for f in candidates if _is_method(self.facts, f) == wanted_method]
        return chosen or None

    @functools.cached_property
    def _functions_by_name(self) -> Dict[str, List[cst.FunctionDef]]:
        found: Dict[str, List[cst.FunctionDef]] = {}
        for function in self.facts.nodes(cst.FunctionDef):
            found.setdefault(function.name.value, []).append(function)  # type: ignore[attr-defined]
        return found

    def _returns_of(self, call: cst.Call) -> Optional[List[cst.BaseExpression]]:
        """What the same-module callees of ``call`` return; not an ``__init__``'s returns (``names.callees`` gives
        a class's ``__init__`` for ``Class(...)``), since a class call evaluates to the instance."""
        callees = self._callees(call)
        if callees is None:
            return None
        return [value for f in callees if f.name.value != "__init__" for value in self._names.returns(f)]

    def _parameter_kind(self, binding: Binding) -> Kind:
        function, param = binding.statement, binding.node
        if not isinstance(function, cst.FunctionDef) or not isinstance(param, cst.Param):
            return None
        kinds = []
        for call in self._names.calls_named(function.name.value):
            if function in (self._callees(call) or ()):
                argument = self._names.argument_for(call, function, param)
                if argument is not None:
                    kinds.append(self.kind(argument))
        return join(*kinds)

    def _criterion_names(self) -> Dict[str, GraphKind]:
        """Names bound to a ``torch.nn`` loss module anywhere here: ``self.ce = nn.CrossEntropyLoss()``."""
        names: Dict[str, GraphKind] = {}
        for target, value, _ in self._assignments:
            if not isinstance(value, cst.Call):
                continue
            qualified = self.facts.qualified_name(value.func) or ""
            name = dotted(target)
            if name and qualified.startswith("torch.nn.") and qualified.endswith("Loss"):
                names[name.rsplit(".", 1)[-1]] = GraphKind.TENSOR if _reduces_nothing(value) else GraphKind.SCALAR
        return names


def _method_kind(base: GraphKind, method: str, call: cst.Call) -> Kind:
    """The kind of ``value.method(...)`` for a graph-carrying ``value`` of kind ``base``."""
    if base in (GraphKind.OUTPUT, GraphKind.CONTAINER):
        if method in ("values", "items"):
            return GraphKind.CONTAINER
        if method in ("get", "pop") and call.args:
            key = string_value(call.args[0].value)
            return GraphKind.SCALAR if key is not None and "loss" in key else GraphKind.TENSOR
        if base is GraphKind.CONTAINER:
            return None  # list/dict methods: copy, keys, index...
    if method in REDUCTIONS and not call.args:
        return GraphKind.SCALAR
    return base if base is not GraphKind.OUTPUT or method in ("to", "float", "cpu", "cuda") else GraphKind.TENSOR


def _names_a_value(parent: Optional[cst.CSTNode], name: cst.Name) -> bool:
    """``name`` refers to a variable here (not ``x.name``, ``f(name=...)``, ``def f(name)``)."""
    if isinstance(parent, cst.Attribute):
        return parent.attr is not name
    if isinstance(parent, cst.Arg):
        return parent.keyword is not name
    return not isinstance(parent, (cst.Param, cst.FunctionDef, cst.ClassDef, cst.ImportAlias))


def is_store_target(facts: "ModuleFacts", node: cst.CSTNode) -> bool:
    """``node`` is written, not read: the target of an assignment, an augmented assignment or a ``for``, alone or
    inside a tuple or list of targets (``seen, kept = [], []``)."""
    child, parent = node, facts.parent(node)
    while isinstance(parent, (cst.Element, cst.StarredElement, cst.Tuple, cst.List)):
        child, parent = parent, facts.parent(parent)
    return isinstance(parent, (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For)) and parent.target is child


def _gradient(call: cst.Call, loss: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """``arg`` in ``loss.backward(arg)`` as ``backward_loss`` reads it: a gradient, unless ``loss`` is an engine."""
    receiver = call.func.value if isinstance(call.func, cst.Attribute) else None
    positional = _positional(call)
    return positional[0] if receiver is loss and positional else None


def _positional(call: cst.Call) -> List[cst.BaseExpression]:
    return [a.value for a in call.args if a.keyword is None and not a.star]


def _passes_gradient(call: cst.Call, loss: cst.BaseExpression) -> bool:
    """``out.backward(grad)``: differentiating a non-scalar tensor with an explicit gradient."""
    receiver = call.func.value if isinstance(call.func, cst.Attribute) else None
    return receiver is loss and any(a.keyword is None or a.keyword.value == "gradient" for a in call.args)


def _summed(kind: Kind) -> Kind:
    return kind if kind in (GraphKind.SCALAR, None) else GraphKind.TENSOR


def _reduces_nothing(call: cst.Call) -> bool:
    return any(a.keyword is not None and a.keyword.value == "reduction" and string_value(a.value) == "none" for a in call.args)


def _element_values(node: Union[cst.Dict, cst.List, cst.Tuple, cst.Set]) -> Iterable[cst.BaseExpression]:
    for element in node.elements:
        if isinstance(element, (cst.DictElement, cst.Element, cst.StarredElement, cst.StarredDictElement)):
            yield element.value


def _is_method(facts: "ModuleFacts", function: cst.FunctionDef) -> bool:
    block = facts.parent(function)
    return block is not None and isinstance(facts.parent(block), cst.ClassDef)
