"""What a value may be, read on CPython's tree for the structural pre-screen, always wider than the analyses.

Two questions of the rules are asked here before LibCST is imported:

- *May this value carry an autograd graph?* (TL401 keeps only such values.)
  ``trainlint.analysis.graph_values.GraphValues.kind`` finds a graph only
  where one starts (a model called, a criterion, a functional loss, a value a
  backward reads, a parameter filled by callers) and follows it through
  names, calls of same-module functions, operators, containers and
  attributes. :meth:`ModuleValues.may_carry_graph` follows the same paths,
  each name to every binding its scope may see (a function's own, else the
  enclosing ones', else the module's; everywhere for a ``global`` or
  ``nonlocal`` name), and answers no only where ``kind`` surely answers None:
  ``utils.reduce_tensor(torch.tensor(x.shape[0]))`` is a library call on
  values without a graph.
- *May this switch be provably on?* (TL104 reports pinning only when
  ``Values.literal_values`` proves ``True``.) :meth:`ModuleValues.may_be_true`
  answers no for an argparse flag, a parameter or a call.

Every binding is recorded in the screen's one walk (``trainlint.prescreen.walk.TreeFacts``)
through the ``record_*`` methods; the questions are asked once the walk is done.
"""

from __future__ import annotations

import ast
import functools
import itertools
from typing import (
    Callable,
    Dict,
    FrozenSet,
    Iterable,
    Iterator,
    List,
    Optional,
    Set,
    Tuple,
)

from trainlint.prescreen.traversal import _children, _header_parts
from trainlint.step_words import (
    BACKWARD_OWNERS,
    CASTS,
    CRITERION_NAME,
    DETACHING_ATTRIBUTES,
    DETACHING_METHODS,
    FUNCTIONAL_LOSSES,
    MODEL_FACTORY,
    MODEL_NAME,
)

MODULE = -1  # the module's scope; a function's scope is its id in the walk
ATTRIBUTE = -2  # `(ATTRIBUTE, x)`: what `self.x` is assigned in a method, in `ModuleValues.may_hold`
FUNCTION = -3  # `(FUNCTION, f)`: what a function named `f` returns (or the def or class named `f` itself)
_Key = Tuple[int, str]  # (scope, name)
_Valued = Tuple[ast.AST, int]  # an expression and the scope it is evaluated in
_CONTAINERS = (ast.Tuple, ast.List, ast.Set)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp)


