"""The question of TL404 (evaluation with autograd on), asked of the walk's facts: is there a loop
that may run a model's forward pass, on held-out data or outside training, with no ``no_grad``.
"""

from __future__ import annotations

import ast
import functools
from typing import List, Optional, Set, Tuple

from trainlint.prescreen.nodes import (
    _close_over_callees,
    _dotted,
    _is_false,
    _names_held_out_data,
    _optimizer_receiver,
    _scope,
)
from trainlint.prescreen.traversal import _nodes_of
from trainlint.prescreen.values import MODULE, last_name
from trainlint.prescreen.walk import _COMPREHENSIONS, TreeFacts
from trainlint.step_words import (
    BACKWARD_METHODS,
    BOOKKEEPING_METHOD,
    MODEL_NAME,
    NOT_FORWARD,
)


class EvaluationQuestions(TreeFacts):
    """What TL404 asks of a module's facts."""

    @functools.cached_property
    def evaluates(self) -> bool:
        return any(
            self._may_evaluate(loop, functions, held_out or self._iterates_a_held_out_context(loop))
            for loop, functions, held_out in self._loops_for_eval
        )

    def _iterates_a_held_out_context(self, loop: ast.AST) -> bool:
        """Mirror ``iterated()`` following a ``with`` target to its manager: ``with tqdm(val_loader) as bar: for batch
        in bar``, by the target's name in any scope (wider)."""
        generators = getattr(loop, "generators", None)
        iterables = [g.iter for g in generators] if generators else [getattr(loop, "iter", None)]
        return any(
            isinstance(iterable, ast.Name) and any(map(_names_held_out_data, self.values.context_managers(iterable.id)))
            for iterable in iterables
        )

    def _surely_trains(self, loop: ast.AST, caller: Optional[ast.AST]) -> bool:
        """A backward or an optimizer step that ``Loops.trains`` surely finds: in the loop's body, or in a function its
        body calls, transitively: a module-level function called by plain name, or a method of the caller's class
        called on ``self`` (:meth:`_dispatched_method`; a hand-written trainer's ``fit`` loop running
        ``self.train_epoch(...)``). The call graph follows at least those; a wider guess here would hide a finding.
        ``caller`` is the loop's function (None at module level)."""
        calls = [n for statement in loop.body for n in self._calls_in(statement)]  # type: ignore[attr-defined]
        own = [
            n for statement in loop.body if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))  # type: ignore[attr-defined]
            for n in self._calls_in(statement, into_functions=False)
        ]
        plain = calls  # the body's calls name callees, nested definitions' too; a function's own calls only
        on_self: List[Tuple[ast.Call, Optional[ast.AST]]] = [(call, caller) for call in own]  # and the function making each
        seen: Set[int] = set()
        while calls:
            if any(map(_surely_steps_training, calls)):
                return True
            named = [f for c in plain if isinstance(c.func, ast.Name) for f in self._top_level_defs.get(c.func.id, ())]
            dispatched = [self._dispatched_method(c, f) for c, f in on_self]
            functions = [f for f in (*named, *dispatched) if f is not None and id(f) not in seen]
            seen.update(map(id, functions))
            calls = [n for f in functions for n in self._calls_in(f)]
            on_self = [(n, f) for f in functions for n in self._calls_in(f, into_functions=False)]  # type: ignore[misc]
            plain = [c for c, _ in on_self]
        return False

    def _runs_without_grad(self, function: int) -> bool:
        """Decorated like `@torch.no_grad()`, or a hook Lightning runs without grad that this module never calls
        itself (GradMode's `_framework_hook`: a trainer that calls its own `validation_step` runs it with grad)."""
        hook = function in self._grad_free_hooks and self._names[function] not in self._called
        return function in self._grad_free or hook

    def _called_with_a_model_in_eval_mode(self, function: str) -> bool:
        """Mirror ``EvaluationLoops._modes_from_callers``: some call of ``function`` (by last name) comes after an
        ``m.eval()`` in its own scope and hands it ``m``: ``Names.argument_for`` gives a parameter an argument's
        expression (positional, not after a ``*``; or by keyword) or its default, never the receiver that fills
        ``self``, and ``_modes_passed_in`` looks up that expression's whole dotted name (``encoder.pred(x)`` after
        ``encoder.predictor.eval()`` hands no model in eval mode)."""
        defaults = {
            _dotted(default)
            for index, name in enumerate(self._names) if name == function
            for default in (*self._function_nodes[index].args.defaults, *self._function_nodes[index].args.kw_defaults)  # type: ignore[attr-defined]
            if default is not None
        }
        for call, scope in self._calls_that_may_run(function):
            handed = {_dotted(a) for a in call.args if not isinstance(a, ast.Starred)} | {_dotted(k.value) for k in call.keywords if k.arg}
            position = (call.lineno, call.col_offset)
            # `enclosing_function` puts a def's decorators and defaults in the def, `_scope_at` around it: either may match
            header_of = self._scoped_outside.get(id(call))
            scopes = {scope} if header_of is None else {scope, header_of}
            if any(
                not scopes.isdisjoint({_scope(around), self._scope_at(mode, around)}) and at < position
                and _dotted(mode.func.value) in handed | defaults  # type: ignore[attr-defined]
                for mode, around, at in self._mode_calls
            ):
                return True
        return False

    def _called_by_module_code(self, function: int) -> bool:
        """Mirror ``EvaluationLoops._modes_of_globals``, wider: module code calls a function of this name."""
        return any(scope == MODULE for _, scope in self._calls_that_may_run(self._names[function]))

    def _may_evaluate(self, loop: ast.AST, functions: Tuple[int, ...], held_out: bool) -> bool:
        """Mirror TL404: a loop outside a ``test_*`` function over held-out data, or after or around a ``.eval()``
        in its own function, or calling a function that makes one (a trainer's ``validation_step``)."""
        in_a_test = self._holds_tests and any(f in self._in_tests for f in functions)
        if in_a_test or functions[-1:] and self._runs_without_grad(functions[-1]):
            return False
        start = (loop.lineno, loop.col_offset)  # type: ignore[attr-defined]
        if any(around == functions and begin <= start <= end for around, begin, end in self._no_grad_blocks):
            return False  # under `with torch.no_grad():` in its own function: TL404's GradMode says grad is off
        if _scope(functions) in self._grad_off_scopes:
            return False  # GradMode: `torch.set_grad_enabled(False)` in the loop's own function (or module code)
        if not self._evaluation_shaped(loop, functions, held_out, start):
            return False
        if not self._may_run_a_forward(loop, functions, held_out):
            return False
        # `Loops.trains`: a loop that trains evaluates nothing (asked last: it walks the loop's body and callees)
        caller = self._function_nodes[functions[-1]] if functions else None
        return isinstance(loop, _COMPREHENSIONS) or not self._surely_trains(loop, caller)

    def _may_run_a_forward(self, loop: ast.AST, functions: Tuple[int, ...], held_out: bool) -> bool:
        """Mirror ``EvaluationLoops._forwards``, wider: a call that an iteration may run (:meth:`_iteration_calls`) and
        that runs a model by the names the rule matches (``_models_called``: a dotted callee, or the receiver of a
        method that is no bookkeeping): one that some ``.eval()``/``.train(False)`` of the module was called on
        (``_modes_before``, ``_put_in_eval_by_callees``), or a parameter of the loop's own function, which its callers
        may fill with a model in eval mode (``_modes_from_callers``); not a parameter of another function
        (``save_results(df)``'s ``df.to_csv(...)``). Over held-out data also a call ``_calls_a_model`` may take for
        one: named like a model, or any call where a class here has a ``forward`` (its instances may be called)."""
        models = self._mode_receivers | (self._parameters_of(functions[-1]) if functions else set())
        for call in self._iteration_calls(loop):
            func = call.func
            called = _dotted(func)
            if held_out and (self.defines_forward or (called and MODEL_NAME.search(last_name(func)))):
                return True
            if isinstance(func, ast.Attribute):
                if func.attr in NOT_FORWARD or BOOKKEEPING_METHOD.match(func.attr):
                    continue
                if _dotted(func.value) in models:
                    return True
            if called in models:
                return True
        return False

    def _iteration_calls(self, loop: ast.AST) -> List[ast.Call]:
        """Mirror ``Loops.iteration_nodes``, wider: the calls in ``loop``, and for a loop (a comprehension's callees
        are not followed) those of every function it may reach by last name (``CallGraph`` resolves a call by its
        name, or dispatches ``self.m``/``cls.m`` to ``m`` of a class, or to what an attribute ``m`` was given:
        where such a call may run a stored callable, every function of the module)."""
        calls = self._calls_in(loop)
        if isinstance(loop, _COMPREHENSIONS):
            return calls
        reached = _close_over_callees(self._loop_calls[loop], self._names, self._callees)
        functions = [f for f, name in enumerate(self._names) if name in reached]
        followed = [*calls, *(c for f in functions for c in self._function_calls(f))]
        if any(_calls_on_self(c) and c.func.attr in self._stored_attributes for c in followed):  # type: ignore[attr-defined]
            functions = list(range(len(self._names)))
        return [*calls, *(c for f in functions for c in self._function_calls(f))]

    def _function_calls(self, function: int) -> List[ast.Call]:
        """The calls in a function, its nested functions' included (``Loops``' index by function), memoised."""
        return self._calls_in(self._function_nodes[function])

    def _parameters_of(self, function: int) -> Set[str]:
        """Every name ``function`` takes as a parameter."""
        arguments = self._function_nodes[function].args  # type: ignore[attr-defined]
        listed = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
        return {argument.arg for argument in listed if argument is not None}

    @functools.cached_property
    def _mode_receivers(self) -> Set[str]:
        """What ``.eval()``/``.train(False)`` is called on, dotted: the models the rule may find in eval mode."""
        return {_dotted(call.func.value) for call, _, _ in self._mode_calls}  # type: ignore[attr-defined]

    @functools.cached_property
    def _grad_off_scopes(self) -> Set[int]:
        """Mirror ``GradMode._switched_off``, narrower: the scopes (a function, else the module) holding a statement
        ``torch.set_grad_enabled(False)`` (or ``torch.autograd.``'s) whose ``torch`` one ``import torch`` binds, the
        qualified name the rule resolves then certain. GradMode takes all of that function's own code, nested
        functions' not, for code that runs without grad, wherever the statement stands in it."""
        found: Set[int] = set()
        for call, scope in self._grad_switches:
            qualified = self._under_torch(call.func) in ("set_grad_enabled", "autograd.set_grad_enabled")
            if qualified and call.args and _is_false(call.args[0]):
                found.add(scope)
        return found

    def _built_in(self, function: int, mode: ast.Call) -> bool:
        """Mirror ``steps._built_in``: ``m.eval()`` on a name its function binds by a plain assignment (a model it
        builds and evaluates itself), which ``_put_in_eval_by_callees`` leaves to that function."""
        receiver = _dotted(mode.func.value)  # type: ignore[attr-defined]
        return any(
            isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == receiver for t in node.targets)
            for node in _nodes_of(self._function_nodes[function])
        )

    def _evaluation_shaped(self, loop: ast.AST, functions: Tuple[int, ...], held_out: bool, start: Tuple[int, int]) -> bool:
        """Over held-out data, or after or around a ``.eval()`` in its own function or a function it calls, or in a
        function handed a model its caller put in eval mode."""
        if held_out:
            return True
        reached = _close_over_callees(self._loop_calls.get(loop, set()), self._names, self._callees)
        # `_put_in_eval_by_callees`: a function the loop may reach, or one nested in it, puts a model it did not
        # build itself in eval mode
        if any(
            any(self._names[f] in reached for f in around) and not self._built_in(around[-1], mode)
            for mode, around, _ in self._mode_calls
        ):
            return True
        if functions and self._called_with_a_model_in_eval_mode(self._names[functions[-1]]):
            return True
        if functions and any(not around for _, around, _ in self._mode_calls) and self._called_by_module_code(functions[-1]):
            return True  # a global model put in eval mode by module code, which then calls the loop's function
        end = (loop.end_lineno, loop.end_col_offset)  # type: ignore[attr-defined]
        return any(
            (position <= start and around[-1:] == functions[-1:]) or start <= position <= end
            for _, around, position in self._mode_calls
        )


def _surely_steps_training(call: ast.Call) -> bool:
    """Mirror ``trainlint.analysis.calls.steps_training`` exactly: a backward method, or ``.step()`` on a dotted
    receiver whose last name reads as an optimizer or a scaler."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return False
    if func.attr in BACKWARD_METHODS:
        return True
    owner = func.value.value if isinstance(func.value, ast.Subscript) else func.value
    return func.attr == "step" and bool(_dotted(owner)) and _optimizer_receiver(func.value) is not None


def _calls_on_self(call: ast.Call) -> bool:
    """``self.m(...)`` or ``cls.m(...)``: what ``CallGraph._dispatched`` resolves through the receiver's class."""
    func = call.func
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("self", "cls")
