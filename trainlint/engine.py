"""Lint and fix one source text: the pipeline every entry point shares.

    text -> skip-file? -> prefilter by trigger text -> parse once
         -> one traversal dispatching every triggered rule -> positions
         -> suppressions -> diagnostics (with their fixes as text edits)

Positions are resolved only when a rule reported something: LibCST's
PositionProvider costs more than the parse itself.
"""

from __future__ import annotations

import traceback
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

from trainlint.diagnostics import Applicability, Diagnostic, Edit, FixSummary, Location, syntax_error
from trainlint.registry import ENTRIES_BY_CODE
from trainlint.suppression import is_suppressed, line_suppressions, skips_file

MAX_FIX_PASSES = 10
_ONLY_AST = 0x400  # ast.PyCF_ONLY_AST, without importing ast


@dataclass(frozen=True)
class RuleSettings:
    """What the engine needs to know about the configuration for one file."""

    codes: FrozenSet[str]
    options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # by rule code


@dataclass
class LintResult:
    diagnostics: List[Diagnostic]
    errors: List[str] = field(default_factory=list)  # internal errors: a rule crashed
    fixes: List[Any] = field(default_factory=list)  # CstFix or None, aligned with diagnostics
    spans: List[Tuple] = field(default_factory=list)  # replaced ranges per fix, for overlap checks
    module: Any = None

    @property
    def has_syntax_error(self) -> bool:
        return self.module is None and any(d.code == "TL001" for d in self.diagnostics)


@dataclass
class FixResult:
    text: str
    applied: Counter
    remaining: LintResult
    errors: List[str] = field(default_factory=list)


def triggered_codes(text: str, codes: FrozenSet[str]) -> List[str]:
    """The selected rules whose trigger text occurs: the only ones worth running."""
    return sorted(code for code in codes if any(t in text for t in ENTRIES_BY_CODE[code].triggers))


def lint_source(text: str, path: str, settings: RuleSettings) -> LintResult:
    if skips_file(text):
        return LintResult([])
    codes = triggered_codes(text, settings.codes)
    if not codes:
        # No rule needs the tree, but a syntax error must still be reported:
        # CPython's own parser is ~10x cheaper than LibCST's and imports nothing.
        if _python_syntax_error(text, path) is None:
            return LintResult([])
    import libcst as cst

    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as error:
        return LintResult([_python_syntax_error(text, path) or _libcst_syntax_error(path, error)])
    except RecursionError:
        return LintResult([syntax_error(path, 1, 1, "The file is nested too deeply to parse")])
    if not codes:  # CPython rejected what LibCST accepts (syntax newer than this interpreter)
        return LintResult([])
    return _run_rules(module, text, path, codes, settings)


def _python_syntax_error(text: str, path: str) -> Optional[Diagnostic]:
    """CPython's verdict, whose messages ("'(' was never closed") beat LibCST's."""
    try:
        compile(text, path, "exec", flags=_ONLY_AST, dont_inherit=True)
    except SyntaxError as error:
        return syntax_error(path, error.lineno or 1, error.offset or 1, f"SyntaxError: {error.msg}")
    except (ValueError, RecursionError, MemoryError):
        return None
    return None


def _libcst_syntax_error(path: str, error) -> Diagnostic:
    return syntax_error(path, error.raw_line, error.raw_column + 1, " ".join(error.message.split()))


def _run_rules(module, text: str, path: str, codes: Sequence[str], settings: RuleSettings) -> LintResult:
    from trainlint.analysis import ModuleFacts
    from trainlint.registry import load_rule
    from trainlint.rule import RuleContext

    facts = ModuleFacts(module, text)
    rules = []
    for code in codes:
        cls = load_rule(code)
        options = {name: option.default for name, option in cls.options.items()}
        options.update(settings.options.get(code, {}))
        rules.append(cls(RuleContext(facts, options)))
    dispatcher = _make_dispatcher(rules, path)
    module.visit(dispatcher)
    reports = [(rule, report) for rule in rules if rule not in dispatcher.failed for report in rule.context.reports]
    result = LintResult([], errors=list(dispatcher.failed.values()), module=module)
    if not reports:
        return result
    from libcst.metadata import MetadataWrapper, PositionProvider

    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    suppressions = line_suppressions(text)
    for rule, report in reports:
        where = positions[report.node]
        start = Location(where.start.line, where.start.column + 1)
        end = Location(where.end.line, where.end.column + 1)
        if is_suppressed(suppressions, rule.code, start.row, end.row):
            continue
        summary = None
        span: Tuple = ()
        if report.fix is not None:
            span = tuple(_span(positions, node) for node in report.fix.replacements)
            summary = _summarise_fix(module, text, report.fix)
        result.diagnostics.append(Diagnostic(path, rule.code, rule.name, report.message, start, end, summary))
        result.fixes.append(report.fix)
        result.spans.append(span)
    order = sorted(range(len(result.diagnostics)), key=lambda i: result.diagnostics[i].sort_key)
    result.diagnostics = [result.diagnostics[i] for i in order]
    result.fixes = [result.fixes[i] for i in order]
    result.spans = [result.spans[i] for i in order]
    return result


