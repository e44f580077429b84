"""The literal values an expression can hold, and the one helper that reads a string literal.

``device = "cuda" if use_gpu else "cpu"`` holds ``{"cuda", "cpu"}`` wherever
``device`` is read; so does ``args.device`` after
``parser.add_argument("--device", choices=["cuda", "cpu"])``. Rules ask here
instead of pattern-matching literals themselves, so that a name, a
conditional or a command-line option is followed the same way everywhere.
Names are followed through :class:`~trainlint.analysis.names.Names`, so only
the bindings that can reach a use count.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, FrozenSet, List, Optional, Union

import libcst as cst

from trainlint.analysis.names import ANNOTATED, ASSIGN, WALRUS, Names

if TYPE_CHECKING:
    from trainlint.analysis import ModuleFacts

Literal = Union[str, int, float, complex, bool, None]
Literals = Optional[FrozenSet[Literal]]  # None: not known to be literal

_CONSTANTS: Dict[str, Literal] = {"True": True, "False": False, "None": None}
_FLAG_ACTIONS = frozenset({"store_true", "store_false"})


def string_value(node: cst.CSTNode) -> Optional[str]:
    """The text of a string literal (implicit concatenation included); None for bytes, f-strings and the rest."""
    if type(node) is cst.SimpleString or type(node) is cst.ConcatenatedString:
        value = node.evaluated_value  # type: ignore[union-attr]  # None when an f-string takes part
        return value if isinstance(value, str) else None
    return None


class Values:
    """Literal values of expressions in one module; request it as ``facts.fact(Values)``."""

    def __init__(self, facts: "ModuleFacts") -> None:
        self.facts = facts
        self.names = facts.fact(Names)

    def literal_values(self, expression: cst.BaseExpression) -> Literals:
        """The literals (strings, numbers, booleans, None) ``expression`` can hold where it stands, else None.

        Follows names to every binding that may reach them (all of them
        literal, or the answer is None: a parameter's value comes from its
        callers), ``a if c else b``, ``a or b``/``a and b``, ``self.x``
        assigned in the class, and ``args.x`` read back from
        ``parser.add_argument("--x", choices=..., default=...)`` (its choices
        and default; a flag gives True and False; an option without choices
        may be any string, so None).
        """
        return self._values(expression, frozenset())

    def _values(self, expression: cst.BaseExpression, seen: FrozenSet[cst.CSTNode]) -> Literals:
        if expression in seen:
            return None  # a cycle: ``device = normalise(device)``
        seen = seen | {expression}
        kind = type(expression)
        text = string_value(expression)
        if text is not None:
            return frozenset({text})
        if kind is cst.Integer or kind is cst.Float or kind is cst.Imaginary:
            return frozenset({expression.evaluated_value})  # type: ignore[union-attr]
        if kind is cst.UnaryOperation and type(expression.operator) is cst.Minus:  # type: ignore[attr-defined]
            operand = self._values(expression.expression, seen)  # type: ignore[attr-defined]
            numbers = operand is not None and all(type(v) in (int, float, complex) for v in operand)
            return frozenset(-v for v in operand) if numbers else None  # type: ignore[operator,union-attr]
        if kind is cst.IfExp:
            return _union(self._values(expression.body, seen), self._values(expression.orelse, seen))  # type: ignore[attr-defined]
        if kind is cst.BooleanOperation:
            return self._boolean_values(expression, seen)  # type: ignore[arg-type]
        if kind is cst.Name and expression.value in _CONSTANTS:  # type: ignore[attr-defined]
            return frozenset({_CONSTANTS[expression.value]})  # type: ignore[attr-defined]
        if kind is cst.Name or kind is cst.Attribute:
            found = self._bound_values(expression, seen)
            if found is None and kind is cst.Attribute:
                return self._option_values(expression)  # type: ignore[arg-type]
            return found
        return None

    def _boolean_values(self, operation: cst.BooleanOperation, seen: FrozenSet[cst.CSTNode]) -> Literals:
        """``a or b`` is ``a`` when truthy, else ``b``; ``a and b`` is ``a`` when falsy, else ``b``."""
        left = self._values(operation.left, seen)
        if left is None:
            return None
        keeps_left = bool if type(operation.operator) is cst.Or else (lambda value: not value)
        kept = frozenset(v for v in left if keeps_left(v))
        if kept == left:
            return kept
        return _union(kept, self._values(operation.right, seen))

    def _bound_values(self, expression: cst.BaseExpression, seen: FrozenSet[cst.CSTNode]) -> Literals:
        bindings = self.names.reaching(expression)
        if not bindings:
            return None
        found: List[Literals] = []
        for binding in bindings:
            value = self.names.bound_value(binding) if binding.kind in (ASSIGN, ANNOTATED, WALRUS) else None
            found.append(self._values(value, seen) if value is not None else None)
        return _union(*found)

    def _option_values(self, attribute: cst.Attribute) -> Literals:
        """``args.device`` where ``args = parser.parse_args()``: what ``--device`` can be set to."""
        receiver = attribute.value
        bindings = self.names.reaching(receiver) if type(receiver) is cst.Name else []
        if not bindings or not all(_parses_arguments(self.names.bound_value(b)) for b in bindings):
            return None
        options = [c for c in self.names.calls_named("add_argument") if _destination(c) == attribute.attr.value]
        return _union(*(self._option_literals(option) for option in options)) if options else None

    def is_opt_in_flag(self, attribute: cst.BaseExpression) -> bool:
        """``args.offload_ema`` where every ``add_argument`` storing to ``offload_ema`` is a
        ``store_true`` flag with no true default: off unless the user asks for it on the command line."""
        if type(attribute) is not cst.Attribute:
            return False
        options = [c for c in self.names.calls_named("add_argument") if _destination(c) == attribute.attr.value]  # type: ignore[attr-defined]
        return bool(options) and all(_off_unless_given(option) for option in options)

    def _option_literals(self, call: cst.Call) -> Literals:
        keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        action = string_value(keywords["action"]) if "action" in keywords else None
        if action in _FLAG_ACTIONS:
            return frozenset({True, False})
        choices = keywords.get("choices")
        if type(choices) not in (cst.List, cst.Tuple, cst.Set):
            return None
        listed = [self._values(e.value, frozenset()) for e in choices.elements]  # type: ignore[union-attr]
        default = self._values(keywords["default"], frozenset()) if "default" in keywords else frozenset({None})
        return _union(*listed, default)


def _union(*parts: Literals) -> Literals:
    """Every value of every part; None when one part is not known."""
    if any(part is None for part in parts):
        return None
    return frozenset().union(*parts)  # type: ignore[arg-type]


def _off_unless_given(option: cst.Call) -> bool:
    """``add_argument("--x", action="store_true")`` without ``default=True``."""
    keywords = {a.keyword.value: a.value for a in option.args if a.keyword is not None}
    default = keywords.get("default")
    off_by_default = default is None or (type(default) is cst.Name and default.value in ("False", "None"))  # type: ignore[attr-defined]
    return string_value(keywords["action"]) == "store_true" and off_by_default if "action" in keywords else False


def _parses_arguments(value: Optional[cst.BaseExpression]) -> bool:
    """``parser.parse_args()`` (or ``parse_known_args()[0]``)."""
    if type(value) is cst.Subscript:
        value = value.value  # type: ignore[union-attr]
    func = value.func if type(value) is cst.Call else None  # type: ignore[union-attr]
    return type(func) is cst.Attribute and func.attr.value in ("parse_args", "parse_known_args")  # type: ignore[union-attr]


def _destination(call: cst.Call) -> Optional[str]:
    """The attribute ``add_argument(...)`` stores to: ``dest=``, else the first long option, else the first name."""
    flags = [string_value(a.value) for a in call.args if a.keyword is None]
    for argument in call.args:
        if argument.keyword is not None and argument.keyword.value == "dest":
            return string_value(argument.value)
    names = [f for f in flags if f is not None]
    long = [f for f in names if f.startswith("--")]
    chosen = long[0] if long else names[0] if names else None
    return chosen.lstrip("-").replace("-", "_") if chosen else None
