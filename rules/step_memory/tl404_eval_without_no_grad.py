"""TL404 eval-without-no-grad: an evaluation loop that records an autograd graph it never uses."""

from __future__ import annotations

import functools
import re
from typing import FrozenSet, List, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from trainlint.analysis import dotted
from trainlint.analysis.devices import DeviceLattice
from trainlint.analysis.grad_mode import GradMode
from trainlint.analysis.names import ASSIGN, Binding, Names
from trainlint.analysis.graph_values import GraphValues, is_store_target
from trainlint.analysis.steps import COMPREHENSIONS, Comprehension, EvaluationLoop, EvaluationLoops, Loop, Loops, enclosing_function
from trainlint.analysis.values import Values
from trainlint.analysis.walk import walk
from trainlint.diagnostics import Applicability
from trainlint.rule import CstFix, Import, Rule
from trainlint.step_words import TEST_FRAMEWORKS, collected_as_tests

# Autograd in the loop: evaluation that needs gradients (saliency maps, input attributions).
# (`torch.autograd.Variable` differentiates nothing: a loop wrapping inputs in it is still an evaluation.)
AUTOGRAD_FUNCTIONS = frozenset(
    f"{module}.{name}"
    for module in ("torch.autograd", "torch.func", "functorch")
    for name in ("grad", "backward", "vjp", "jvp", "jacrev", "jacfwd", "hessian")
)
AUTOGRAD_MODULES = ("torch.autograd.functional.",)
GRADIENT_METHODS = frozenset({"requires_grad_", "retain_grad", "register_hook", "attribute", "perturb"})
GRAD_ON = frozenset({"torch.enable_grad", "torch.autograd.enable_grad"})
GRAD_SWITCH = frozenset({"torch.set_grad_enabled", "torch.autograd.set_grad_enabled"})
# Adversarial attacks called as objects (`atk(images, labels)` of torchattacks, advertorch's
# `adversary.perturb`): they differentiate through the model and fail under no_grad
# (fixtures/TL404_eval_without_no_grad/ok_needs_gradients.py).
ATTACK_NAME = re.compile(r"(^|_)(atk|attack|attacker|adversary|pgd|fgsm|cw)(_|$)", re.IGNORECASE)
STORING_METHODS = frozenset({"append", "extend", "insert", "add", "put"})
# A loop bounded by a literal this small makes a handful of forward passes (a retry, a few predictions shown in
# a plot): not an evaluation over a data set (fixtures/TL404_eval_without_no_grad/ok_handful_of_passes.py).
HANDFUL = 10
# Views of a figure's grid of axes that keep one item per subplot: `axes.flat`, `axes.flatten()`, `axes.ravel()`.
AXES_VIEWS = frozenset({"flat", "flatten", "ravel"})
# How many bindings a loop's iterable is followed back through to the figure whose axes it holds.
MAX_AXES_DEPTH = 4
# A forward hook registered on a module or globally (`m.register_forward_hook(f)`, `register_module_forward_hook`):
# it may keep what a forward computes even where the loop drops the output.
FORWARD_HOOK = re.compile(r"(^|.*\.)register_(module_)?forward_(pre_)?hook$")
# How many assignments an action is followed back through to the forward pass that chose it.
MAX_ACTION_DEPTH = 4
# Drawing the next character or token from a forward pass's output: a loop that does so for every forward pass,
# over no held-out data, generates one sequence (a char-RNN's `sample`, a script generator's `for _ in
# range(predict_len)`), it evaluates no data set (fixtures/TL404_eval_without_no_grad/ok_sampling_generation_loop.py).
SAMPLERS = frozenset({"torch.multinomial", "numpy.random.choice", "random.choice", "random.choices"})
SAMPLING_METHOD = "multinomial"  # `probs.multinomial(1)`
# ... followed back further than an action: `p, top_i = p.topk(k)`, `top_i = top_i.numpy()`, `p = p / p.sum()`.
MAX_SAMPLE_DEPTH = 6