def _span(positions, node) -> Tuple[Tuple[int, int], Tuple[int, int]]:
    where = positions[node]
    return ((where.start.line, where.start.column), (where.end.line, where.end.column))


def _make_dispatcher(rules, path: str):
    """One CSTVisitor that calls every rule's ``visit_X``/``leave_X`` methods.

    A rule that raises is switched off for this file and reported as an
    internal error; the other rules and files carry on.
    """
    import libcst as cst

    visit: Dict[str, list] = defaultdict(list)
    leave: Dict[str, list] = defaultdict(list)
    for rule in rules:
        for attribute in dir(type(rule)):
            if attribute.startswith("visit_"):
                visit[attribute[6:]].append((rule, getattr(rule, attribute)))
            elif attribute.startswith("leave_"):
                leave[attribute[6:]].append((rule, getattr(rule, attribute)))

    class Dispatcher(cst.CSTVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.failed: Dict[object, str] = {}

        def _call(self, table, node) -> None:
            for rule, method in table.get(type(node).__name__, ()):
                if rule in self.failed:
                    continue
                try:
                    method(node)
                except Exception as error:  # noqa: BLE001 - isolate a broken rule
                    frame = traceback.extract_tb(error.__traceback__)[-1]
                    self.failed[rule] = (
                        f"{rule.code} ({rule.name}) crashed on {path}: {type(error).__name__}: {error} "
                        f"[{frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}]"
                    )

        def on_visit(self, node) -> bool:
            self._call(visit, node)
            return True

        def on_leave(self, original_node) -> None:
            self._call(leave, original_node)

    return Dispatcher()


def _summarise_fix(module, text: str, fix) -> FixSummary:
    """Describe a fix as the smallest line-range edit that turns ``text`` into its result."""
    from trainlint.fixes import apply_fixes

    fixed = apply_fixes(module, [fix]).code
    return FixSummary(fix.applicability, fix.message, tuple(_line_edits(text, fixed)))


def _line_edits(before: str, after: str) -> List[Edit]:
    import difflib

    old = before.splitlines(keepends=True)
    new = after.splitlines(keepends=True)
    edits = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        edits.append(Edit("".join(new[j1:j2]), Location(i1 + 1, 1), Location(i2 + 1, 1)))
    return edits


def applicable(fix, unsafe_fixes: bool) -> bool:
    return fix is not None and (fix.applicability is Applicability.SAFE or unsafe_fixes)


def fix_source(text: str, path: str, settings: RuleSettings, unsafe_fixes: bool) -> FixResult:
    """Apply fixes until none is left (a fixed point), at most MAX_FIX_PASSES passes.

    Each pass applies the fixes whose edited ranges do not overlap, then the
    result is parsed and linted again, so nested fixes land on a later pass
    instead of being dropped. The result is verified before it is returned:
    every pass must parse, and the loop must reach a fixed point (which also
    proves that each fix removed its finding and that fixing again changes
    nothing). If any check fails the original text is returned unchanged with
    an error naming the rules involved.
    """
    from trainlint.fixes import apply_fixes

    original = lint_source(text, path, settings)
    applied: Counter = Counter()
    result, current = original, text
    for _ in range(MAX_FIX_PASSES + 1):
        chosen = _non_overlapping_fixes(result, unsafe_fixes)
        if not chosen:
            return FixResult(current, applied, result, result.errors)
        candidate = apply_fixes(result.module, [fix for _, fix in chosen]).code
        codes = ", ".join(sorted({d.code for d, _ in chosen}))
        if candidate == current:
            return _failed(text, original, f"the fix for {codes} in {path} changed nothing but its finding remains")
        next_result = lint_source(candidate, path, settings)
        if next_result.has_syntax_error:
            message = next_result.diagnostics[0].message
            return _failed(text, original, f"fixing {codes} in {path} produced code that does not parse ({message})")
        applied.update(d.code for d, _ in chosen)
        current, result = candidate, next_result
    return _failed(text, original, f"fixes for {codes} in {path} did not converge after {MAX_FIX_PASSES} passes")


def _non_overlapping_fixes(result: LintResult, unsafe_fixes: bool) -> List[Tuple[Diagnostic, Any]]:
    chosen, taken = [], []
    for diagnostic, fix, span in zip(result.diagnostics, result.fixes, result.spans):
        if applicable(fix, unsafe_fixes) and not any(_overlaps(span, other) for other in taken):
            chosen.append((diagnostic, fix))
            taken.append(span)
    return chosen


def _failed(text: str, original: LintResult, problem: str) -> FixResult:
    error = f"{problem}; the file was left unchanged. This is a trainlint bug: please report it with the file."
    return FixResult(text, Counter(), original, [error] + original.errors)


def _overlaps(a: Tuple, b: Tuple) -> bool:
    return any(s1 < e2 and s2 < e1 for s1, e1 in a for s2, e2 in b)


def unified_diff(before: str, after: str, relpath: str) -> str:
    """A diff ``git apply`` accepts: ``a/`` and ``b/`` headers on the relative path."""
    import difflib

    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"a/{relpath}",
        tofile=f"b/{relpath}",
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)
