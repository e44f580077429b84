"""Loops and training steps, recognised by what the code does: what a loop runs per iteration, which loops
train, which evaluate, and which functions run once per step.

One model of loops (:class:`Loops`) serves every question: for each ``for``
and ``while`` loop of a module, the nodes one iteration runs, in its body or
in the same-module functions it calls (matched by name, as
:mod:`trainlint.analysis.calls` explains). The body of a ``for`` loop is its
block (the iterable is evaluated once).

A training loop is not recognised by its shape or by what it iterates: real
loops run ``for step in range(max_steps)``, ``while True: batch = next(it)``,
``for batch in bar`` inside ``with tqdm(loader) as bar:``, or iterate
anything at all. What decides is the effect, at two grains:

* a loop *trains* (:meth:`Loops.trains`) when an iteration runs a backward
  (``loss.backward()``, ``scaler.scale(loss).backward()``,
  ``accelerator.backward(loss)``, an engine's ``backward(loss)``) or an
  optimizer step anywhere: in its body, a nested loop, or a function it
  calls;
* a loop is a *step loop* (``LoaderLoop.is_training``, :class:`TrainingLoops`)
  when one iteration is one training step: its own body steps, directly or
  through a same-module function that steps once per call (``loss =
  train_step(model, batch)``). An epoch loop, whose body steps only through a
  nested loop or a function that loops over the data itself
  (``train_one_epoch(loader)``), trains but is not a step loop: code in it
  runs once an epoch, not once a step.

An *evaluation loop* (:class:`EvaluationLoops`) is a query on the same
model: a loop (or comprehension) that does not train and runs a forward
pass of a model in eval mode, or of a model over a validation/test loader.

Loops over something loader-like are also recorded with the loader and the
name bound to each batch, whatever their role, because the rules about
batches and data placement start from them.

A function runs once per step (:class:`StepMethods`) when a step loop calls
it, when it is a step hook (``training_step``, ``on_train_batch_end``...),
or when such a function calls it.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Callable, Dict, FrozenSet, List, NamedTuple, Optional, Set, Tuple, Union

import libcst as cst

from trainlint.analysis.calls import CallGraph, callee, steps_training
from trainlint.analysis.graph_values import MODEL_NAME
from trainlint.analysis.imports import dotted
from trainlint.analysis.names import ASSIGN, WITH, Names
from trainlint.analysis.walk import walk
from trainlint.step_words import (
    BOOKKEEPING_METHOD,
    GENERIC_HOOK_NAMES,
    HELD_OUT_LOADER_NAME,
    HELD_OUT_SPLIT,
    ITERATION_WRAPPERS,
    LOADER_FACTORIES,
    LOADER_NAME,
    NOT_FORWARD,
    names_a_training_hook,
)

if TYPE_CHECKING:
    from trainlint.analysis import ModuleFacts

Loop = Union[cst.For, cst.While]
Comprehension = Union[cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp]
COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
DEFINITIONS = (cst.FunctionDef, cst.Lambda, cst.ClassDef)

# A name that says "loader" is trusted where no binding shows one (a loader handed in as a parameter).
# Keywords that say where or how a tensor is made: reading a module attribute for them runs nothing of it.
PLACEMENT_KEYWORDS = frozenset({"device", "dtype"})


class LoaderLoop(NamedTuple):
    """A loop of the module that trains, iterates a loader, or both.

    ``loader`` is the iterated loader with ``enumerate``/``tqdm`` removed, or
    the loader a ``while`` loop pulls batches from with ``next(it)``; None
    where the loop iterates no loader (``for step in range(n)``). ``batch``
    is the name bound to each batch. ``is_training``: one iteration is one
    training step.
    """

    node: Loop
    loader: Optional[cst.BaseExpression]
    batch: Optional[cst.BaseExpression]
    is_training: bool


def _runs_once(loop: Union[Loop, Comprehension]) -> bool:
    """The loop's body ends in an unconditional ``break`` that no ``continue`` skips: its first iteration is its last."""
    if not isinstance(loop, (cst.For, cst.While)) or not isinstance(loop.body, cst.IndentedBlock) or not loop.body.body:
        return False
    last = loop.body.body[-1]
    ends_in_break = isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Break)
    return ends_in_break and not any(isinstance(node, cst.Continue) for node in walk(loop.body))


