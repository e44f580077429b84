"""Shapes of single nodes of CPython's tree, and closures over the call graph, that several questions share."""

from __future__ import annotations

import ast
import re
from typing import Iterator, List, Optional, Set, Tuple

from trainlint.prescreen.traversal import _nodes_of
from trainlint.prescreen.values import MODULE, last_name
from trainlint.step_words import (
    HELD_OUT_LOADER_NAME,
    HELD_OUT_SPLIT,
    NO_GRAD_WRAPPER,
    optimizer_name_match,
)

_INDEX_KEYS = frozenset({"input_ids", "labels"})


def _counter_name(target: ast.AST, iterable: ast.AST) -> Optional[str]:
    """Mirror TL302's ``_iterated_source``: the name ``range(...)`` or ``reversed(range(...))`` binds, or
    ``enumerate``'s count (no float tensor)."""
    if not isinstance(iterable, ast.Call) or not isinstance(iterable.func, ast.Name):
        return None
    if iterable.func.id == "reversed" and iterable.args:
        inner = iterable.args[0]
        ranged = isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "range"
        return _counter_name(target, inner) if ranged else None
    if iterable.func.id == "enumerate" and isinstance(target, ast.Tuple) and target.elts:
        target = target.elts[0]
    elif iterable.func.id != "range":
        return None
    return target.id if isinstance(target, ast.Name) else None


def _scope(functions: Tuple[int, ...]) -> int:
    """The scope code runs in: its innermost function, else the module."""
    return functions[-1] if functions else MODULE


def _close_over_callees(names: Set[str], functions: List[str], callees: List[Set[str]]) -> Set[str]:
    """``names`` and every name that a function so named calls, transitively."""
    found = set(names)
    changed = True
    while changed:
        reached = set().union(*(called for name, called in zip(functions, callees) if name in found))
        changed = not reached <= found
        found |= reached
    return found


def _sniff_shaped(node: ast.AST) -> bool:
    """TL202's shapes: ``"cuda" if c else "cpu"`` (either way round); an ``if`` with a branch that is one
    assignment of ``"cuda"`` or ``"cpu"`` (``_type_bound_by_branches``)."""
    if isinstance(node, ast.IfExp):
        return {_string(node.body), _string(node.orelse)} == {"cuda", "cpu"}
    branches = [node.body, node.orelse]  # type: ignore[attr-defined]
    return any(
        len(branch) == 1 and isinstance(branch[0], ast.Assign) and len(branch[0].targets) == 1 and _string(branch[0].value) in ("cuda", "cpu")
        for branch in branches
    )


def _string(node: ast.AST) -> Optional[str]:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _optimizer_receiver(receiver: ast.AST) -> "Optional[re.Match[str]]":
    """Mirror ``trainlint.analysis.calls``: a receiver whose last name reads as an optimizer or a scaler, or an item of
    a container named like them (``opts["g"]``)."""
    if isinstance(receiver, ast.Subscript):
        return optimizer_name_match(last_name(receiver.value), indexed=True)
    return optimizer_name_match(last_name(receiver))


def _names_held_out_data(iterable: ast.AST) -> bool:
    """A name in ``iterable`` that TL404 reads as a held-out loader, or a held-out split as a key (``loaders["val"]``)."""
    for node in _nodes_of(iterable):
        if isinstance(node, (ast.Name, ast.Attribute)) and HELD_OUT_LOADER_NAME.match(last_name(node)):
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and HELD_OUT_SPLIT.match(node.value):
            return True
    return False


def _in_body(loop: ast.AST, node: ast.AST) -> bool:
    """Whether ``node`` lies in ``loop``'s body (``Loops.body_nodes``, nested code included), not in its header or its
    ``else``, which start before the body and after it."""
    first, last = loop.body[0], loop.body[-1]  # type: ignore[attr-defined]
    start = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
    return (first.lineno, first.col_offset) <= start <= (last.end_lineno, last.end_col_offset)


def _callable_names(value: ast.AST) -> Set[str]:
    """What calling a name bound to ``value`` may run, by last name, as ``Names.resolve_callable`` resolves it but
    wider: the function or class a name or attribute names (``make = BatchLoader``, ``self.evaluate =
    self.validation_step``), what a ``partial`` wraps, and any other call's result: an instance, whose ``__call__``
    runs (``self.step_fn = Step(opt)``), or what a function of the callee's name returns (``self.step_fn =
    make_step(opt)`` returning its closure: ``f()`` stands for that, resolved by ``TreeFacts._may_call``); either
    arm of a conditional."""
    if isinstance(value, (ast.Name, ast.Attribute)):
        return {last_name(value)}
    if isinstance(value, ast.IfExp):
        return _callable_names(value.body) | _callable_names(value.orelse)
    if isinstance(value, ast.Call):
        if last_name(value.func) == "partial" and value.args and not isinstance(value.args[0], ast.Starred):
            return _callable_names(value.args[0])
        if isinstance(value.func, ast.Lambda):  # `(lambda: sgd_step)()`, `(lambda f=sgd_step: f)()`
            defaults = [*value.func.args.defaults, *(d for d in value.func.args.kw_defaults if d is not None)]
            return set().union(_callable_names(value.func.body), *map(_callable_names, defaults))
        if isinstance(value.func, ast.Call):  # `Factory()()`, `make(opt)()`: what the callee's result returns
            return {"__call__", *(f"{name}()" for name in _callable_names(value.func))}
        return {"__call__", f"{last_name(value.func)}()"}
    return set()


