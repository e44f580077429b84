"""Lint and fix one source text: the pipeline every entry point shares.

    text -> skip-file? -> prefilter by trigger text -> parse once
         -> one traversal dispatching every triggered rule -> positions
         -> suppressions -> diagnostics (with their fixes as text edits)

Positions are resolved only when a rule reported something, and then only in
the top-level statements that hold the reported nodes (node_positions.py):
LibCST's PositionProvider over the whole module costs as much as the parse.
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

from trainlint.diagnostics import Applicability, Diagnostic, Edit, FixSummary, Location, syntax_error
from trainlint.prefilter import triggered_codes
from trainlint.suppression import is_suppressed, line_suppressions, skips_file

if TYPE_CHECKING:
    from trainlint.incremental_parse import IncrementalParser

MAX_FIX_PASSES = 10
_ONLY_AST = 0x400  # ast.PyCF_ONLY_AST, without importing ast
# CPython 3.11's parser refuses a sum of ~3000 terms (RecursionError); 3.10's accepts it, and LibCST then hangs
# for minutes (tests/reliability/test_bad_input.py). On 3.10 trainlint refuses what 3.11 would.
_BEFORE_3_11 = sys.version_info < (3, 11)
_PARSER_DEPTH = 2500


@dataclass(frozen=True)
class RuleSettings:
    """What the engine needs to know about the configuration for one file."""

    codes: FrozenSet[str]
    options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # by rule code
    # Render each fix as text edits (for JSON output and the full format)? Generating
    # the fixed code once per finding costs more than linting a typical script.
    describe_fixes: bool = True


class LintCancelled(Exception):
    """Raised by ``lint_source`` when its ``cancelled`` callback says the result is no longer wanted."""


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
    found: List[Diagnostic] = field(default_factory=list)  # the findings of the original text
    texts: List[str] = field(default_factory=list)  # the text before each applied pass, then the result


def lint_source(
    text: str,
    path: str,
    settings: RuleSettings,
    *,
    screen: bool = True,
    cancelled: Optional[Callable[[], bool]] = None,
    parser: Optional["IncrementalParser"] = None,
) -> LintResult:
    """Lint one source text. ``screen=False`` bypasses the structural pre-screen (to show it changes nothing).

    ``cancelled`` is asked before the LibCST parse and before each node the rules visit (the language
    server's lint of a version the editor has replaced); once it says yes, LintCancelled is raised.
    ``parser`` parses the text in place of ``libcst.parse_module``, to the same module: the language
    server's parser of one document, which parses again only the statements an edit changed.
    """
    if skips_file(text):
        return LintResult([])
    plan = plan_parse(text, path, settings.codes, screen=screen)
    tree, python_error, codes = plan.tree, plan.python_error, plan.codes
    if not plan.needs_libcst:
        return LintResult([python_error] if python_error else [])
    _check(cancelled)
    import libcst as cst

    try:
        module = cst.parse_module(text) if parser is None else parser.parse(text, tree)
    except cst.ParserSyntaxError as error:
        return LintResult([python_error or _libcst_syntax_error(path, error)])
    except RecursionError:
        return LintResult([syntax_error(path, 1, 1, "The file is nested too deeply to parse")])
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:  # noqa: BLE001 - LibCST's own bugs; a Rust panic is a BaseException
        return LintResult([], errors=[_parser_failure(path, error)])
    if not codes:  # CPython rejected what LibCST accepts (syntax newer than this interpreter)
        return LintResult([])
    try:
        indexes = None if parser is None else parser.indexes
        return _run_rules(module, text, path, codes, settings, cancelled, tree, indexes)
    except RecursionError:  # valid but very deep code (a sum of thousands of terms): the tree walk ran out of stack
        return LintResult([], errors=[f"{path}: the code is nested too deeply to analyse; it was not checked"])


@dataclass(frozen=True)
class ParsePlan:
    """What the cheap stages decided about one text, before LibCST is imported or run."""

    tree: Any  # CPython's tree, None where the text does not compile
    python_error: Optional[Diagnostic]
    beyond_limits: bool  # too deep for a parser: never given to LibCST
    codes: Sequence[str]  # the rules that may report here, after the text prefilter and the structural pre-screen

    @property
    def needs_libcst(self) -> bool:
        """Whether LibCST parses the text: some rule may report, or CPython refused code LibCST may accept."""
        return not self.beyond_limits and (self.python_error is not None or bool(self.codes))


def plan_parse(text: str, path: str, codes: FrozenSet[str], *, screen: bool = True) -> ParsePlan:
    """Run the stages that decide whether a text is worth LibCST's parse (issue 19's question, per file).

    CPython's verdict comes first: its parser is ~10x cheaper than LibCST's, imports
    nothing, words errors better ("'(' was never closed"), and refuses the deeply
    nested code on which LibCST's native parser overflows its stack and kills the
    whole process (LibCST 1.9: ~1500 nested brackets, or a sum of ~10000 terms).
    """
    triggered = triggered_codes(text, codes)
    if not triggered and _compiles(text, path):
        return ParsePlan(None, None, False, ())
    tree, python_error, beyond_limits = python_tree(text, path)
    if tree is not None and triggered and screen:
        from trainlint.prescreen import names_as_written, screened_codes

        if names_as_written(text):
            triggered = screened_codes(tree, triggered, path)
    return ParsePlan(tree, python_error, beyond_limits, triggered)


def _compiles(text: str, path: str) -> bool:
    """Whether CPython's parser and symbol-table pass accept ``text``: the verdict of a text no rule triggers on,
    without the Python tree (over pytorch-lightning's 646 files, 0.64 s against 1.02 s for the tree). Every failure
    (the symbol table's own errors, such as ``nonlocal`` at module level, included) is left to :func:`python_tree`,
    whose verdict is the one reported, so that a file's verdict does not depend on which rules it triggers. Not on
    3.10, where the tree is needed to refuse code nested too deeply for LibCST."""
    if _BEFORE_3_11:
        return False
    import symtable

    try:
        symtable.symtable(text, path, "exec")
    except Exception:  # noqa: BLE001 - SyntaxError, RecursionError, MemoryError, ValueError: python_tree words them
        return False
    return True


def _check(cancelled: Optional[Callable[[], bool]]) -> None:
    if cancelled is not None and cancelled():
        raise LintCancelled


def python_verdict(text: str, path: str) -> Tuple[Optional[Diagnostic], bool]:
    """CPython's syntax error (its messages beat LibCST's), and whether the code is beyond a parser's limits."""
    return python_tree(text, path)[1:]


def python_tree(text: str, path: str) -> Tuple[Any, Optional[Diagnostic], bool]:
    """CPython's tree of ``text`` (None if it does not compile), its syntax error, and whether the code is
    beyond a parser's limits. The tree is what compiling for the verdict builds anyway."""
    try:
        tree = compile(text, path, "exec", flags=_ONLY_AST, dont_inherit=True)
        if _BEFORE_3_11 and _deeper_than(tree, _PARSER_DEPTH):
            raise RecursionError  # CPython 3.11+ refuses such code itself; on 3.10 LibCST would hang on it
        return tree, None, False
    except SyntaxError as error:
        diagnostic = syntax_error(path, error.lineno or 1, error.offset or 1, f"SyntaxError: {error.msg}")
        return None, diagnostic, error.msg.startswith("too many")  # "too many nested parentheses", "... statically nested blocks"
    except (RecursionError, MemoryError):
        return None, syntax_error(path, 1, 1, "The file is nested too deeply to parse"), True
    except ValueError as error:  # null bytes: 3.10 raises ValueError where 3.11+ raise SyntaxError (at no line)
        return None, syntax_error(path, 1, 1, f"SyntaxError: {error}"), False


def _deeper_than(tree: Any, limit: int) -> bool:
    """Whether any node of ``tree`` lies more than ``limit`` levels down (iteratively: the tree may be deep)."""
    import ast

    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return False


def reraise_interruption(error: Exception) -> None:
    """Re-raise the Ctrl-C or SIGTERM that ``error`` masks, if any.

    A library's ``finally`` block that fails while an interrupt unwinds through it
    turns the interrupt into an ordinary exception, with the interrupt as its
    ``__context__``: LibCST's position recorder raises KeyError that way. Caught as
    a crash of one file or one rule, the interrupt would be lost and the run go on.
    """
    cause = error.__context__
    while cause is not None:
        if isinstance(cause, KeyboardInterrupt):
            raise cause
        cause = cause.__context__


def _parser_failure(path: str, error: BaseException) -> str:
    """LibCST crashed on the file (e.g. ``() if 0 else(lambda:())`` raises TypeError in LibCST 1.9)."""
    from importlib.metadata import version

    first_line = str(error).strip().split("\n", 1)[0]
    return f"{path}: LibCST {version('libcst')} failed to parse this file ({type(error).__name__}: {first_line}); it was not checked"


def _libcst_syntax_error(path: str, error) -> Diagnostic:
    return syntax_error(path, error.raw_line, error.raw_column + 1, " ".join(error.message.split()))


def _run_rules(
    module, text: str, path: str, codes: Sequence[str], settings: RuleSettings, cancelled=None, tree: Any = None, indexes=None
) -> LintResult:
    """Run the rules over one parsed module (``tree``: CPython's of the same text, if it has one; ``indexes``: the
    statement indexes of its document, as ModuleFacts takes them); the walk's per-tree memo is dropped afterwards,
    so that a run over many files does not keep every tree it has seen alive."""
    from trainlint.analysis.walk import forget

    try:
        return _lint_module(module, text, path, codes, settings, cancelled, tree, indexes)
    finally:
        forget()


def _lint_module(
    module, text: str, path: str, codes: Sequence[str], settings: RuleSettings, cancelled, tree, indexes
) -> LintResult:
    from trainlint.analysis import ModuleFacts

    facts = ModuleFacts(module, text, indexes)
    try:
        return _lint_with_facts(facts, module, text, path, codes, settings, cancelled, tree, indexes)
    finally:
        facts.forget()


def _lint_with_facts(
    facts, module, text: str, path: str, codes: Sequence[str], settings: RuleSettings, cancelled, tree, indexes
) -> LintResult:
    from trainlint.registry import load_rule
    from trainlint.rule import RuleContext

    rules = []
    for code in codes:
        cls = load_rule(code)
        options = {name: option.default for name, option in cls.options.items()}
        options.update(settings.options.get(code, {}))
        rules.append(cls(RuleContext(facts, options, path=path)))
    dispatcher = _Dispatcher(rules, path, cancelled)
    dispatcher.run(facts)
    reports = [(rule, report) for rule in rules if rule not in dispatcher.failed for report in rule.context.reports]
    result = LintResult([], errors=list(dispatcher.failed.values()), module=module)
    if not reports:
        return result
    from trainlint.node_positions import NodePositions

    positions = NodePositions(module, text, facts.parents, tree, None if indexes is None else indexes.positions)
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
            summary = (
                _summarise_fix(module, text, report.fix)
                if settings.describe_fixes
                else FixSummary(report.fix.applicability, report.fix.message, ())
            )
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


class _Dispatcher:
    """Calls every rule's ``visit_X``/``leave_X`` methods from one traversal.

    A rule that raises is switched off for this file and reported as an
    internal error; the other rules and files carry on.
    """

    def __init__(self, rules, path: str, cancelled: Optional[Callable[[], bool]] = None) -> None:
        self.path = path
        self.cancelled = cancelled
        self.failed: Dict[object, str] = {}
        self._visit: Dict[str, list] = defaultdict(list)
        self._leave: Dict[str, list] = defaultdict(list)
        for rule in rules:
            for attribute in dir(type(rule)):
                if attribute.startswith("visit_"):
                    self._visit[attribute[6:]].append((rule, getattr(rule, attribute)))
                elif attribute.startswith("leave_"):
                    self._leave[attribute[6:]].append((rule, getattr(rule, attribute)))

    def run(self, facts) -> None:
        """Call visit methods in source pre-order and leave methods in post-order.

        The pre-order is the one the shared parent map was built in, so rules
        that only visit (nearly all) cost a dictionary lookup per node; a full
        traversal is made only for rules that leave a node other than the module.
        """
        if set(self._leave) <= {"Module"}:
            for node in facts.preorder():
                _check(self.cancelled)
                self._call(self._visit, node)
            self._call(self._leave, facts.module)
            return
        from trainlint.analysis.walk import traverse

        traverse(facts.module, self.enter, self.leave)

    def _call(self, table, node) -> None:
        for rule, method in table.get(type(node).__name__, ()):
            if rule in self.failed:
                continue
            try:
                method(node)
            except Exception as error:  # noqa: BLE001 - isolate a broken rule
                reraise_interruption(error)
                import traceback

                frame = traceback.extract_tb(error.__traceback__)[-1]
                self.failed[rule] = (
                    f"{rule.code} ({rule.name}) crashed on {self.path}: {type(error).__name__}: {error} "
                    f"[{frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}]"
                )

    def enter(self, node) -> bool:
        _check(self.cancelled)
        self._call(self._visit, node)
        return True

    def leave(self, node) -> None:
        self._call(self._leave, node)


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
    every pass must parse, must remove each fixed finding (one fewer of its
    code and message per applied fix), and the loop must reach a fixed
    point (so fixing again changes nothing). If any check fails the original
    text is returned unchanged with an error naming the rule at fault.
    """
    original = lint_source(text, path, settings)
    if _round_trip_loses_bytes(original, text, unsafe_fixes):
        hint = " (it drops a final CR newline)" if text.endswith("\r") else ""
        return _failed(text, original, f"LibCST would not write {path} back byte for byte{hint}, so no fix is applied")
    applied: Counter = Counter()
    result, current = original, text
    passes: List[set] = []  # the codes fixed by each pass
    texts = [text]
    for _ in range(MAX_FIX_PASSES + 1):
        chosen = _non_overlapping_fixes(result, unsafe_fixes)
        if not chosen:
            return FixResult(current, applied, result, result.errors, original.diagnostics, texts)
        candidate, next_result, problem = verified_fix_pass(result, current, chosen, path, settings)
        if problem:
            return _failed(text, original, _culprit(result, current, chosen, path, settings) or problem)
        applied.update(d.code for d, _ in chosen)
        passes.append({d.code for d, _ in chosen})
        current, result = candidate, next_result
        texts.append(current)
    cycling = ", ".join(sorted(set().union(*passes[-2:])))  # the fixes still at work at the end
    return _failed(text, original, f"fixes for {cycling} in {path} did not converge after {MAX_FIX_PASSES} passes")


def _round_trip_loses_bytes(result: LintResult, text: str, unsafe_fixes: bool) -> bool:
    """Would writing the parsed module back change bytes no fix touched? Checked only when there is a fix to apply."""
    has_fix = any(applicable(fix, unsafe_fixes) for fix in result.fixes)
    return has_fix and result.module is not None and result.module.code != text


def verified_fix_pass(
    result: LintResult, current: str, chosen: List[Tuple[Diagnostic, Any]], path: str, settings: RuleSettings
) -> Tuple[str, Optional[LintResult], str]:
    """Apply the chosen fixes: the new text, its lint result, and what is wrong with it ("" when nothing).

    The check every fix passes before it is written: the result parses, and each fixed finding (its code
    and message) occurs once fewer per applied fix. The fix loop and the language server's quick fixes
    both go through it.
    """
    from trainlint.fixes import apply_fixes

    candidate = apply_fixes(result.module, [fix for _, fix in chosen]).code
    codes = _codes(chosen)
    if candidate == current:
        return candidate, None, f"the fix for {codes} in {path} changed nothing but its finding remains"
    after = lint_source(candidate, path, settings)
    if after.has_syntax_error:
        message = after.diagnostics[0].message
        return candidate, after, f"fixing {codes} in {path} produced code that does not parse ({message})"
    kept = _findings_not_removed(result, after, [d for d, _ in chosen])
    if kept:
        return candidate, after, f"the fix for {kept} in {path} left its finding in place"
    return candidate, after, ""


def _culprit(result: LintResult, current: str, chosen: List[Tuple[Diagnostic, Any]], path: str, settings: RuleSettings) -> str:
    """When a pass of several fixes failed, the problem of the first fix that fails alone, so the report names its rule."""
    if len(chosen) > 1:
        for one in chosen:
            problem = verified_fix_pass(result, current, [one], path, settings)[2]
            if problem:
                return problem
    return ""


def _findings_not_removed(before: LintResult, after: LintResult, fixed: List[Diagnostic]) -> str:
    """The codes (comma-separated) of fixed findings that are still there, one fewer per applied fix.

    A finding is its code and its message (which names what it is about, not where it is, so it
    survives the lines a fix inserts). A fix may reveal another finding: detaching a stored output
    (TL401) leaves a list that still grows every step, TL402's finding with its own message; the
    fix loop goes on to fix that one. What a fix may not do is leave its own finding in place.
    """
    counts_before = Counter(_identity(d) for d in before.diagnostics)
    counts_after = Counter(_identity(d) for d in after.diagnostics)
    removed = Counter(_identity(d) for d in fixed)
    return ", ".join(sorted({key[0] for key, n in removed.items() if counts_after[key] > counts_before[key] - n}))


def _identity(diagnostic: Diagnostic) -> Tuple[str, str]:
    return diagnostic.code, diagnostic.message


def _codes(chosen: List[Tuple[Diagnostic, Any]]) -> str:
    return ", ".join(sorted({d.code for d, _ in chosen}))


def _non_overlapping_fixes(result: LintResult, unsafe_fixes: bool) -> List[Tuple[Diagnostic, Any]]:
    chosen, taken = [], []
    for diagnostic, fix, span in zip(result.diagnostics, result.fixes, result.spans):
        if applicable(fix, unsafe_fixes) and not any(_overlaps(span, other) for other in taken):
            chosen.append((diagnostic, fix))
            taken.append(span)
    return chosen


def _failed(text: str, original: LintResult, problem: str) -> FixResult:
    from trainlint import __version__

    error = f"{problem}; the file was left unchanged. This is a bug in trainlint {__version__}: please report it with the file."
    return FixResult(text, Counter(), original, [error] + original.errors, original.diagnostics, [text])


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
