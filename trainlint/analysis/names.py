"""Scopes, bindings and uses of names: the one model of names for every analysis and rule.

Request it as ``facts.fact(Names)``. It follows Python's rules (those of
LibCST's ``ScopeProvider``, which the oracle test in ``tests/test_names.py``
checks it against on every fixture) without running LibCST's metadata
providers, which cost several times the parse: one pass over
``facts.parents`` (every node, in pre-order) records each node's scope and
every binding; which bindings reach a use is worked out lazily, per query.

Scopes are the module, classes, functions, lambdas and comprehensions. A
comprehension's targets are bound in its own scope and its first iterable is
evaluated in the enclosing one; a walrus binds in the nearest enclosing
scope that is not a comprehension; class scopes are invisible from the
functions and comprehensions inside them; ``global``/``nonlocal`` make a
function's stores bind the module's or the enclosing function's name.

A use sees, flow-sensitively within its own scope: the last binding before
it on straight-line code, the bindings of every branch of an
``if``/``try``/``match`` that falls through to it (a branch ending in
``return``/``raise``/``break``/``continue`` does not), and inside a loop the
bindings carried round from later in the loop. A use in a nested function
sees the enclosing scope's bindings as a whole (it may run at any time).
``self.x`` (and ``cls.x``) read in a method sees every ``self.x = ...`` of
the class and of its same-module base classes, and class-body bindings of
``x``: methods run in an order this module cannot show. Under ``from
__future__ import annotations`` an annotation sees every binding of its
scope (it is evaluated, if ever, later); otherwise it is evaluated where it
stands, like any expression.

Where it differs from LibCST's ScopeProvider (each difference is checked
by the oracle test, not skipped): it is flow-sensitive, so a use may see
fewer bindings (never one ScopeProvider does not list), except bindings
carried round a loop (after the use in the source, inside a loop around it:
ScopeProvider drops them) and match captures (``case [x]``), which
ScopeProvider does not record. ``del x`` is a binding (kind DELETE) that no
use sees. On real code one more showed up, a ScopeProvider error: in a
comprehension with several ``for`` clauses (``[s for sub in subs for tree
in sub.trees if tree.red for s in [tree.n]]``) it resolves ``tree`` in the
later ``if`` and iterable to a binding outside the comprehension (here the
function's parameter ``tree``); here it is the comprehension's ``tree``, as
in Python (3 reads in 30 torch modules, 1 in the standard ``argparse.py``).

Mapping from the binding models this replaces. Ported:

* ``graph_values._Index`` (deleted): ``GraphValues.reaching_binding(name)``
  is the last of :meth:`Names.reaching` before the use (for a store target,
  the binding it replaces); ``bindings``/``scope_of`` (comprehensions folded
  into the scope around them)/``precedes``/``contains``/returns/calls read
  Names. ``graph_values.Binding`` (deleted), the view GraphValues, TL302 and
  TL401-TL405 read: ``how`` -> :attr:`Binding.assigns` (``assign``),
  :attr:`Binding.augments`, :attr:`Binding.iterates`,
  :attr:`Binding.receives_argument` (``parameter``), none of them
  (``opaque``); ``anchor`` -> :attr:`Binding.node`.
* ``devices``' scope-less union of assignments, for the lattice: a name ->
  :meth:`Names.reaching` (flow-aware); a parameter -> :meth:`Names.calls_of`
  + :meth:`Names.argument_for`; ``self.x`` -> :meth:`Names.reaching` on the
  attribute (``attribute_bindings``); same-module helpers ->
  :meth:`Names.resolve_callable` + :meth:`Names.returns`;
  ``_ModuleScan.literal_values`` -> ``values.Values.literal_values`` (and the
  lattice for ``device.type``); ``string_value`` -> ``values.string_value``.
* ``devices.DeviceScopes`` (``_values_at``/``_bindings_in``/
  ``_if_chain_bindings``/``_block_targets``/``_assignments_below``, deleted):
  the device expression in scope for a fix is a name that surely reaches the
  node -> :meth:`Names.reaching_at`; ``_class_attribute_values`` ->
  :meth:`Names.attribute_bindings`, and "set before the node in the method
  that sets it" -> :meth:`Names.attribute_reaching_at`; ``_parameters`` ->
  :meth:`Names.parameters`; ``_returned_kind``'s returns ->
  :meth:`Names.resolve_callable` + :meth:`Names.return_statements` (a bare
  ``return`` has no value).
* ``devices._ModuleScan.assignments`` (deleted; every assignment of a dotted
  name, module-wide), read by ``DevicesInUse`` and ``CudaOnlyRegions`` for
  module-wide questions asked of a spelling ("is any variable called
  ``device`` CUDA-only?", "is ``use_cuda`` a CUDA check wherever it is
  set?"): names -> :meth:`Names.bindings_anywhere`; ``self.x`` and the
  attributes of objects no scope owns (``args.device = ...``) ->
  :meth:`Names.attribute_stores`; a class body's field defaults ->
  :meth:`Names.bindings` of the class.
* ``placement._Binder``/``NameBindings`` (deleted): placement and TL103/TL104
  read :meth:`Names.binding_of`, :meth:`Names.unpacked`, :meth:`Names.reaching`
  on ``self.x``, :meth:`Names.uses`, :meth:`Names.argument_for` and
  :meth:`Names.resolve_callable`; the invocation chain that binds a factory's
  parameters stays placement's.
* ``batch_keys._Binding``/``_scope_bindings`` (deleted): TL301/TL302 read
  :meth:`Names.reaching`, :meth:`Names.argument_for`, :meth:`Names.calls_of`,
  :meth:`Names.resolve_callable`, :meth:`Names.method`,
  :meth:`Names.parameters`, :meth:`Names.returns` and
  :meth:`Names.instance_classes`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, FrozenSet, Iterable, List, NamedTuple, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from trainlint.analysis.imports import dotted
from trainlint.analysis.walk import children, walk

if TYPE_CHECKING:
    from trainlint.analysis import ModuleFacts

Scope = Union[cst.Module, cst.ClassDef, cst.FunctionDef, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp]
Definition = Union[cst.FunctionDef, cst.ClassDef, cst.Lambda]  # what resolve_callable finds

# Binding kinds.
ASSIGN = "assign"  # x = v, and the targets of a, *b = v
AUGMENTED = "augmented"  # x += v
ANNOTATED = "annotated"  # x: T = v, and x: T (value None)
FOR = "for"  # for x in v
COMPREHENSION = "comprehension"  # [... for x in v]
WITH = "with"  # with v as x
EXCEPT = "except"  # except v as x
WALRUS = "walrus"  # (x := v)
PARAMETER = "parameter"  # def f(x=default), lambda x: ...
IMPORT = "import"  # import a.b (binds a), import a as x, from m import x
DEF = "def"
CLASS = "class"
MATCH = "match"  # case [x, *rest] / case {**rest} / case P() as x
DELETE = "delete"  # del x
GLOBAL = "global"  # global x (a declaration, see Names.declarations)
NONLOCAL = "nonlocal"

# Parameter kinds, in the order Python lists them.
POSITIONAL_ONLY = "positional_only"
POSITIONAL = "positional"
VAR_POSITIONAL = "var_positional"
KEYWORD_ONLY = "keyword_only"
VAR_KEYWORD = "var_keyword"

MAX_DEPTH = 40  # nested resolve_callable steps (factories of factories, partial of partial)
# torch.nn.Module methods that return the module itself: `Model(...).to(device)` is still a `Model`.
MODULE_METHODS_RETURNING_SELF = frozenset({"to", "cuda", "cpu", "train", "eval", "half", "float", "double", "bfloat16", "requires_grad_"})

COMPREHENSIONS = frozenset({cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp})
_BODY_SCOPES = frozenset({cst.FunctionDef, cst.ClassDef, cst.Lambda})
_SEQUENCES = frozenset({cst.Module, cst.IndentedBlock, cst.SimpleStatementLine, cst.SimpleStatementSuite})
_SIMPLE_LINES = frozenset({cst.SimpleStatementLine, cst.SimpleStatementSuite})
_EXITS = frozenset({cst.Return, cst.Raise, cst.Break, cst.Continue})
_COMPOUND = frozenset({
    cst.If, cst.For, cst.While, cst.Try, cst.TryStar, cst.With, cst.Match, cst.FunctionDef, cst.ClassDef,
})
_UNVALUED = frozenset({DELETE, GLOBAL, NONLOCAL})
_VALUED_STORES = frozenset({ASSIGN, ANNOTATED, WALRUS})


class Binding(NamedTuple):
    """One place where a name gets bound.

    ``node`` is what binds: the target ``Name`` (or ``self.x`` ``Attribute``)
    of a store or ``del``, the ``Param`` of a parameter, the ``FunctionDef``/
    ``ClassDef`` of a definition, the ``ImportAlias`` of an import, the
    ``Name`` of a declaration or a match capture. ``statement`` is the
    statement (or ``NamedExpr``, ``CompFor``, ``WithItem``, ``ExceptHandler``)
    it belongs to. ``value`` is the bound expression where there is one: the
    right-hand side (the whole of it for an unpacking target, see ``path``),
    the augmenting value, the iterable of a loop or comprehension, the
    context manager of a ``with``, the exception type of an ``except``, a
    parameter's default. ``path`` indexes into tuple/list targets
    (``a, (b, c) = v``: ``c`` has path ``(1, 1)``); ``starred`` marks
    ``*rest``, whose path points at the star.
    """

    name: str
    kind: str
    scope: Scope
    node: cst.CSTNode
    statement: cst.CSTNode
    value: Optional[cst.BaseExpression] = None
    path: Tuple[int, ...] = ()
    starred: bool = False

    @property
    def assigns(self) -> bool:
        """True when the name holds ``value`` (or the part of it at ``path``): ``x = v``, ``x: T = v``, ``(x := v)``.

        Not a starred target (``*rest`` holds a new list) nor ``x: T``. What
        graph and memory rules follow a value through.
        """
        return self.kind in _VALUED_STORES and self.value is not None and not self.starred

    @property
    def augments(self) -> bool:
        """True for ``x op= v``: the name holds its previous value combined with ``value``."""
        return self.kind == AUGMENTED

    @property
    def iterates(self) -> bool:
        """True for a ``for`` or comprehension target (not ``*rest``): the name holds an element of ``value``."""
        return self.kind in (FOR, COMPREHENSION) and not self.starred

    @property
    def receives_argument(self) -> bool:
        """True for a ``def``'s parameter that a call site's argument binds on its own (not ``*args``/``**kwargs``).

        What a lambda's parameter receives is not followed: its call sites
        are not named.
        """
        function = self.statement
        return (
            self.kind == PARAMETER and type(function) is cst.FunctionDef
            and self.node is not function.params.star_arg and self.node is not function.params.star_kwarg  # type: ignore[attr-defined]
        )


class Parameter(NamedTuple):
    """One parameter of a function or lambda; ``position`` counts positional ones from 0 (``self`` included)."""

    node: cst.Param
    name: str
    kind: str
    default: Optional[cst.BaseExpression]
    position: Optional[int]


def _paired_element(
    values: Sequence[cst.BaseElement], index: int, targets: Sequence[cst.BaseElement]
) -> Optional[cst.BaseExpression]:
    """The element of the display ``values`` that the ``index``-th of the unpacking ``targets`` takes.

    Targets before a starred one pair with the head, those after it with the
    tail; None for the starred target (the middle slice) and where a starred
    element of ``values`` hides the position.
    """
    star = next((i for i, t in enumerate(targets) if type(t) is cst.StarredElement), len(targets))
    if index == star:
        return None
    position = index if index < star else len(values) - (len(targets) - index)
    counted = values[: position + 1] if index < star else values[position:]
    if not 0 <= position < len(values) or any(type(e) is cst.StarredElement for e in counted):
        return None
    return values[position].value


def element_at(value: cst.BaseExpression, path: Tuple[int, ...]) -> Tuple[cst.BaseExpression, Tuple[int, ...]]:
    """``value[path]`` as far as tuple and list displays tell: the element reached, and the indices still to apply
    to it (``(f(), (1,))`` for ``x, f()`` at ``(1, 1)``; a display with a starred element is not narrowed)."""
    while path and type(value) in (cst.Tuple, cst.List):
        elements = value.elements  # type: ignore[attr-defined]
        if path[0] >= len(elements) or any(type(e) is cst.StarredElement for e in elements):
            break
        value, path = elements[path[0]].value, path[1:]
    return value, path


def passed_argument(call: cst.Call, keyword: str, position: Optional[int] = None) -> Optional[cst.BaseExpression]:
    """The argument ``call`` passes as ``keyword``, or as its ``position``-th positional argument.

    For a callee whose signature is known by heart rather than defined in
    this module (``x.to(device)``, ``torch.device(type)``,
    ``Subset(dataset, indices)``); :meth:`Names.argument_for` answers for a
    same-module function. Positional arguments after a ``*args`` are not
    counted: where they land cannot be told.
    """
    for argument in call.args:
        if argument.keyword is not None and argument.keyword.value == keyword:
            return argument.value
    if position is None:
        return None
    passed = []
    for argument in call.args:
        if argument.star:
            break
        if argument.keyword is None:
            passed.append(argument.value)
    return passed[position] if position < len(passed) else None


class Names:
    """Scopes, bindings and uses of one module (see the module docstring)."""

    def __init__(self, facts: "ModuleFacts") -> None:
        self.facts = facts
        module = facts.module
        self.module = module
        self._order: Dict[cst.CSTNode, int] = {module: 0}
        self._scope_of: Dict[cst.CSTNode, Scope] = {module: module}
        self._bindings: Dict[Scope, Dict[str, List[Binding]]] = {}
        self._attributes: Dict[cst.ClassDef, Dict[str, List[Binding]]] = {}
        self._object_stores: List[Binding] = []  # ``args.device = ...``: attributes of objects no scope owns
        self._stores_by_name: Optional[Dict[str, List[Binding]]] = None  # bindings_anywhere/attribute_stores, built on first use
        self._by_node: Dict[cst.CSTNode, Binding] = {}
        self._declared: Dict[Tuple[Scope, str], Binding] = {}
        self._foreign: Set[Binding] = set()  # bound from a nested function (global/nonlocal)
        self._not_loads: Set[cst.CSTNode] = set()
        self._loads: Dict[str, List[cst.Name]] = {}
        self._attribute_loads: Dict[str, List[cst.Attribute]] = {}
        self._returns: Dict[cst.FunctionDef, List[cst.Return]] = {}
        self._calls: Dict[str, List[cst.Call]] = {}
        self._reaching: Dict[cst.CSTNode, List[Binding]] = {}
        self._surely_bound: Dict[cst.CSTNode, bool] = {}
        self._reaching_at: Dict[Tuple[str, cst.CSTNode], Tuple[List[Binding], bool]] = {}
        self._ends: Dict[cst.CSTNode, int] = {}
        self._resolving = 0
        self._resolved: Dict[cst.CSTNode, List[Definition]] = {}  # resolve_callable, per expression
        self._instances: Dict[cst.CSTNode, List[cst.ClassDef]] = {}  # instance_classes, per expression
        self._callees: Dict[cst.Call, List[Union[cst.FunctionDef, cst.Lambda]]] = {}
        self._holding: Optional[Dict[cst.CSTNode, List[Binding]]] = None  # bindings_holding, built on first use
        self._deferred_annotations = False  # ``from __future__ import annotations``
        self._build(facts.parents)
        self._rebind_nonlocals()

    # ----- the pass ------------------------------------------------------------------

    def _build(self, parents: Dict[cst.CSTNode, cst.CSTNode]) -> None:
        # Exact types, not isinstance(): LibCST's node classes sit under ABCs whose isinstance()
        # checks cost several times more, and this runs for every node.
        order, scope_of, record = self._order, self._scope_of, self._RECORDERS
        for index, (node, parent) in enumerate(parents.items(), start=1):
            order[node] = index
            parent_type = type(parent)
            if parent_type in _BODY_SCOPES:
                scope = parent if node is parent.body else scope_of[parent]
            elif parent_type in COMPREHENSIONS:
                scope = parent
            elif parent_type is cst.CompFor and node is parent.iter and type(parents[parent]) in COMPREHENSIONS:
                scope = scope_of[parents[parent]]  # the first iterable runs in the enclosing scope
            elif parent_type is cst.Param and node is parent.name:
                scope = parents[parents[parent]]  # type: ignore[assignment]  # Param -> Parameters -> def/lambda
            else:
                scope = scope_of[parent]
            scope_of[node] = scope
            kind = type(node)
            if kind is cst.Name:
                self._note_name(node, parent, parent_type)
            else:
                recorder = record.get(kind)
                if recorder is not None:
                    recorder(self, node, scope)

    def _note_name(self, node: cst.Name, parent: cst.CSTNode, parent_type: type) -> None:
        if node in self._not_loads:
            return
        if parent_type is cst.Attribute:
            if parent.attr is node:  # type: ignore[attr-defined]
                return
        elif parent_type is cst.Arg:
            if parent.keyword is node:  # type: ignore[attr-defined]
                return
        elif parent_type is cst.FunctionDef or parent_type is cst.ClassDef or parent_type is cst.Param:
            if parent.name is node:  # type: ignore[attr-defined]
                return
        elif parent_type is cst.MatchKeywordElement and parent.key is node:  # type: ignore[attr-defined]
            return
        self._loads.setdefault(node.value, []).append(node)

    def _add(self, binding: Binding, *nodes: cst.CSTNode) -> None:
        self._bindings.setdefault(binding.scope, {}).setdefault(binding.name, []).append(binding)
        self._by_node[binding.node] = binding
        for node in nodes:
            self._by_node[node] = binding

    def _binding_scope(self, scope: Scope, name: str) -> Scope:
        """Where a store of ``name`` in ``scope`` binds: the module after ``global``, else the scope itself."""
        declared = self._declared.get((scope, name))
        if declared is not None and declared.kind == GLOBAL:
            return self.module
        return scope

    def _bind_target(
        self, target: cst.BaseExpression, kind: str, scope: Scope, statement: cst.CSTNode,
        value: Optional[cst.BaseExpression], path: Tuple[int, ...] = (), starred: bool = False,
    ) -> None:
        target_type = type(target)
        if target_type is cst.Name:
            self._not_loads.add(target)
            binding_scope = self._binding_scope(scope, target.value)  # type: ignore[attr-defined]
            binding = Binding(target.value, kind, binding_scope, target, statement, value, path, starred)  # type: ignore[attr-defined]
            if binding_scope is not scope:
                self._foreign.add(binding)
            self._add(binding)
        elif target_type is cst.Tuple or target_type is cst.List:
            for index, element in enumerate(target.elements):  # type: ignore[attr-defined]
                star = type(element) is cst.StarredElement
                self._bind_target(element.value, kind, scope, statement, value, path + (index,), star)
        elif target_type is cst.StarredElement:
            self._bind_target(target.value, kind, scope, statement, value, path, True)  # type: ignore[attr-defined]
        elif target_type is cst.Attribute:
            self._bind_attribute(target, kind, scope, statement, value, path)  # type: ignore[arg-type]

    def _bind_attribute(
        self, target: cst.Attribute, kind: str, scope: Scope, statement: cst.CSTNode,
        value: Optional[cst.BaseExpression], path: Tuple[int, ...],
    ) -> None:
        """``self.x = v`` in a method: a binding of attribute ``x`` of the method's class."""
        receiver = target.value
        function = scope if type(scope) is cst.FunctionDef else None
        owner = self.method_class(function) if function is not None else None
        if owner is None or type(receiver) is not cst.Name or receiver.value != self._receiver_name(function):
            self._object_stores.append(Binding("", kind, scope, target, statement, value, path))  # named on first query
            return
        binding = Binding(f"{receiver.value}.{target.attr.value}", kind, owner, target, statement, value, path)
        self._attributes.setdefault(owner, {}).setdefault(target.attr.value, []).append(binding)
        self._by_node[target] = binding

    def _assign(self, node: cst.Assign, scope: Scope) -> None:
        for target in node.targets:
            self._bind_target(target.target, ASSIGN, scope, node, node.value)

    def _ann_assign(self, node: cst.AnnAssign, scope: Scope) -> None:
        self._bind_target(node.target, ANNOTATED, scope, node, node.value)

    def _aug_assign(self, node: cst.AugAssign, scope: Scope) -> None:
        self._bind_target(node.target, AUGMENTED, scope, node, node.value)

    def _for(self, node: cst.For, scope: Scope) -> None:
        self._bind_target(node.target, FOR, scope, node, node.iter)

    def _comp_for(self, node: cst.CompFor, scope: Scope) -> None:
        self._bind_target(node.target, COMPREHENSION, scope, node, node.iter)

    def _walrus(self, node: cst.NamedExpr, scope: Scope) -> None:
        while type(scope) in COMPREHENSIONS:
            scope = self._scope_of[scope]
        self._bind_target(node.target, WALRUS, scope, node, node.value)

    def _with_item(self, node: cst.WithItem, scope: Scope) -> None:
        if node.asname is not None:
            self._bind_target(node.asname.name, WITH, scope, node, node.item)  # type: ignore[arg-type]

    def _except(self, node: Union[cst.ExceptHandler, cst.ExceptStarHandler], scope: Scope) -> None:
        if node.name is not None:
            self._bind_target(node.name.name, EXCEPT, scope, node, node.type)  # type: ignore[arg-type]

    def _delete(self, node: cst.Del, scope: Scope) -> None:
        self._bind_target(node.target, DELETE, scope, node, None)

    def _function(self, node: cst.FunctionDef, scope: Scope) -> None:
        self._not_loads.add(node.name)
        self._definition(node, DEF, scope)
        self._returns.setdefault(node, [])
        self._parameters(node)

    def _lambda(self, node: cst.Lambda, scope: Scope) -> None:
        self._parameters(node)

    def _parameters(self, function: Union[cst.FunctionDef, cst.Lambda]) -> None:
        for parameter in self.parameters(function):
            param = parameter.node
            self._add(Binding(parameter.name, PARAMETER, function, param, function, parameter.default), param.name)

    def _class(self, node: cst.ClassDef, scope: Scope) -> None:
        self._definition(node, CLASS, scope)

    def _definition(self, node: Union[cst.FunctionDef, cst.ClassDef], kind: str, scope: Scope) -> None:
        name = node.name.value
        binding_scope = self._binding_scope(scope, name)
        binding = Binding(name, kind, binding_scope, node, node)
        if binding_scope is not scope:
            self._foreign.add(binding)
        self._add(binding, node.name)

    def _import(self, node: Union[cst.Import, cst.ImportFrom], scope: Scope) -> None:
        self._not_loads.update(walk(node))
        if isinstance(node.names, cst.ImportStar):
            return
        if type(node) is cst.ImportFrom and dotted(node.module) == "__future__":  # type: ignore[arg-type]
            self._deferred_annotations |= any(dotted(a.name) == "annotations" for a in node.names)
        for alias in node.names:
            bound = alias.asname.name if alias.asname is not None else alias.name
            while type(bound) is cst.Attribute:  # import a.b binds a
                bound = bound.value  # type: ignore[attr-defined]
            if type(bound) is cst.Name:
                binding_scope = self._binding_scope(scope, bound.value)  # type: ignore[attr-defined]
                binding = Binding(bound.value, IMPORT, binding_scope, alias, node)  # type: ignore[attr-defined]
                if binding_scope is not scope:
                    self._foreign.add(binding)
                self._add(binding, bound)

    def _declaration(self, node: Union[cst.Global, cst.Nonlocal], scope: Scope) -> None:
        kind = GLOBAL if type(node) is cst.Global else NONLOCAL
        for item in node.names:
            self._not_loads.add(item.name)
            binding = Binding(item.name.value, kind, scope, item.name, node)
            self._declared[(scope, item.name.value)] = binding
            self._by_node[item.name] = binding

    def _match_capture(self, node: Union[cst.MatchAs, cst.MatchStar, cst.MatchMapping], scope: Scope) -> None:
        name = node.rest if type(node) is cst.MatchMapping else node.name  # type: ignore[union-attr]
        if name is not None:
            self._bind_target(name, MATCH, scope, node, None)

    def _return(self, node: cst.Return, scope: Scope) -> None:
        if type(scope) is cst.FunctionDef:
            self._returns[scope].append(node)

    def _call(self, node: cst.Call, scope: Scope) -> None:
        func = node.func
        name = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else None  # type: ignore[attr-defined]
        if name is not None:
            self._calls.setdefault(name, []).append(node)

    def _attribute(self, node: cst.Attribute, scope: Scope) -> None:
        if type(node.value) is cst.Name and node not in self._by_node and node not in self._not_loads:
            self._attribute_loads.setdefault(node.attr.value, []).append(node)

    _RECORDERS = {
        cst.Assign: _assign,
        cst.AnnAssign: _ann_assign,
        cst.AugAssign: _aug_assign,
        cst.For: _for,
        cst.CompFor: _comp_for,
        cst.NamedExpr: _walrus,
        cst.WithItem: _with_item,
        cst.ExceptHandler: _except,
        cst.ExceptStarHandler: _except,
        cst.Del: _delete,
        cst.FunctionDef: _function,
        cst.Lambda: _lambda,
        cst.ClassDef: _class,
        cst.Import: _import,
        cst.ImportFrom: _import,
        cst.Global: _declaration,
        cst.Nonlocal: _declaration,
        cst.MatchAs: _match_capture,
        cst.MatchStar: _match_capture,
        cst.MatchMapping: _match_capture,
        cst.Return: _return,
        cst.Call: _call,
        cst.Attribute: _attribute,
    }

    def _rebind_nonlocals(self) -> None:
        """Move the stores of a ``nonlocal`` name to the enclosing function that owns it."""
        for (scope, name), declaration in self._declared.items():
            if declaration.kind != NONLOCAL:
                continue
            owner = self._nonlocal_owner(scope, name)
            stores = self._bindings.get(scope, {}).pop(name, [])
            if owner is None:
                continue
            for store in stores:
                moved = store._replace(scope=owner)
                self._foreign.add(moved)
                self._add(moved, *(n for n, b in list(self._by_node.items()) if b is store))

    def _nonlocal_owner(self, scope: Scope, name: str) -> Optional[Scope]:
        for outer in self._enclosing_scopes(scope):
            declared = self._declared.get((outer, name))
            if type(outer) is cst.Module or (declared is not None and declared.kind == GLOBAL):
                return None
            if declared is None and name in self._bindings.get(outer, {}):
                return outer
        return None

    # ----- scopes --------------------------------------------------------------------

    def scope_of(self, node: cst.CSTNode) -> Scope:
        """The scope ``node`` is evaluated in (a def's name, decorators and defaults: the enclosing one)."""
        return self._scope_of.get(node, self.module)

    def parent_scope(self, scope: Scope) -> Optional[Scope]:
        return None if scope is self.module else self._scope_of[scope]

    def _enclosing_scopes(self, scope: Scope) -> Iterable[Scope]:
        """The scopes a name not bound in ``scope`` is looked up in, innermost first (no class scopes)."""
        outer = self.parent_scope(scope)
        while outer is not None:
            if type(outer) is not cst.ClassDef:
                yield outer
            outer = self.parent_scope(outer)

    # ----- bindings ------------------------------------------------------------------

    def bindings(self, scope: Scope, name: Optional[str] = None) -> List[Binding]:
        """Bindings made in ``scope`` (of ``name``, or all), in source order; ``del`` included."""
        table = self._bindings.get(scope, {})
        found = table.get(name, []) if name is not None else [b for group in table.values() for b in group]
        return sorted(found, key=self._position)

    def declarations(self, scope: Scope) -> List[Binding]:
        """The ``global``/``nonlocal`` declarations of ``scope``."""
        return [b for (owner, _), b in self._declared.items() if owner is scope]

    def binding_at(self, node: cst.CSTNode) -> Optional[Binding]:
        """The binding ``node`` makes (a target ``Name``, a ``Param``, a ``def``, an ``ImportAlias``...), if any."""
        return self._by_node.get(node)

    def attribute_bindings(self, class_def: cst.ClassDef, attribute: str) -> List[Binding]:
        """What ``self.<attribute>`` may hold in ``class_def``'s methods.

        Every ``self.<attribute> = ...`` of the class's methods and of its
        same-module base classes, and the class-body bindings of
        ``<attribute>`` (a class attribute, a method, a property), in source order.
        """
        found: List[Binding] = []
        for owner in self.class_hierarchy(class_def):
            found.extend(self._attributes.get(owner, {}).get(attribute, ()))
            found.extend(b for b in self._bindings.get(owner, {}).get(attribute, ()) if b.kind not in _UNVALUED)
        return sorted(found, key=self._position)

    def bindings_anywhere(self, name: Optional[str] = None) -> List[Binding]:
        """Bindings of ``name`` (or of every name) made in any scope of the module, in source order; ``del`` included.

        For module-wide questions asked of a spelling rather than of one use
        ("is any variable called ``device`` ever set to a CPU device?"); a use
        asks :meth:`reaching`.
        """
        if name is None:
            found = [b for table in self._bindings.values() for group in table.values() for b in group]
        else:
            found = [b for table in self._bindings.values() for b in table.get(name, ())]
        return sorted(found, key=self._position)

    def attribute_stores(self, name: Optional[str] = None) -> List[Binding]:
        """Stores to the attribute spelled ``name`` (or to every attribute), module-wide, in source order.

        ``self.x = ...`` in the methods of every class (named ``self.x``, as
        in :meth:`attribute_bindings`), and stores to attributes of objects
        that no scope owns (``args.device = ...``, ``cfg.train.device = ...``,
        named by their dotted spelling; not ``f().x = ...`` or ``a[0].x = ...``).
        A ``self.x`` store's scope is its class; another object's store has the
        scope it is made in, and is no binding that :meth:`binding_at` or
        :meth:`reaching` know: no scope owns that attribute.
        """
        if self._stores_by_name is None:
            self._stores_by_name = {}
            stores = [b for table in self._attributes.values() for group in table.values() for b in group]
            for store in self._object_stores:
                spelled = dotted(store.node)
                if spelled is not None:
                    stores.append(store._replace(name=spelled))
            for store in sorted(stores, key=self._position):
                self._stores_by_name.setdefault(store.name, []).append(store)
        if name is not None:
            return list(self._stores_by_name.get(name, ()))
        return sorted((b for group in self._stores_by_name.values() for b in group), key=self._position)

    def attribute_reaching_at(self, method: cst.FunctionDef, attribute: str, node: cst.CSTNode) -> Tuple[List[Binding], bool]:
        """The stores ``method`` itself makes to ``self.<attribute>`` that may reach ``node`` (in its body), and
        whether one surely does, flow-aware as :meth:`reaching_at`.

        For "has ``__init__`` set ``self.device`` yet where this line runs?":
        a read of ``self.x`` sees every store of the class (:meth:`reaching`),
        since the other methods run in an order the module cannot show.
        """
        owner = self.method_class(method)
        stores = self._attributes.get(owner, {}).get(attribute, ()) if owner is not None else ()
        own = [b for b in stores if self._scope_of.get(b.node) is method]
        if not own:
            return [], False
        found, certain = self._flow(node, method, own)
        return sorted(dict.fromkeys(found), key=self._position), certain

    def bound_value(self, binding: Binding) -> Optional[cst.BaseExpression]:
        """The expression the bound name holds: the element of a tuple/list display at ``path``, else ``value`` when there is no path.

        Targets after a starred one pair with the tail (``*a, b = x, y, z``
        gives ``b`` the value ``z``); the starred target itself holds a new
        list of the middle elements, no one expression: None.
        """
        value = binding.value
        if binding.kind not in (ASSIGN, ANNOTATED, WALRUS, PARAMETER):
            return None  # the iterable of a loop, a context manager, an increment: not what the name holds
        if binding.starred:
            return None
        for index, target in zip(binding.path, self._target_displays(binding)):
            if type(value) not in (cst.Tuple, cst.List):
                return None
            value = _paired_element(value.elements, index, target.elements)  # type: ignore[union-attr]
            if value is None:
                return None
        return value

    def _target_displays(self, binding: Binding) -> List[Union[cst.Tuple, cst.List]]:
        """The tuple/list targets around an unpacking target, outermost first: one for each index of its ``path``."""
        displays: List[Union[cst.Tuple, cst.List]] = []
        node = self.facts.parent(binding.node) if binding.path else None
        while type(node) in (cst.Element, cst.StarredElement, cst.Tuple, cst.List):
            if type(node) in (cst.Tuple, cst.List):
                displays.append(node)  # type: ignore[arg-type]
            node = self.facts.parent(node)  # type: ignore[arg-type]
        return displays[::-1]

    def unpacked(self, binding: Binding) -> Optional[Tuple[cst.BaseExpression, Tuple[int, ...]]]:
        """What an assignment binds as far as displays tell: an expression, and the indices still to apply to it.

        ``x = v`` gives ``(v, ())``; ``a, b = x, y`` gives ``(y, ())`` for
        ``b``; ``a, b = f()`` gives ``(f(), (1,))``; ``a, (b, c) = x, f()``
        gives ``(f(), (0,))`` for ``b``. None for a binding that holds no
        expression of its own (a loop or ``with`` target, an augmented
        assignment, a parameter, an import, a definition, ``x: T``) and for
        the targets of an unpacking with a starred target (``*a, b = v``:
        positions after the star count from the end).
        """
        if binding.kind not in (ASSIGN, ANNOTATED, WALRUS) or binding.value is None or self._in_starred_unpacking(binding):
            return None
        return element_at(binding.value, binding.path)

    def _in_starred_unpacking(self, binding: Binding) -> bool:
        """A target of an unpacking where some tuple/list target around it has a starred element."""
        if binding.path and binding.starred:
            return True
        return any(type(e) is cst.StarredElement for d in self._target_displays(binding) for e in d.elements)

    def bindings_holding(self, expression: cst.BaseExpression) -> List[Binding]:
        """The assignments whose :meth:`unpacked` expression is ``expression``: ``x = e``, ``a, b = e``
        (both, each with its path), ``a, b = e, f`` (``a`` only), ``self.x = e``; in source order."""
        if self._holding is None:
            self._holding = {}
            tables = [*self._bindings.values(), *self._attributes.values()]
            for binding in sorted((b for table in tables for group in table.values() for b in group), key=self._position):
                found = self.unpacked(binding)
                if found is not None:
                    self._holding.setdefault(found[0], []).append(binding)
        return list(self._holding.get(expression, ()))

    # ----- which bindings a use sees --------------------------------------------------

    def binding_of(self, node: cst.CSTNode) -> Optional[Binding]:
        """The binding a use sees; for a binding node, the binding it makes.

        Several bindings may reach a use (``if``/``else``, loops): this is the
        last of them before the use in source order (else the last one), as
        the old "nearest binding before it" models chose. Use :meth:`reaching`
        for all of them.
        """
        made = self._by_node.get(node)
        if made is not None and made.kind not in (GLOBAL, NONLOCAL):
            return made
        return self._nearest(self.reaching(node), node)

    def binding_seen_at(self, name: str, site: cst.CSTNode) -> Optional[Binding]:
        """The binding of ``name`` that a read of it placed at ``site`` would see, chosen as :meth:`binding_of` does.

        For code that a fix writes at ``site`` (a device expression copied
        from elsewhere): it means the same there when this is the binding
        its original read sees.
        """
        return self._nearest(self.reaching_at(name, site)[0], site)

    def _nearest(self, found: List[Binding], node: cst.CSTNode) -> Optional[Binding]:
        """The last of ``found`` before ``node`` in source order, else the last one."""
        if not found:
            return None
        start = self._order.get(node, 0)
        before = [b for b in found if self._position(b) < start]
        return (before or found)[-1]

    def reaching(self, node: cst.CSTNode) -> List[Binding]:
        """The bindings that may be what ``node`` (a ``Name``, or ``self.x``) holds where it stands, in source order.

        For the target of a store (``x`` in ``x += 1``), the bindings that
        reach it before the store. Empty for a builtin or an unbound name.
        Never a ``del``, nor a ``global``/``nonlocal`` declaration.
        """
        found = self._reaching.get(node)
        if found is None:
            if type(node) is cst.Name:
                found, certain = self._name_reaching(node)  # type: ignore[arg-type]
            elif type(node) is cst.Attribute:
                found = self._attribute_reaching(node)  # type: ignore[arg-type]
                certain = bool(found)
            else:
                found, certain = [], False
            found = sorted(dict.fromkeys(found), key=self._position)
            self._reaching[node] = found
            self._surely_bound[node] = certain
        return found

    def surely_bound(self, node: cst.CSTNode) -> bool:
        """Whether a binding reaches ``node`` on every path of its scope (a parameter counts; code in a
        nested function counts any binding of the enclosing scope; a ``self.x`` any store of the class)."""
        self.reaching(node)
        return self._surely_bound.get(node, False)

    def uses(self, binding: Binding) -> List[cst.CSTNode]:
        """The loads (``Name`` nodes, or ``self.x`` attributes) that may see ``binding``.

        A binding in a class body (a method, a class attribute) is also seen
        by the ``self.x`` reads of the class's methods.
        """
        candidates: List[cst.CSTNode] = []
        if type(binding.scope) is cst.ClassDef:  # ``self.x = ...``, and a method or class attribute read as ``self.x``
            candidates += self._attribute_loads.get(binding.name.split(".", 1)[-1], ())
        if "." not in binding.name:
            candidates += self._loads.get(binding.name, ())
        return [use for use in candidates if binding in self.reaching(use)]

    def loads(self, name: str) -> List[cst.Name]:
        """Every ``Name`` spelled ``name`` that is read (not a target, attribute, keyword or definition name)."""
        return list(self._loads.get(name, ()))

    def is_load(self, node: cst.Name) -> bool:
        return node in self._loads.get(node.value, ())

    def reaching_at(self, name: str, node: cst.CSTNode) -> Tuple[List[Binding], bool]:
        """What a read of ``name`` placed at ``node`` would see: the bindings that may reach it, in source
        order, and whether one surely does (as :meth:`reaching` and :meth:`surely_bound` for a real use).

        For analyses that ask about a name no code reads there: "is ``device`` bound where this
        ``autocast(...)`` runs, and to what?"
        """
        key = (name, node)
        found = self._reaching_at.get(key)
        if found is None:
            bindings, certain = self._name_reaching(node, name)
            found = self._reaching_at[key] = (sorted(dict.fromkeys(bindings), key=self._position), certain)
        return list(found[0]), found[1]

    def _name_reaching(self, node: cst.CSTNode, name: Optional[str] = None) -> Tuple[List[Binding], bool]:
        """The bindings of ``name`` (``node``'s own, for a ``Name``) reaching ``node``, and whether one surely
        does (on every path, within its scope)."""
        name = node.value if name is None else name  # type: ignore[attr-defined]
        scope = self.scope_of(node)
        anchor: cst.CSTNode = node
        if self._deferred_annotations and self._in_annotation(node):
            local = self._bindings.get(scope, {}).get(name)
            return self._whole(local) if local else self._enclosing_bindings(name, scope)
        while True:
            declared = self._declared.get((scope, name))
            if declared is not None:
                return self._enclosing_bindings(name, scope, declared.kind == GLOBAL)
            local = self._bindings.get(scope, {}).get(name)
            if local:
                if type(scope) in COMPREHENSIONS or type(scope) is cst.Lambda:
                    return self._whole(local)
                found, certain = self._flow(anchor, scope, local)
                if type(scope) is cst.ClassDef and not certain:
                    outside, certain = self._enclosing_bindings(name, scope)
                    found += outside
                return found, certain
            outer = self.parent_scope(scope)
            runs_in_place = type(scope) in COMPREHENSIONS or type(scope) is cst.ClassDef
            if runs_in_place and outer is not None and type(outer) is not cst.ClassDef:
                anchor, scope = scope, outer  # a comprehension or class body runs where it stands: flow goes on from it
                continue
            return self._enclosing_bindings(name, scope)

    @staticmethod
    def _whole(local: List[Binding]) -> Tuple[List[Binding], bool]:
        """Every binding of a scope seen from code that may run at any time; bound when there is one."""
        found = [b for b in local if b.kind not in _UNVALUED]
        return found, bool(found)

    def _in_annotation(self, node: cst.CSTNode) -> bool:
        """``node`` is part of an annotation, which ``from __future__ import annotations`` leaves unevaluated until asked."""
        for ancestor in self.facts.ancestors(node):
            kind = type(ancestor)
            if kind is cst.Annotation:
                return True
            if kind in _SEQUENCES or kind in _COMPOUND:
                return False
        return False

    def _enclosing_bindings(self, name: str, scope: Scope, global_only: bool = False) -> Tuple[List[Binding], bool]:
        """Bindings of ``name`` in the scopes around ``scope``, as a whole (nested code runs at any time), except
        where every one of them comes before the definition that holds ``scope``: nested code runs only once
        that definition has run, and then sees the ones that reach it (a notebook that defines ``train_step``
        again before a ``train_model`` calling it: fixtures/TL401_undetached_loss_accumulation/
        ok_step_function_redefined.py)."""
        for outer in self._enclosing_scopes(scope) if not global_only else (self.module,):
            declared = self._declared.get((outer, name))
            if declared is not None and declared.kind == GLOBAL:
                outer = self.module
            local = self._bindings.get(outer, {}).get(name)
            if local:
                definition = self._definition_in(outer, scope)
                if definition is not None and all(self._position(b) < self._order[definition] for b in local):
                    found = self._flow(definition, outer, local)[0]
                    if found:
                        return self._whole(found)  # bound as surely as before: nested code runs at any time after
                return self._whole(local)
        return [], False

    def _definition_in(self, outer: Scope, scope: Scope) -> Optional[cst.CSTNode]:
        """The ``def``, ``lambda`` or ``class`` directly in ``outer`` that ``scope`` is, or is nested in."""
        current: Optional[Scope] = scope
        while current is not None and current is not outer:
            parent = self.parent_scope(current)
            if parent is outer:
                return current if current in self._order else None
            current = parent
        return None

    def _attribute_reaching(self, node: cst.Attribute) -> List[Binding]:
        receiver = node.value
        function = self._function_around(node)
        while function is not None and self.method_class(function) is None:
            function = self._function_around(function)  # a closure in a method reads the method's ``self``
        owner = self.method_class(function) if function is not None else None
        if owner is None or type(receiver) is not cst.Name or receiver.value != self._receiver_name(function):
            return []
        if self.reaching(receiver) != [self._by_node.get(self._first_parameter(function))]:
            return []  # ``self`` rebound in the method
        return self.attribute_bindings(owner, node.attr.value)

    # ----- flow within a scope ----------------------------------------------------------

    def _flow(self, anchor: cst.CSTNode, scope: Scope, local: List[Binding]) -> Tuple[List[Binding], bool]:
        """Bindings among ``local`` that reach ``anchor``, and whether one surely does (walking back from it).

        A binding made from a nested function (``global``/``nonlocal``) may
        reach any use after it in the source: the function may have run.
        """
        own = [b for b in local if b not in self._foreign]
        start = self._order[anchor]
        foreign = [b for b in local if b in self._foreign and self._position(b) < start]
        found = self._earlier_in_statement(anchor, own)
        child = anchor
        for ancestor in self.facts.ancestors(anchor):
            if ancestor is scope and type(scope) is not cst.Module:
                break
            earlier, certain = self._before(ancestor, child, own)
            found += earlier
            if certain:
                return found + foreign, True
            child = ancestor
        parameters = [b for b in own if b.kind == PARAMETER]
        return found + parameters + foreign, bool(parameters)

    def _earlier_in_statement(self, anchor: cst.CSTNode, own: List[Binding]) -> List[Binding]:
        """Walrus bindings of the statement (or compound header) holding ``anchor`` that complete before it."""
        walruses = [b for b in own if b.kind == WALRUS]
        if not walruses:
            return []
        region = anchor
        for ancestor in self.facts.ancestors(anchor):
            if type(ancestor) in _SIMPLE_LINES or type(ancestor) is cst.IndentedBlock or type(ancestor) is cst.Module:
                break
            region = ancestor
            if type(ancestor) in _COMPOUND:
                break
        start = self._order[anchor]
        return [b for b in walruses if self._inside(b.node, region) and self._end(b.statement) <= start]

    def _before(self, ancestor: cst.CSTNode, child: cst.CSTNode, own: List[Binding]) -> Tuple[List[Binding], bool]:
        """What runs in ``ancestor`` before ``child`` and may bind: its bindings, and whether one is sure."""
        kind = type(ancestor)
        if kind in _SEQUENCES:
            statements = ancestor.body  # type: ignore[attr-defined]
            index = next(i for i, s in enumerate(statements) if s is child)
            return self._sequence(statements[:index], own, reached=True)
        if kind is cst.If:
            return (self._within(ancestor.test, own, WALRUS), False) if child is not ancestor.test else ([], False)
        if kind is cst.For:
            if child is ancestor.body:
                target = self._within(ancestor.target, own)
                if target:
                    return target, True
                return self._within(ancestor.body, own) + self._within(ancestor.iter, own, WALRUS), False
            if child is ancestor.orelse:
                return self._within(ancestor, own, exclude=ancestor.orelse), False
            return [], False
        if kind is cst.While:
            if child is ancestor.orelse:
                return self._within(ancestor, own, exclude=ancestor.orelse), False
            return self._within(ancestor.body, own) + self._within(ancestor.test, own, WALRUS), False
        if kind is cst.Try or kind is cst.TryStar:
            return self._before_in_try(ancestor, child, own)
        if kind is cst.ExceptHandler or kind is cst.ExceptStarHandler or kind is cst.MatchCase:
            if child is ancestor.body:
                captured = [b for b in own if b.statement is ancestor or self._inside(b.node, ancestor, ancestor.body)]
                return captured, bool(captured) and kind is not cst.MatchCase
            return [], False
        if kind is cst.With:
            if child is ancestor.body:
                bound = self._within(ancestor, own, exclude=ancestor.body)
                return bound, any(b.kind == WITH for b in bound)
            return [], False
        return [], False

    def _before_in_try(self, statement: cst.Try, child: cst.CSTNode, own: List[Binding]) -> Tuple[List[Binding], bool]:
        if child is statement.body:
            return [], False
        if child is statement.orelse:
            return self._sequence(statement.body.body, own)
        if child is statement.finalbody:
            return self._within(statement, own, exclude=statement.finalbody), False
        return self._within(statement.body, own), False  # a handler: the body may stop anywhere

    def _sequence(
        self, statements: Iterable[cst.CSTNode], own: List[Binding], reached: bool = False
    ) -> Tuple[List[Binding], bool]:
        """The bindings that reach the end of ``statements`` (run in order), and whether one surely does.

        ``reached``: the end is where the code asked about stands. Code after a ``return`` (a debugging early exit)
        is read as if it ran, as it will once the ``return`` goes, and as the pre-screen reads every statement:
        there a use finds the bindings before the ``return``, not none."""
        statements = list(statements)
        if statements and not reached and self._exits(statements[-1]):
            return [], True  # does not fall through
        found: List[Binding] = []
        for statement in reversed(statements):
            last, certain = self._after(statement, own)
            found += last
            if certain:
                return found, True
        return found, False

    def _after(self, statement: cst.CSTNode, own: List[Binding]) -> Tuple[List[Binding], bool]:
        """The bindings of ``statement`` that reach its end, and whether it surely binds (or deletes) the name."""
        inner = [b for b in own if self._inside(b.node, statement)]
        if not inner:
            return [], False
        kind = type(statement)
        if kind in _SIMPLE_LINES or kind is cst.IndentedBlock:
            return self._sequence(statement.body, own)  # type: ignore[attr-defined]
        if kind is cst.If:
            return self._after_if(statement, own)  # type: ignore[arg-type]
        if kind is cst.Try:
            return self._after_try(statement, own)  # type: ignore[arg-type]
        if kind is cst.With:
            found, certain = self._sequence(statement.body.body, own)  # type: ignore[attr-defined]
            if certain:
                return found, True
            bound = self._within(statement, own, exclude=statement.body)  # type: ignore[attr-defined]
            return found + bound, any(b.kind == WITH for b in bound)
        if kind is cst.FunctionDef or kind is cst.ClassDef:
            return [b for b in inner if b.node is statement], True
        if kind in _COMPOUND:  # loops and match: the body may not run
            return [b for b in inner if b.kind not in _UNVALUED], False
        # a small statement: its last binding of the name, or its walrus bindings
        stores = [b for b in inner if b.kind != WALRUS]
        if stores:
            last = max(stores, key=self._position)
            return ([] if last.kind == DELETE else [last]), True
        return inner, False

    def _after_if(self, statement: cst.If, own: List[Binding]) -> Tuple[List[Binding], bool]:
        found = self._within(statement.test, own, WALRUS)
        certain = True
        branch: Optional[cst.CSTNode] = statement
        while type(branch) is cst.If:
            result, sure = self._sequence(self._statements(branch.body), own)  # type: ignore[union-attr]
            found += result
            certain = certain and sure
            branch = branch.orelse  # type: ignore[union-attr]
            if type(branch) is cst.If:
                found += self._within(branch.test, own, WALRUS)  # type: ignore[union-attr]
        if branch is None:
            return found, False
        result, sure = self._sequence(self._statements(branch.body), own)  # type: ignore[attr-defined]
        return found + result, certain and sure

    def _after_try(self, statement: cst.Try, own: List[Binding]) -> Tuple[List[Binding], bool]:
        if statement.finalbody is not None:
            final, sure = self._sequence(self._statements(statement.finalbody.body), own)
            if sure:
                return final, True
        else:
            final = []
        body = [*self._statements(statement.body)]
        if statement.orelse is not None:
            body += self._statements(statement.orelse.body)
        found, certain = self._sequence(body, own)
        for handler in statement.handlers:
            result, sure = self._sequence(self._statements(handler.body), own)
            found += result if sure else result + self._within(statement.body, own)
            certain = certain and sure
        return found + final, certain

    @staticmethod
    def _statements(suite: cst.BaseSuite) -> List[cst.CSTNode]:
        return list(suite.body) if type(suite) is cst.IndentedBlock else [suite]

    def _exits(self, statement: cst.CSTNode) -> bool:
        """A line ending in ``return``/``raise``/``break``/``continue``: what follows it in the block does not run."""
        return type(statement) in _SIMPLE_LINES and bool(statement.body) and type(statement.body[-1]) in _EXITS  # type: ignore[attr-defined]

    def _within(
        self, region: cst.CSTNode, own: List[Binding], kind: Optional[str] = None, exclude: Optional[cst.CSTNode] = None
    ) -> List[Binding]:
        return [
            b for b in own
            if self._inside(b.node, region)
            and (kind is None or b.kind == kind)
            and b.kind not in _UNVALUED
            and (exclude is None or not self._inside(b.node, exclude))
        ]

    # ----- positions ------------------------------------------------------------------

    def _position(self, binding: Binding) -> int:
        return self._order.get(binding.node, 0)

    def _end(self, node: cst.CSTNode) -> int:
        """One past the pre-order index of the last node under ``node``."""
        end = self._ends.get(node)
        if end is None:
            last = node
            below = children(last)
            while below:
                last = below[-1]
                below = children(last)
            end = self._ends[node] = self._order[last] + 1
        return end

    def _inside(self, node: cst.CSTNode, region: cst.CSTNode, exclude: Optional[cst.CSTNode] = None) -> bool:
        start = self._order.get(node, -1)
        if not self._order[region] <= start < self._end(region):
            return False
        return exclude is None or not self._order[exclude] <= start < self._end(exclude)

    def contains(self, outer: cst.CSTNode, inner: cst.CSTNode) -> bool:
        """``inner`` is ``outer`` or inside it."""
        return self._inside(inner, outer)

    def precedes(self, first: cst.CSTNode, second: cst.CSTNode) -> bool:
        """``first`` ends before ``second`` starts, in source order."""
        return self._end(first) <= self._order[second]

    # ----- functions and classes ------------------------------------------------------

    def method_class(self, function: Optional[cst.CSTNode]) -> Optional[cst.ClassDef]:
        """The class ``function`` is a method of (defined directly in its body), else None."""
        if type(function) is not cst.FunctionDef:
            return None
        owner = self._scope_of.get(function)
        return owner if type(owner) is cst.ClassDef else None  # type: ignore[return-value]

    def method_kind(self, function: cst.FunctionDef) -> Optional[str]:
        """``"static"``, ``"class"`` or ``"instance"`` for a method, None for a plain function."""
        if self.method_class(function) is None:
            return None
        decorators = {dotted(d.decorator) for d in function.decorators}
        if "staticmethod" in decorators:
            return "static"
        return "class" if "classmethod" in decorators else "instance"

    def _receiver_name(self, function: cst.FunctionDef) -> Optional[str]:
        """``self`` (or ``cls``, or whatever the first parameter of a non-static method is called)."""
        params = [*function.params.posonly_params, *function.params.params]
        return params[0].name.value if params and self.method_kind(function) in ("instance", "class") else None

    def _function_around(self, node: cst.CSTNode) -> Optional[cst.FunctionDef]:
        scope: Optional[Scope] = self.scope_of(node)
        while scope is not None and type(scope) is not cst.FunctionDef:
            if type(scope) is cst.ClassDef or type(scope) is cst.Module:
                return None
            scope = self.parent_scope(scope)
        return scope  # type: ignore[return-value]

    def method(self, class_def: cst.ClassDef, name: str) -> Optional[cst.FunctionDef]:
        """Method ``name`` of ``class_def``, defined by it or inherited from a same-module base (first found)."""
        for owner in self.class_hierarchy(class_def):
            for binding in self._bindings.get(owner, {}).get(name, ()):
                if binding.kind == DEF:
                    return binding.node  # type: ignore[return-value]
        return None

    def class_hierarchy(self, class_def: cst.ClassDef) -> List[cst.ClassDef]:
        """``class_def`` and its base classes defined in this module, depth first, each once."""
        found: List[cst.ClassDef] = []
        pending = [class_def]
        while pending:
            current = pending.pop(0)
            if current in found:
                continue
            found.append(current)
            for base in current.bases:
                if base.keyword is None:
                    pending.extend(c for c in self.resolve_callable(base.value) if type(c) is cst.ClassDef)
        return found

    def parameters(self, function: Union[cst.FunctionDef, cst.Lambda]) -> List[Parameter]:
        """Every parameter, in order: positional-only, positional, ``*args``, keyword-only, ``**kwargs``."""
        params = function.params
        listed: List[Parameter] = []
        position = 0
        for kind, group in ((POSITIONAL_ONLY, params.posonly_params), (POSITIONAL, params.params)):
            for param in group:
                listed.append(Parameter(param, param.name.value, kind, param.default, position))
                position += 1
        if isinstance(params.star_arg, cst.Param):
            listed.append(Parameter(params.star_arg, params.star_arg.name.value, VAR_POSITIONAL, None, None))
        listed.extend(Parameter(p, p.name.value, KEYWORD_ONLY, p.default, None) for p in params.kwonly_params)
        if params.star_kwarg is not None:
            listed.append(Parameter(params.star_kwarg, params.star_kwarg.name.value, VAR_KEYWORD, None, None))
        return listed

    def returns(self, function: Union[cst.FunctionDef, cst.Lambda]) -> List[cst.BaseExpression]:
        """What ``function`` returns: the values of its own ``return`` statements, or a lambda's body."""
        if type(function) is cst.Lambda:
            return [function.body]  # type: ignore[union-attr]
        return [r.value for r in self._returns.get(function, ()) if r.value is not None]  # type: ignore[arg-type]

    def return_statements(self, function: cst.FunctionDef) -> List[cst.Return]:
        """``function``'s own ``return`` statements (a bare ``return`` included; nested functions excluded)."""
        return list(self._returns.get(function, ()))

    # ----- calls ------------------------------------------------------------------------

    def argument_for(self, call: cst.Call, function: Union[cst.FunctionDef, cst.Lambda], parameter: cst.Param) -> Optional[cst.BaseExpression]:
        """The expression ``parameter`` of ``function`` receives at ``call``; its default when not passed.

        ``call`` may call ``function`` directly, through a bound method (the
        receiver fills ``self``/``cls``), a class (``__init__``), an instance
        (``__call__``), or a ``functools.partial`` (its arguments come first;
        ``partial(f, ...)`` itself binds f's parameters too). None when the
        argument cannot be told: ``*args``/``**kwargs`` in the way, a
        ``*args``/``**kwargs`` parameter, or a required parameter not passed.
        """
        listed = self.parameters(function)
        target = next((p for p in listed if p.node is parameter), None)
        if target is None or target.kind in (VAR_POSITIONAL, VAR_KEYWORD):
            return None
        arguments = self._arguments(call)
        if arguments is None:
            return None
        positional = [p for p in listed if p.position is not None]
        if self._binds_receiver(call, function):
            positional = positional[1:]
        for argument in arguments:
            if argument.keyword is not None and argument.keyword.value == target.name and target.kind != POSITIONAL_ONLY:
                return argument.value
        passed: List[cst.BaseExpression] = []
        for argument in arguments:
            if argument.star == "*":
                break
            if argument.keyword is None and not argument.star:
                passed.append(argument.value)
        index = next((i for i, p in enumerate(positional) if p.node is parameter), None)
        if index is not None and index < len(passed):
            return passed[index]
        if index is not None and any(a.star == "*" for a in arguments):
            return None
        if any(a.star == "**" for a in arguments):
            return None
        return target.default

    def _arguments(self, call: cst.Call, depth: int = 0) -> Optional[List[cst.Arg]]:
        """The arguments ``call`` passes, after those of the ``functools.partial`` it calls."""
        if self._is_partial(call):
            return list(call.args[1:])
        func = call.func
        if type(func) is cst.Name and depth < MAX_DEPTH:
            reaching = self.reaching(func)
            if len(reaching) == 1 and isinstance(reaching[0].value, cst.Call) and self._is_partial(reaching[0].value):
                partial = reaching[0].value if reaching[0].kind in (ASSIGN, ANNOTATED, WALRUS) and not reaching[0].path else None
                if partial is not None:
                    earlier = self._arguments(partial, depth + 1)
                    return None if earlier is None else earlier + list(call.args)
        return list(call.args)

    def _is_partial(self, call: cst.Call) -> bool:
        return bool(call.args) and self.facts.qualified_name(call.func) == "functools.partial"

    def _binds_receiver(self, call: cst.Call, function: Union[cst.FunctionDef, cst.Lambda]) -> bool:
        """Whether ``call`` fills the first parameter of ``function`` itself (``self``/``cls``).

        A classmethod always gets its class. An instance method gets its
        receiver through ``obj.method(...)``/``self.method(...)``/
        ``super().method(...)`` (not ``Class.method(obj, ...)``), through a
        name or ``partial`` holding such a bound method, and through a class
        call (``__init__``) or an instance call (``__call__``).
        """
        kind = self.method_kind(function) if type(function) is cst.FunctionDef else None  # type: ignore[arg-type]
        if kind in (None, "static"):
            return False
        if kind == "class":
            return True
        func = call.args[0].value if self._is_partial(call) else call.func
        bound = self._bound_method_reference(func, function, frozenset())  # type: ignore[arg-type]
        return bound if bound is not None else function.name.value in ("__init__", "__call__")  # type: ignore[union-attr]

    def _bound_method_reference(
        self, expression: cst.BaseExpression, function: cst.FunctionDef, seen: FrozenSet[cst.CSTNode]
    ) -> Optional[bool]:
        """True for ``obj.method``, False for ``Class.method``, None when ``expression`` does not spell ``function``."""
        if expression in seen or len(seen) > MAX_DEPTH:
            return None
        seen = seen | {expression}
        if type(expression) is cst.Attribute and expression.attr.value == function.name.value:  # type: ignore[attr-defined]
            return not any(type(c) is cst.ClassDef for c in self.resolve_callable(expression.value))  # type: ignore[attr-defined]
        if type(expression) is cst.Call and self._is_partial(expression):  # type: ignore[arg-type]
            return self._bound_method_reference(expression.args[0].value, function, seen)  # type: ignore[attr-defined]
        if type(expression) is cst.Name:
            values = [self.bound_value(b) for b in self.reaching(expression)]
            found = [self._bound_method_reference(v, function, seen) for v in values if v is not None]
            return next((f for f in found if f is not None), None)
        return None

    def calls_named(self, name: str) -> List[cst.Call]:
        """Every call of ``name(...)`` or ``<anything>.name(...)``, in source order."""
        return list(self._calls.get(name, ()))

    def calls_of(self, function: Union[cst.FunctionDef, cst.ClassDef]) -> List[cst.Call]:
        """The calls in this module that run ``function`` (through any of the ways :meth:`callees` follows)."""
        name = function.name.value
        candidates = list(self._calls.get(name, ()))
        owner = self.method_class(function)
        if owner is not None and name == "__init__":  # ``Model(...)``, or a subclass's construction
            for subclass in self._bindings.get(self.scope_of(owner), {}).values():
                candidates += (c for b in subclass if b.kind == CLASS for c in self._calls.get(b.name, ()))
        elif owner is not None and name == "__call__":  # an instance may be called under any name
            candidates = [c for group in self._calls.values() for c in group]
        return [call for call in dict.fromkeys(candidates) if function in self.callees(call)]

    def callees(self, call: cst.Call) -> List[Union[cst.FunctionDef, cst.Lambda]]:
        """The same-module functions ``call`` runs: a class's ``__init__``, an instance's ``__call__``, the function of a ``partial``."""
        known = self._callees.get(call)
        if known is not None:
            return known
        self._callees[call] = []  # a call reached again while resolving itself runs nothing more
        found: List[Union[cst.FunctionDef, cst.Lambda]] = []
        for target in self.resolve_callable(call.func):
            if type(target) is cst.ClassDef:
                init = self.method(target, "__init__")  # type: ignore[arg-type]
                if init is not None:
                    found.append(init)
            else:
                found.append(target)  # type: ignore[arg-type]
        found = self._callees[call] = list(dict.fromkeys(found))
        return found

    def resolve_callable(self, expression: cst.BaseExpression) -> List[Definition]:
        """The same-module definitions (``def``, ``class``, ``lambda``) that ``expression`` may evaluate to.

        Follows names to what they are bound to, ``self.method``/``cls.method``
        (own or inherited), ``Class.method``, ``instance.method``,
        ``functools.partial(f, ...)``, a factory's returned closure or lambda
        (``make_collate(device)``), an instance's ``__call__``
        (``collator = Collator(); collator``), ``self.fn = fn`` attributes,
        and parameters to the arguments this module passes them. Empty when
        unknown.
        """
        return list(self._resolve(expression))

    def _resolve(self, expression: cst.BaseExpression) -> List[Definition]:
        return self._memoized(self._resolved, expression, self._resolve_expression)

    def _memoized(self, table: Dict, key: cst.CSTNode, compute) -> List:
        """``compute(key)`` once per node. A node reached again while it is being computed (a cycle:
        ``a = b; b = a``, a function passing its parameter to itself) or past MAX_DEPTH nested steps
        gives nothing, so that resolving stays linear in the module instead of following every path."""
        known = table.get(key)
        if known is not None:
            return known
        if self._resolving > MAX_DEPTH:
            return []
        table[key] = []
        self._resolving += 1
        try:
            found = table[key] = list(dict.fromkeys(compute(key)))
        finally:
            self._resolving -= 1
        return found

    def _resolve_expression(self, expression: cst.BaseExpression) -> List[Definition]:
        kind = type(expression)
        if kind is cst.Lambda:
            return [expression]  # type: ignore[list-item]
        if kind is cst.Name or kind is cst.Attribute:
            found: List[Definition] = []
            if kind is cst.Attribute:
                found += self._resolve_method(expression)  # type: ignore[arg-type]
            for binding in self.reaching(expression):
                found += self._resolve_binding(binding)
            return list(dict.fromkeys(found))
        if kind is cst.Call:
            return self._resolve_call_result(expression)  # type: ignore[arg-type]
        return []

    def _resolve_binding(self, binding: Binding) -> List[Definition]:
        if binding.kind in (DEF, CLASS):
            return [binding.node]  # type: ignore[list-item]
        if binding.kind == PARAMETER:
            function = binding.statement
            found: List[Definition] = []
            for call in self._calls_naming(function):  # type: ignore[arg-type]
                argument = self.argument_for(call, function, binding.node)  # type: ignore[arg-type]
                if argument is not None:
                    found += self._resolve(argument)
            if binding.value is not None:
                found += self._resolve(binding.value)
            return found
        if binding.kind in (ASSIGN, ANNOTATED, WALRUS):
            value = self.bound_value(binding)
            return self._resolve(value) if value is not None else []
        return []

    def _calls_naming(self, function: Union[cst.FunctionDef, cst.Lambda]) -> List[cst.Call]:
        """Calls that run ``function`` (for a lambda: none are followed)."""
        if type(function) is not cst.FunctionDef:
            return []
        name = function.name.value  # type: ignore[union-attr]
        return [c for c in self._calls.get(name, ()) if function in self.callees(c)]

    def _resolve_method(self, attribute: cst.Attribute) -> List[Definition]:
        """``self.m``, ``cls.m``, ``Class.m``, ``instance.m``, ``super().m``: method ``m`` of the class the receiver is or holds."""
        name = attribute.attr.value
        receiver = attribute.value
        classes = [c for c in self._resolve(receiver) if type(c) is cst.ClassDef]
        classes += self._instance_classes(receiver)
        if type(receiver) is cst.Call and type(receiver.func) is cst.Name and receiver.func.value == "super":
            owner = self.method_class(self._function_around(attribute))
            classes += self.class_hierarchy(owner)[1:] if owner is not None and not self.reaching(receiver.func) else []
        methods = (self.method(c, name) for c in dict.fromkeys(classes))  # type: ignore[arg-type]
        return [m for m in methods if m is not None]

    def _resolve_call_result(self, call: cst.Call) -> List[Definition]:
        """What calling ``call.func`` returns, when that is callable: a partial's function, a factory's closure, an instance's ``__call__``."""
        if self._is_partial(call):
            return self._resolve(call.args[0].value)
        found: List[Definition] = []
        for target in self._resolve(call.func):
            if type(target) is cst.ClassDef:
                method = self.method(target, "__call__")  # type: ignore[arg-type]
                found += [method] if method is not None else []
            else:
                for returned in self.returns(target):  # type: ignore[arg-type]
                    found += self._resolve(returned)
        return found

    def instance_classes(self, expression: cst.BaseExpression) -> List[cst.ClassDef]:
        """Same-module classes ``expression`` may be an instance of: ``Model(...)`` bound to a name, ``self`` in a method."""
        return list(self._instance_classes(expression))

    def _instance_classes(self, expression: cst.BaseExpression) -> List[cst.ClassDef]:
        return self._memoized(self._instances, expression, self._expression_instances)

    def _expression_instances(self, expression: cst.BaseExpression) -> List[cst.ClassDef]:
        if type(expression) is cst.Call:
            func = expression.func  # type: ignore[attr-defined]
            if type(func) is cst.Attribute and func.attr.value in MODULE_METHODS_RETURNING_SELF:
                receivers = self._instance_classes(func.value)
                if receivers and all(self.method(c, func.attr.value) is None for c in receivers):
                    return receivers  # `Model(...).to(device)`: torch.nn.Module's own `to` returns the module
            return [c for c in self._resolve(func) if type(c) is cst.ClassDef]  # type: ignore[misc]
        if type(expression) not in (cst.Name, cst.Attribute):
            return []
        found: List[cst.ClassDef] = []
        for binding in self.reaching(expression):
            if binding.kind == PARAMETER and binding.node is self._first_parameter(binding.statement):
                owner = self.method_class(binding.statement)
                if owner is not None and self.method_kind(binding.statement) == "instance":  # type: ignore[arg-type]
                    found.append(owner)
            elif binding.kind in (ASSIGN, ANNOTATED, WALRUS):
                value = self.bound_value(binding)
                found += self._instance_classes(value) if value is not None else []
        return list(dict.fromkeys(found))

    def _first_parameter(self, function: cst.CSTNode) -> Optional[cst.Param]:
        if type(function) is not cst.FunctionDef:
            return None
        positional = [*function.params.posonly_params, *function.params.params]  # type: ignore[attr-defined]
        return positional[0] if positional else None