def _paired(target: ast.AST, value: ast.AST) -> Iterator[Tuple[ast.AST, ast.AST]]:
    """Each target of an assignment with a value it may receive: ``a, b = f, g`` pairs ``a`` with ``f``; with a
    starred element on either side (``a, *rest = f, g, h``), each target with every element of the display; an
    unpacking of anything but a display gives the targets nothing the analyses resolve."""
    if isinstance(target, ast.Starred):
        target = target.value
    if isinstance(target, (ast.Tuple, ast.List)):
        if isinstance(value, (ast.Tuple, ast.List)):
            values = [v.value if isinstance(v, ast.Starred) else v for v in value.elts]
            exact = len(values) == len(target.elts) and not any(isinstance(e, ast.Starred) for e in (*target.elts, *value.elts))
            for index, element in enumerate(target.elts):
                for element_value in values[index : index + 1] if exact else values:
                    yield from _paired(element, element_value)
        return
    yield target, value


def _split_names(call: ast.Call) -> Iterator[str]:
    """The last names of what ``x.split(...)`` or ``chunk(x, ...)`` may cut, as TL103's ``_split_into_batches`` reads
    them: the receiver, and every name or attribute passed (the rule's first argument is the first in source order,
    which may be a keyword: ``split(tensor=x, split_size_or_sections=n)``)."""
    if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, (ast.Name, ast.Attribute)):
        yield last_name(call.func.value)
    for argument in (*call.args, *(k.value for k in call.keywords)):
        value = argument.value if isinstance(argument, ast.Starred) else argument
        if isinstance(value, (ast.Name, ast.Attribute)):
            yield last_name(value)


