"""TL403 oom-handler-keeps-step: an out-of-memory handler that skips the batch while the failed step stays alive."""

from __future__ import annotations

from typing import List, NamedTuple, Optional, Sequence, Set

import libcst as cst

from trainlint.analysis import dotted
from trainlint.step_words import OOM_MESSAGE, OPTIMIZER_NAME
from trainlint.analysis.steps import StepMethods, TrainingLoops
from trainlint.analysis.walk import walk
from trainlint.diagnostics import Applicability
from trainlint.rule import CstFix, Import, Rule

OOM_TYPES = frozenset({"torch.cuda.OutOfMemoryError", "torch.OutOfMemoryError"})
# What an out-of-memory handler catches when it tells OOM apart by the message.
BROAD_TYPES = frozenset({"RuntimeError", "Exception", "BaseException"})
CLEANUP_METHODS = frozenset({"empty_cache", "collect", "zero_grad", "synchronize", "reset_peak_memory_stats"})
FLAG = "step_out_of_memory"


class OomBranch(NamedTuple):
    """The statements that run for an out-of-memory error, and the statement whose block holds them."""

    handler: cst.ExceptHandler
    owner: cst.CSTNode  # the handler, or the ``if "out of memory" in str(e):`` inside it
    statements: Sequence[cst.BaseStatement]