def enclosing_function(facts: "ModuleFacts", node: cst.CSTNode) -> Optional[cst.FunctionDef]:
    """The innermost function definition containing ``node``."""
    for ancestor in facts.ancestors(node):
        if isinstance(ancestor, cst.FunctionDef):
            return ancestor
    return None


def iterated(facts: "ModuleFacts", expression: cst.BaseExpression) -> Tuple[cst.BaseExpression, bool]:
    """What a loop really iterates: ``enumerate(...)``/``tqdm(...)`` stripped, and ``bar`` of ``with tqdm(loader)
    as bar:`` followed to ``loader``; and whether ``enumerate`` was one of the wrappers."""
    if isinstance(expression, cst.Name):
        binding = facts.fact(Names).binding_of(expression)
        if binding is not None and binding.kind == WITH and binding.value is not None:
            expression = binding.value
    enumerated = False
    while isinstance(expression, cst.Call) and expression.args:
        name = dotted(expression.func)
        qualified = facts.qualified_name(expression.func) or name
        if name not in ITERATION_WRAPPERS and qualified not in ITERATION_WRAPPERS:
            break
        enumerated = enumerated or name == "enumerate"
        expression = expression.args[0].value
    return expression, enumerated


class _Index(NamedTuple):
    """Nodes of some types by where they run (see :meth:`Loops.body_nodes` and :meth:`Loops.run_by_body`)."""

    in_body: Dict[Loop, List[cst.CSTNode]]  # anywhere in a loop's body, nested loops and definitions included
    run_by_body: Dict[Loop, List[cst.CSTNode]]  # ... but not in a definition: what executing the body runs
    run_directly: Dict[Loop, List[cst.CSTNode]]  # ... nor in a nested loop
    by_function: Dict[cst.FunctionDef, List[cst.CSTNode]]  # anywhere in a function's body


class Loops:
    """Every ``for`` and ``while`` loop of a module, and the nodes one iteration runs."""

    def __init__(self, facts: "ModuleFacts") -> None:
        self.facts = facts
        self.loops: List[Loop] = facts.nodes(cst.For, cst.While)  # source order: outer loops first
        self._loop_of_body = {loop.body: loop for loop in self.loops}
        self._reached: Dict[Loop, FrozenSet[cst.FunctionDef]] = {}
        self._index: Dict[Tuple[type, ...], _Index] = {}

    def loops_containing(self, node: cst.CSTNode) -> List[Loop]:
        """The loops whose body contains ``node`` in this function or an enclosing one, innermost first."""
        return [self._loop_of_body[a] for a in self.facts.ancestors(node) if a in self._loop_of_body]

    def functions_reached(self, loop: Loop) -> FrozenSet[cst.FunctionDef]:
        """The same-module functions the loop body may call, directly or through each other."""
        found = self._reached.get(loop)
        if found is None:
            graph = self.facts.fact(CallGraph)
            found = self._reached[loop] = graph.reachable_from(graph.resolve_calls(self.body_nodes(loop, (cst.Call,))))  # type: ignore[arg-type]
        return found

    def nodes_in(self, loop: Loop, *kinds: type) -> List[cst.CSTNode]:
        """Nodes of exactly these types that run per iteration: in the body (an LBFGS ``closure`` defined there
        included), or in a function it reaches."""
        by_function = self._indexed(kinds).by_function
        nodes = list(self.body_nodes(loop, kinds))
        for function in self.functions_reached(loop):
            nodes.extend(by_function.get(function, ()))
        return nodes

    def body_nodes(self, loop: Loop, kinds: Tuple[type, ...]) -> List[cst.CSTNode]:
        """Nodes of exactly these types in the loop body itself (nested loops and definitions included)."""
        return self._indexed(kinds).in_body.get(loop, [])

    def run_by_body(self, loop: Loop, kinds: Tuple[type, ...], *, nested_loops: bool) -> List[cst.CSTNode]:
        """Nodes of exactly these types that executing the body runs itself: not in a function or class defined
        there (defining a function runs none of its calls), and, unless ``nested_loops``, not in a nested loop."""
        index = self._indexed(kinds)
        return (index.run_by_body if nested_loops else index.run_directly).get(loop, [])

    def iteration_nodes(self, loop: Union[Loop, Comprehension], kind: type) -> List[cst.CSTNode]:
        """Nodes of exactly type ``kind`` that run per iteration of a loop (see :meth:`nodes_in`) or of a
        comprehension (its element and conditions: the first iterable is evaluated once; callees are not followed)."""
        if not isinstance(loop, COMPREHENSIONS):
            return self.nodes_in(loop, kind)
        once = set(walk(loop.for_in.iter))
        return [n for n in walk(loop) if type(n) is kind and n not in once]

    def running(self, predicate: Callable[[cst.Call], bool]) -> List[Loop]:
        """The loops, outer first, whose iterations run a call for which ``predicate`` holds."""
        return [loop for loop in self.loops if any(predicate(c) for c in self.nodes_in(loop, cst.Call))]  # type: ignore[arg-type]

    def trains(self, loop: Union[Loop, Comprehension]) -> bool:
        """An iteration runs a backward or an optimizer step, in a nested loop or a called function included."""
        return any(steps_training(c) for c in self.iteration_nodes(loop, cst.Call))  # type: ignore[arg-type]

    def _indexed(self, kinds: Tuple[type, ...]) -> _Index:
        """Nodes of ``kinds`` by each loop body and each function that contains them (one pass, memoised)."""
        index = self._index.get(kinds)
        if index is None:
            index = self._index[kinds] = _Index({}, {}, {}, {})
            for node in self.facts.nodes(*kinds) if self.loops else ():
                in_definition = in_nested_loop = False
                for ancestor in self.facts.ancestors(node):
                    loop = self._loop_of_body.get(ancestor)
                    if loop is not None:
                        index.in_body.setdefault(loop, []).append(node)
                        if not in_definition:
                            index.run_by_body.setdefault(loop, []).append(node)
                            if not in_nested_loop:
                                index.run_directly.setdefault(loop, []).append(node)
                        in_nested_loop = True
                    elif type(ancestor) in DEFINITIONS:
                        in_definition = True
                        if type(ancestor) is cst.FunctionDef:
                            index.by_function.setdefault(ancestor, []).append(node)  # type: ignore[arg-type]
        return index