def _dotted(node: ast.AST) -> str:
    """``a.b.c`` for a chain of attributes on a name, else an empty string."""
    parts: List[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    parts.append(node.id)
    return ".".join(reversed(parts))


def _names_no_grad(expression: ast.AST) -> bool:
    """Mirror ``grad_mode._wraps_no_grad``: ``torch.no_grad()``, ``smart_inference_mode()``, named so."""
    target = expression.func if isinstance(expression, ast.Call) else expression
    name = _dotted(target)
    return bool(name) and NO_GRAD_WRAPPER.search(name.rsplit(".", 1)[-1]) is not None


def _binds_self(node: ast.AST) -> bool:
    """``node`` binds the name ``self``: a store, a parameter, a ``def``/``class``/``except``/``match`` name, an import,
    a ``global``/``nonlocal`` declaration."""
    if isinstance(node, ast.Name):
        return node.id == "self" and type(node.ctx) is not ast.Load
    if isinstance(node, ast.arg):
        return node.arg == "self"
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return "self" in node.names
    return "self" in (getattr(node, "name", None), getattr(node, "asname", None), getattr(node, "rest", None))


def _class_scope(class_def: ast.ClassDef) -> List[ast.AST]:
    """The nodes of a class's own scope: its body, into ``if``/``try`` blocks, not into the functions or classes
    it defines (those are listed, their bodies not)."""
    found: List[ast.AST] = []
    pending: List[ast.AST] = list(class_def.body)
    while pending:
        node = pending.pop()
        found.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            pending.extend(ast.iter_child_nodes(node))
    found.reverse()
    return found


def _the_method(owner: ast.ClassDef, name: str) -> Optional[ast.AST]:
    """The one def named ``name`` in ``owner``'s own scope (``Names.method``), its ``if``/``try`` blocks included; None
    where there is none or more than one (which runs depends on the branch taken), or where the class body declares
    the name ``global``/``nonlocal`` (the def then binds outside the class: no method)."""
    scope = _class_scope(owner)
    if any(isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names for n in scope):
        return None
    methods = [n for n in scope if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name]
    return methods[0] if len(methods) == 1 else None


def _is_dotted(node: ast.AST) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _sets_eval_mode(call: ast.Call) -> bool:
    """``m.eval()``, or ``m.train(False)`` (any ``False`` among its arguments, to stay a superset)."""
    arguments: List[ast.AST] = [*call.args, *(k.value for k in call.keywords)]
    if call.func.attr == "eval":  # type: ignore[attr-defined]
        return not arguments
    return any(isinstance(a, ast.Constant) and a.value is False for a in arguments)


def _may_count_a_run(loop: ast.AST) -> bool:
    """Mirror TL402's ``_counts_the_run``, wider: a ``while``, or a ``for`` over any ``range(...)`` call."""
    if isinstance(loop, ast.While):
        return True
    iterated = getattr(loop, "iter", None)
    return isinstance(iterated, ast.Call) and last_name(iterated.func) == "range"


def _argument_values(call: ast.Call) -> List[ast.AST]:
    """Every argument of ``call``, positional (``*x`` as ``x``) and by keyword (``**kw`` as ``kw``): LibCST's
    ``call.args`` holds both, so a rule reading an argument by position may read a keyword."""
    return [*(a.value if isinstance(a, ast.Starred) else a for a in call.args), *(k.value for k in call.keywords)]


def _keyword_value(call: ast.Call, keyword: str) -> Optional[ast.AST]:
    """The value ``call`` passes as ``keyword=``, else None."""
    return next((k.value for k in call.keywords if k.arg == keyword), None)


def _may_add_to_itself(target: ast.AST, value: ast.AST) -> bool:
    """Mirror TL401's ``_self_addend``, wider: ``acc = acc + x``, ``acc = x + acc``, ``acc = 0.9 * acc + 0.1 * x``
    (the target compared by its dotted name; a target that is none, such as ``d[k]``, always may); not
    ``target = noise - latents``, which keeps no running sum."""
    if not isinstance(value, ast.BinOp) or not isinstance(value.op, ast.Add):
        return False
    name = _dotted(target)
    return not name or _scales(value.left, name) or _scales(value.right, name)


def _scales(term: ast.AST, name: str) -> bool:
    """``term`` is the dotted ``name`` itself, or it multiplied or divided by something (``0.9 * acc``, ``acc / 2``)."""
    if _dotted(term) == name:
        return True
    if isinstance(term, ast.BinOp) and isinstance(term.op, (ast.Mult, ast.Div)):
        return _dotted(term.left) == name or (isinstance(term.op, ast.Mult) and _dotted(term.right) == name)
    return False


def _history_targets(targets: List[ast.AST], value: ast.AST) -> List[str]:
    """The names an assignment may bind to a list (TL402's ``_local_growth`` takes no other shape): ``xs = []``, and,
    wider than TL402's pairing (``Names.bound_value`` follows nested targets into nested displays), every name of
    ``a, b = [], 0`` or ``(a, b), c = ([], []), 0`` where some element of the value, at any depth, is one."""
    names: List[str] = []
    for target in targets:
        if isinstance(target, ast.Name) and _history_shape(value) == "list":
            names.append(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) and _holds_a_list(value):
            names.extend(n.id for n in _nodes_of(target) if isinstance(n, ast.Name))
    return names


def _holds_a_list(value: ast.AST) -> bool:
    """``[]``/``list()``, or a tuple or list display holding one at any depth (starred too)."""
    if isinstance(value, ast.Starred):
        return _holds_a_list(value.value)
    if isinstance(value, (ast.Tuple, ast.List)) and value.elts:
        return any(map(_holds_a_list, value.elts))
    return _history_shape(value) == "list"


def _history_shape(value: ast.AST) -> Optional[str]:
    """Mirror TL402's ``_history_shape``: ``"list"`` for ``[]``/``list()``; ``"dict"`` for a dict of empty lists (a
    display, a comprehension, ``defaultdict(list)``); else None (``{}`` is no history)."""
    if _is_empty_list(value):
        return "list"
    if isinstance(value, ast.Dict) and value.keys and None not in value.keys and all(map(_is_empty_list, value.values)):
        return "dict"
    if isinstance(value, ast.DictComp) and _is_empty_list(value.value):
        return "dict"
    if isinstance(value, ast.Call) and _dotted(value.func).endswith("defaultdict"):
        arguments = _argument_values(value)
        if len(arguments) == 1 and isinstance(arguments[0], ast.Name) and arguments[0].id == "list":
            return "dict"
    return None


def _is_empty_list(value: ast.AST) -> bool:
    if isinstance(value, ast.List):
        return not value.elts
    return isinstance(value, ast.Call) and _dotted(value.func) == "list" and not value.args and not value.keywords


def _is_self_attribute(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _plain_root(storage: Optional[ast.AST]) -> Optional[str]:
    """The name a value is kept in when that is a plain name (``total``, ``d`` of ``d[k]``); None for an attribute."""
    while isinstance(storage, ast.Subscript):
        storage = storage.value
    return storage.id if isinstance(storage, ast.Name) else None


def _is_false(value: Optional[ast.AST]) -> bool:
    return isinstance(value, ast.Constant) and value.value is False


def _is_zero(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == 0 and not isinstance(node.value, bool)


def _is_index_key(node: object) -> bool:
    return isinstance(node, ast.Constant) and node.value in _INDEX_KEYS