class OomHandlerKeepsStep(Rule):
    """## What it does
    Finds an `except` in a training step that recognises an out-of-memory
    error (`torch.OutOfMemoryError`, `torch.cuda.OutOfMemoryError`, or
    `RuntimeError`/`Exception` whose message says "out of memory") and skips
    the batch (`continue`, `pass`, `return`), unless the code after the
    `try` statement frees the step: it drops the step's tensors, clears the
    gradients and only then empties the cache.

    ## Why is this bad
    While an `except` block runs, the exception's traceback references every
    frame the error passed through: `outputs`, `loss` and every activation
    saved for backward are still alive, so `torch.cuda.empty_cache()` called
    in the handler frees nothing. Gradients from a partial backward stay in
    `.grad` and are added to the next step's. The retry often runs out of
    memory again, and training goes on with corrupted gradients.

    ## Example
    ```python
    for batch in loader:
        try:
            loss = model(**batch).loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        except RuntimeError as e:
            if "out of memory" in str(e):
                torch.cuda.empty_cache()
                continue
            raise
    ```

    ## Use instead
    ```python
    for batch in loader:
        step_out_of_memory = False
        try:
            ...
        except RuntimeError as e:
            if "out of memory" in str(e):
                step_out_of_memory = True
            else:
                raise
        if step_out_of_memory:
            loss = None
            optimizer.zero_grad(set_to_none=True)
            if torch.cuda.is_available():
                torch.cuda.empty_cache()
            continue
    ```

    ## Fix safety
    Unsafe: it changes what happens after an out-of-memory error (the
    pending gradients are dropped, the names bound in the `try` are set to
    `None`). The handler only records the error in a flag; after the `try`
    the step's names are rebound to `None` (a `del` would fail for a name
    the failed step never bound), the gradients of the optimizer that steps
    in the loop are cleared, the CUDA cache is emptied where CUDA is
    available, and the batch is skipped as before. Other statements of the
    handler (logging) stay where they were. No fix is offered where no
    optimizer is in sight or the handler's shape is not a plain block.

    ## Evidence
    `fixtures/TL403_oom_handler_keeps_step/` and
    `tests/test_runtime_TL403.py`: a model raising `torch.OutOfMemoryError`
    at a chosen step shows the bad handler emptying the cache while the
    failed step's tensors are alive and carrying a partial gradient into the
    next step; the fixed script frees them first and trains like
    `reference_trainer`'s loop, which skips the same batch.
    """

    fix = Applicability.UNSAFE

    def visit_Try(self, node: cst.Try) -> None:
        if not self._in_training_step(node):
            return
        looping = self._in_loop_of_its_function(node)
        for handler in node.handlers:
            branch = self._oom_branch(handler)
            if branch is None or _reraises(branch.statements) or not _skips(branch.statements, looping):
                continue
            if self._frees_after(node):
                continue
            self._report(node, branch)

    # ----- detection ------------------------------------------------------------------

    def _in_training_step(self, node: cst.Try) -> bool:
        loops = self.facts.fact(TrainingLoops)
        return loops.in_training_loop(node) or self.facts.fact(StepMethods).step_function_of(node) is not None

    def _in_loop_of_its_function(self, node: cst.Try) -> bool:
        for ancestor in self.facts.ancestors(node):
            if isinstance(ancestor, (cst.For, cst.While)):
                return True
            if isinstance(ancestor, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                return False
        return False

    def _caught(self, handler: cst.ExceptHandler) -> Set[str]:
        if handler.type is None:
            return {"BaseException"}
        types = [e.value for e in handler.type.elements] if isinstance(handler.type, cst.Tuple) else [handler.type]
        return {self.facts.qualified_name(t) or dotted(t) or "" for t in types}

    def _oom_branch(self, handler: cst.ExceptHandler) -> Optional[OomBranch]:
        """The statements run for an out-of-memory error: the whole handler when its type says so, else the
        branch of an ``if`` that tests the message (``"out of memory" in str(e)``)."""
        caught = self._caught(handler)
        body = _block(handler.body)
        if body is None:
            return None
        if caught & OOM_TYPES:
            return OomBranch(handler, handler, body)
        if not caught & BROAD_TYPES:
            return None
        for index, statement in enumerate(body):
            if isinstance(statement, cst.If) and _mentions_oom(statement.test):
                if _negated(statement.test):  # ``if "out of memory" not in str(e): raise`` then the OOM code
                    return OomBranch(handler, handler, body[index + 1 :]) if _reraises(_block(statement.body) or ()) else None
                inner = _block(statement.body)
                return OomBranch(handler, statement, inner) if inner is not None else None
        return None

    def _frees_after(self, node: cst.Try) -> bool:
        """The flag pattern: after the ``try``, the gradients are cleared and the cache emptied or tensors dropped."""
        following = _following(self.facts, node)
        calls = [n for s in following for n in walk(s) if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute)]
        zeroes = any(c.func.attr.value == "zero_grad" for c in calls) or any(_sets_grad_to_none(s) for s in following)
        frees = any(c.func.attr.value == "empty_cache" for c in calls) or any(isinstance(n, cst.Del) for s in following for n in walk(s))
        return zeroes and frees

    def _is_cleanup(self, statement: cst.BaseStatement) -> bool:
        """``torch.cuda.empty_cache()``, ``gc.collect()``, ``del loss``, ``optimizer.zero_grad()``, or a call of a
        same-module function doing only that (``clear_memory()``): what the fix moves after the ``try``."""
        if not isinstance(statement, cst.SimpleStatementLine):
            return False
        for small in statement.body:
            if isinstance(small, cst.Del):
                continue
            call = small.value if isinstance(small, cst.Expr) else None
            if not isinstance(call, cst.Call):
                return False
            if isinstance(call.func, cst.Attribute) and call.func.attr.value in CLEANUP_METHODS:
                continue
            helper = self._module_function(call.func)
            if helper is None or not all(self._only_cleans(s) for s in _block(helper.body) or ()):
                return False
        return True

    def _only_cleans(self, statement: cst.BaseStatement) -> bool:
        """A cleanup statement, a docstring, or an ``if`` guarding only cleanup (``if torch.cuda.is_available():``)."""
        if isinstance(statement, cst.If) and statement.orelse is None:
            return all(self._only_cleans(s) for s in _block(statement.body) or ())
        if isinstance(statement, cst.SimpleStatementLine) and all(isinstance(small, cst.Expr) and isinstance(small.value, cst.SimpleString) for small in statement.body):
            return True
        return self._is_cleanup(statement)

    def _module_function(self, func: cst.BaseExpression) -> Optional[cst.FunctionDef]:
        if not isinstance(func, cst.Name):
            return None
        found = [s for s in self.facts.module.body if isinstance(s, cst.FunctionDef) and s.name.value == func.value]
        return found[-1] if found else None

    # ----- report and fix -----------------------------------------------------------

    def _report(self, node: cst.Try, branch: OomBranch) -> None:
        names = _bound_names(node.body)
        held = f" (`{'`, `'.join(names[:4])}`)" if names else ""
        message = (
            "this out-of-memory handler skips the batch while the failed step is still alive: inside `except` the "
            f"traceback keeps the step's tensors{held} and saved activations referenced, so emptying the cache frees "
            "nothing, and a partial backward's gradients stay in `.grad` for the next step"
        )
        self.report(branch.handler, message, fix=self._fix(node, branch, names))

    def _fix(self, node: cst.Try, branch: OomBranch, names: List[str]) -> Optional[CstFix]:
        optimizer = self._optimizer(node)
        skip = branch.statements[-1] if branch.statements else None
        if optimizer is None or not isinstance(skip, cst.SimpleStatementLine) or not _is_statement_block(self.facts, node):
            return None
        if branch.owner is branch.handler and list(branch.statements) != list(_block(branch.handler.body) or ()):
            return None  # ``if "out of memory" not in str(e): raise`` before the branch: not rewritten
        kept = [s for s in branch.statements[:-1] if not self._is_cleanup(s)]
        moved = [s for s in branch.statements[:-1] if self._is_cleanup(s) and not _drops_or_zeroes(s)]
        flagged = _block_with(branch.owner, [*kept, _statement(f"{FLAG} = True")])
        if isinstance(branch.owner, cst.If) and branch.owner.orelse is None:
            handler = self._with_reraise_else(branch, flagged)
            if handler is None:
                return None
            new_try = node.deep_replace(branch.handler, handler)
        else:
            new_try = node.deep_replace(branch.owner, flagged)
        torch = self.facts.torch_name()
        cleanup = [" = ".join(names) + " = None"] if names else []
        cleanup.append(f"{optimizer}.zero_grad(set_to_none=True)")
        cleanup += [self.facts.code(statement).strip() for statement in moved]
        if not moved:
            cleanup.append(f"if {torch}.cuda.is_available():\n    {torch}.cuda.empty_cache()")
        skip_code = self.facts.code(skip).strip()
        if skip_code != "pass":
            cleanup.append(skip_code)
        after = cst.parse_statement(f"if {FLAG}:\n" + "".join(f"    {line}\n" for c in cleanup for line in c.split("\n")))
        replacement = cst.FlattenSentinel([_statement(f"{FLAG} = False"), new_try, after])
        imports = () if self.facts.imports.local_name_for_module("torch") else (Import("torch"),)
        return CstFix("Record the OOM in a flag; free the step, clear the gradients and empty the cache after the `try`",
                      Applicability.UNSAFE, {node: replacement}, imports=imports)

    def _with_reraise_else(self, branch: OomBranch, flagged: cst.If) -> Optional[cst.ExceptHandler]:
        """``if oom: ...; continue`` followed by ``raise``: the ``raise`` is only reached for other errors, and
        must stay so once the branch no longer ends in ``continue``: it moves into an ``else``."""
        body = list(_block(branch.handler.body) or ())
        position = body.index(branch.owner)  # type: ignore[arg-type]
        rest = body[position + 1 :]
        if not rest or not _reraises(rest):
            return None
        with_else = flagged.with_changes(orelse=cst.Else(body=cst.IndentedBlock(body=rest)))
        return _block_with(branch.handler, [*body[:position], with_else])  # type: ignore[return-value]

    def _optimizer(self, node: cst.Try) -> Optional[str]:
        """The receiver of the optimizer step in the ``try`` (``optimizer``, ``self.optim``)."""
        for inner in walk(node.body):
            if isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute) and inner.func.attr.value in ("step", "zero_grad"):
                owner = dotted(inner.func.value) or ""
                if OPTIMIZER_NAME.search(owner.rsplit(".", 1)[-1]) and "scaler" not in owner.lower():
                    return owner
        return None