class TrainingLoops:
    """The step loops and loader loops of a module (see the module docstring)."""

    def __init__(self, facts: "ModuleFacts") -> None:
        self.facts = facts
        self.loader_names = self._names_bound_to_loaders()
        self._loops = facts.fact(Loops)
        self.loops: List[LoaderLoop] = []
        for loop in self._loops.loops:
            found = self._loader_and_batch(loop)
            training = self._steps(self._direct_calls(loop))
            if training or found is not None:
                loader, batch = found if found is not None else (None, None)
                self.loops.append(LoaderLoop(loop, loader, batch, training))
        self._by_node: Dict[Loop, LoaderLoop] = {loop.node: loop for loop in self.loops}

    # ----- what a loop does ---------------------------------------------------------------

    def _steps(self, calls: List[cst.Call]) -> bool:
        """A backward or optimizer step among ``calls``, or a call of a same-module function that steps once."""
        graph = self.facts.fact(CallGraph)
        return any(steps_training(call) for call in calls) or graph.any_steps_once(calls)

    def _direct_calls(self, loop: Loop) -> List[cst.Call]:
        """The calls the loop's own body runs, outside nested loops and definitions."""
        return self._loops.run_by_body(loop, (cst.Call,), nested_loops=False)  # type: ignore[return-value]

    # ----- what a loop iterates -------------------------------------------------------------

    def _loader_and_batch(self, loop: Loop) -> Optional[Tuple[cst.BaseExpression, cst.BaseExpression]]:
        """The loader a loop draws its batches from, and the name bound to each batch."""
        if isinstance(loop, cst.For):
            iterable, enumerated = iterated(self.facts, loop.iter)
            if self.is_loader(iterable):
                batch = loop.target
                if enumerated and isinstance(batch, cst.Tuple) and len(batch.elements) == 2:
                    batch = batch.elements[1].value
                return iterable, batch
        return self._pulled_batch(loop)

    def _pulled_batch(self, loop: Loop) -> Optional[Tuple[cst.BaseExpression, cst.BaseExpression]]:
        """``batch = next(it)`` in the loop's own body, where ``it`` is ``iter(loader)``."""
        for call in self._direct_calls(loop):
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

    def loop_of(self, node: Loop) -> Optional[LoaderLoop]:
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
                calls = self._loops.run_by_body(loop.node, (cst.Call,), nested_loops=True)
                names.update(named[0] for named in map(callee, calls) if named is not None)  # type: ignore[arg-type]
        return frozenset(names)


