"""Three small test-only rules that stand in for the real registry in the shell's tests.

The real rules are written and changed independently of the CLI, config,
discovery, report, suppression and cache code; testing that shell against
them would make its tests depend on every rule's precision. These rules are
trivial and fixed, so a test can state exactly which findings a file has:

- ``TL701 demo-cuda-autocast``: ``torch.cuda.amp.autocast(...)``, with a SAFE fix
  to ``torch.autocast("cuda", ...)``.
- ``TL702 demo-eval``: ``eval(...)`` with at least ``min-args`` arguments
  (option, default 1), no fix. The option proves options reach the rule.
- ``TL801 demo-print``: ``print(...)``, with an UNSAFE fix to ``logging.info(...)``.

``install(monkeypatch)`` swaps them in for one test; ``install_for_process()``
does it for good in a subprocess (see ``demo_site/sitecustomize.py``).
Worker processes are forked, so they inherit the swapped registry.
"""

from __future__ import annotations

from typing import Callable, Dict, Type

import libcst as cst

from trainlint import registry
from trainlint.diagnostics import Applicability
from trainlint.rule import CstFix, Import, Option, Rule
from trainlint.rules import RuleEntry


class DemoCudaAutocast(Rule):
    """## What it does
    Reports `torch.cuda.amp.autocast(...)` (test-only rule).

    ## Why is this bad
    It is deprecated.

    ## Fix safety
    Safe.
    """

    fix = Applicability.SAFE

    def visit_Call(self, node: cst.Call) -> None:
        if self.facts.qualified_name(node.func) != "torch.cuda.amp.autocast":
            return
        torch = cst.parse_expression(f"{self.facts.torch_name()}.autocast")
        new = node.with_changes(func=torch, args=[cst.Arg(cst.SimpleString('"cuda"')), *node.args])
        fix = CstFix('Use `torch.autocast("cuda", ...)`', Applicability.SAFE, {node: new}, imports=(Import("torch"),))
        self.report(node, "`torch.cuda.amp.autocast` is deprecated", fix)


class DemoEval(Rule):
    """## What it does
    Reports `eval(...)` calls with at least `min-args` arguments (test-only rule).
    """

    options = {"min-args": Option(1, "Fewest arguments reported.", check=lambda v: v > 0, requirement="a positive integer")}

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "eval" and len(node.args) >= self.option("min-args"):
            self.report(node, "Use of `eval`")


class DemoPrint(Rule):
    """## What it does
    Reports `print(...)` (test-only rule).

    ## Fix safety
    Unsafe: logging may be configured to drop the message.
    """

    fix = Applicability.UNSAFE

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "print":
            new = node.with_changes(func=cst.parse_expression("logging.info"))
            fix = CstFix("Use `logging.info`", Applicability.UNSAFE, {node: new}, imports=(Import("logging"),))
            self.report(node, "`print` found", fix)


ENTRIES = (
    RuleEntry("TL701", "demo-cuda-autocast", "demo", "DemoCudaAutocast", ("autocast",)),
    RuleEntry("TL702", "demo-eval", "demo", "DemoEval", ("eval",)),
    RuleEntry("TL801", "demo-print", "demo", "DemoPrint", ("print",)),
)
CLASSES: Dict[str, Type[Rule]] = {"TL701": DemoCudaAutocast, "TL702": DemoEval, "TL801": DemoPrint}


def load_demo_rule(code: str) -> Type[Rule]:
    entry = registry.ENTRIES_BY_CODE[code]
    cls = CLASSES[code]
    cls.code, cls.name = entry.code, entry.name
    return cls


def _swap(set_attribute: Callable, set_item: Callable, del_item: Callable) -> None:
    """Replace the registry's tables in place (other modules hold references to the dicts)."""
    for table, key in ((registry.ENTRIES_BY_CODE, "code"), (registry.ENTRIES_BY_NAME, "name")):
        for old in list(table):
            del_item(table, old)
        for entry in ENTRIES:
            set_item(table, getattr(entry, key), entry)
    set_attribute(registry, "RULES", ENTRIES)
    set_attribute(registry, "ALL_CODES", frozenset(CLASSES))
    set_attribute(registry, "load_rule", load_demo_rule)


def install(monkeypatch) -> None:
    """Use the demo rules until the test ends."""
    _swap(monkeypatch.setattr, monkeypatch.setitem, monkeypatch.delitem)


def install_for_process() -> None:
    """Use the demo rules for the rest of this process."""

    def set_item(table, key, value):
        table[key] = value

    def del_item(table, key):
        del table[key]

    _swap(setattr, set_item, del_item)