# ----- helpers on statements ------------------------------------------------------------


def _block(suite: cst.BaseSuite) -> Optional[Sequence[cst.BaseStatement]]:
    return suite.body if isinstance(suite, cst.IndentedBlock) else None


def _mentions_oom(test: cst.BaseExpression) -> bool:
    return any(isinstance(n, cst.SimpleString) and OOM_MESSAGE.search(n.evaluated_value or "") for n in walk(test))  # type: ignore[arg-type]


def _negated(test: cst.BaseExpression) -> bool:
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return True
    return isinstance(test, cst.Comparison) and any(isinstance(t.operator, cst.NotIn) for t in test.comparisons)


def _reraises(statements: Sequence[cst.BaseStatement]) -> bool:
    """A top-level ``raise`` (the error goes on) in these statements."""
    return any(
        isinstance(s, cst.SimpleStatementLine) and any(isinstance(small, cst.Raise) for small in s.body) for s in statements
    )


def _skips(statements: Sequence[cst.BaseStatement], looping: bool) -> bool:
    """The branch ends by skipping the batch and training on: ``continue`` or ``pass`` in the step loop, or
    ``return`` (of anything: ``None``, an empty output) from a step function that loops over nothing itself.

    A ``return`` out of the function holding the step loop ends training instead: its locals die with it.
    """
    if not statements or not isinstance(statements[-1], cst.SimpleStatementLine):
        return False
    last = statements[-1].body[-1]
    if isinstance(last, (cst.Continue, cst.Pass)):
        return True
    return isinstance(last, cst.Return) and not looping