class StepMethods:
    """The functions of a module that run once per training step.

    A function runs per step when it is

    * called inside a step loop of the same module,
    * named like a step hook: ``*_step`` (``training_step``, ``train_step``,
      ``log_step``), ``*_step_end``/``_begin``/``_start`` (``on_step_end``),
      ``on_*batch*`` (``on_train_batch_end``);
      or ``log``/``update``/``step``, but only in a module that trains (it
      has a step loop, one of the hooks above, or a backward or optimizer
      step anywhere): elsewhere those names mean anything (a diffusion
      scheduler's ``step`` samples).
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
        hooks = {f.name.value for f in calls.functions if names_a_training_hook(f.name.value) and not _is_getter(calls, f)}
        trains = bool(hooks) or any(loop.is_training for loop in loops.loops) or calls.trains_anywhere
        names = set(loops.functions_called_per_step()) | hooks | (GENERIC_HOOK_NAMES if trains else set())
        self.functions = calls.reachable_from(f for f in calls.functions if f.name.value in names)

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


class EvaluationLoop(NamedTuple):
    loop: Union[Loop, Comprehension]  # `[model(x) for x in test_loader]` evaluates too
    forwards: List[cst.Call]  # the model calls it runs per iteration


class EvaluationLoops:
    """Loops that evaluate a model: a forward pass of it in eval mode (or over a validation/test loader), no training.

    Only loops that do not train (:meth:`Loops.trains`). A model is in eval
    mode for a loop when the last mode call on it before the loop in its
    function is ``.eval()`` (or ``.train(False)``), or when ``.eval()`` runs
    in the loop, or in a function the loop calls before that function runs
    the model, itself or through its callees, or when every same-module call
    of the loop's function hands it a model its caller has just put in eval
    mode; a forward pass is calling it, its ``forward``, or another
    method of it that is not bookkeeping (``model.encoder(src)``,
    ``self.model.decode(z)``) nor a helper that only compares the module's
    attributes (``model.make_trg_mask(trg)``). A loop whose body always ends in ``break``
    runs once: one batch taken for a picture or a shape check, not an
    evaluation.
    """

    def __init__(self, facts: "ModuleFacts") -> None:
        self.facts = facts
        self._loops = facts.fact(Loops)
        self._caller_modes: Dict[cst.FunctionDef, Dict[str, str]] = {}
        self._global_modes: Dict[cst.FunctionDef, Dict[str, str]] = {}
        self.loops: List[EvaluationLoop] = []
        for loop in [*self._loops.loops, *facts.nodes(*COMPREHENSIONS)]:
            if _runs_once(loop) or self._loops.trains(loop):
                continue
            forwards = self._forwards(loop, self._loops.iteration_nodes(loop, cst.Call))  # type: ignore[arg-type]
            if forwards:
                self.loops.append(EvaluationLoop(loop, forwards))

    def _forwards(self, loop: Union[Loop, Comprehension], calls: List[cst.Call]) -> List[cst.Call]:
        """The calls of ``calls`` that run a model in eval mode (or, over held-out data, one named like a model).

        A mode set in the loop body counts for the calls after it; a mode set
        in a function the loop calls belongs to that function's own code, and
        a forward pass inside a loop of a called function is that loop's.
        """
        modes = self._modes_before(loop)
        set_in_body = [c for c in self._loops.body_nodes(loop, (cst.Call,)) if _mode_set(c) is not None]  # type: ignore[arg-type]
        for call in set_in_body:
            modes[dotted(call.func.value) or ""] = _mode_set(call)  # type: ignore[attr-defined, assignment]
        rebound = self._rebound_per_iteration(loop)
        own = self._loops_within(loop) | {loop}
        calls = [
            c for c in calls
            if _root(c.func) not in rebound and self._runs_in(c, loop, own) and not self._precedes_its_mode(c, set_in_body)
        ]
        calls = [c for c in calls if not self._touches_no_parameter(c)]
        in_eval = {model for model, mode in modes.items() if mode == "eval"}
        put_in_eval = self._put_in_eval_by_callees(loop, calls)
        forwards = [c for c in calls if _models_called(c) & in_eval or c in put_in_eval]
        if forwards or not self.iterates_held_out_data(loop):
            return forwards
        in_train = {model for model, mode in modes.items() if mode == "train"}
        return [c for c in calls if self._calls_a_model(c) and not _models_called(c) & in_train]

    def _calls_a_model(self, call: cst.Call) -> bool:
        """``call`` runs a model: its binding is an instance of a same-module class with a ``forward``
        (``classifier = RNNClassifier(...)``), or, where no binding says, its name is a model's."""
        names = self.facts.fact(Names)
        if any(names.method(c, "forward") is not None for c in names.instance_classes(call.func)):
            return True
        return _named_like_model(call)

    def _touches_no_parameter(self, call: cst.Call) -> bool:
        """``model.make_trg_mask(trg)``: a method that every same-module definition of it (of the receiver's
        class where a binding shows it, else of any class) writes without running or reading the module's
        state beyond comparing with it or placing a tensor on its device: it records no graph."""
        if not isinstance(call.func, cst.Attribute) or call.func.attr.value == "forward":
            return False
        names = self.facts.fact(Names)
        name = call.func.attr.value
        classes = names.instance_classes(call.func.value)
        if classes:
            methods = [names.method(c, name) for c in classes]
        else:
            by_name = self.facts.fact(CallGraph).resolve([(name, True)])
            methods = [f for f in by_name if names.method_kind(f) == "instance"]
        return bool(methods) and all(m is not None and _reads_state_only_to_compare(m) for m in methods)

    def _put_in_eval_by_callees(self, loop: Union[Loop, Comprehension], calls: List[cst.Call]) -> Set[cst.Call]:
        """Forward passes of ``calls`` that a function the loop calls runs after its own ``.eval()`` of their model,
        directly or through the functions it calls next: skorch's ``validation_step`` does
        ``self.module_.eval()`` then ``self.infer(Xi)``, which runs ``self.module_(x)``. A function that sets the
        model's mode itself decides for its own calls; a model the function builds itself does not count, nor a
        call of another of its methods there (``model.make_src_mask(src)`` beside a forward under no_grad)."""
        around = set(self.facts.ancestors(loop))
        by_function: Dict[cst.FunctionDef, List[cst.Call]] = {}
        for call in calls:
            function = enclosing_function(self.facts, call)
            if function is not None and function not in around:
                by_function.setdefault(function, []).append(call)
        graph = self.facts.fact(CallGraph)
        found: Set[cst.Call] = set()
        for function, own in by_function.items():
            for model in {dotted(c.func.value) for c in own if _mode_set(c) == "eval"} - _built_in(function):  # type: ignore[attr-defined]
                pending, seen = [(function, self._after_eval(own, model))], {function}
                while pending:
                    current, after = pending.pop()
                    for call in after:
                        if dotted(call.func) in (model, f"{model}.forward"):  # the model itself, not its helpers
                            found.add(call)
                        for reached in graph.resolve_call(call):
                            reached_calls = by_function.get(reached, [])
                            if reached not in seen and not any(_mode_set(c) and dotted(c.func.value) == model for c in reached_calls):  # type: ignore[attr-defined]
                                seen.add(reached)
                                pending.append((reached, reached_calls))
        return found

    def _after_eval(self, calls: List[cst.Call], model: str) -> List[cst.Call]:
        """The calls of one function that run while the last mode it set on ``model`` is eval."""
        after, mode = [], None
        for call in sorted(calls, key=self._order.__getitem__):
            if _mode_set(call) is not None and dotted(call.func.value) == model:  # type: ignore[attr-defined]
                mode = _mode_set(call)
            elif mode == "eval":
                after.append(call)
        return after

    def _runs_in(self, call: cst.Call, loop: cst.CSTNode, own: Set[cst.CSTNode]) -> bool:
        """``call`` runs as part of ``loop``'s iterations (``own``: it and its nested loops), not of a loop of a
        function it calls (a comprehension's calls may sit in a loop around it)."""
        innermost = self._loops.loops_containing(call)[:1]
        return not innermost or innermost[0] in own or innermost[0] in set(self.facts.ancestors(loop))

    def _precedes_its_mode(self, call: cst.Call, mode_calls: List[cst.Call]) -> bool:
        """``ckpt.get("ema")`` before ``ckpt.eval()`` in the same body ran before the mode was set."""
        return any(
            _models_called(call) & {dotted(m.func.value)} and self._order[call] < self._order[m]  # type: ignore[attr-defined]
            for m in mode_calls
        )

    def _rebound_per_iteration(self, loop: Union[Loop, Comprehension]) -> Set[str]:
        """Names that ``for`` targets in ``loop`` (its own included) bind anew each iteration: no model set up before it."""
        names: Set[str] = set()
        for node in [loop, *self._loops.body_nodes(loop, (cst.For,))]:  # type: ignore[arg-type]
            if isinstance(node, cst.For):
                names |= _target_names(node.target)
        clause = loop.for_in if isinstance(loop, COMPREHENSIONS) else None
        while clause is not None:
            names |= _target_names(clause.target)
            clause = clause.inner_for_in
        return names

    def _modes_before(self, node: cst.CSTNode, callers: bool = True) -> Dict[str, str]:
        """The last mode set on each model before ``node``, in the function (or module code) around it; for a
        parameter the function never sets a mode on, the mode every caller here left its argument in
        (``callers``)."""
        scope = enclosing_function(self.facts, node)
        modes: Dict[str, str] = {}
        if callers and scope is not None:
            modes.update(self._modes_of_globals(scope))
            modes.update(self._modes_from_callers(scope))
        for call in self.facts.nodes(cst.Call):
            if self._order[call] >= self._order[node]:
                break
            mode = _mode_set(call)
            if mode is None or enclosing_function(self.facts, call) is not scope:
                continue
            # `for m in models: m.eval()` sets the mode of each element, not of a later loop's `m`
            if any(
                isinstance(a, cst.For) and _root(call.func) in _target_names(a.target) and node not in self._loops_within(a)
                for a in self.facts.ancestors(call)
            ):
                continue
            modes[dotted(call.func.value) or ""] = mode  # type: ignore[attr-defined]
        return modes

    def _modes_of_globals(self, function: cst.FunctionDef) -> Dict[str, str]:
        """Module-level models that ``function`` reads as globals, in the mode module code left each in before every
        module-level call of it: sgrvinod's captioning ``eval.py`` runs ``encoder.eval()`` at module level, then
        ``evaluate(beam_size)``, whose loop runs ``encoder(image)`` over the whole test set (round 7)."""
        known = self._global_modes.get(function)
        if known is not None:
            return known
        names = self.facts.fact(Names)
        calls = [c for c in names.calls_of(function) if enclosing_function(self.facts, c) is None]
        modes_at = [self._modes_before(call, callers=False) for call in calls]
        scope = names.scope_of(function.body)
        found = {
            model: mode
            for model, mode in (modes_at[0].items() if modes_at else ())
            if all(before.get(model) == mode for before in modes_at[1:]) and not names.bindings(scope, model.split(".")[0])
        }
        self._global_modes[function] = found
        return found

    def _modes_from_callers(self, function: cst.FunctionDef) -> Dict[str, str]:
        """Parameters that every same-module call of ``function`` fills with a model its caller has just put in
        one mode: ssd.pytorch's module code runs ``net.eval()``, then ``test_net(..., net, ...)``, whose loop
        runs ``net(x)`` over the whole test set (one level of callers)."""
        known = self._caller_modes.get(function)
        if known is None:
            known = self._caller_modes[function] = self._modes_passed_in(function)
        return known

    def _modes_passed_in(self, function: cst.FunctionDef) -> Dict[str, str]:
        names = self.facts.fact(Names)
        calls = names.calls_of(function)
        modes_at = [self._modes_before(call, callers=False) for call in calls]  # once per call, not per parameter
        found: Dict[str, str] = {}
        for parameter in names.parameters(function) if calls else ():
            arguments = [names.argument_for(call, function, parameter.node) for call in calls]
            modes = {
                before.get(dotted(argument) or "") if argument is not None else None
                for before, argument in zip(modes_at, arguments)
            }
            if len(modes) == 1 and None not in modes:
                found[parameter.name] = modes.pop()  # type: ignore[assignment]
        return found

    def _loops_within(self, loop: Union[Loop, Comprehension]) -> Set[cst.CSTNode]:
        """The loops nested in ``loop``'s body."""
        return set(self._loops.body_nodes(loop, (cst.For, cst.While)))  # type: ignore[arg-type]

    def iterates_held_out_data(self, loop: Union[Loop, Comprehension]) -> bool:
        """Iterates a validation or test loader: ``val_loader``, ``tqdm(self.test_dl)``, ``loaders["val"]``."""
        if not isinstance(loop, (cst.For, *COMPREHENSIONS)):
            return False
        iterable, _ = iterated(self.facts, loop.iter if isinstance(loop, cst.For) else loop.for_in.iter)
        if isinstance(iterable, cst.Call):
            iterable = iterable.func
        if isinstance(iterable, cst.Subscript) and len(iterable.slice) == 1:
            key = getattr(iterable.slice[0].slice, "value", None)
            return isinstance(key, cst.SimpleString) and bool(HELD_OUT_SPLIT.match(str(key.evaluated_value)))
        name = dotted(iterable)
        return name is not None and bool(HELD_OUT_LOADER_NAME.match(name.rsplit(".", 1)[-1]))

    @functools.cached_property
    def _order(self) -> Dict[cst.CSTNode, int]:
        return {node: index for index, node in enumerate(self.facts.parents)}


