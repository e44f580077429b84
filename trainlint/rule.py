"""The base class every rule derives from, and the fix a rule proposes.

A rule is a plain object with LibCST-style ``visit_<Node>`` / ``leave_<Node>``
methods. It does not subclass a LibCST visitor: the engine dispatches every
selected rule from one traversal (see ``trainlint.engine``), which lets it
isolate a crashing rule without losing the others.

Rule identity (code, name, trigger texts) lives in the registry,
``rules/__init__.py``, so that the prefilter can decide whether a file needs
parsing at all without importing LibCST or any rule module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Dict, List, Mapping, NamedTuple, Optional, Tuple, Union

from trainlint.diagnostics import Applicability
from trainlint.rule_option import Option

if TYPE_CHECKING:
    import libcst as cst

    from trainlint.analysis import ModuleFacts


class Import(NamedTuple):
    """An import a fix needs (``import module`` or ``from module import name``)."""

    module: str
    name: Optional[str] = None


@dataclass
class CstFix:
    """A fix expressed as CST edits against the module that was linted.

    ``replacements`` maps nodes of that module (by identity) to their new
    versions. ``imports`` are added when missing; ``unused_imports`` are
    dropped when the fix leaves them unreferenced; ``helpers`` are
    module-level definitions (source text) inserted once after the imports.
    """

    message: str
    applicability: Applicability
    replacements: Dict["cst.CSTNode", Union["cst.CSTNode", "cst.RemovalSentinel", "cst.FlattenSentinel"]]
    imports: Tuple[Import, ...] = ()
    unused_imports: Tuple[Import, ...] = ()
    helpers: Tuple[str, ...] = ()


@dataclass
class Report:
    node: "cst.CSTNode"
    message: str
    fix: Optional[CstFix]


@dataclass
class RuleContext:
    facts: "ModuleFacts"
    options: Mapping[str, Any]
    reports: List[Report] = field(default_factory=list)
    path: str = ""  # the file's path as given (a notebook's ``.ipynb``), for what its name says: a file of tests


class Rule:
    """Base class of all rules.

    Subclasses set ``fix`` to the best applicability they may offer, declare
    their ``options``, write their user documentation as the class docstring
    (What it does / Why is this bad / Example / Use instead / Fix safety), and
    report findings with :meth:`report`.
    """

    code: ClassVar[str] = ""
    name: ClassVar[str] = ""
    fix: ClassVar[Applicability] = Applicability.NONE
    options: ClassVar[Mapping[str, Option]] = {}

    def __init__(self, context: RuleContext) -> None:
        self.context = context

    @property
    def facts(self) -> "ModuleFacts":
        return self.context.facts

    @property
    def path(self) -> str:
        return self.context.path

    def option(self, name: str) -> Any:
        return self.context.options[name]

    def report(self, node: "cst.CSTNode", message: str, fix: Optional[CstFix] = None) -> None:
        self.context.reports.append(Report(node, message, fix))