class EvalWithoutNoGrad(Rule):
    """## What it does
    Finds an evaluation loop that runs its forward passes with autograd on:
    a loop that calls a model put in eval mode before it (`model.eval()`),
    or iterates a validation or test loader and calls a model, and runs no
    backward or optimizer step, outside `torch.no_grad()` and
    `torch.inference_mode()`.

    The loop can have any shape, a comprehension over batches included
    (`[model(x) for x, _ in test_loader]`), and a loop's forward pass can
    sit in a same-module function it calls, after that function's own
    `.eval()` (`validation_step` sets eval mode, then runs the model through
    a shared `infer` helper). The model may also be put in eval mode by the
    loop function's callers: when every same-module call hands it a model
    its caller has just put in eval mode (`net.eval()` then
    `test_net(net, dataset)`), or when module code puts a global model in
    eval mode and then calls the loop's function, which reads that global. A model is recognised by its binding where one
    shows it (an instance of a same-module `nn.Module` class, whatever its
    name), else by its name; a method of it that only compares its attributes
    or passes them as `device=`/`dtype=` (a mask helper) is no forward pass.
    Deliberately silent: a function
    decorated with `@torch.no_grad()`/`@torch.inference_mode()`, or called
    only under one of them in this module; loops inside such a context, or
    after `torch.set_grad_enabled(False)`; Lightning's `validation_step`,
    `test_step`, `predict_step` and evaluation hooks, which Lightning runs
    without grad (a `validation_step` that this module's own loop calls is
    a plain method, as in skorch's `fit_loop`); evaluation that needs gradients: `torch.autograd.grad`,
    `requires_grad_()` on inputs, reading `.grad` (saliency maps),
    `torch.enable_grad()`, an adversarial attack (`atk(images, labels)`,
    `adversary.perturb(...)`); a loop that runs a handful of times
    (at most ten passes: `for i in range(5):` to plot five predictions,
    `while retries:` counting 2 down, `for j, x in enumerate(loader):` broken
    by `if j >= 9: break`; one pass per subplot of `fig, axes = plt.subplots(...)`),
    which is no evaluation over a data set; an agent
    acting in an environment (what the forward pass chooses is handed to
    `env.step(...)`: one observation per environment at a time, its graph
    freed at the next step); the forward passes of a model whose every
    parameter this module freezes (`for p in model.parameters():
    p.requires_grad = False`, `model.requires_grad_(False)`) and never thaws,
    which record nothing; a generation loop that draws each next
    character or token from the forward pass's output (`torch.multinomial`,
    `np.random.choice`) over no held-out data, one sequence at a time,
    unless a forward pass takes a value that may carry the last step's
    graph (an RNN's hidden state not detached: the graphs chain up); greedy
    decoding, `argmax` fed back, is still reported: nothing in the loop
    tells it from a prediction compared with labels; a loop that drops every output (`model(x)` as a
    statement, to warm up or time the model), unless the module registers a
    forward hook that may keep what the forward computes; tests (`def test_*`
    in a file of tests: one pytest collects by its name, `test_*.py` or
    `*_test.py`, or one that imports pytest or unittest), whose test-sized
    inputs make the graphs' memory no concern. A notebook's or a script's
    `def test_model(model, loader)` is an evaluation like any other.

    ## Why is this bad
    `model.eval()` changes what dropout and batch normalisation do, not
    autograd: every forward pass still records its graph and keeps every
    activation that a backward would need. Evaluation then uses two to
    three times the memory it needs, runs slower, and runs out of memory
    on batch sizes that train fine.

    ## Example
    ```python
    model.eval()
    for x, y in val_loader:
        correct += (model(x).argmax(1) == y).sum().item()
    ```

    ## Use instead
    ```python
    model.eval()
    with torch.no_grad():
        for x, y in val_loader:
            correct += (model(x).argmax(1) == y).sum().item()
    ```

    ## Fix safety
    The fix wraps the loop (or the statement holding the comprehension) in
    `with torch.no_grad():`. It is safe when
    nothing the loop computes with grad leaves an iteration: the results
    are read as numbers (`.item()`, `argmax`, comparisons) or dropped. When
    an output is stored beyond the iteration (appended to a list, kept on
    an attribute, returned or yielded), the fix is unsafe: the stored
    tensors lose their `grad_fn`, and code that later backpropagates
    through them (a training step fed by this loop) would fail.

    ## Evidence
    `fixtures/TL404_eval_without_no_grad/` (bad cases and their fixed
    snapshots, ok traps) and `tests/test_runtime_TL404.py`, which shows the
    bad evaluations' outputs carrying a `grad_fn` and the fixed ones'
    not, with the same metrics.
    """

    fix = Applicability.SAFE

    def leave_Module(self, original_node: cst.Module) -> None:
        evaluation = self.facts.fact(EvaluationLoops)
        if not evaluation.loops:
            return
        grad = self.facts.fact(GradMode)
        reported: List[cst.CSTNode] = []
        for found in evaluation.loops:  # outer loops first: an inner loop of a reported loop is covered by its fix
            if any(found.loop in set(self.facts.ancestors(r)) or r in set(self.facts.ancestors(found.loop)) for r in reported):
                continue
            if grad.runs_without_grad(found.loop) or self._needs_gradients(found.loop) or self._in_a_test(found.loop):
                continue
            if self._runs_a_handful_of_times(found.loop):
                continue
            recording = [c for c in self._recording(grad, found) if not self._of_a_frozen_model(c)]
            if recording and (
                self._acts_in_an_environment(found.loop, recording)
                or self._drops_every_output(recording)
                or self._samples_what_it_generates(found.loop, recording)
            ):
                continue
            if recording:
                reported.append(found.loop)
                self._report(found, recording[0])

    # ----- detection ------------------------------------------------------------------

    def _recording(self, grad: GradMode, found: EvaluationLoop) -> List[cst.Call]:
        """The loop's forward passes that record a graph: in its body, or in a function the body reaches with
        grad on (not through a call made under ``no_grad``, as a trainer's ``prediction_step`` calls
        ``compute_loss``)."""
        loops = self.facts.fact(Loops)
        forwards = [c for c in found.forwards if not self._launcher_method(c)]
        if isinstance(found.loop, COMPREHENSIONS):
            return [c for c in forwards if not grad.runs_without_grad(c)]
        body = loops.body_nodes(found.loop, (cst.Call,))
        in_body = set(body)
        reached = grad.reached_with_grad(body)  # type: ignore[arg-type]
        return [c for c in forwards if self._records(grad, c, in_body, reached)]

    def _of_a_frozen_model(self, forward: cst.Call) -> bool:
        """``model(x)`` where this module turns off ``requires_grad`` on every parameter of ``model`` and never
        back on: with inputs that need no gradient, nothing records a graph (round 7, Modern-CV's
        adversarial_attack notebook: ``for param in model.parameters(): param.requires_grad = False``)."""
        name = dotted(forward.func) or ""
        return any(
            (name == model or name.startswith(model + ".")) and self._variable(forward.func) == variable
            for model, variable in self._frozen_models
        )

    def _variable(self, expression: cst.BaseExpression) -> FrozenSet[object]:
        """What a dotted name's root is, as the scopes of the bindings that reach it: two reads of ``model`` are
        one variable where the same scope binds both (a parameter of ``freeze(model)`` is not the global)."""
        root = expression
        while isinstance(root, (cst.Attribute, cst.Call)):
            root = root.value if isinstance(root, cst.Attribute) else root.func
        if not isinstance(root, cst.Name):
            return frozenset()
        return frozenset(id(b.scope) for b in self.facts.fact(Names).reaching(root))

    @functools.cached_property
    def _frozen_models(self) -> FrozenSet[Tuple[str, FrozenSet[object]]]:
        """Models whose every parameter this module freezes (``m.requires_grad_(False)``, or a loop over
        ``m.parameters()`` setting ``requires_grad = False`` unconditionally), none of them turned back on; each
        with the variable it is (:meth:`_variable`)."""
        frozen: Set[Tuple[str, FrozenSet[object]]] = set()
        thawed: Set[Tuple[str, FrozenSet[object]]] = set()
        for call in self.facts.nodes(cst.Call):
            func = call.func
            if isinstance(func, cst.Attribute) and func.attr.value == "requires_grad_" and dotted(func.value):
                flag = call.args[0].value if call.args else None
                (frozen if _is_false(flag) else thawed).add((dotted(func.value), self._variable(func.value)))  # type: ignore[arg-type]
        for loop in self.facts.nodes(cst.For):
            iterated = loop.iter  # type: ignore[attr-defined]
            if not (isinstance(iterated, cst.Call) and isinstance(iterated.func, cst.Attribute) and iterated.func.attr.value == "parameters"):
                continue
            model = dotted(iterated.func.value)
            if not model:
                continue
            key = (model, self._variable(iterated.func.value))
            if any(_freezes(s, loop.target) for s in loop.body.body):  # type: ignore[attr-defined]
                frozen.add(key)
            if _thaws(loop):
                thawed.add(key)
        return frozenset(key for key in frozen - thawed if key[1])

    def _launcher_method(self, call: cst.Call) -> bool:
        """``accelerator.unwrap_model(model)``: a method of an ``Accelerator``/``Fabric`` hands the model back, it
        runs no forward pass (fixtures/TL404_eval_without_no_grad/ok_launcher_unwraps_for_generate.py)."""
        func = call.func
        return isinstance(func, cst.Attribute) and self.facts.fact(DeviceLattice).is_launcher(func.value)

    def _records(self, grad: GradMode, call: cst.Call, in_body: Set[cst.CSTNode], reached: FrozenSet[cst.FunctionDef]) -> bool:
        if call in in_body:
            return not grad.runs_without_grad(call)
        return enclosing_function(self.facts, call) in reached and not grad.switched_off_in_its_function(call)

    def _needs_gradients(self, loop: Union[Loop, Comprehension]) -> bool:
        """Autograd in an iteration, or an explicit ``enable_grad``: the evaluation differentiates something."""
        loops = self.facts.fact(Loops)
        for call in loops.iteration_nodes(loop, cst.Call):
            qualified = self.facts.qualified_name(call.func) or ""  # type: ignore[attr-defined]
            name = dotted(call.func) or ""  # type: ignore[attr-defined]
            if qualified in AUTOGRAD_FUNCTIONS or qualified.startswith(AUTOGRAD_MODULES) or qualified in GRAD_ON:
                return True
            if qualified in GRAD_SWITCH and not _is_false(call.args[0].value if call.args else None):  # type: ignore[attr-defined]
                return True
            if name.rsplit(".", 1)[-1] in GRADIENT_METHODS or any(ATTACK_NAME.search(part) for part in name.split(".")):
                return True
        if any(a.attr.value == "grad" for a in loops.iteration_nodes(loop, cst.Attribute)):  # type: ignore[attr-defined]
            return True
        return any(
            isinstance(a, cst.With) and any(self.facts.qualified_name(_callee(i.item)) in GRAD_ON for i in a.items)
            for a in self.facts.ancestors(loop)
        )

    def _acts_in_an_environment(self, loop: Union[Loop, Comprehension], forwards: List[cst.Call]) -> bool:
        """An agent's loop: what a forward pass chooses is handed to ``env.step(...)``, which returns the next
        observation. One observation (or one per environment) is run at a time and its graph is freed at the
        next step: not an evaluation over a data set
        (fixtures/TL404_eval_without_no_grad/ok_agent_acting_in_environment.py)."""
        if isinstance(loop, COMPREHENSIONS):
            return False
        chosen = set(forwards)
        for call in self.facts.fact(Loops).body_nodes(loop, (cst.Call,)):
            func = call.func  # type: ignore[attr-defined]
            stepped = isinstance(func, cst.Attribute) and func.attr.value == "step" and call.args  # type: ignore[attr-defined]
            # what `step` returns is bound: the next observation (`scheduler.step(val_loss)` returns nothing)
            if stepped and isinstance(self.facts.parent(call), cst.Assign):
                if any(self._chosen_by(a.value, chosen, 0, MAX_ACTION_DEPTH) for a in call.args):  # type: ignore[attr-defined]
                    return True
        return False

    def _samples_what_it_generates(self, loop: Union[Loop, Comprehension], forwards: List[cst.Call]) -> bool:
        """A generation loop: not over held-out data, and every forward pass's output is sampled from where the
        pass runs (the loop's body, or the function it calls: a char-RNN's ``predict``) to choose what comes
        next. It runs one sequence, its graph freed at the next step however many steps it counts, unless a
        forward pass takes a value that may carry a graph (a hidden state handed back undetached)."""
        if isinstance(loop, COMPREHENSIONS) or self.facts.fact(EvaluationLoops).iterates_held_out_data(loop):
            return False
        loops = self.facts.fact(Loops)
        graph = self.facts.fact(GraphValues)
        body = set(loops.body_nodes(loop, (cst.Call,)))
        for forward in forwards:
            function = None if forward in body else enclosing_function(self.facts, forward)
            calls = body if function is None else [n for n in walk(function) if isinstance(n, cst.Call)]
            samples = [c for c in calls if self._samples(c)]
            if not any(self._chosen_by(a.value, {forward}, 0, MAX_SAMPLE_DEPTH) for c in samples for a in c.args):
                return False
            if any(graph.kind(a.value) is not None for a in forward.args):
                return False  # a hidden state carried from the last step with its graph: the graphs chain up
        return True

    def _samples(self, call: cst.Call) -> bool:
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value == SAMPLING_METHOD:
            return True
        return self.facts.qualified_name(func) in SAMPLERS

    def _drops_every_output(self, forwards: List[cst.Call]) -> bool:
        """Every forward pass that records a graph is a statement of its own, its output dropped (``model(x)`` to
        warm up or time the model): nothing is evaluated and each graph is freed as soon as the call returns. Not in
        a module that registers a forward hook, which may keep what each forward computes
        (fixtures/TL404_eval_without_no_grad/ok_timing_loop_drops_outputs.py)."""
        return not self._registers_forward_hook and all(isinstance(self.facts.parent(call), cst.Expr) for call in forwards)

    @functools.cached_property
    def _registers_forward_hook(self) -> bool:
        """The module registers a forward hook somewhere (asked once per module, not once per loop)."""
        return any(FORWARD_HOOK.match(dotted(c.func) or "") for c in self.facts.nodes(cst.Call))  # type: ignore[attr-defined]

    def _chosen_by(self, expression: cst.BaseExpression, forwards: Set[cst.Call], depth: int, max_depth: int) -> bool:
        """``expression`` is computed from one of ``forwards`` (``actions = q_values.argmax(1).cpu().numpy()``),
        followed back through at most ``max_depth`` assignments; a name unpacked from a call is computed from the
        whole call (``output, hidden = net(x, hidden)``)."""
        names = self.facts.fact(Names)
        for node in walk(expression):
            if node in forwards:
                return True
            if isinstance(node, cst.Name) and depth < max_depth:
                for binding in names.reaching(node):
                    value = (names.bound_value(binding) or binding.value) if binding.kind == ASSIGN else None
                    if value is not None and self._chosen_by(value, forwards, depth + 1, max_depth):
                        return True
        return False

    def _runs_a_handful_of_times(self, loop: Union[Loop, Comprehension]) -> bool:
        """``for i in range(5):``, ``while retries:`` counting a literal down, ``for j, x in enumerate(loader):``
        broken by ``if j >= 9: break``, or one pass per subplot of a figure, and no batch pulled with ``next`` in
        the loop's body."""
        if isinstance(loop, cst.For) and self._iterates_subplots(loop.iter, 0):
            bound: Optional[int] = 0  # as many passes as a figure shows
        elif isinstance(loop, cst.For):
            bound = self._range_bound(loop.iter)
            if bound is None:
                bound = _counted_break_bound(loop)
        elif isinstance(loop, cst.While):
            bound = self._countdown_bound(loop)
        else:
            return False
        if bound is None or bound > HANDFUL:
            return False
        loops = self.facts.fact(Loops)
        return not any(dotted(c.func) == "next" for c in loops.body_nodes(loop, (cst.Call,)))  # type: ignore[attr-defined]

    def _iterates_subplots(self, iterable: cst.BaseExpression, depth: int) -> bool:
        """``axes`` of ``fig, axes = plt.subplots(2, 5)`` (or ``fig.subplots``), through ``enumerate``, ``zip``
        (any of its arguments bounds it), ``axes.flat``/``flatten()``/``ravel()`` and names rebound to those."""
        if depth > MAX_AXES_DEPTH:
            return False
        if isinstance(iterable, cst.Call):
            func = iterable.func
            if isinstance(func, cst.Name) and func.value in ("enumerate", "zip"):
                candidates = iterable.args if func.value == "zip" else iterable.args[:1]
                return any(self._iterates_subplots(a.value, depth + 1) for a in candidates if not a.star)
            if isinstance(func, cst.Attribute) and func.attr.value in AXES_VIEWS:
                return self._iterates_subplots(func.value, depth + 1)
            return False
        if isinstance(iterable, cst.Attribute) and iterable.attr.value in AXES_VIEWS:
            return self._iterates_subplots(iterable.value, depth + 1)
        if not isinstance(iterable, cst.Name):
            return False
        names = self.facts.fact(Names)
        bindings = names.reaching(iterable)
        return bool(bindings) and all(self._holds_subplots(names, b, depth) for b in bindings)

    def _holds_subplots(self, names: Names, binding: Binding, depth: int) -> bool:
        """``fig, axes = plt.subplots(...)``'s ``axes``, or a name rebound to a view of such axes."""
        unpacked = names.unpacked(binding)
        if unpacked is None:
            return False
        value, path = unpacked
        if isinstance(value, cst.Call) and isinstance(value.func, (cst.Name, cst.Attribute)):
            last = value.func.value if isinstance(value.func, cst.Name) else value.func.attr.value
            if last == "subplots":
                return path == (1,)
        return not path and self._iterates_subplots(value, depth + 1)

    def _range_bound(self, iterable: cst.BaseExpression) -> Optional[int]:
        """The largest count ``range(n)`` can run, where ``n`` is an int literal (directly or through names)."""
        if not (isinstance(iterable, cst.Call) and dotted(iterable.func) == "range" and len(iterable.args) == 1):
            return None
        return self._largest_int(iterable.args[0].value)

    def _countdown_bound(self, loop: cst.While) -> Optional[int]:
        """``while n:`` / ``while n > 0:`` where the body runs ``n -= <positive literal>`` unconditionally."""
        test = loop.test
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            target = test.comparisons[0]
            if not (isinstance(target.operator, cst.GreaterThan) and self._largest_int(target.comparator) == 0):
                return None
            test = test.left
        if not isinstance(test, cst.Name) or not isinstance(loop.body, cst.IndentedBlock):
            return None
        decrements = [
            small for line in loop.body.body if isinstance(line, cst.SimpleStatementLine) for small in line.body
            if isinstance(small, cst.AugAssign) and isinstance(small.operator, cst.SubtractAssign)
            and isinstance(small.target, cst.Name) and small.target.value == test.value
            and (self._largest_int(small.value) or 0) > 0
        ]
        if not decrements:
            return None
        names = self.facts.fact(Names)
        outside = [b for b in names.reaching(test) if loop not in set(self.facts.ancestors(b.statement))]
        values = [names.bound_value(b) if b.kind == ASSIGN else None for b in outside]
        if not values or any(v is None for v in values):
            return None
        bounds = [self._largest_int(v) for v in values]  # type: ignore[arg-type]
        return None if any(b is None for b in bounds) else max(bounds)  # type: ignore[type-var]

    def _largest_int(self, expression: cst.BaseExpression) -> Optional[int]:
        """The largest int ``expression`` can hold where every value it can hold is an int literal, else None."""
        found = self.facts.fact(Values).literal_values(expression)
        if not found or not all(type(v) is int for v in found):
            return None
        return max(found)  # type: ignore[type-var]

    def _in_a_test(self, loop: Union[Loop, Comprehension]) -> bool:
        """A test (``def test_*`` in a file of tests): its inputs are test-sized, and the memory of their graphs no
        concern. A file of tests is one pytest collects by its name, or one that imports pytest or unittest; a
        notebook's ``def test_model(...)`` evaluates like any other function (round 7, dataflowr's 01_intro)."""
        if not self._holds_tests:
            return False
        return any(isinstance(a, cst.FunctionDef) and a.name.value.startswith("test_") for a in self.facts.ancestors(loop))

    @functools.cached_property
    def _holds_tests(self) -> bool:
        if collected_as_tests(self.path):
            return True
        imported = [dotted(a.name) for node in self.facts.nodes(cst.Import) for a in node.names]  # type: ignore[attr-defined]
        imported += [dotted(node.module) for node in self.facts.nodes(cst.ImportFrom) if node.module is not None]  # type: ignore[attr-defined]
        return any((name or "").split(".")[0] in TEST_FRAMEWORKS for name in imported)

    def _escaping_outputs(self, loop: Union[Loop, Comprehension]) -> bool:
        """A value carrying a graph is stored beyond its iteration: appended, kept on an attribute, returned, yielded,
        or made an element of what a comprehension builds."""
        graph = self.facts.fact(GraphValues)
        if isinstance(loop, COMPREHENSIONS):
            elements = [loop.key, loop.value] if isinstance(loop, cst.DictComp) else [loop.elt]
            return any(graph.graph_atoms(e) for e in elements)
        for node in graph.facts.nodes(cst.Call, cst.AugAssign, cst.Assign, cst.Return, cst.Yield):
            if not graph.contains(loop.body, node):
                continue
            for value in self._stored_values(graph, loop, node):
                if value is not None and graph.graph_atoms(value):
                    return True
        return False

    def _stored_values(self, graph: GraphValues, loop: Loop, node: cst.CSTNode) -> List[Optional[cst.BaseExpression]]:
        if isinstance(node, cst.Call):
            func = node.func
            stores = isinstance(func, cst.Attribute) and func.attr.value in STORING_METHODS
            return [a.value for a in node.args] if stores else []
        if isinstance(node, (cst.Return, cst.Yield)):
            return [node.value] if isinstance(node.value, cst.BaseExpression) else []
        if isinstance(node, cst.AugAssign):
            return [node.value] if not self._bound_in_iteration(graph, loop, node.target, node) else []
        kept = [t.target for t in node.targets if not self._bound_in_iteration(graph, loop, t.target, node)]  # type: ignore[attr-defined]
        return [node.value] if kept else []  # type: ignore[attr-defined]

    def _bound_in_iteration(self, graph: GraphValues, loop: Loop, target: cst.BaseExpression, statement: cst.CSTNode) -> bool:
        """A plain local whose value no later iteration and no code after the loop reads: the next iteration drops it.

        ``total = total + out`` reads its previous value (it carries over), and
        a name read after the loop (before it is bound again) keeps the last
        iteration's value.
        """
        if isinstance(target, (cst.Tuple, cst.List)):
            return all(self._bound_in_iteration(graph, loop, e.value, statement) for e in target.elements)
        if not isinstance(target, cst.Name):
            return False
        names = self.facts.fact(Names)  # `_, pred = out.max(1)` twice: a tuple's `_` is written, not read
        reads = [
            r for r in graph.references(graph.scope_of(target), target.value)
            if not is_store_target(self.facts, r) and names.binding_at(r) is None
        ]
        after_loop = any(graph.precedes(loop, read) and _binding_statement(graph, read) is statement for read in reads)
        value = getattr(statement, "value", None)
        carried = any(
            graph.contains(loop.body, read) and (graph.precedes(read, statement) or (value is not None and graph.contains(value, read)))
            for read in reads
        )
        return not after_loop and not carried

    # ----- message and fix ------------------------------------------------------------

    def _report(self, found: EvaluationLoop, forward: cst.Call) -> None:
        call = self.facts.code(forward.func)
        message = (
            f"this evaluation loop runs `{call}(...)` with autograd on: every forward pass records a graph and keeps "
            "its activations, which evaluation never uses (`eval()` switches dropout and batch norm, not gradient "
            "tracking)"
        )
        self.report(found.loop, message, fix=self._fix(found.loop))

    def _fix(self, loop: Union[Loop, Comprehension]) -> Optional[CstFix]:
        """Wrap the loop, or the statement holding the comprehension, in ``with torch.no_grad():``."""
        wrapped = loop if not isinstance(loop, COMPREHENSIONS) else _statement_of(self.facts, loop)
        if wrapped is None:
            return None  # a comprehension in a compound statement's header: no statement to wrap
        torch = self.facts.torch_name()
        inner, footer = _without_footer(wrapped.with_changes(leading_lines=()))
        replacement = cst.With(
            items=[cst.WithItem(cst.parse_expression(f"{torch}.no_grad()"))],
            body=cst.IndentedBlock(body=[inner], footer=footer),
            leading_lines=wrapped.leading_lines,
        )
        what = "loop" if wrapped is loop else "statement"
        return CstFix(
            message=f"Wrap the {what} in `with {torch}.no_grad():`",
            applicability=Applicability.UNSAFE if self._escaping_outputs(loop) else Applicability.SAFE,
            replacements={wrapped: replacement},
            imports=(Import("torch"),) if torch == "torch" else (),
        )


