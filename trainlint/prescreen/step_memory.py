"""The questions of the step-memory rules (TL401-TL403, TL405), asked of the walk's facts.

Each mirrors, wider, the question its rule asks in ``rules/step_memory``: is a value kept across
steps with its graph, does a history grow per step, may a training loop miss a ``zero_grad()``, does
a handler catch running out of memory.
"""

from __future__ import annotations

import ast
import functools
import itertools
import re
from typing import Dict, List, Optional, Set, Tuple

from trainlint.prescreen.nodes import (
    _argument_values,
    _close_over_callees,
    _dotted,
    _is_self_attribute,
    _scope,
    _the_method,
)
from trainlint.prescreen.traversal import _nodes_of
from trainlint.prescreen.values import last_name
from trainlint.prescreen.walk import (
    _COMPREHENSIONS,
    _ITERATION_WRAPPERS,
    TreeFacts,
    _Place,
)
from trainlint.step_words import (
    GENERIC_HOOK_NAMES,
    LOADER_FACTORIES,
    LOADER_NAME,
    OOM_MESSAGE,
    OPTIMIZER_NAME,
    names_a_training_hook,
)

# Mirror rules/step_memory/tl402_unbounded_step_history.py: an object that lives for that many steps (STEP_BUDGET);
# what `_called_element` calls a number, and the methods after which it looks for a tensor's copy.
_STEP_BUDGET = re.compile(r"^num_(training|iter|iters|iterations)$")
_NUMBER_FUNCTIONS = frozenset({"float", "int", "round", "len", "abs"})
_NUMBER_METHODS = frozenset({"item", "__float__"})
_TENSOR_METHODS = frozenset({"detach", "clone", "cpu", "numpy", "to", "cuda", "flatten", "view", "reshape"})
# Mirror rules/step_memory/tl405_missing_zero_grad.py: what builds an optimizer (by qualified name), and the calls
# whose receivers its `_models_optimized` takes for the models an optimizer is built over.
_TORCH_OPTIMIZERS = "torch.optim."
_NOT_OPTIMIZERS = ("torch.optim.lr_scheduler.", "torch.optim.swa_utils.")
_PARAMETER_METHODS = frozenset({"parameters", "named_parameters"})