def _reads_state_only_to_compare(method: cst.FunctionDef) -> bool:
    """Every use of the receiver (``self``) in ``method`` is an attribute read that is compared
    (``trg != self.pad_idx``) or says where or how a tensor is made (``device=self.device``): no call of
    the receiver or of anything it holds, no parameter read, the receiver handed to nothing."""
    params = [*method.params.posonly_params, *method.params.params]
    if not params:
        return False
    receiver = params[0].name.value
    allowed: Set[cst.CSTNode] = set()  # the receiver's names in the reads above
    for node in walk(method.body):
        if type(node) is cst.Comparison:
            operands = [node.left, *(c.comparator for c in node.comparisons)]  # type: ignore[attr-defined]
        elif type(node) is cst.Arg and node.keyword is not None and node.keyword.value in PLACEMENT_KEYWORDS:  # type: ignore[attr-defined]
            operands = [node.value]  # type: ignore[attr-defined]
        else:
            continue
        allowed.update(o.value for o in operands if type(o) is cst.Attribute and _is_name(o.value, receiver))
    return all(n in allowed for n in walk(method.body) if _is_name(n, receiver))


def _is_name(node: cst.CSTNode, value: str) -> bool:
    return type(node) is cst.Name and node.value == value  # type: ignore[attr-defined]