def _without_footer(statement: cst.BaseStatement) -> Tuple[cst.BaseStatement, Sequence[cst.EmptyLine]]:
    """A loop without the comments and blank lines that close its body, and those lines: kept in the ``with``
    block, at the indentation they had, they stay the lines they were (a trailing ``# print(...)`` included)."""
    if not isinstance(statement, (cst.For, cst.While)) or statement.orelse is not None:
        return statement, ()
    if not isinstance(statement.body, cst.IndentedBlock) or not statement.body.footer:
        return statement, ()
    return statement.with_changes(body=statement.body.with_changes(footer=())), statement.body.footer


def _statement_of(facts, node: cst.CSTNode) -> Optional[cst.SimpleStatementLine]:
    """The statement line holding ``node``, when it stands in a block (not in a compound statement's header)."""
    for ancestor in facts.ancestors(node):
        if isinstance(ancestor, cst.SimpleStatementLine):
            return ancestor
        if isinstance(ancestor, (cst.BaseCompoundStatement, cst.SimpleStatementSuite)):
            return None
    return None


def _binding_statement(graph: GraphValues, read: cst.BaseExpression) -> Optional[cst.CSTNode]:
    binding = graph.reaching_binding(read) if isinstance(read, cst.Name) else None
    return binding.statement if binding is not None else None


