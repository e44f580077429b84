"""Test-only rules whose fixes are wrong in each way the fix loop must catch.

Each reports a call of a function named after it and offers a SAFE fix:

- ``TL791 broken-unparsable-fix``: ``unparsable_fix()`` becomes ``torch.class()``, code that does not parse.
- ``TL792 broken-kept-finding``: ``kept_finding(...)`` gains an argument and is still reported.
- ``TL793 broken-no-op-fix``: ``no_op_fix()`` is "replaced" by an equal node, so the text does not change.
- ``TL794 broken-ping`` / ``TL795 broken-pong``: ``ping()`` becomes ``pong()`` and back, forever.
- ``TL796 broken-to-ellipsis``: ``to_ellipsis()`` becomes ``ellipsis("…")``, right in itself, but
  a file declaring ``latin-1`` cannot hold it.

``install(monkeypatch)`` adds them to the demo rules for one test (in this process).
"""

from __future__ import annotations

from typing import Dict, Type

import libcst as cst

from trainlint import registry
from trainlint.diagnostics import Applicability
from trainlint.rule import CstFix, Rule
from trainlint.rules import RuleEntry
from tests.shell import demo_rules


class _CallRule(Rule):
    """Reports calls of ``function`` and fixes them with ``replace``."""

    fix = Applicability.SAFE
    function = ""

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == self.function:
            fix = CstFix(f"Replace `{self.function}`", Applicability.SAFE, {node: self.replace(node)})
            self.report(node, f"`{self.function}` found", fix)

    def replace(self, node: cst.Call) -> cst.CSTNode:
        raise NotImplementedError


class Unparsable(_CallRule):
    function = "unparsable_fix"

    def replace(self, node: cst.Call) -> cst.CSTNode:
        return node.with_changes(func=cst.Attribute(cst.Name("torch"), cst.Name("class")))  # a keyword: no parse


class KeepsFinding(_CallRule):
    function = "kept_finding"

    def replace(self, node: cst.Call) -> cst.CSTNode:
        return node.with_changes(args=[*node.args, cst.Arg(cst.Integer("0"))])


class NoOp(_CallRule):
    function = "no_op_fix"

    def replace(self, node: cst.Call) -> cst.CSTNode:
        return node.deep_clone()


class Ping(_CallRule):
    function = "ping"

    def replace(self, node: cst.Call) -> cst.CSTNode:
        return node.with_changes(func=cst.Name("pong"))


class Pong(_CallRule):
    function = "pong"

    def replace(self, node: cst.Call) -> cst.CSTNode:
        return node.with_changes(func=cst.Name("ping"))


class NotLatin1(_CallRule):
    function = "to_ellipsis"

    def replace(self, node: cst.Call) -> cst.CSTNode:
        return node.with_changes(func=cst.Name("ellipsis"), args=[cst.Arg(cst.SimpleString('"\u2026"'))])


CLASSES: Dict[str, Type[Rule]] = {
    "TL791": Unparsable,
    "TL792": KeepsFinding,
    "TL793": NoOp,
    "TL794": Ping,
    "TL795": Pong,
    "TL796": NotLatin1,
}
ENTRIES = tuple(
    RuleEntry(code, f"broken-{cls.function.replace('_', '-')}", "broken", cls.__name__, (cls.function,)) for code, cls in CLASSES.items()
)


def install(monkeypatch) -> None:
    demo_rules.install(monkeypatch)
    for entry in ENTRIES:
        monkeypatch.setitem(registry.ENTRIES_BY_CODE, entry.code, entry)
        monkeypatch.setitem(registry.ENTRIES_BY_NAME, entry.name, entry)
    monkeypatch.setattr(registry, "RULES", demo_rules.ENTRIES + ENTRIES)
    monkeypatch.setattr(registry, "ALL_CODES", registry.ALL_CODES | frozenset(CLASSES))
    load_demo = registry.load_rule

    def load(code: str) -> Type[Rule]:
        if code not in CLASSES:
            return load_demo(code)
        cls = CLASSES[code]
        cls.code, cls.name = code, registry.ENTRIES_BY_CODE[code].name
        return cls

    monkeypatch.setattr(registry, "load_rule", load)