def _built_in(function: cst.FunctionDef) -> Set[str]:
    """Names that ``function`` binds by assignment: a model it builds and evaluates itself (a profiler's
    ``model = create_model(name); model.eval()``) is set up per call, not evaluated on the caller's batches."""
    return {n.target.value for n in walk(function) if type(n) is cst.AssignTarget and type(n.target) is cst.Name}  # type: ignore[attr-defined]


def _mode_set(call: cst.Call) -> Optional[str]:
    """``"eval"`` for ``m.eval()``/``m.train(False)``, ``"train"`` for ``m.train()``/``m.train(True)``, else None."""
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in ("eval", "train") or dotted(func.value) is None:
        return None
    if func.attr.value == "eval":
        return None if call.args else "eval"
    if not call.args:
        return "train"
    value = call.args[0].value
    if isinstance(value, cst.Name) and value.value in ("True", "False"):
        return "train" if value.value == "True" else "eval"
    return None


def _models_called(call: cst.Call) -> Set[str]:
    """What ``call`` may run the forward of: ``{"model"}`` for ``model(x)``, ``{"model.encoder", "model"}`` for
    ``model.encoder(x)``; nothing for bookkeeping methods (``model.to(device)``)."""
    name = dotted(call.func)
    if name is None:
        return set()
    if not isinstance(call.func, cst.Attribute):
        return {name}
    if call.func.attr.value in NOT_FORWARD or BOOKKEEPING_METHOD.match(call.func.attr.value):
        return set()
    return {name, name.rsplit(".", 1)[0]}


def _root(expression: cst.BaseExpression) -> Optional[str]:
    """``model`` for ``model.encoder.layer`` (through calls and subscripts too)."""
    while isinstance(expression, (cst.Attribute, cst.Subscript, cst.Call)):
        expression = expression.func if isinstance(expression, cst.Call) else expression.value
    return expression.value if isinstance(expression, cst.Name) else None


def _target_names(target: cst.BaseExpression) -> Set[str]:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return {n for e in target.elements for n in _target_names(e.value)}
    return set()


def _named_like_model(call: cst.Call) -> bool:
    name = dotted(call.func)
    return name is not None and bool(MODEL_NAME.search(name.rsplit(".", 1)[-1]))
