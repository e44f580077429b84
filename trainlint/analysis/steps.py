"""Training steps, recognised by what the code does: which loops train, and which functions run once per step.

A training loop is not recognised by its shape or by what it iterates: real
loops run ``for step in range(max_steps)``, ``while True: batch = next(it)``,
``for batch in bar`` inside ``with tqdm(loader) as bar:``, or iterate
anything at all. A loop is a *step loop* when one of its iterations performs
a training step: its body runs a backward (``loss.backward()``,
``scaler.scale(loss).backward()``, ``accelerator.backward(loss)``, an
engine's ``backward(loss)``) or an optimizer step, directly or through a
same-module function that steps once per call (``loss = train_step(model,
batch)``). An epoch loop, whose body steps only through a nested loop or a
function that loops over the data itself (``train_one_epoch(loader)``), is
not a step loop: code in it runs once an epoch, not once a step.

Loops over something loader-like are also recorded with the loader and the
name bound to each batch, whatever their role, because the rules about
batches and data placement start from them.

A function runs once per step (:class:`StepMethods`) when a step loop calls
it, when it is a step hook (``training_step``, ``on_train_batch_end``...),
or when such a function calls it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Dict, FrozenSet, List, NamedTuple, Optional, Set, Tuple, Union

import libcst as cst

from trainlint.analysis.calls import CallGraph, callee, steps_training
from trainlint.analysis.imports import dotted
from trainlint.analysis.names import ASSIGN, WITH, Names
from trainlint.step_words import GENERIC_HOOK_NAMES, STEP_HOOK_NAME

if TYPE_CHECKING:
    from trainlint.analysis import ModuleFacts

LoopNode = Union[cst.For, cst.While]

# Wrappers whose first argument is what is really iterated.
ITERATION_WRAPPERS = frozenset({"enumerate", "tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "iter"})
# A name that says "loader" is trusted where no binding shows one (a loader handed in as a parameter).
LOADER_NAME = re.compile(r"(loader|dataloader|(^|_)dl$|batches$)", re.IGNORECASE)
LOADER_FACTORIES = ("DataLoader",)


class LoaderLoop(NamedTuple):
    """A loop of the module that trains, iterates a loader, or both.

    ``loader`` is the iterated loader with ``enumerate``/``tqdm`` removed, or
    the loader a ``while`` loop pulls batches from with ``next(it)``; None
    where the loop iterates no loader (``for step in range(n)``). ``batch``
    is the name bound to each batch. ``is_training``: one iteration is one
    training step.
    """

    node: LoopNode
    loader: Optional[cst.BaseExpression]
    batch: Optional[cst.BaseExpression]
    is_training: bool


def enclosing_function(facts: "ModuleFacts", node: cst.CSTNode) -> Optional[cst.FunctionDef]:
    """The innermost function definition containing ``node``."""
    for ancestor in facts.ancestors(node):
        if isinstance(ancestor, cst.FunctionDef):
            return ancestor
    return None


def _unwrap_iterable(facts: "ModuleFacts", expression: cst.BaseExpression) -> Tuple[cst.BaseExpression, bool]:
    """Strip ``enumerate(...)``/``tqdm(...)``; report whether ``enumerate`` was one of them."""
    enumerated = False
    while isinstance(expression, cst.Call) and expression.args:
        name = dotted(expression.func)
        qualified = facts.qualified_name(expression.func) or name
        if name not in ITERATION_WRAPPERS and qualified not in ITERATION_WRAPPERS:
            break
        enumerated = enumerated or name == "enumerate"
        expression = expression.args[0].value
    return expression, enumerated


class TrainingLoops:
    """The step loops and loader loops of a module (see the module docstring)."""

    def __init__(self, facts: "ModuleFacts") -> None:
        self.facts = facts
        self.loader_names = self._names_bound_to_loaders()
        self._calls_in_body, self._direct_calls = self._calls_by_loop_body()
        self.loops: List[LoaderLoop] = []
        for loop in facts.nodes(cst.For, cst.While):
            found = self._loader_and_batch(loop)
            training = self._steps(self._direct_calls[loop])
            if training or found is not None:
                loader, batch = found if found is not None else (None, None)
                self.loops.append(LoaderLoop(loop, loader, batch, training))
        self._by_node: Dict[LoopNode, LoaderLoop] = {loop.node: loop for loop in self.loops}

    # ----- what a loop does ---------------------------------------------------------------

    def _steps(self, calls: List[cst.Call]) -> bool:
        """A backward or optimizer step among ``calls``, or a call of a same-module function that steps once."""
        graph = self.facts.fact(CallGraph)
        return any(steps_training(call) for call in calls) or graph.any_steps_once(calls)

    def _calls_by_loop_body(self) -> Tuple[Dict[LoopNode, List[cst.Call]], Dict[LoopNode, List[cst.Call]]]:
        """For each loop, the calls in its body (nested loops included) and those outside any nested loop.

        Function and class definitions inside a loop body are not part of an
        iteration: defining a function runs none of its calls.
        """
        loop_of_body = {loop.body: loop for loop in self.facts.nodes(cst.For, cst.While)}
        every: Dict[LoopNode, List[cst.Call]] = {loop: [] for loop in loop_of_body.values()}
        direct: Dict[LoopNode, List[cst.Call]] = {loop: [] for loop in loop_of_body.values()}
        for call in self.facts.nodes(cst.Call):
            innermost = True
            for ancestor in self.facts.ancestors(call):
                if type(ancestor) in (cst.FunctionDef, cst.Lambda, cst.ClassDef):
                    break
                loop = loop_of_body.get(ancestor)
                if loop is not None:
                    every[loop].append(call)
                    if innermost:
                        direct[loop].append(call)
                    innermost = False
        return every, direct

    # ----- what a loop iterates -------------------------------------------------------------

    def _loader_and_batch(self, loop: LoopNode) -> Optional[Tuple[cst.BaseExpression, cst.BaseExpression]]:
        """The loader a loop draws its batches from, and the name bound to each batch."""
        if isinstance(loop, cst.For):
            iterable, enumerated = _unwrap_iterable(self.facts, self._through_with(loop.iter))
            if self.is_loader(iterable):
                batch = loop.target
                if enumerated and isinstance(batch, cst.Tuple) and len(batch.elements) == 2:
                    batch = batch.elements[1].value
                return iterable, batch
        return self._pulled_batch(loop)

    def _through_with(self, iterable: cst.BaseExpression) -> cst.BaseExpression:
        """``bar`` in ``with tqdm(loader) as bar: for batch in bar:`` is ``tqdm(loader)``."""
        if not isinstance(iterable, cst.Name):
            return iterable
        binding = self.facts.fact(Names).binding_of(iterable)
        return binding.value if binding is not None and binding.kind == WITH and binding.value is not None else iterable

    def _pulled_batch(self, loop: LoopNode) -> Optional[Tuple[cst.BaseExpression, cst.BaseExpression]]:
        """``batch = next(it)`` in the loop's own body, where ``it`` is ``iter(loader)``."""
        for call in self._direct_calls[loop]:
            if dotted(call.func) != "next" or not call.args:
                continue
            statement = self.facts.parent(call)
            if not isinstance(statement, cst.Assign) or len(statement.targets) != 1:
                continue
            source = self._iterator_source(call.args[0].value)
            if source is not None and self.is_loader(source):
                return source, statement.targets[0].target
        return None

    def _iterator_source(self, iterator: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """What ``iter(...)`` wraps, directly or through the name the iterator was bound to before the loop."""
        if isinstance(iterator, cst.Name):
            binding = self.facts.fact(Names).binding_of(iterator)
            iterator = binding.value if binding is not None and binding.kind == ASSIGN and not binding.path else iterator
        if isinstance(iterator, cst.Call) and dotted(iterator.func) == "iter" and iterator.args:
            return iterator.args[0].value
        return None

    def _names_bound_to_loaders(self) -> FrozenSet[str]:
        assignments = [(t.target, a.value) for a in self.facts.nodes(cst.Assign) for t in a.targets]
        assignments += [(a.target, a.value) for a in self.facts.nodes(cst.AnnAssign) if a.value is not None]
        names: Set[str] = set()
        for target, value in assignments:
            if isinstance(value, cst.Call):
                callee_name = self.facts.qualified_name(value.func) or dotted(value.func) or ""
                if callee_name.endswith(LOADER_FACTORIES):
                    name = dotted(target)
                    if name:
                        names.add(name)
        return frozenset(names)

    def is_loader(self, expression: cst.BaseExpression) -> bool:
        """Loader-like: bound to ``DataLoader(...)`` here, or named like one (``train_loader``)."""
        if isinstance(expression, cst.Call):
            callee_name = self.facts.qualified_name(expression.func) or dotted(expression.func) or ""
            if callee_name.endswith(LOADER_FACTORIES):
                return True
            name = dotted(expression.func) or ""  # self.train_dataloader()
            return bool(LOADER_NAME.search(name.rsplit(".", 1)[-1]))
        name = dotted(expression)
        if name is None:
            return False
        return name in self.loader_names or bool(LOADER_NAME.search(name.rsplit(".", 1)[-1]))

    # ----- queries ----------------------------------------------------------------------------

    def loop_of(self, node: LoopNode) -> Optional[LoaderLoop]:
        return self._by_node.get(node)

    def enclosing(self, node: cst.CSTNode) -> List[LoaderLoop]:
        """Recorded loops that contain ``node``, innermost first."""
        return [self._by_node[a] for a in self.facts.ancestors(node) if a in self._by_node]

    def in_training_loop(self, node: cst.CSTNode) -> bool:
        return any(loop.is_training for loop in self.enclosing(node))

    def functions_called_per_step(self) -> FrozenSet[str]:
        """Names of functions and methods called inside a step loop's body (``f`` for ``self.f(...)``)."""
        names: Set[str] = set()
        for loop in self.loops:
            if loop.is_training:
                names.update(named[0] for named in map(callee, self._calls_in_body[loop.node]) if named is not None)
        return frozenset(names)


class StepMethods:
    """The functions of a module that run once per training step.

    A function runs per step when it is

    * called inside a step loop of the same module,
    * named like a step hook: ``*_step`` (``training_step``, ``train_step``,
      ``log_step``), ``*_step_end``/``_begin``/``_start`` (``on_step_end``),
      ``on_*batch*`` (``on_train_batch_end``);
      or ``log``/``update``, but only in a module that trains (it has a step
      loop or one of the hooks above): elsewhere those names mean anything.
      A getter so named is no hook: ``def step(self): return (self.epoch,
      self.iteration)`` reads where a logger is and runs no step, or
    * called from a function that runs per step (``training_step`` calling
      ``self._shared_step``).

    Callees are matched by name, as :mod:`trainlint.analysis.calls` explains.
    """

    def __init__(self, facts: "ModuleFacts") -> None:
        self.facts = facts
        calls = facts.fact(CallGraph)
        loops = facts.fact(TrainingLoops)
        hooks = {f.name.value for f in calls.functions if STEP_HOOK_NAME.search(f.name.value) and not _is_getter(calls, f)}
        trains = bool(hooks) or any(loop.is_training for loop in loops.loops)
        names = set(loops.functions_called_per_step()) | hooks | (GENERIC_HOOK_NAMES if trains else set())
        self.functions: FrozenSet[cst.FunctionDef] = frozenset(_close_over_calls(calls, names))

    def step_function_of(self, node: cst.CSTNode) -> Optional[cst.FunctionDef]:
        """The function containing ``node`` when that function runs once per step, else None."""
        function = enclosing_function(self.facts, node)
        return function if function is not None and function in self.functions else None


def _is_getter(calls: CallGraph, function: cst.FunctionDef) -> bool:
    """No argument but ``self``, and a body that only returns a value made without a call to this module's code.

    A function returning what a same-module function or an optimizer step
    gives (``return self._step_impl()``, ``return self.optimizer.step()``)
    does the step's work, so it stays a hook.
    """
    params = function.params
    names = [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]
    variadic = isinstance(params.star_arg, cst.Param) or params.star_kwarg is not None
    calls_nothing = not calls.called_by(function) and function not in calls.training_functions
    return names in ([], ["self"]) and not variadic and _only_returns_a_value(function) and calls_nothing


def _only_returns_a_value(function: cst.FunctionDef) -> bool:
    """The body, its docstring aside, is one ``return <value>``."""
    body = function.body
    if isinstance(body, cst.IndentedBlock):
        lines = list(body.body[1:] if function.get_docstring() is not None else body.body)
    else:
        lines = [body]  # ``def step(self): return self._step``
    if len(lines) != 1 or not isinstance(lines[0], (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        return False
    small = lines[0].body
    return len(small) == 1 and isinstance(small[0], cst.Return) and small[0].value is not None


def _close_over_calls(calls: CallGraph, names: Set[str]) -> Set[cst.FunctionDef]:
    """The functions named in ``names``, plus every function they call, transitively."""
    chosen: Set[cst.FunctionDef] = set()
    pending = [f for f in calls.functions if f.name.value in names]
    while pending:
        function = pending.pop()
        if function not in chosen:
            chosen.add(function)
            pending.extend(calls.called_by(function))
    return chosen