class StepMemoryQuestions(TreeFacts):
    """What TL401-TL403 and TL405 ask of a module's facts."""

    def _may_start_once(self, name: str, place: _Place) -> bool:
        """Mirror TL402's ``_local_growth``: a list of the function appended to grows only where the function binds
        it once, to ``[]`` or ``list()`` (``seen, kept = [], []`` too), and so does a module's list; rebound
        (``latents = torch.cat(latents)``, a reset per epoch) it does not. A name the function does not assign (a
        global, a closure's), or declares ``global``/``nonlocal``, is left to the rule."""
        scope = _scope(place.functions)
        if place.functions and not self.values.is_local(name, scope):
            return True
        if self.values.binds_in_a_scope_of_its_own(scope, name):
            return True  # a class attribute of the same name (`losses: list = None`) is no binding of the list's
        values = self.values.assigned_in(scope, name)
        return not values or (len(values) == 1 and _may_make_a_list(values[0]))

    def _may_be_device_tensor(self, element: ast.AST) -> bool:
        """Mirror TL402's ``_element`` answering "device tensor", wider: anything but a display, a constant, a
        comprehension, a number made by ``.item()``/``.tolist()`` (as ``_called_element`` reads them) or by the builtins
        ``float()``, ``int()``, ``len()``, ``round()`` (``torch.round(x)`` is a tensor), or a name whose every
        binding is one of those."""
        if isinstance(element, (ast.Dict, ast.List, ast.Tuple, ast.Set, ast.Constant, ast.JoinedStr, *_COMPREHENSIONS)):
            return False
        if isinstance(element, ast.Call):
            func = element.func
            if isinstance(func, ast.Name):
                return func.id not in ("float", "int", "len", "round")
            if isinstance(func, ast.Attribute) and func.attr in ("item", "tolist"):
                return self._may_call_a_tensor(element)
            return True
        if isinstance(element, ast.Name):
            return not self._all_bindings("device tensor", element.id, lambda v: not self._may_be_device_tensor(v))
        return True

    @functools.cached_property
    def _optimizers_built(self) -> Set[str]:
        """The dotted targets of ``x = f(...)`` where ``f`` may build an optimizer: judged once the walk has met every
        import (it meets statements out of order)."""
        return {target for func, targets in self._calls_assigned if self._may_build_optimizer(func) for target in targets}

    def _may_build_optimizer(self, func: str) -> bool:
        """Mirror TL405's ``_built_by_torch_optim``: a callee whose qualified name (its first name as some import
        binds it) may start with ``torch.optim.`` but not name a scheduler (``torch.optim.lr_scheduler.``); not
        ``get_scheduler`` imported from ``diffusers.optimization``."""
        head, _, rest = func.partition(".")
        qualified = (f"{target}.{rest}" if rest else target for target in self._imported.get(head, ()))
        return any(q.startswith(_TORCH_OPTIMIZERS) and not q.startswith(_NOT_OPTIMIZERS) for q in qualified)

    def _dies_with_its_call(self, place: _Place, value: ast.AST, storage: Optional[str], training_loops: Set[ast.AST]) -> bool:
        """Mirror TL401's storage ("a local bound before the step loop, or an attribute"): a name local to a
        function (a parameter too: the rule does not follow a list handed in), where no loop of that function
        around the accumulation may be a step loop (``TrainingLoops``: one that trains, or any loader loop, such as
        ``for x in DataLoader(...)`` in a ``training_step``), is gone when the call returns: it outlives no step."""
        if storage is None or not place.functions or self._in_a_lambda(value) or self._in_a_class_of(value, place.functions[-1]):
            return False  # in a lambda or a class body of the function, scopes of their own: the storage is none of its locals
        if self._scope_at(value, place.functions) != place.functions[-1]:
            return False  # in a def's default or decorator: run around the def, where its loops are not counted
        own_loops = place.loops[len(place.loops) - place.local_loops :]
        may_step = any(loop in training_loops or self._may_be_a_loader_loop(loop) for loop in own_loops)
        return not may_step and self.values.is_local(storage, place.functions[-1])

    def _starts_afresh_each_iteration(self, place: _Place, storage: Optional[str]) -> bool:
        """Mirror TL401's reset: a name of the function (not ``global``/``nonlocal``) bound afresh in a loop of the
        function around the accumulation (``loss = crit(...)`` then ``loss = loss + reg``; ``logs = {...}`` then
        ``logs["lr"] = lr``) lives one iteration of that loop. The rule's step is the innermost loader loop of the
        function around the accumulation (or the function, whose locals die with the call); the reset counts in that
        loop or one inside it. Any loop may be a loader loop but a :meth:`_never_a_loader_loop`: ``latents = []`` in
        the step loop, filled by ``for i in range(0, n, k): latents.append(vae.encode(x[i:i + k]))``, starts afresh."""
        if storage is None or not place.local_loops or not self.values.is_local(storage, _scope(place.functions)):
            return False
        own = place.loops[len(place.loops) - place.local_loops :]
        step = next((i for i in reversed(range(len(own))) if not self._never_a_loader_loop(own[i])), len(own) - 1)
        return any((id(loop), storage) in self._loop_resets for loop in own[step:])

    def _may_be_a_loader_loop(self, loop: ast.AST) -> bool:
        """Mirror ``TrainingLoops._loader_and_batch``, wider: a loop that pulls a batch with ``next(...)``, or a ``for``
        over (``enumerate``/``tqdm``/... stripped) a call of a ``DataLoader`` or of something named like a loader, a
        name or attribute named like one or bound to such a call (by last name), or a ``with ... as`` name (the rule
        follows ``with tqdm(loader) as bar`` to ``loader``)."""
        if "next" in self._loop_plain_calls[loop]:
            return True
        if type(loop) is ast.While:
            return False
        pending = [loop.iter]  # type: ignore[attr-defined]  # every argument of a call too: wrappers under any name
        while pending:
            node = pending.pop()
            if isinstance(node, ast.Call):
                if self._names_a_loader(last_name(node.func)):
                    return True
                pending.extend(_argument_values(node))
            elif isinstance(node, (ast.Name, ast.Attribute)):
                name = last_name(node)
                if self._names_a_loader(name) or name in self._loader_bound_names or self.values.is_context(name):
                    return True
        return False

    def _in_a_lambda(self, node: ast.AST) -> bool:
        at = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
        return any((f.lineno, f.col_offset) <= at <= (f.end_lineno, f.end_col_offset) for f in self._lambdas)  # type: ignore[attr-defined]

    def _in_a_class_of(self, node: ast.AST, function: int) -> bool:
        """Whether ``node`` is in the body of a class defined inside ``function`` (not in a method of it)."""
        owner = self._class_around(node)
        if owner is None:
            return False
        return _start(owner) > _start(self._function_nodes[function])

    def _names_a_loader(self, name: str) -> bool:
        original = self._aliases.get(name, name)
        return original.endswith(LOADER_FACTORIES) or name.endswith(LOADER_FACTORIES) or bool(LOADER_NAME.search(name))

    @functools.cached_property
    def _loader_bound_names(self) -> Set[str]:
        """Last names of the targets some assignment gives a loader's call (``TrainingLoops._names_bound_to_loaders``)."""
        return {
            target.rsplit(".", 1)[-1]
            for callee, targets in self._calls_assigned
            if self._names_a_loader(callee.rsplit(".", 1)[-1])
            for target in targets
        }

    def _never_a_loader_loop(self, loop: ast.AST) -> bool:
        """Mirror ``TrainingLoops``' step loops, wider: a ``for`` over ``range(...)`` or ``zip(...)`` (through
        ``enumerate``, ``tqdm``, ``iter``) that pulls no batch with ``next(...)`` and may not train itself (a loop of
        micro-batches running ``backward`` is a step loop) is never one."""
        if type(loop) is not ast.For or "next" in self._loop_plain_calls[loop] or loop in self._training_loops:
            return False
        iterable = loop.iter  # type: ignore[attr-defined]
        while isinstance(iterable, ast.Call) and iterable.args and last_name(iterable.func) in _ITERATION_WRAPPERS:
            iterable = iterable.args[0]
        if not isinstance(iterable, ast.Call) or not isinstance(iterable.func, ast.Name):
            return False
        return iterable.func.id in ("range", "zip") and iterable.func.id not in self._bindings

    @functools.cached_property
    def _training_loops(self) -> Set[ast.AST]:
        training = _close(self._training_functions, self._names, self._callees)
        return {loop for loop, calls in self._loop_calls.items() if loop in self._loop_trains or calls & training}

    @functools.cached_property
    def _per_step_functions(self) -> Set[str]:
        per_step = set(filter(names_a_training_hook, self._names))
        per_step.update(name for loop in self._training_loops for name in self._loop_calls[loop])
        if self.trains:
            per_step.update(GENERIC_HOOK_NAMES)
        return _close_over_callees(per_step, self._names, self._callees)

    def _in_step(self, place: _Place) -> bool:
        training_loops = self._training_loops
        return any(loop in training_loops for loop in place.loops) or any(self._names[f] in self._per_step_functions for f in place.functions[-1:])

    @functools.cached_property
    def accumulates_per_step(self) -> bool:
        return any(
            self._in_step(place)
            and not self._dies_with_its_call(place, value, storage, self._training_loops)
            and not self._starts_afresh_each_iteration(place, storage)
            and self.values.may_carry_graph(value, self._scope_at(value, place.functions))  # a def's default: around it
            for place, value, storage in self._accumulations
        )

    @functools.cached_property
    def grows_history_per_step(self) -> bool:
        training_loops = self._training_loops
        histories = [p for key in self._history_attributes for p, call in self._appended_attributes.get(key, ()) if self._may_run_every_step(p, call)]
        # a local history grows in a training loop itself (TL402's `_local_growth`), not merely in per-step code; its
        # element is one the rule keeps (its `_element` not in LEFT_TO_OTHERS), a device tensor in a counted loop
        local = [p for name, p, element in self._local_appends if self._may_start_once(name, p) and self._may_be_kept(element)]
        in_training_loop = (p for p in local if any(loop in training_loops for loop in p.loops))
        # a module-level list that per-step code of a function appends to (TL402's `_grows_per_step`); `Names` puts a
        # binding under `global history` in a function in the module's scope too
        module_lists = self._module_lists | (self._lists_bound_in_functions & self.values.shared_names)
        global_appends = (p for name, p, element in self._appends_in_functions if name in module_lists and self._may_be_kept(element))
        counted = [p for name, p, element in self._counted_appends if self._may_start_once(name, p) and self._may_be_device_tensor(element)]
        in_training_loop = itertools.chain(in_training_loop, (p for p in counted if any(loop in training_loops for loop in p.loops)))
        return any(map(self._in_step, histories)) or any(in_training_loop) or any(map(self._in_step, global_appends))

    def _may_run_every_step(self, place: _Place, call: ast.Call) -> bool:
        """Mirror TL402's ``_runs_every_step``, wider: not an append in an ``__init__``, nor one in a class whose
        ``__init__`` stores its own step budget (``_has_step_budget``: an LR finder's callback, run for that many
        steps); per step where :meth:`_in_step` says so."""
        if place.functions and self._names[place.functions[-1]] == "__init__":
            return False
        owner = self._class_around(call)
        return owner is None or owner not in self._budgeted_classes

    def _class_around(self, node: ast.AST) -> Optional[ast.ClassDef]:
        """The innermost class around ``node`` (``enclosing_class``), by position: a class's decorators are its own."""
        at = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
        around = [c for c in self._classes if _start(c) <= at <= (c.end_lineno, c.end_col_offset)]  # type: ignore[operator]
        return max(around, key=_start, default=None)

    @functools.cached_property
    def _budgeted_classes(self) -> Set[ast.ClassDef]:
        """Mirror TL402's ``_has_step_budget``: classes with an ``__init__`` directly in their body that assigns
        ``self.num_training`` (or ``num_iter``...) somewhere in it (nested code too)."""
        return {
            c
            for c in self._classes
            for init in c.body
            if isinstance(init, (ast.FunctionDef, ast.AsyncFunctionDef)) and init.name == "__init__"
            for node in _nodes_of(init)
            if isinstance(node, ast.Assign)
            and any(_is_self_attribute(t) and _STEP_BUDGET.match(t.attr) for t in node.targets)  # type: ignore[attr-defined]
        }

    def _may_be_kept(self, element: ast.AST) -> bool:
        """Mirror TL402's ``_element`` answering other than LEFT_TO_OTHERS (a number, an unknown element, a tensor with
        its graph), wider: a display (dict, list, tuple), a name not surely bound to none of these, a call that may
        copy or move a tensor or call ``torch`` (:meth:`_may_call_a_tensor`), a sum led by one; not a constant, an
        attribute, a subscript or any other expression, which it calls an element."""
        if isinstance(element, (ast.Dict, ast.DictComp, ast.List, ast.ListComp, ast.Tuple)):
            return True
        if isinstance(element, ast.BinOp):
            return self._may_be_kept(element.left)
        if isinstance(element, ast.Name):
            return not self._all_bindings("kept element", element.id, lambda v: not self._may_be_kept(v))
        return isinstance(element, ast.Call) and self._may_call_a_tensor(element)

    def _may_call_a_tensor(self, call: ast.Call) -> bool:
        """Mirror TL402's ``_called_element``: not ``float(x)``/``len(x)``..., nor ``x.item()``; a method that copies
        or moves a tensor (``x.detach()``, ``x.cpu()``, ``x.numpy()``...) or a callee under an import of ``torch``."""
        func = call.func
        if isinstance(func, ast.Name) and func.id in _NUMBER_FUNCTIONS:
            return False
        if isinstance(func, ast.Attribute) and func.attr in _TENSOR_METHODS:
            return True
        if isinstance(func, ast.Attribute) and func.attr in _NUMBER_METHODS:
            return False
        head, _, rest = _dotted(func).partition(".")
        return any((f"{target}.{rest}" if rest else target).startswith("torch.") for target in self._imported.get(head, ()))

    @functools.cached_property
    def loop_may_miss_zero_grad(self) -> bool:
        backward = _close(self._backward_functions, self._names, self._callees)
        backward_loops = {loop for loop, calls in self._loop_calls.items() if loop in self._loop_backward or calls & backward}
        return any(map(self._may_miss_zero_grad, backward_loops))

    @functools.cached_property
    def handles_oom(self) -> bool:
        """Mirror TL403's ``_oom_branch``, wider: an ``except`` naming ``OutOfMemoryError`` (through an import alias
        too), or one with an ``if`` directly in its body whose test holds a string saying "out of memory"/"OOM"."""
        for handler in self._handlers:
            caught = [self._aliases.get(n.id, n.id) if isinstance(n, ast.Name) else n.attr for n in _nodes_of(handler.type)
                      if isinstance(n, (ast.Name, ast.Attribute))] if handler.type is not None else []
            if "OutOfMemoryError" in caught:
                return True
            tests = (statement.test for statement in handler.body if isinstance(statement, ast.If))
            if any(_says_out_of_memory(node) for test in tests for node in _nodes_of(test)):
                return True
        return False

    def _may_miss_zero_grad(self, loop: ast.AST) -> bool:
        """Mirror TL405: a loop that runs a backward and steps something, unless it steps one thing (so one
        optimizer at most) and a ``zero_grad()`` surely runs in its iterations (with one optimizer, any clears), or
        every optimizer it steps is surely cleared by a ``zero_grad()`` in its body (:meth:`_surely_clears`)."""
        reached = _close_over_callees(self._loop_calls[loop], self._names, self._callees)
        steps = set(self._loop_steps.get(loop, ()))
        for function, name in enumerate(self._names):
            if name in reached:
                steps |= self._function_steps.get(function, set())
        optimizers = {step.optimizer for step in steps if step.named_optimizer or step.receiver in self._optimizers_built}
        if not optimizers:
            return False
        if len(optimizers) == 1:
            return not self._clears_in_every_iteration(loop)
        stepped = {step.receiver for step in steps} | {step.optimizer for step in steps}
        zeroed = self._loop_zero_grads.get(loop, set()) - {""}
        return not all(any(self._surely_clears(z, optimizer, stepped) for z in zeroed) for optimizer in optimizers)

    def _surely_clears(self, zeroed: str, optimizer: str, stepped: Set[str]) -> bool:
        """Mirror TL405's ``_clears`` where several optimizers are stepped, narrower: ``zeroed.zero_grad()`` clears
        ``optimizer`` when it is that optimizer; else when it is none of the loop's steps (``stepped``: every receiver
        and argument of them, more than the rule's optimizers) and is named like an optimizer, or is a model the
        optimizer may be built over (a GAN's ``netD.zero_grad()`` for ``opt_d = Adam(netD.parameters())``)."""
        if zeroed == optimizer:
            return True
        if zeroed in stepped:
            return False
        return bool(OPTIMIZER_NAME.search(zeroed.rsplit(".", 1)[-1])) or all(
            self._may_be_built_over(value, zeroed) for value in self._assigned_by_target.get(optimizer, ())
        )

    @staticmethod
    def _may_be_built_over(value: ast.AST, model: str) -> bool:
        """Mirror TL405's ``_models_optimized`` on one value assigned to an optimizer: the receivers of its
        ``.parameters()`` calls are ``model``, a part of it or what it is part of; or there is none, and the rule does
        not know the models (it then takes any ``zero_grad()`` for the optimizer's)."""
        found = {
            _dotted(call.func.value)
            for call in _nodes_of(value)
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in _PARAMETER_METHODS
        } - {""}
        return not found or any(model == m or model.startswith(m + ".") or m.startswith(model + ".") for m in found)

    @functools.cached_property
    def _assigned_by_target(self) -> Dict[str, List[ast.AST]]:
        """What each dotted target is assigned anywhere in the module (``=``, ``:=``, annotated, augmented; not an
        unpacking, whose targets TL405's ``_assigned_values`` takes for unknown): every value the rule may find for it."""
        found: Dict[str, List[ast.AST]] = {}
        for node in self._all_nodes:
            if isinstance(node, ast.Assign):
                pairs = [(target, node.value) for target in node.targets]
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and node.value is not None:
                pairs = [(node.target, node.value)]
            else:
                continue
            for target, value in pairs:
                name = _dotted(target)
                if name:
                    found.setdefault(name, []).append(value)
        return found

    def _clears_in_every_iteration(self, loop: ast.AST) -> bool:
        """A ``zero_grad()`` that TL405 surely sees run in ``loop`` (``Loops.nodes_in``): in its body, or anywhere in
        a function it surely reaches, transitively (nested definitions count as their function's, as in the rule's
        index). A wider guess here would hide a finding."""
        if loop in self._loop_zero_grads:
            return True
        pending = list(self._surely_called(self._own_calls(loop.body), self._loop_function[loop]))  # type: ignore[attr-defined]
        reached: Set[int] = set()
        while pending:
            function = pending.pop()
            if function in self._zero_grad_functions:
                return True
            if function not in reached:
                reached.add(function)
                pending.extend(self._surely_called_by(function))
        return False

    def _surely_called_by(self, function: int) -> Set[int]:
        """:meth:`_surely_called` on a function's own calls (not those of the functions defined in it), once."""
        found = self._called_by_function.get(function)
        if found is None:
            body = self._function_nodes[function].body  # type: ignore[attr-defined]
            found = self._called_by_function[function] = self._surely_called(self._own_calls(body), function)
        return found

    def _own_calls(self, body: List[ast.stmt]) -> List[ast.Call]:
        """The calls ``body`` makes itself: ``CallGraph`` files a call in a function defined there (its decorators and
        defaults too) under that function, where ``self.m()`` is no call of the method around it."""
        return [call for statement in body if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
                for call in self._calls_in(statement, into_functions=False)]

    def _surely_called(self, calls: List[ast.Call], function: Optional[int]) -> Set[int]:
        """Mirror ``CallGraph.resolve_call`` on ``calls``, run in ``function``, narrower: ``f(...)`` reaches each
        function named ``f`` that is no method, and ``x.m(...)`` each method named ``m`` (by name); ``self.m(...)``
        is dispatched to the method ``m`` of the function's class where that class defines one only
        (:meth:`_dispatching_class`)."""
        plain: Set[str] = set()
        by_name: Set[str] = set()
        dispatched: Set[str] = set()
        for node in calls:
            if isinstance(node.func, ast.Name):
                plain.add(node.func.id)
            elif isinstance(node.func, ast.Attribute) and _dotted(node.func):
                receiver = node.func.value.id if isinstance(node.func.value, ast.Name) else None
                if receiver != "cls":  # dispatched to a class method the screen does not follow
                    (dispatched if receiver == "self" else by_name).add(node.func.attr)
        found = {f for name in plain for f in self._plain_functions.get(name, ())}
        # by name, CallGraph matches only defs directly in a class body (`CallGraph.methods`), not one under its `if`/`try`
        found.update(f for name in by_name for f in self._methods_by_name.get(name, ()) if self.values.in_class_body(f))
        owner = self._dispatching_class(None if function is None else self._function_nodes[function])
        for name in dispatched if owner is not None else ():
            method = _the_method(owner, name)  # type: ignore[arg-type]
            found.update(f for f in self._methods_by_name.get(name, ()) if self._function_nodes[f] is method)
        return found


def _start(definition: ast.AST) -> Tuple[int, int]:
    """Where a class or def starts: its first decorator, else its ``class``/``def`` line."""
    decorators = getattr(definition, "decorator_list", ())
    return min([(definition.lineno, definition.col_offset), *((d.lineno, d.col_offset) for d in decorators)])  # type: ignore[attr-defined]


def _close(names: Set[str], functions: List[str], callees: List[Set[str]]) -> Set[str]:
    """``names`` and the names of every function that calls one of them, transitively."""
    found = set(names)
    changed = bool(found)
    while changed:
        added = {name for name, called in zip(functions, callees) if name not in found and called & found}
        found |= added
        changed = bool(added)
    return found


def _may_make_a_list(value: ast.AST) -> bool:
    """``[]``, ``list()``, or a display an unpacking may take one from (``a, b = [], []``)."""
    if isinstance(value, (ast.List, ast.Tuple)):
        return True
    return isinstance(value, ast.Call) and last_name(value.func) == "list"


def _says_out_of_memory(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and bool(OOM_MESSAGE.search(node.value))