def _drops_or_zeroes(statement: cst.BaseStatement) -> bool:
    """``del loss`` or ``optimizer.zero_grad()``: replaced by the fix's own rebinding and ``zero_grad(set_to_none=True)``."""
    return any(
        isinstance(n, cst.Del) or (isinstance(n, cst.Attribute) and n.attr.value == "zero_grad") for n in walk(statement)
    )


def _sets_grad_to_none(statement: cst.CSTNode) -> bool:
    return any(
        isinstance(n, cst.Assign)
        and isinstance(n.value, cst.Name)
        and n.value.value == "None"
        and any(isinstance(t.target, cst.Attribute) and t.target.attr.value == "grad" for t in n.targets)
        for n in walk(statement)
    )


def _bound_names(body: cst.BaseSuite) -> List[str]:
    """Plain names assigned in the ``try`` body (``loss``, ``outputs``), in order, not in nested functions."""
    names: List[str] = []
    for node in walk(body):
        targets: List[cst.BaseExpression] = []
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
            continue
        for target in targets:
            elements = [e.value for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else [target]
            for element in elements:
                if isinstance(element, cst.Name) and element.value not in names:
                    names.append(element.value)
    return names


def _following(facts, node: cst.CSTNode) -> List[cst.BaseStatement]:
    """The statements after ``node`` in its block."""
    block = facts.parent(node)
    body = list(getattr(block, "body", ()))
    return body[body.index(node) + 1 :] if node in body else []


def _is_statement_block(facts, node: cst.CSTNode) -> bool:
    return isinstance(facts.parent(node), (cst.IndentedBlock, cst.Module))


def _statement(code: str) -> cst.BaseStatement:
    return cst.parse_statement(code + "\n")


def _block_with(owner: cst.CSTNode, statements: List[cst.BaseStatement]) -> cst.CSTNode:
    return owner.with_changes(body=owner.body.with_changes(body=statements))  # type: ignore[attr-defined]