def target_names(target: ast.AST) -> Iterator[str]:
    """The names an assignment target binds: ``a``, ``a, (b, *c)``; not ``x.a`` or ``x[k]``."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from target_names(element)
    elif isinstance(target, ast.Starred):
        yield from target_names(target.value)


def _stored_attributes(target: ast.AST) -> Iterator[ast.Attribute]:
    """The attributes an assignment target stores: ``x.a``, each of ``x.a, (y.b, *z.c)``."""
    if isinstance(target, ast.Attribute):
        yield target
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _stored_attributes(element)
    elif isinstance(target, ast.Starred):
        yield from _stored_attributes(target.value)


def _display_elements(value: ast.AST) -> List[ast.AST]:
    """The elements of a tuple or list display, at any depth, through starred ones (none for any other value)."""
    if isinstance(value, ast.Starred):
        return [value.value, *_display_elements(value.value)]
    if isinstance(value, (ast.Tuple, ast.List)):
        return [found for element in value.elts for found in (element, *_display_elements(element))]
    return []


def _unpacked_leaves(target: ast.AST) -> List[ast.AST]:
    """The names and attributes an unpacking target binds: ``a, (self.b, *c)``."""
    if isinstance(target, ast.Starred):
        return _unpacked_leaves(target.value)
    if isinstance(target, (ast.Tuple, ast.List)):
        return [leaf for element in target.elts for leaf in _unpacked_leaves(element)]
    return [target] if isinstance(target, (ast.Name, ast.Attribute)) else []


def defaulted(arguments: ast.arguments) -> Iterator[Tuple[str, ast.AST]]:
    """Each parameter with a default, and the default: ``(b, 2)`` and ``(c, None)`` for ``def f(a, b=2, *, c=None)``
    (not ``*, d``, which has none)."""
    positional = [*arguments.posonlyargs, *arguments.args]
    yield from ((a.arg, d) for a, d in zip(positional[len(positional) - len(arguments.defaults) :], arguments.defaults))
    yield from ((a.arg, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None)


def last_name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _chain_end(node: ast.AST) -> str:
    """The last part of ``a.b.c``, a chain of attributes on a name (``dotted``'s last part); "" for anything else."""
    end = last_name(node)
    while isinstance(node, ast.Attribute):
        node = node.value
    return end if isinstance(node, ast.Name) else ""


def root_name(node: ast.AST) -> str:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


class ModuleValues:
    """The bindings of one module by scope, and the two questions asked of them (see the module docstring)."""

    def __init__(self) -> None:
        self.parents: List[int] = []  # function id -> the function around it (MODULE at top level; classes are transparent)
        self._bound: Set[_Key] = set()  # every (scope, name) some statement binds
        self._values: Dict[_Key, List[_Valued]] = {}  # assigned, augmented or walrus values
        self._iterated: Dict[_Key, List[_Valued]] = {}  # a loop's or comprehension's target: what it iterates
        self._opaque: Set[_Key] = set()  # `*args`, `self`, lambda parameters, match captures: filled from elsewhere
        self._parameters: Dict[_Key, Optional[int]] = {}  # a def's parameter -> its position (None: keyword-only)
        self._parameters_by_name: Dict[str, List[_Key]] = {}
        self._receivers: Set[_Key] = set()  # a method's first parameter (`self`, or a static method's first)
        self._calls: Dict[str, List[Tuple[ast.Call, int]]] = {}  # calls by the callee's last name, with their scope
        self._fills: Dict[str, List[_Valued]] = {}  # `name[k] = v`, `name.append(v)`: what is put into a name
        self._grown: Dict[str, List[_Valued]] = {}  # `name.append(v)`, `.extend(vs)`, `name[i].insert(j, v)`: what a list grows by
        self._shared: Set[str] = set()  # names some function declares `global` or `nonlocal`
        self._scopes_of_their_own: List[Tuple[ast.AST, int]] = []  # class bodies, lambdas, comprehensions; their scope
        self._returns: Dict[int, List[ast.AST]] = {}  # function id -> its returned and yielded values
        self._contexts: Dict[_Key, List[_Valued]] = {}  # `with v as name`: the context managers
        self._defaults: Dict[_Key, List[_Valued]] = {}  # a parameter's default values (evaluated around its def)
        self._lambda_parameters: Dict[str, List[_Key]] = {}  # a lambda's parameters with a default, by name
        self._functions: Dict[str, List[int]] = {}  # def name -> function ids
        self._methods: List[bool] = []  # function id -> a method (`Names.method_kind`: a class's scope, its `if`/`try` too)
        # function id -> directly in a class body (`graph_values._is_method`: how `_callees` picks `f()`'s and `x.f()`'s)
        self._in_class_body: List[bool] = []
        self._function_names: List[str] = []  # function id -> its name
        self._classes: Set[str] = set()
        self._imported: Set[str] = set()  # names an import binds
        self._variables: Set[str] = set()  # last names bound other than by import, def or class (`x = `, `self.x = `, params)
        # names that `Names.resolve_callable` may follow to a definition when called as `f()`: bound by an assignment,
        # as a parameter or opaquely; not by a loop, `with`, import or attribute store (`torch.backends.cudnn.benchmark`)
        self._followable_names: Set[str] = set()
        self._attribute_values: Dict[str, List[ast.AST]] = {}  # `<...>.x = v` and `x = v`, by last name: for may_be_true
        self._stored: Dict[str, List[_Valued]] = {}  # `self.x = v` in a method, by the attribute's name
        self._made_by: Dict[str, Set[str]] = {}  # last names of targets assigned a call -> the callees' last names
        self._aliases: Dict[str, str] = {}  # `import x as y`, `from m import x as y`: y -> x, known after the walk
        self._backpropagated: Set[str] = set()  # names read in a backward call: the analysis marks them
        self._chosen_options: Set[str] = set()  # destinations of options with `choices=` ("*": one not known)
        self.defines_forward = False
        self._following: Set[Tuple[str, int, str]] = set()
        self._known: Dict[Tuple[str, int, str], bool] = {}
        self._cuts = 0  # cycles cut so far: a "no" found across a cut is final only once its outermost question is
        self._unsettled: Set[Tuple[str, int, str]] = set()  # ... answered "no" too: the "no"s found across cuts meanwhile
        self._grad_free_spans: List[Tuple[Tuple[int, int], Tuple[int, int]]] = []
        self._holder_memo: Dict[Tuple[Callable[[ast.Call], bool], FrozenSet[str], bool], Set[_Key]] = {}

    # ----- recording, during the walk ------------------------------------------------------

    def record_function(self, name: str, scope: int, method: bool, in_class_body: bool) -> int:
        """A def; ``method``: in a class's own scope, its ``if``/``try`` blocks included (what fills ``self``);
        ``in_class_body``: directly in the class body (how GraphValues picks the callees of ``f()`` and ``x.f()``)."""
        index = len(self.parents)
        self.parents.append(scope)
        self._methods.append(method)
        self._in_class_body.append(in_class_body)
        self._function_names.append(name)
        self._functions.setdefault(name, []).append(index)
        self._bound.add((scope, name))
        self.defines_forward = self.defines_forward or name == "forward"
        return index

    def record_class(self, name: str, scope: int) -> None:
        self._classes.add(name)
        self._bound.add((scope, name))

    def record_class_attribute(self, targets: List[ast.AST], value: ast.AST, scope: int) -> None:
        """``x = value`` in a class body (``scope``: the one around the class): what ``self.x`` reads in the class's
        methods, as ``Names.attribute_bindings`` takes the class body's bindings with the methods' stores."""
        for target in targets:
            for name in target_names(target):
                self._stored.setdefault(name, []).append((value, scope))

    def record_imports(self, names: Iterable[str]) -> None:
        """Names an import binds: a module (``torch``, ``np``) whose functions hand their arguments on."""
        self._imported.update(names)

    def record_inert(self, name: str, scope: int) -> None:
        """An import, ``with ... as``, ``except ... as``: bound, holding nothing the analyses follow."""
        self._bound.add((scope, name))

    def record_lambda_defaults(self, arguments: ast.arguments, scope: int) -> None:
        """A lambda's defaults, evaluated in ``scope`` (around it, where its parameters are recorded): what
        ``Names.bound_value`` gives a parameter the lambda is called without (``lambda batch, data=np.load(p): ...``)."""
        for name, default in defaulted(arguments):
            self._defaults.setdefault((scope, name), []).append((default, scope))
            self._lambda_parameters.setdefault(name, []).append((scope, name))

    def record_context(self, name: str, manager: ast.AST, scope: int) -> None:
        """``with manager as name``: bound, holding what the manager's ``__enter__`` gives (TL103 reads it as the manager)."""
        self._bound.add((scope, name))
        self._contexts.setdefault((scope, name), []).append((manager, scope))

    def record_opaque(self, name: str, scope: int) -> None:
        self._bound.add((scope, name))
        self._opaque.add((scope, name))
        self._variables.add(name)
        self._followable_names.add(name)

    def record_parameters(self, function: int, arguments: ast.arguments) -> None:
        """A def's parameters: filled by its callers in this module (``_parameter_kind``); the first of a method
        (``self``), ``*args`` and ``**kwargs`` from anywhere."""
        positional = [*arguments.posonlyargs, *arguments.args]
        for position, argument in enumerate(positional):
            self._parameters[(function, argument.arg)] = position
        for argument in arguments.kwonlyargs:
            self._parameters[(function, argument.arg)] = None
        for argument in (*positional, *arguments.kwonlyargs):
            self._parameters_by_name.setdefault(argument.arg, []).append((function, argument.arg))
        for key in self._parameters.keys() & {(function, a.arg) for a in (*positional, *arguments.kwonlyargs)}:
            self._bound.add(key)
            self._variables.add(key[1])
            self._followable_names.add(key[1])
        for name, default in defaulted(arguments):
            self._defaults.setdefault((function, name), []).append((default, self.parents[function]))
        for argument in (arguments.vararg, arguments.kwarg):
            if argument is not None:
                self.record_opaque(argument.arg, function)
        if self._methods[function] and positional:  # opaque to the other questions; TL302's follows it as a parameter
            self._receivers.add((function, positional[0].arg))

    def record_call(self, call: ast.Call, scope: int) -> None:
        self._calls.setdefault(last_name(call.func), []).append((call, scope))

    def calls_named(self, name: str) -> List[ast.Call]:
        """The calls whose callee's last name is ``name``."""
        return [call for call, _ in self._calls.get(name, ())]

    def called_names(self) -> Iterable[str]:
        """The last names of every callee of the module."""
        return self._calls.keys()

    def scoped_calls_named(self, name: str) -> List[Tuple[ast.Call, int]]:
        """The same calls, each with the scope it runs in."""
        return list(self._calls.get(name, ()))

    def record_shared(self, names: Iterable[str]) -> None:
        self._shared.update(names)

    @property
    def shared_names(self) -> Set[str]:
        """The names some function declares ``global`` or ``nonlocal``."""
        return self._shared

    def record_assignment(self, targets: List[ast.AST], value: ast.AST, scope: int) -> None:
        """``targets = value`` (also augmented, annotated, walrus)."""
        for target in targets:
            names = list(target_names(target))
            for name in names:
                self._bound.add((scope, name))
                self._values.setdefault((scope, name), []).append((value, scope))
                self._variables.add(name)
                self._followable_names.add(name)
            if isinstance(target, (ast.Subscript, ast.Attribute)):
                self._variables.add(last_name(target))
                if isinstance(target, ast.Subscript):
                    self._fills.setdefault(root_name(target), []).append((value, scope))
            for stored in _stored_attributes(target):  # `self.x = v`, `self.x, self.y = v` (the whole value, wider)
                self._variables.add(stored.attr)
                if self._on_a_receiver(stored, scope):
                    self._stored.setdefault(stored.attr, []).append((value, scope))
            for name in names if isinstance(target, ast.Name) else [last_name(target)] if isinstance(target, ast.Attribute) else []:
                self._attribute_values.setdefault(name, []).append(value)
                if isinstance(value, ast.Call):
                    self._made_by.setdefault(name, set()).add(last_name(value.func))
            if isinstance(target, (ast.Tuple, ast.List)):  # `pin, workers = True, 4`: `Names.bound_value` pairs them
                elements = [value, *_display_elements(value)]  # wider: every element, at any depth, for every name
                for name in {last_name(leaf) for leaf in _unpacked_leaves(target)}:
                    self._attribute_values.setdefault(name, []).extend(elements)

    def assigned_in(self, scope: int, name: str) -> List[ast.AST]:
        """What ``name = v`` (also augmented, walrus) assigns directly in ``scope``."""
        return [value for value, _ in self._values.get((scope, name), ())]

    def bound_anywhere(self, name: str) -> List[ast.AST]:
        """What an assignment binds to ``name`` or ``<...>.name``, in any scope, unpacked targets included
        (``a, b = v`` and ``self.a, self.b = v``: the whole ``v``)."""
        stored = (value for value, _ in itertools.chain(self._values_by_name.get(name, ()), self._stored.get(name, ())))
        return [*stored, *self._attribute_values.get(name, ())]

    @functools.cached_property
    def _values_by_name(self) -> Dict[str, List[_Valued]]:
        by_name: Dict[str, List[_Valued]] = {}
        for (_, name), values in self._values.items():
            by_name.setdefault(name, []).extend(values)
        return by_name

    def record_iteration(self, target: ast.AST, iterable: ast.AST, scope: int) -> None:
        for name in target_names(target):
            self._bound.add((scope, name))
            self._iterated.setdefault((scope, name), []).append((iterable, scope))
            self._variables.add(name)

    def record_append(self, receiver: ast.AST, value: ast.AST, scope: int) -> None:
        if isinstance(receiver, ast.Name):
            self._fills.setdefault(receiver.id, []).append((value, scope))

    def record_growth(self, receiver: ast.AST, values: Iterable[ast.AST], scope: int) -> None:
        """``receiver.append(v)``, ``.extend(vs)`` or ``.insert(i, v)``, which the placement's ``_appended_trace`` reads
        as what the list ``receiver`` holds (also ``xs[i].append(v)``): kept by the name, or by the attribute's name
        (``self.xs.append(v)``), with every argument. Only ``may_hold`` reads these."""
        while isinstance(receiver, ast.Subscript):
            receiver = receiver.value
        if isinstance(receiver, ast.Name):
            self._grown.setdefault(receiver.id, []).extend((value, scope) for value in values)
        elif isinstance(receiver, ast.Attribute) and self._on_a_receiver(receiver, scope):
            self._stored.setdefault(receiver.attr, []).extend((value, scope) for value in values)

    def _on_a_receiver(self, attribute: ast.Attribute, scope: int) -> bool:
        """``self.x`` in a method (or a function nested in one): the only attributes whose stores the analyses read
        back (``Names.attribute_bindings``: a ``self.x`` read in a method holds the class's ``self.x = ...``; the
        placement and TL103 follow no other attribute to a store, ``ds.x = v`` outside the class included). Asked
        during the walk: the method's parameters are recorded before its body."""
        name = attribute.value.id if isinstance(attribute.value, ast.Name) else None
        while name is not None and scope != MODULE:
            if (scope, name) in self._receivers:
                return True
            scope = self.parents[scope]
        return False

    def record_return(self, function: int, value: ast.AST) -> None:
        self._returns.setdefault(function, []).append(value)

    def functions_named(self, name: str) -> List[int]:
        """The ids of the defs named ``name``, in any scope."""
        return self._functions.get(name, [])

    def scoped_values(self, scope: int, name: str) -> Optional[List[ast.AST]]:
        """What ``name = v`` assigns in ``scope``, where ``scope`` binds the name itself and nothing there binds it to
        a value a chain follows other than by assignment or as a parameter (:meth:`is_parameter`; a method's first
        too, which a bound call fills from its receiver and TL302's ``argument_for`` leaves unfollowed): no loop or
        comprehension target, ``*args``, match capture or lambda parameter, nor ``global``/``nonlocal``. An import,
        a ``with``/``except`` name, a def or class hold nothing TL302 follows. None where any of these is so, or where
        ``scope`` does not bind the name (it is a scope around's)."""
        key = (scope, name)
        if name in self._shared or key not in self._bound or key in self._iterated or key in self._opaque or self._own_scope_binds(key):
            return None
        return self.assigned_in(scope, name)

    def scoped_iterables(self, scope: int, name: str) -> Optional[List[ast.AST]]:
        """What ``for name in v`` iterates in ``scope`` (a comprehension's target is recorded there too), where
        ``scope`` binds the name itself and nothing there binds it but as :meth:`scoped_values` reads, or by iteration:
        no ``*args``, match capture or lambda parameter, nor ``global``/``nonlocal``. None elsewhere."""
        key = (scope, name)
        if name in self._shared or key not in self._bound or key in self._opaque or self._own_scope_binds(key):
            return None
        return [iterable for iterable, _ in self._iterated.get(key, ())]

    def _own_scope_binds(self, key: _Key) -> bool:
        """Whether a class body, lambda or comprehension of the function binds the name too (recorded in the
        function's scope, wider): the read may see the name of a scope around instead."""
        return key[0] != MODULE and self.binds_in_a_scope_of_its_own(*key)

    def is_parameter(self, scope: int, name: str) -> bool:
        return (scope, name) in self._parameters

    def returned(self, function: int) -> List[ast.AST]:
        """What ``function`` returns or yields (a bare ``return`` gives nothing)."""
        return self._returns.get(function, [])

    def record_option(self, call: ast.Call) -> None:
        """``parser.add_argument("--x", choices=..., default=...)``: ``args.x`` may read back a listed ``True``."""
        if not any(k.arg == "choices" for k in call.keywords):
            return
        dest = next((k.value for k in call.keywords if k.arg == "dest"), None)
        flags = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if dest is not None:
            chosen = dest.value if isinstance(dest, ast.Constant) and isinstance(dest.value, str) else "*"
        else:
            long = [f for f in flags if f.startswith("--")]
            chosen = (long or flags or ["*"])[0].lstrip("-").replace("-", "_")
        self._chosen_options.add(chosen)

    def record_backward(self, call: ast.Call) -> None:
        """Mirror ``GraphValues._backward_marks``, wider: the root names of what a backward call may differentiate
        (``backward_loss``; ``_differentiated_value``'s ``loss.backward(arg)``): its first positional argument, and its
        receiver (through ``scaler.scale(loss)``, any argument of ``scale``) unless the receiver is an engine named
        so that is given the loss (``fabric.backward(loss)``: ``fabric`` is no tensor); not every name it reads."""
        func = call.func
        if not isinstance(func, ast.Attribute):
            return
        positional = [argument for argument in call.args if not isinstance(argument, ast.Starred)]
        differentiated = positional[:1]
        receiver = func.value
        scaled = isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute) and receiver.func.attr == "scale"
        if func.attr == "backward" and scaled:
            differentiated += [a.value if isinstance(a, ast.Starred) else a for a in receiver.args]  # type: ignore[attr-defined]
            differentiated += [k.value for k in receiver.keywords]  # type: ignore[attr-defined]
        elif func.attr == "backward" and not (positional and BACKWARD_OWNERS.search(_chain_end(receiver))):
            differentiated.append(receiver)
        self._backpropagated.update(filter(None, map(root_name, differentiated)))

    # ----- may this value carry a graph? ---------------------------------------------------

    def is_imported(self, name: str) -> bool:
        """Some import binds ``name`` (in any scope)."""
        return name in self._imported

    def is_local(self, name: str, function: int) -> bool:
        """``name`` is bound in ``function`` itself (assigned, a parameter) and declared nowhere ``global``/``nonlocal``,
        and bound by none of its classes, lambdas and comprehensions (:meth:`binds_in_a_scope_of_its_own`)."""
        return (function, name) in self._bound and name not in self._shared and not self.binds_in_a_scope_of_its_own(function, name)

    def in_class_body(self, function: int) -> bool:
        """Whether the def is directly in a class body (``graph_values._is_method``, ``CallGraph.methods``)."""
        return self._in_class_body[function]

    def record_scope_of_its_own(self, node: ast.AST, scope: int) -> None:
        """A class body, lambda or comprehension in ``scope``: Python (and ``Names``) binds its names in a scope of its
        own, while the walk records them in ``scope`` (wider for what a name may hold)."""
        self._scopes_of_their_own.append((node, scope))

    def binds_in_a_scope_of_its_own(self, scope: int, name: str) -> bool:
        """Whether a class body, lambda or comprehension of ``scope`` may bind ``name``: then the walk's record of
        ``scope`` mixes its bindings with theirs, and a question that asks what ``scope`` itself binds leaves it."""
        return (scope, name) in self._bound_in_scopes_of_their_own

    @functools.cached_property
    def _bound_in_scopes_of_their_own(self) -> Set[_Key]:
        """Every name stored, defined, imported or taken as a parameter in those nodes' own code, by the scope around
        them: a class body's statements, its members' names and headers, not their bodies (scopes the walk keeps
        apart: reading them made this a walk of the whole module for a module of classes); listed when first asked."""
        found: Set[_Key] = set()
        for node, scope in self._scopes_of_their_own:
            pending = [node]
            while pending:
                inner = pending.pop()
                if isinstance(inner, ast.Name) and type(inner.ctx) is not ast.Load:
                    found.add((scope, inner.id))
                elif isinstance(inner, ast.arg):
                    found.add((scope, inner.arg))
                elif isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and inner is not node:
                    found.add((scope, inner.name))
                    pending.extend(_header_parts(inner))  # its body is a scope the walk keeps apart (a nested class's
                    continue  # is an entry of its own)
                elif isinstance(inner, ast.alias):
                    found.add((scope, (inner.asname or inner.name).split(".")[0]))
                pending.extend(_children(inner))
        return found

    def may_carry_graph(self, value: ast.AST, scope: int) -> bool:
        """False only where ``GraphValues.kind`` surely finds no graph for ``value`` read in ``scope``."""
        try:
            return self._carries(value, scope)
        except RecursionError:  # a sum of thousands of terms: say yes, the analyses decide
            return True

    def _carries(self, value: ast.AST, scope: int) -> bool:
        kind = type(value)
        if kind is ast.Name:
            return self._name_carries(value.id, scope)  # type: ignore[attr-defined]
        if kind is ast.Attribute:
            if value.attr in DETACHING_ATTRIBUTES:  # type: ignore[attr-defined]
                return False
            owner = value.value  # type: ignore[attr-defined]
            if value.attr == "loss" and isinstance(owner, ast.Call) and self._calls_model(owner.func):  # type: ignore[attr-defined]
                return True
            return self._carries(owner, scope)
        if kind is ast.Subscript or kind is ast.NamedExpr or kind is ast.Starred:
            return self._carries(value.value, scope)  # type: ignore[attr-defined]
        if kind in _CONTAINERS:
            return any(self._carries(e, scope) for e in value.elts)  # type: ignore[attr-defined]
        if kind is ast.Dict:
            return any(self._carries(v, scope) for v in value.values)  # type: ignore[attr-defined]
        if kind in _COMPREHENSIONS:
            return self._carries(value.elt, scope)  # type: ignore[attr-defined]
        if kind is ast.DictComp:
            return self._carries(value.value, scope)  # type: ignore[attr-defined]
        if kind is ast.IfExp:
            return self._carries(value.body, scope) or self._carries(value.orelse, scope)  # type: ignore[attr-defined]
        if self._grad_free_spans and self._runs_without_grad(value):
            return False  # `GraphValues.kind` asks this here: after names, displays and conditionals, before the rest
        if kind is ast.BinOp:
            return self._carries(value.left, scope) or self._carries(value.right, scope)  # type: ignore[attr-defined]
        if kind is ast.UnaryOp:
            return not isinstance(value.op, ast.Not) and self._carries(value.operand, scope)  # type: ignore[attr-defined]
        if kind is ast.Call:
            return self._call_carries(value, scope)  # type: ignore[arg-type]
        return False  # constants, comparisons, `a or b`, f-strings, lambdas: `kind` gives None

    def record_grad_free_spans(self, spans: List[Tuple[Tuple[int, int], Tuple[int, int]]]) -> None:
        """Where the code surely runs without grad (``TreeFacts._surely_grad_free_spans``), known after the walk."""
        self._grad_free_spans = spans

    def record_aliases(self, aliases: Dict[str, str]) -> None:
        """The names imports bind under another name (y -> x), known after the walk, which meets imports last."""
        self._aliases = aliases

    def _originals(self, name: str) -> Set[str]:
        """The name and what an import binds it to, by last name (``mse_loss`` for ``mse_loss as lossf``)."""
        return {name, self._aliases.get(name, name)}

    @functools.cached_property
    def _criteria(self) -> Set[str]:
        """Mirror ``_criterion_names``, wider: the last names of targets assigned a call of a callee whose name, or
        what its import alias stands for (``MSELoss as Mse``), ends in ``Loss``; asked once the walk is done."""
        return {name for name, makers in self._made_by.items() if any(o.endswith("Loss") for m in makers for o in self._originals(m))}

    def _runs_without_grad(self, value: ast.AST) -> bool:
        at = (value.lineno, value.col_offset)  # type: ignore[attr-defined]
        return any(start <= at <= end for start, end in self._grad_free_spans)

    def _name_carries(self, name: str, scope: int) -> bool:
        if name in self._backpropagated:
            return True
        if any(self._binding_carries(key) for key in self._seen_bindings(name, scope)):
            return True
        # what is put into the name (`_filled_with_graph`), once per name: `d[k] = torch.cat((d[k], x))` reads `d` again
        return self._memo("fills", (MODULE, name), lambda: any(self._carries(v, s) for v, s in self._fills.get(name, ())))

    def _seen_bindings(self, name: str, scope: int) -> List[_Key]:
        """The (scope, name) bindings a read of ``name`` in ``scope`` may see."""
        if name in self._shared:
            return list(self._keys_by_name.get(name, ()))
        found: List[_Key] = []
        # a binding a class body, lambda or comprehension of the scope makes is its own: look on outward as well
        while scope != MODULE and ((scope, name) not in self._bound or self.binds_in_a_scope_of_its_own(scope, name)):
            if (scope, name) in self._bound:
                found.append((scope, name))
            scope = self.parents[scope]
        return [*found, (scope, name)]

    def _binding_carries(self, key: _Key) -> bool:
        """Mirror ``_binding_kind``: a method's first parameter (``self``) too is followed as a parameter
        (:meth:`_passed_to_receiver`), not taken for a graph (one a backward reads is, by :meth:`_name_carries`).
        A ``*args``/``**kwargs`` parameter, a lambda's parameter or a match capture holds no value the rule follows
        (``_bound_value_kind`` gives None: no argument binds them, nor an assignment); only a backward marks them."""
        return self._memo("name", key, lambda: self._bound_values_carry(key))

    def _bound_values_carry(self, key: _Key) -> bool:
        if key in self._parameters and self._passed_values_carry(key):
            return True
        if any(self._carries(v, s) for v, s in self._values.get(key, ())):
            return True
        return any(self._iteration_carries(v, s) for v, s in self._iterated.get(key, ()))

    def _passed_values_carry(self, key: _Key) -> bool:
        """Mirror ``_parameter_kind``: what the module's calls of the function pass for the parameter, wider; and its
        default, which ``Names.argument_for`` gives where a call leaves the argument out. Not a ``*args`` or
        ``**kwargs`` argument, which ``argument_for`` never takes for a parameter's value (it answers None there)."""
        passed = self._passed_to_receiver(key) if key in self._receivers else self.given(key, unpacked=False)
        return passed is None or any(self._carries(v, scope) for v, scope in passed)

    def _passed_to_receiver(self, key: _Key) -> Optional[List[_Valued]]:
        """Mirror ``Names.argument_for`` for a method's first parameter, wider: a call by the method's name passes it
        as ``self=v``, or as its first positional argument unless that is ``*args`` (``C.f(obj)``; a bound call
        ``obj.f()`` passes nothing, and a ``*args``/``**kwargs`` leaves the argument untold), else its default.
        None (anything) where a call is by a plain name, ``f(...)``: ``f = partial(C.f, obj)`` passes ``obj`` first."""
        function, name = key
        passed = list(self._defaults.get(key, ()))
        for call, scope in self._calls.get(self._function_names[function], ()):
            if isinstance(call.func, ast.Name):
                return None
            passed.extend((k.value, scope) for k in call.keywords if k.arg == name)
            if call.args and not isinstance(call.args[0], ast.Starred) and not self._calls_through_super(call):
                passed.append((call.args[0], scope))
        return passed

    def _calls_through_super(self, call: ast.Call) -> bool:
        """``super().f(x)``: a bound call, whose receiver fills ``self`` (``Names._binds_receiver``: ``super()``
        resolves to no class), so ``x`` is no receiver; unless the module binds ``super`` itself."""
        func = call.func
        return (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Call)
            and isinstance(func.value.func, ast.Name)
            and func.value.func.id == "super"
            and "super" not in self._keys_by_name
        )

    def is_context(self, name: str) -> bool:
        """Whether some ``with ... as name`` binds ``name``, in any scope."""
        return any(key[1] == name for key in self._contexts)

    def parameter_sources(self, name: str) -> List[ast.AST]:
        """What the parameters called ``name`` may be given: their defaults, and what the module's calls of their
        functions pass for them (:meth:`passed`); a lambda's defaults too (``lambda ctx=autocast: ctx(...)``)."""
        given = [value for key in self._parameters_by_name.get(name, ()) for value, _ in self.given(key)]
        return given + [value for key in self._lambda_parameters.get(name, ()) for value, _ in self._defaults.get(key, ())]

    def given(self, key: _Key, unpacked: bool = True) -> Iterator[_Valued]:
        """What a parameter may be given, as ``Names.argument_for`` finds it: what the module's calls of its function
        pass for it (:meth:`passed`), and its defaults, where a call leaves it out."""
        if key in self._parameters:
            yield from self.passed(key, unpacked)
        yield from self._defaults.get(key, ())

    def context_managers(self, name: str) -> List[ast.AST]:
        """What ``with manager as name`` binds to ``name``, in any scope: the managers."""
        return [manager for (_, bound), managers in self._contexts.items() if bound == name for manager, _ in managers]

    def returns_of(self, name: str) -> List[ast.AST]:
        """What the functions called ``name`` return or yield."""
        return [value for function, values in self._returns.items() if self._function_names[function] == name for value in values]

    def parameters_named(self, name: str) -> List[Tuple[_Key, str]]:
        """Each parameter called ``name`` (by its key), with the name of the function declaring it."""
        return [(key, self._function_names[key[0]]) for key in self._parameters_by_name.get(name, ())]

    def passed(self, key: _Key, unpacked: bool = True) -> Iterator[_Valued]:
        """What the module's calls of a parameter's function pass for it, with the scope of each call: every call by
        the function's name, a method's argument at either offset (``self.f(x)`` or ``C.f(obj, x)``), any
        ``*``/``**`` argument (``unpacked=False``: only a ``**`` of a dict display, as TL302's ``argument_for``
        reads them: a ``*args`` or ``**kwargs`` in the way tells it nothing)."""
        function, name = key
        position = self._parameters[key]
        positions = set() if position is None else {position, position - 1} if self._methods[function] else {position}
        # `keep = partial(base_keep, out)` rebinding the def's name: `argument_for` puts the partial's arguments first
        for value, scope in self._values_by_name.get(self._function_names[function], ()):
            if isinstance(value, ast.Call) and self._may_be_partial(value):
                yield from ((a.value if isinstance(a, ast.Starred) else a, scope) for a in value.args[1:])
                yield from ((k.value, scope) for k in value.keywords)
        for call, scope in self._calls.get(self._function_names[function], ()):
            for k in call.keywords:
                if k.arg == name or (k.arg is None and (unpacked or isinstance(k.value, ast.Dict))):
                    yield k.value, scope
            for index, argument in enumerate(call.args):
                if isinstance(argument, ast.Starred):
                    if unpacked:
                        yield argument.value, scope
                elif index in positions:
                    yield argument, scope

    def _iteration_carries(self, iterable: ast.AST, scope: int) -> bool:
        """Mirror ``_iterated_kind``: a display's elements, ``enumerate``/``zip`` arguments, ``x.values()``/``x.items()``
        of a value with a graph, or a value with a graph itself; any other call's elements are unknown (None)."""
        if isinstance(iterable, (ast.Tuple, ast.List)):
            return any(self._carries(e, scope) for e in iterable.elts)
        if not isinstance(iterable, ast.Call):
            return self._carries(iterable, scope)
        func = iterable.func
        if isinstance(func, ast.Name) and func.id in ("enumerate", "zip"):  # LibCST's arguments: keywords too
            return any(self._iteration_carries(a, scope) for a in [*iterable.args, *(k.value for k in iterable.keywords)])
        if isinstance(func, ast.Attribute) and func.attr in ("values", "items") and not iterable.args:
            return self._carries(func.value, scope)
        return False

    def _call_carries(self, call: ast.Call, scope: int) -> bool:
        """Mirror ``_call_kind``: a method of a value with a graph; what a same-module function returns (anything,
        for a callee bound to a value, which may be a function or a model); a model, criterion or loss called; a
        library call given a value with a graph."""
        func = call.func
        if isinstance(func, ast.Attribute):
            if func.attr in DETACHING_METHODS:
                return False
            if self._carries(func.value, scope):
                return True
            if self._steps_a_closure(call) and any(map(self._returns_carry, range(len(self._function_names)))):
                return True  # `optimizer.step(closure)` returns what the closure, a def of this module, returns
        name = last_name(func)
        variables = self._followable_names if isinstance(func, ast.Name) else self._variables
        if name in variables and not self._resolves_to_nothing(func):
            held = self._functions_held_by(name)
            if held is None or any(map(self._returns_carry, held)):
                return True
        # `_callees` by name: methods for `x.f()`, other functions for `f()` (a def in a class body's `if` is none of
        # the class's: `_is_method`); then only what they return counts
        wanted_method = isinstance(func, ast.Attribute)
        named = self._functions.get(name, ())
        # `Names.method` (how the rule resolves `obj.f()` on an instance of a class it knows) also finds a def in a
        # class body's `if`/`try`, which the by-name fallback leaves out: either may run
        if wanted_method and any(self._returns_carry(f) for f in named if self._methods[f] and not self._in_class_body[f]):
            return True
        # a plain call in a class body's own code runs the def of that name in the class body (`Names` looks in the
        # class's scope first there); the walk does not tell class-body code apart, so any plain call of the name counts
        if not wanted_method and any(self._returns_carry(f) for f in named if self._in_class_body[f]):
            return True
        candidates = [f for f in named if self._in_class_body[f] == wanted_method]
        if candidates:
            return any(self._returns_carry(f) for f in candidates)
        if isinstance(func, ast.Name) and name in CASTS and name not in self._imported and name not in self._keys_by_name:
            return False
        if self._calls_model(func) or CRITERION_NAME.search(name) or name in self._criteria:
            return True
        originals = self._originals(name) if isinstance(func, ast.Name) else {name}  # the qualified name's last part
        if any(o.endswith("_loss") or o in FUNCTIONAL_LOSSES for o in originals):
            return True
        arguments = [*call.args, *(k.value for k in call.keywords)]
        return any(self._carries(a, scope) for a in arguments)

    def _functions_held_by(self, name: str) -> Optional[List[int]]:
        """Mirror ``Names.resolve_callable`` on a callee ``name`` or ``x.name`` that every binding of the name, anywhere,
        sets to a def of this module by its name or to a ``partial`` of one (``self.time_fn = timestamp``): those defs,
        whose returns are then what the call returns (or, where none resolves, ``_callees``' by-name fallback and the
        library call, which :meth:`_call_carries` asks next). None where a binding may hold anything else: a parameter,
        a loop's or a pattern's target, a call's result, a def's name rebound or shared with a class."""
        if any(k in self._parameters or k in self._opaque or k in self._iterated for k in self._keys_by_name.get(name, ())):
            return None
        stored = itertools.chain(self._values_by_name.get(name, ()), self._stored.get(name, ()))
        held: List[int] = []
        for value in itertools.chain((v for v, _ in stored), self._attribute_values.get(name, ())):
            if isinstance(value, ast.Call) and self._is_partial(value):
                value = value.args[0]
            if not isinstance(value, ast.Name) or value.id not in self._functions or value.id in self._followable_names or value.id in self._classes:
                return None
            held.extend(self._functions[value.id])
        return held

    def _is_partial(self, call: ast.Call) -> bool:
        """Mirror ``Names._is_partial``, wider: a call of ``partial`` (or ``x.partial``) with an argument, where no def,
        class or variable of this module is so named, whose own returns ``_resolve_call_result`` would follow."""
        name = last_name(call.func)
        return name == "partial" and bool(call.args) and name not in self._functions and name not in self._variables and name not in self._classes

    def _may_be_partial(self, call: ast.Call) -> bool:
        """Mirror ``Names._is_partial`` (``functools.partial`` by its qualified name), wider: a call with an argument
        whose last name, or what an import binds it to (``partial as bind``), is ``partial``, whatever else the module
        binds under that name (a parameter ``partial=False`` elsewhere). Taking more calls for partials here only adds
        arguments a parameter may be given; :meth:`_is_partial` is the narrower test where a partial is followed as
        the def it holds."""
        return bool(call.args) and "partial" in self._originals(last_name(call.func))

    def _resolves_to_nothing(self, func: ast.AST) -> bool:
        """Mirror ``Names.resolve_callable`` and ``instance_classes``, narrower: ``torch.device``, ``envs.step``, an
        attribute chain on a name that resolves to no definition of this module (:meth:`_names_nothing`), whatever
        variable shares the attribute's name (``device = torch.device(...)``, ``for step in ...``): only ``self.x``
        of a method is followed to its stores, and its ``self`` is a parameter."""
        return isinstance(func, ast.Attribute) and self._names_nothing(func, frozenset())

    def _names_nothing(self, value: ast.AST, following: FrozenSet[str]) -> bool:
        """``value`` is surely no def, class or instance of a class of this module: an attribute chain on a name that
        no def, class, parameter (``self`` too) or pattern binds, whose assigned values (``envs = gym.make(...)``)
        are such chains, calls of them (not a ``partial``) or other displays and expressions, or that only an
        import, loop, ``with`` or ``except`` binds; a name met again while its own values are read adds nothing."""
        if isinstance(value, ast.Attribute):
            return self._names_nothing(value.value, following)
        if isinstance(value, ast.Call):
            return isinstance(value.func, ast.Attribute) and value.func.attr != "partial" and self._names_nothing(value.func, following)
        if isinstance(value, (ast.Tuple, ast.List)):
            return all(self._names_nothing(e.value if isinstance(e, ast.Starred) else e, following) for e in value.elts)
        if not isinstance(value, ast.Name):
            return not isinstance(value, (ast.Lambda, ast.NamedExpr, ast.IfExp, ast.BoolOp, ast.Starred))
        name = value.id
        if name in following:
            return True
        keys = self._keys_by_name.get(name, ())
        if name in self._functions or name in self._classes or any(k in self._parameters or k in self._opaque for k in keys):
            return False
        following = following | {name}
        return all(self._names_nothing(v, following) for key in keys for v, _ in self._values.get(key, ()))

    @functools.cached_property
    def _keys_by_name(self) -> Dict[str, List[_Key]]:
        """Every (scope, name) binding, by name: asked once the walk is done."""
        found: Dict[str, List[_Key]] = {}
        for key in self._bound:
            found.setdefault(key[1], []).append(key)
        return found

    def _calls_model(self, func: ast.AST) -> bool:
        """Mirror ``_is_model_call``, wider (an imported callee named like a model counts)."""
        name = last_name(func)
        if isinstance(func, ast.Name) and name == "self":
            return self.defines_forward
        return bool(MODEL_NAME.search(name)) and not MODEL_FACTORY.search(name)

    @staticmethod
    def _steps_a_closure(call: ast.Call) -> bool:
        """Mirror ``_step_closure``: ``x.step(f)`` or ``x.step(closure=f)``, one argument (``**kw`` too)."""
        keywords = [k.arg for k in call.keywords]
        return last_name(call.func) == "step" and len(call.args) + len(keywords) == 1 and keywords in ([], [None], ["closure"])

    def _returns_carry(self, function: int) -> bool:
        return self._memo("returns", (function, ""), lambda: any(self._carries(v, function) for v in self._returns.get(function, ())))

    def _memo(self, what: str, key: _Key, compute) -> bool:
        """``compute()`` once per key; a key met again while it is computed (a cycle) adds nothing.

        Every question is an "any" over the questions it reaches, so answering the outermost one is a search for a
        "yes" reachable from it, and a key answered once needs no second visit within it: a "yes" beyond a cut is
        found by the question still open at the cut. A "no" found across a cut is so kept until the outermost
        question is answered, and for good if that answer is "no" too (then no "yes" is reachable from anything asked
        meanwhile); a "yes" discards them. Asked again instead, the questions of a module whose functions pass their
        parameters around in cycles took exponential time: minutes for one Lightning test file, 15 s for yolov5's
        ``train.py``."""
        memo_key = (what, *key)
        if memo_key in self._known:
            return self._known[memo_key]
        if memo_key in self._following or memo_key in self._unsettled:
            self._cuts += 1  # a "no" that rests on an open or unsettled question is unsettled itself
            return False
        cuts = self._cuts
        self._following.add(memo_key)
        try:
            result = compute()
        finally:
            self._following.discard(memo_key)
        if result or self._cuts == cuts:
            self._known[memo_key] = result
        else:
            self._unsettled.add(memo_key)
        if not self._following:  # the outermost question: its answer settles what it left unsettled
            if not result:
                self._known.update(dict.fromkeys(self._unsettled, False))
            self._unsettled.clear()
        return result

    # ----- may this value hold what a source made? --------------------------------------------

    def may_hold(
        self,
        value: ast.AST,
        scope: int,
        is_source: Callable[[ast.Call], bool],
        definitions: FrozenSet[str] = frozenset(),
        attributes: bool = True,
    ) -> bool:
        """False only where nothing in ``value`` (read in ``scope``) can hold what an ``is_source`` call made, followed
        as TL103's ``_whole_read`` and the placement's ``trace`` follow it but wider: every subexpression; every
        binding a name may see (assigned, augmented, iterated, a ``with`` manager, a parameter's default, what the
        module's calls of its function pass, ``name[k] = v``, ``name.append(v)``, ``name.extend(vs)``); an attribute
        by its name, as any method stores it on ``self`` (``self.x = v``, ``self.xs.append(v)``); every same-module
        function of a callee's last name (what it returns); and ``definitions``, the defs and classes that the caller
        says hold a source (TL101's: the classes some method of which returns one). Without ``attributes``, no value
        reaches an attribute (TL103's ``_whole_read`` follows none to what was stored on it)."""
        holders = self.holders(is_source, definitions, attributes)
        reads, calls = self._scoped_reads(value, scope)
        return any(map(is_source, calls)) or not holders.isdisjoint(reads)

    def holders(self, is_source: Callable[[ast.Call], bool], definitions: FrozenSet[str], attributes: bool = True) -> Set[_Key]:
        """What may hold a source's value: ``(scope, name)`` bindings, ``(ATTRIBUTE, name)`` (only with
        ``attributes``) and ``(FUNCTION, name)`` (what a function of that name returns, or the def or class itself),
        spread from the sources along the reads of every binding."""
        memo_key = (is_source, definitions, attributes)
        found = self._holder_memo.get(memo_key)
        if found is not None:
            return found
        holders: Set[_Key] = {(FUNCTION, name) for name in definitions}
        holders.update(target for target, _, calls in self._bound_reads if any(map(is_source, calls)))
        if not attributes:
            holders = {key for key in holders if key[0] != ATTRIBUTE}
        pending = list(holders)
        while pending:
            for target in self._readers.get(pending.pop(), ()):
                if target not in holders and (attributes or target[0] != ATTRIBUTE):
                    holders.add(target)
                    pending.append(target)
        self._holder_memo[memo_key] = holders
        return holders

    @functools.cached_property
    def _bound_reads(self) -> List[Tuple[_Key, Set[_Key], List[ast.Call]]]:
        """Every binding with what its value reads and calls (asked once the walk is done; shared by every question)."""
        return [(target, *self._scoped_reads(value, scope)) for target, value, scope in self._bound_values()]

    @functools.cached_property
    def _readers(self) -> Dict[_Key, List[_Key]]:
        """What each read may flow into: the bindings whose values read it."""
        readers: Dict[_Key, List[_Key]] = {}
        for target, reads, _ in self._bound_reads:
            for read in reads:
                readers.setdefault(read, []).append(target)
        return readers

    def _bound_values(self) -> Iterator[Tuple[_Key, ast.AST, int]]:
        """Every (what is bound, its value, the scope the value is read in)."""
        for named in (self._values, self._iterated, self._contexts, self._defaults):
            for key, values in named.items():
                yield from ((key, value, scope) for value, scope in values)
        for name, values in itertools.chain(self._fills.items(), self._grown.items()):
            for value, scope in values:
                yield from ((key, value, scope) for key in self._seen_bindings(name, scope))
        for name, values in self._stored.items():
            yield from (((ATTRIBUTE, name), value, scope) for value, scope in values)
        for key in self._parameters:
            yield from ((key, value, scope) for value, scope in self.passed(key))
        for function, values in self._returns.items():
            yield from (((FUNCTION, self._function_names[function]), value, function) for value in values)

    def _scoped_reads(self, value: ast.AST, scope: int) -> Tuple[Set[_Key], List[ast.Call]]:
        """What ``value`` read in ``scope`` reads (the bindings of its names, a def or class a name may refer to, its
        attributes by name, as stored or as methods, its callees by last name), and the calls whose result it may be.

        A method of a value returns what it makes of its receiver (``df.to_numpy()``, ``ds.map(fn)``): its arguments
        are not read, as neither TL103's ``_call_read`` nor the placement's ``trace`` follows them; ``x.to(t.device)``'s
        are (the placement follows ``t``), and so are those of a method whose name some binding may give another
        function (``self.fn = pick``: the analyses resolve ``self.fn(x)`` to ``pick``, whose parameter the call fills,
        which ``passed`` does not find by the name ``fn``). A plain call's and a module function's
        (``torch.cat(xs)``, ``data.TensorDataset(x)``) are."""
        reads: Set[_Key] = set()
        calls: List[ast.Call] = []
        stack = [value]
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind is ast.Name:
                reads.update(self._seen_bindings(node.id, scope))  # type: ignore[attr-defined]
                reads.add((FUNCTION, node.id))  # type: ignore[attr-defined]
                continue
            if kind is ast.Attribute:  # what is stored under its name, or a bound method (`self._collate`)
                reads.update(((ATTRIBUTE, node.attr), (FUNCTION, node.attr)))  # type: ignore[attr-defined]
                stack.append(node.value)  # type: ignore[attr-defined]
                continue
            if kind is ast.Call:
                calls.append(node)  # type: ignore[arg-type]
                func = node.func  # type: ignore[attr-defined]
                reads.add((FUNCTION, last_name(func)))
                stack.append(func)
                # a method's arguments are not followed, but for `.to(...)`, a function of an import, a callable held by
                # an attribute, and a class of this module (`self.Windows(rows)` on a class nested in the class)
                if (
                    isinstance(func, ast.Attribute) and func.attr != "to" and root_name(func) not in self._imported
                    and func.attr not in self._variables and func.attr not in self._classes
                ):
                    continue
                stack.extend(node.args)  # type: ignore[attr-defined]
                stack.extend(keyword.value for keyword in node.keywords)  # type: ignore[attr-defined]
                continue
            stack.extend(ast.iter_child_nodes(node))
        return reads, calls

    # ----- may this switch be provably on? ---------------------------------------------------

    def may_be_true(self, value: ast.AST) -> bool:
        """False only where ``Values.literal_values`` cannot find ``True`` alone: a flag, a parameter, a call."""
        try:
            return self._true(value, set())
        except RecursionError:
            return True

    def _true(self, value: ast.AST, following: Set[str]) -> bool:
        if isinstance(value, ast.Constant):
            return value.value is True
        if isinstance(value, ast.IfExp):
            return self._true(value.body, following) and self._true(value.orelse, following)
        if isinstance(value, ast.BoolOp):
            return any(self._true(v, following) for v in value.values)
        if isinstance(value, ast.Attribute) and ({value.attr, "*"} & self._chosen_options):
            return True  # `args.x` read back from `add_argument("--x", choices=..., default=...)`
        if isinstance(value, (ast.Name, ast.Attribute)):
            name = last_name(value)
            if name in following:
                return False
            following = following | {name}
            return any(self._true(v, following) for v in self._attribute_values.get(name, ()))
        return False