def _counted_break_bound(loop: cst.For) -> Optional[int]:
    """How many passes ``for j, x in enumerate(xs):`` makes when its body holds ``if j >= N: break`` (``==``,
    ``>``) as a statement of its own: N + 1 (N + 2 for ``>``); None where no such break bounds it."""
    iterable, target = loop.iter, loop.target
    if not (isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "enumerate"):
        return None
    start = iterable.args[1].value if iterable.args[1:] else cst.Integer("0")
    if not isinstance(start, cst.Integer) or not (isinstance(target, cst.Tuple) and target.elements and isinstance(target.elements[0].value, cst.Name)):
        return None
    counter = target.elements[0].value.value  # type: ignore[attr-defined]
    bounds = []
    for statement in loop.body.body:  # type: ignore[attr-defined]
        test = statement.test if isinstance(statement, cst.If) and statement.orelse is None else None
        body = statement.body.body if isinstance(test, cst.Comparison) else ()  # type: ignore[union-attr]
        first = body[0].body[0] if body and isinstance(body[0], cst.SimpleStatementLine) else (body[0] if body else None)
        breaks = isinstance(first, cst.Break)  # `if j >= 9: break` on its own line or on the `if`'s
        if not breaks or not isinstance(test.left, cst.Name) or test.left.value != counter or len(test.comparisons) != 1:  # type: ignore[union-attr]
            continue
        comparison = test.comparisons[0]  # type: ignore[union-attr]
        extra = {cst.GreaterThanEqual: 1, cst.Equal: 1, cst.GreaterThan: 2}.get(type(comparison.operator))
        if extra is not None and isinstance(comparison.comparator, cst.Integer):
            bounds.append(int(comparison.comparator.value) - int(start.value) + extra)
    return min(bounds) if bounds else None


def _freezes(statement: cst.CSTNode, target: cst.BaseExpression) -> bool:
    """``p.requires_grad = False`` or ``p.requires_grad_(False)`` as a statement of its own on the loop's target
    ``p`` (a setting under an ``if`` freezes only some parameters)."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1 or not isinstance(target, cst.Name):
        return False
    small = statement.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        stored = small.targets[0].target
        return isinstance(stored, cst.Attribute) and stored.attr.value == "requires_grad" and dotted(stored.value) == target.value and _is_false(small.value)
    call = small.value if isinstance(small, cst.Expr) else None
    if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == "requires_grad_":
        return dotted(call.func.value) == target.value and bool(call.args) and _is_false(call.args[0].value)
    return False


def _thaws(loop: cst.For) -> bool:
    """Some ``requires_grad`` assignment anywhere in ``loop``'s body sets a value other than ``False``."""
    return any(
        isinstance(node, cst.Assign)
        and any(isinstance(t.target, cst.Attribute) and t.target.attr.value == "requires_grad" for t in node.targets)
        and not _is_false(node.value)
        for node in walk(loop.body)
    )


def _is_false(value: Optional[cst.BaseExpression]) -> bool:
    return isinstance(value, cst.Name) and value.value == "False"


def _callee(expression: cst.BaseExpression) -> cst.BaseExpression:
    return expression.func if isinstance(expression, cst.Call) else expression
