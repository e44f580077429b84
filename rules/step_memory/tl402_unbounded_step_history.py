"""TL402 unbounded-step-history: a long-lived list grown every training step with no bound."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from trainlint.analysis import ModuleFacts, dotted
from trainlint.analysis.classes import enclosing_class, inherits_unseen_code
from trainlint.analysis.graph_values import GraphKind, GraphValues, is_store_target
from trainlint.analysis.names import Binding, Names
from trainlint.analysis.steps import StepMethods, TrainingLoops, enclosing_function
from trainlint.analysis.walk import walk
from trainlint.diagnostics import Applicability
from trainlint.rule import CstFix, Import, Option, Rule

TRIMMING_METHODS = frozenset({"pop", "popleft", "clear", "remove"})
GROWING_METHODS = frozenset({"append", "extend", "appendleft", "extendleft"})
DEQUE_METHODS = frozenset({"append", "extend", "appendleft", "extendleft", "count", "index", "reverse", "rotate"})
COPYING_METHODS = frozenset({"copy"})  # a deque's copy is a deque: the copy must become ``list(x)``
LIST_ONLY_METHODS = frozenset({"sort", "insert"})  # deques have no sort; insert raises on a full bounded deque
READING_FUNCTIONS = frozenset(
    {"len", "sum", "max", "min", "sorted", "list", "tuple", "set", "iter", "enumerate", "reversed", "any", "all"}
    | {"zip", "map", "filter", "bool"}
)
READING_MODULES = ("numpy.", "statistics.", "math.")
EXPORTING_FUNCTIONS = frozenset({"print", "str", "repr", "format"})
LIST_TAKING_MODULES = ("json.", "torch.")  # json cannot encode a deque; torch.stack/cat want a list or tuple
DEQUE_TAKING_TORCH = frozenset({"torch.tensor", "torch.as_tensor"})
# Elements a local list may gain per step without a TL402 finding: a number is 8 bytes a step, an
# unknown element is not evidence, and a tensor still holding its graph is TL401's finding (once it is
# detached with `.item()` the list holds numbers): reporting it here too would say one defect twice.
LEFT_TO_OTHERS = frozenset(
    {"number", "element", "tensor with its autograd graph", "container of tensors with their autograd graphs"}
)
STEP_LIMIT = re.compile(r"^(num|max|total|n)_?(training|train_steps|steps?|iters?|iterations?|batches|updates)$")
COUNT_LIMIT = re.compile(r"^max_|_limit$|^limit$", re.IGNORECASE)  # ``max_images``: with a counter incremented here
STEP_BUDGET = re.compile(r"^num_(training|iter|iters|iterations)$")  # an object that lives for that many steps
SHORT_RUN = 1000  # steps: a literal ``range`` shorter than this is a demonstration, not a run that grows
STOP_FLAGS = frozenset({"should_stop", "stop_training"})
NUMBER_METHODS = frozenset({"item", "__float__"})
# Methods that copy a tensor without changing its shape: on a scalar loss their result is one value.
SCALAR_COPIES = frozenset({"detach", "cpu", "numpy", "clone", "to"})
ANNOTATED = {"float": "number", "int": "number", "torch.Tensor": "tensor", "Tensor": "tensor", "dict": "dict"}
NUMBER_FUNCTIONS = frozenset({"float", "int", "round", "len", "abs"})

COMPATIBLE, LIST_COPY, UNCERTAIN, BREAKS = "compatible", "list-copy", "uncertain", "breaks"
Key = Tuple[cst.CSTNode, str]  # (class family, attribute name) or (scope, local name)


@dataclass
class History:
    """A list that may grow every step: an attribute made in ``__init__`` or a local made before the epoch loop."""

    key: Key
    name: str  # ``self.global_norms`` or ``losses``
    attribute: Optional[str]  # ``global_norms``; None for a local list
    of_lists: bool  # a dict of lists (``self.h = {"loss": [], "lr": []}``)
    inits: List[cst.BaseExpression] = field(default_factory=list)
    appends: List[cst.Call] = field(default_factory=list)


class UnboundedStepHistory(Rule):
    """## What it does
    Finds a list that lives for the whole run and gains an element every
    training step, with nothing in the module ever trimming it.

    Such a list is an attribute created in `__init__` (`self.norms = []`,
    or a dict of lists `self.h = {"loss": [], "lr": []}`) appended in code
    that runs per step (inside a training loop, in a method called from
    one, in `*_step*`, `on_*batch*` and `log_step` hooks, and in
    `step`/`log`/`update` methods of a module that trains), or a local list of
    tensors or dicts created before the epoch loop and appended per step,
    or a local list that keeps a device tensor per step of one loop counting
    the run's steps (`while`, `for step in range(max_iters)`: not one pass
    over a loader, `range(len(...))`, nor a literal range under 1000), or a
    module-level list that a function appends to per step (in its training
    loop, or as a step function called from one)
    (a local list of losses that still hold their graph is TL401's finding,
    not this rule's: once TL401's fix detaches them, the list holds numbers).
    A getter is no hook: `def step(self): return (self.epoch, self.iter)`
    neither runs per step nor makes a module of meters one that trains.
    An attribute is one class's: `self.data` of two unrelated classes is
    two lists, each with its own appends, trims and fix (classes related by
    inheritance in the module share theirs). The message says what each
    element is (a number, a device tensor, a tensor still holding its graph,
    a dict) and how many the history gains per step.

    ## Why is this bad
    Memory grows with the number of steps: after millions of steps a
    history of floats takes hundreds of megabytes, one of tensors (a
    parameter vector per step, or a loss with its graph) exhausts the
    device. Code that reads the whole history every step
    (`np.array(self.grad_norms)`) also gets slower every step.

    Deliberately silent: lists trimmed anywhere in the module, by their
    class or through another object (`pop`, `popleft`, `clear`, `remove`,
    `del x[...]`, slice or item assignment, reassignment outside `__init__`,
    `monitor.log = []` in any class, a length check such as
    `if len(self.x) > n`), `deque(maxlen=...)`, reset-on-read averagers,
    buffers rebuilt on refill, callbacks that stop after a fixed number of
    steps (`if self.step >= self.num_training: return`), functions that count
    their own runs against a cap (`if self.count >= self.max_images: return`
    ... `self.count += 1`), appends under `if t == 0:` or
    `if epoch == num_epochs - 1:` (a loop's counter equal to a value: once
    per run of that loop, where `if step % 10 == 0:` is still per step), objects that store their own step budget
    (`self.num_training`, an LR finder run by a tuner), histories appended
    per epoch, two-level histories (`self.h[epoch] = []`), and attributes
    this module only appends to in a class that inherits from a class of
    another module (a trainer subclass filling `self.stats` for its base
    class, whose unseen `log` reports and empties them).

    ## Example
    ```python
    class GradientTracker:
        def __init__(self):
            self.global_norms = []

        def update(self, norm):
            self.global_norms.append(norm)
    ```

    ## Use instead
    ```python
    import collections

    class GradientTracker:
        def __init__(self):
            self.global_norms = collections.deque(maxlen=4096)
    ```

    ## Fix safety
    The fix makes the list a `collections.deque(maxlen=N)` (N is the option
    `history-maxlen`, default 4096, set in `[tool.trainlint.options.TL402]`),
    adding the import: the history then keeps the last N values, which is
    the point, so after N steps `len()`, `sum()` or a NumPy mean over it
    describe the last N steps. Uses a deque cannot serve are rewritten to
    read a copy, `list(self.x)`: slices, `json.dump`/`json.dumps`,
    `torch.stack`/`torch.cat`, `+` with a list, `print`/`str`, and
    `self.x.copy()` (a deque's copy is a deque); for a dict of lists, the
    same per key (`list(self.h["loss"])[-10:]`).

    The fix is safe only where no behaviour can change: the history is a
    function's local list, or a private attribute or module-level name
    (`self._norms`, `_norms`, which other modules are not meant to read;
    `from train import norms` may read a public one), and nothing in the
    module reads it whole: only
    appends, trims, its last entries (`x[-1]`) and emptiness tests. Any
    statistic over it (`len`, `sum`, iteration, NumPy, `x[0]`, slices,
    `==`, serialisation) then covers only the last N entries, and a public
    attribute may be read that way by code this module cannot see, so the
    fix is unsafe there and its message says so. No fix is offered when the list is
    sorted or inserted into in place, nor for a dict of lists used other
    than key by key.

    ## Evidence
    `fixtures/TL402_unbounded_step_history/` (bad cases with fixed
    snapshots, ok traps) and `tests/test_runtime_TL402.py`: with a bound of
    N the bad history holds N+1 values after N+1 steps, the fixed one N, and
    the fixed `GradientTracker` still writes valid JSON with the same
    summary statistics.
    """

    fix = Applicability.SAFE
    options = {
        "history-maxlen": Option(
            4096, "How many recent values the fixed history keeps.", check=lambda v: v > 0, requirement="a positive integer"
        )
    }

    def visit_Module(self, node: cst.Module) -> None:
        self._families = _class_families(self.facts)
        self._histories: Dict[Key, History] = {}
        self._not_histories: Set[Key] = set()  # attributes also created as something other than a list
        self._trimmed: Set[Key] = set()
        self._trimmed_attributes: Set[str] = set()  # trimmed through an object of a class this module cannot tell

    # ----- collection ---------------------------------------------------------------

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._assigned(node, target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._assigned(node, node.target, node.value)

    def _assigned(self, statement: cst.CSTNode, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        key = self._attribute_key(target)
        if key is not None and self._in_init(statement):
            shape = _history_shape(value)
            if shape is None:
                self._not_histories.add(key)
            else:
                name = key[1]
                history = self._histories.setdefault(key, History(key, f"self.{name}", name, shape == "dict"))
                history.inits.append(value)
            return
        if isinstance(target, cst.Name):
            return  # locals: their other bindings are read from the scope's bindings
        self._trim(target)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute):
            if func.attr.value == "append" and len(node.args) == 1:
                self._appended(node, func.value)
            elif func.attr.value in TRIMMING_METHODS:
                self._trim(func.value)
        elif dotted(func) == "len" and len(node.args) == 1 and self._in_comparison(node):
            self._trim(node.args[0].value)

    def visit_Del(self, node: cst.Del) -> None:
        targets = node.target.elements if isinstance(node.target, (cst.Tuple, cst.List)) else [node.target]
        for target in targets:
            self._trim(target.value if isinstance(target, cst.Element) else target)

    def _trim(self, expression: cst.BaseExpression) -> None:
        """Record that whatever ``expression`` stores into is trimmed (or reset) somewhere.

        ``self.x`` is the attribute of the method's class family; ``monitor.x``
        may be the ``x`` of any class, so every history named ``x`` counts as trimmed.
        """
        while isinstance(expression, cst.Subscript):
            expression = expression.value
        key = self._attribute_key(expression)
        if key is not None:
            self._trimmed.add(key)
        elif isinstance(expression, cst.Attribute):
            self._trimmed_attributes.add(expression.attr.value)
        elif isinstance(expression, cst.Name):
            self._trimmed.add(self._local_key(expression))

    def _attribute_key(self, expression: cst.BaseExpression) -> Optional[Key]:
        """``(family, attribute)`` for ``self.attribute`` in a method of a class of ``family``, else None.

        Keyed by class, ``self.data`` of an epoch meter and ``self.data`` of an
        iteration meter are two histories, each with its own appends and trims;
        by family (classes related by inheritance here), a base class's
        ``reset`` empties the list its subclass's ``__init__`` made.
        """
        if not (isinstance(expression, cst.Attribute) and _is_self(expression.value)):
            return None
        owner = enclosing_class(self.facts, expression)
        return None if owner is None else (self._families[owner], expression.attr.value)

    def _local_key(self, name: cst.Name) -> Key:
        """``(scope, name)``: the function the name is local to, or the module for a module-level name,
        also where a function reads it as a global (every binding reaching it is the module's)."""
        function = enclosing_function(self.facts, name)
        if function is not None:
            reaching = self.facts.fact(Names).reaching(name)
            if not reaching or any(binding.scope is not self.facts.module for binding in reaching):
                return (function, name.value)
        return (self.facts.module, name.value)

    def _appended(self, call: cst.Call, receiver: cst.BaseExpression) -> None:
        if isinstance(receiver, cst.Attribute):
            self._append_to(self._attribute_key(receiver), call, of_lists=False)
        elif isinstance(receiver, cst.Subscript):
            self._append_to(self._attribute_key(receiver.value), call, of_lists=True)
        elif isinstance(receiver, cst.Name):
            key = self._local_key(receiver)
            history = self._histories.setdefault(key, History(key, receiver.value, None, False))
            history.appends.append(call)

    def _append_to(self, key: Optional[Key], call: cst.Call, of_lists: bool) -> None:
        history = self._histories.get(key) if key is not None else None
        if history is not None and history.of_lists == of_lists:
            history.appends.append(call)

    def _in_init(self, node: cst.CSTNode) -> bool:
        function = enclosing_function(self.facts, node)
        return function is not None and function.name.value == "__init__"

    def _in_comparison(self, node: cst.CSTNode) -> bool:
        parent = self.facts.parent(node)
        return isinstance(parent, (cst.Comparison, cst.ComparisonTarget))

    # ----- decision -----------------------------------------------------------------

    def leave_Module(self, original_node: cst.Module) -> None:
        for key, history in self._histories.items():
            trimmed = key in self._trimmed or history.attribute in self._trimmed_attributes
            if trimmed or key in self._not_histories or self._filled_for_unseen_code(history):
                continue
            if history.attribute is None:
                growing = self._local_growth(history)
            else:
                growing = [call for call in history.appends if self._runs_every_step(call)]
            if growing:
                self._report(history, growing)

    def _filled_for_unseen_code(self, history: History) -> bool:
        """An attribute this module only appends to, of a class inheriting from a class defined elsewhere.

        Its reader is out of sight, most likely the base class (a trainer whose
        ``log`` reports ``self.stats`` and empties them, a subclass filling it
        per step): that reader is where a reset-on-read would be, so the
        module's silence about trimming proves nothing.
        """
        if history.attribute is None or self._uses(history):
            return False
        owners = {enclosing_class(self.facts, init) for init in history.inits}
        return any(owner is not None and inherits_unseen_code(self.facts, owner) for owner in owners)

    def _runs_every_step(self, call: cst.Call) -> bool:
        """In per-step code (a step method, a training loop), not in ``__init__`` nor in a callback that stops after N steps."""
        function = enclosing_function(self.facts, call)
        if function is not None and (function.name.value == "__init__" or _stops_at_step_limit(function)):
            return False
        if self._has_step_budget(call) or self._once_per_loop(call):
            return False
        in_step_function = self.facts.fact(StepMethods).step_function_of(call) is not None
        return in_step_function or self.facts.fact(TrainingLoops).in_training_loop(call)

    def _has_step_budget(self, node: cst.CSTNode) -> bool:
        """In a class whose ``__init__`` stores its own step budget (``self.num_training``): an LR finder
        callback, run by a tuner for exactly that many steps, however the stop is arranged."""
        owner = enclosing_class(self.facts, node)
        if owner is None:
            return False
        inits = [s for s in owner.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"]
        targets = [t.target for init in inits for n in walk(init.body) if isinstance(n, cst.Assign) for t in n.targets]
        return any(isinstance(t, cst.Attribute) and _is_self(t.value) and STEP_BUDGET.match(t.attr.value) for t in targets)

    def _local_growth(self, history: History) -> List[cst.Call]:
        """Appends of detached tensors or dicts, per step, to a list bound once: a local one before the loop
        that runs the whole run (an epoch loop around the step loop, or one step loop that counts steps, not
        a pass over data: fixtures/TL402_unbounded_step_history/bad_single_step_loop.py), or a module-level
        one that per-step code of a function appends to (it lives as long as the process:
        fixtures/TL402_unbounded_step_history/bad_module_level_history.py)."""
        scope = history.key[0]
        bindings = self.facts.fact(GraphValues).bindings(scope, history.name)
        init = bindings[0] if len(bindings) == 1 and bindings[0].assigns else None  # else rebound: reset per epoch
        value = self.facts.fact(Names).bound_value(init) if init is not None else None  # `seen, kept = [], []` too
        if init is None or value is None or _history_shape(value) != "list":
            return []
        growing = [
            call
            for call in history.appends
            if self._grows_per_step(call, scope, init) and self._element(call.args[0].value) not in LEFT_TO_OTHERS
        ]
        if growing:
            history.inits = [value]
        return growing

    def _grows_per_step(self, call: cst.Call, scope: cst.CSTNode, init: Binding) -> bool:
        """Whether ``call`` appends every step of the run to the list ``init`` binds in ``scope``."""
        function = enclosing_function(self.facts, call)
        loops = self._loops_around(call)
        if function not in (scope, None):  # a function filling a module-level list
            if loops or self._has_own_training_loop(function):  # per step only inside that loop, not after it
                return self.facts.fact(TrainingLoops).in_training_loop(call) and not self._once_per_loop(call)
            return self._runs_every_step(call)
        counted = len(loops) >= 2 or (len(loops) == 1 and self._device_tensor_per_counted_step(call, loops[0]))
        return (
            counted
            and self.facts.fact(TrainingLoops).in_training_loop(call)
            and not self._once_per_loop(call)
            and self.facts.fact(GraphValues).precedes(init.statement, loops[-1])
        )

    def _has_own_training_loop(self, function: cst.CSTNode) -> bool:
        """``function`` runs a training loop itself: what it does outside that loop runs once per call, per epoch
        (fixtures/TL402_unbounded_step_history/ok_module_level_lists.py, ``train_epoch``)."""
        graph = self.facts.fact(GraphValues)
        return any(loop.is_training and graph.contains(function, loop.node) for loop in self.facts.fact(TrainingLoops).loops)

    def _device_tensor_per_counted_step(self, call: cst.Call, loop: cst.CSTNode) -> bool:
        """One loop around the append, counting the steps of the run, and a device tensor appended.

        A single loop may be a full-batch epoch loop (one step per epoch, a few hundred in all): what it
        keeps on the host, a number or a NumPy scalar, costs nothing worth a change
        (fixtures/TL402_unbounded_step_history/ok_single_pass_lists.py); a device tensor per step holds
        accelerator memory for the whole run.
        """
        return _counts_the_run(loop) and self._element(call.args[0].value) == "device tensor"

    def _once_per_loop(self, call: cst.Call) -> bool:
        """Under ``if t == 0:`` (or ``epoch == num_epochs - 1``), ``t`` counting a loop around: one append per
        run of that loop, not one per step (fixtures/TL402_unbounded_step_history/ok_append_on_first_step.py)."""
        child: cst.CSTNode = call
        for ancestor in self.facts.ancestors(call):
            if isinstance(ancestor, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                return False
            if isinstance(ancestor, cst.If) and child is ancestor.body and self._tests_one_iteration(ancestor):
                return True
            child = ancestor
        return False

    def _tests_one_iteration(self, statement: cst.If) -> bool:
        """``<counter> == <value>``: the counter of a ``for`` around ``statement``, the value free of counters and calls."""
        test = statement.test
        if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
            return False
        if not isinstance(test.comparisons[0].operator, cst.Equal):
            return False
        counters = {c.value for loop in self._loops_around(statement) if isinstance(loop, cst.For) for c in _counters(loop)}
        sides = (test.left, test.comparisons[0].comparator)
        for side, other in (sides, sides[::-1]):
            if isinstance(side, cst.Name) and side.value in counters:
                reads = [n for n in walk(other) if isinstance(n, (cst.Name, cst.Call))]
                return not any(isinstance(n, cst.Call) or n.value in counters for n in reads)
        return False

    def _loops_around(self, node: cst.CSTNode) -> List[cst.CSTNode]:
        """The ``for``/``while`` loops around ``node`` in its own function, innermost first."""
        loops = []
        for ancestor in self.facts.ancestors(node):
            if isinstance(ancestor, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                break
            if isinstance(ancestor, (cst.For, cst.While)):
                loops.append(ancestor)
        return loops

    # ----- report -------------------------------------------------------------------

    def _report(self, history: History, growing: List[cst.Call]) -> None:
        message = (
            f"`{history.name}` grows by {self._growth(growing)} every training step and nothing in this module trims it: "
            "its memory grows with the length of the run"
        )
        self.report(growing[0], message, fix=self._fix(history))

    def _growth(self, growing: List[cst.Call]) -> str:
        """``one number``, ``2 tuples``, ``one tuple and 2 numbers``: each kind of element, counted."""
        counts = Counter(self._element(call.args[0].value) for call in growing)
        return " and ".join(f"{'one' if n == 1 else n} {element}{'' if n == 1 else 's'}" for element, n in counts.items())

    def _element(self, value: cst.BaseExpression, depth: int = 0) -> str:
        """What one appended element is, in words: ``number``, ``tensor``, ``CPU tensor``, ``dict``..."""
        graph = self.facts.fact(GraphValues)
        if isinstance(value, (cst.Dict, cst.DictComp)):
            return "dict"
        if isinstance(value, (cst.List, cst.ListComp)):
            return "list"
        if isinstance(value, cst.Tuple):
            return "tuple"
        kind = graph.kind(value)
        if kind is GraphKind.CONTAINER:
            return "container of tensors with their autograd graphs"
        if kind is not None:
            return "tensor with its autograd graph"
        if isinstance(value, (cst.Integer, cst.Float)):
            return "number"
        if isinstance(value, cst.BinaryOperation):
            return self._element(value.left, depth)
        if isinstance(value, cst.Name) and depth < 3:
            return self._named_element(value, depth)
        if isinstance(value, cst.Call):
            return self._called_element(value)
        return "element"

    def _named_element(self, name: cst.Name, depth: int) -> str:
        """What a name holds: from its assignment, its loop (``range``/``enumerate`` counters) or its annotation."""
        binding = self.facts.fact(GraphValues).reaching_binding(name)
        if binding is None:
            return "element"
        if binding.receives_argument and isinstance(binding.node, cst.Param) and binding.node.annotation is not None:
            return ANNOTATED.get(dotted(binding.node.annotation.annotation) or "", "element")
        if binding.assigns:
            value = self.facts.fact(Names).bound_value(binding)
            return self._element(value, depth + 1) if value is not None else "element"
        value = binding.value
        counting = isinstance(value, cst.Call) and dotted(value.func) in ("range", "enumerate")
        if binding.iterates and counting and binding.path in ((), (0,)):
            return "number"  # ``for step in range(n)``, ``for step, batch in enumerate(loader)``
        return "element"

    def _called_element(self, call: cst.Call) -> str:
        name = dotted(call.func) or ""
        if name in NUMBER_FUNCTIONS:
            return "number"
        if isinstance(call.func, cst.Attribute):
            method = call.func.attr.value
            if method in ("detach", "clone") and isinstance(call.func.value, cst.Call):
                copied = self._called_element(call.func.value)  # ``x.to("cpu").detach()`` is still a CPU tensor
                if copied != "element":
                    return copied
            if method in NUMBER_METHODS:
                return "number"
            host = method in ("cpu", "numpy") or (method == "to" and _moves_to_cpu(call))
            if host and self._copies_scalar_loss(call):
                return "number"  # ``cost.detach().cpu().numpy()``: one value on the host, as ``cost.item()``
            if method == "cpu" or (method == "to" and _moves_to_cpu(call)):
                return "CPU tensor"
            if method == "numpy":
                return "NumPy array"
            if method in ("detach", "clone", "to", "cuda", "flatten", "view", "reshape"):
                return "device tensor"
        if (self.facts.qualified_name(call.func) or "").startswith("torch."):
            return "device tensor"
        return "element"

    def _copies_scalar_loss(self, call: cst.Call) -> bool:
        """``cost.detach().cpu().numpy()`` (or the older ``cost.data.cpu().numpy()``) where ``cost`` is a scalar
        loss: a 0-d copy, a number in all but type (fixtures/TL402_unbounded_step_history/ok_host_copies_of_scalar_loss.py)."""
        value: cst.BaseExpression = call
        while True:
            if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in SCALAR_COPIES:
                value = value.func.value
            elif isinstance(value, cst.Attribute) and value.attr.value == "data" and value is not call:
                value = value.value
            else:
                break
        return value is not call and self.facts.fact(GraphValues).kind(value) is GraphKind.SCALAR

    # ----- fix ----------------------------------------------------------------------

    def _fix(self, history: History) -> Optional[CstFix]:
        uses = [self._one_list(use) if history.of_lists else use for use in self._uses(history)]
        verdicts = [(use, self._deque_use(use)) for use in uses]
        if any(v == BREAKS for _, v in verdicts):
            return None
        if history.of_lists and any(v != COMPATIBLE for use, v in verdicts if not isinstance(use, cst.Subscript)):
            return None  # a whole dict of deques cannot be copied back to lists in one expression
        deque, imports = self._deque_spelling()
        maxlen = self.option("history-maxlen")
        replacements: Dict[cst.CSTNode, cst.CSTNode] = {}
        for init in history.inits:
            replacements.update(_bounded_init(init, deque, maxlen))
        for use, verdict in verdicts:
            if verdict == LIST_COPY or (verdict == UNCERTAIN and self._copy_helps(use)):
                replacements.update(self._list_copy(use))
        title = f"Keep the last {maxlen} values: `{deque}(maxlen={maxlen})`"
        public = not history.name.split(".")[-1].startswith("_") and (
            history.attribute is not None or history.key[0] is self.facts.module
        )  # an attribute, or a module-level name another module may import
        whole = [use for use in uses if _reads_whole_history(self.facts, use)]
        if public or whole or any(v == UNCERTAIN for _, v in verdicts):
            seen_by = "code in other modules" if public and not whole else f"`{self.facts.code(whole[0])}`" if whole else "its readers"
            title += f" (unsafe: {seen_by} then sees only the last {maxlen} entries, so statistics over the history change)"
            return CstFix(title, Applicability.UNSAFE, replacements, imports=imports)
        return CstFix(title, Applicability.SAFE, replacements, imports=imports)

    def _deque_spelling(self) -> Tuple[str, Tuple[Import, ...]]:
        """``deque`` after ``from collections import deque``, ``collections.deque`` otherwise (adding the import)."""
        imports = self.facts.imports
        for local, target in imports.bindings.items():
            if target == "collections.deque":
                return local, ()
        module = imports.local_name_for_module("collections")
        if module is not None:
            return f"{module}.deque", ()
        return "collections.deque", (Import("collections"),)

    def _uses(self, history: History) -> List[cst.BaseExpression]:
        """Every read of the history: ``self.<attribute>`` in its class family or ``<other>.<attribute>`` in the
        module (another object may be of that class), or the local name in its scope."""
        graph = self.facts.fact(GraphValues)
        if history.attribute is not None:
            found = graph.references(self.facts.module, attribute=history.attribute)
            found = [use for use in found if self._attribute_key(use) in (None, history.key)]
        else:
            scope = history.key[0]
            found = [use for use in graph.references(scope, name=history.name) if self._local_key(use) == history.key]
        receivers = {call.func.value for call in history.appends}  # type: ignore[attr-defined]
        appended = [use for use in found if use in receivers or (history.of_lists and self._one_list(use) in receivers)]
        return [use for use in found if use not in appended and not is_store_target(self.facts, use)]

    def _one_list(self, use: cst.BaseExpression) -> cst.BaseExpression:
        """In a dict of lists, ``self.h["loss"]`` is the history a use reads; ``self.h`` alone is the whole dict."""
        parent = self.facts.parent(use)
        if isinstance(parent, cst.Subscript) and parent.value is use and not _slices(parent):
            return parent
        return use

    def _deque_use(self, use: cst.BaseExpression) -> str:
        """Whether a deque serves ``use`` unchanged, needs ``list(...)`` there, may not (unknown), or cannot."""
        parent = self.facts.parent(use)
        if isinstance(parent, cst.Attribute) and parent.value is use:
            method = parent.attr.value
            if method in LIST_ONLY_METHODS:
                return BREAKS
            if method in COPYING_METHODS:
                return LIST_COPY
            return COMPATIBLE if method in DEQUE_METHODS or method in TRIMMING_METHODS else UNCERTAIN
        if isinstance(parent, cst.Subscript) and parent.value is use:
            return LIST_COPY if _slices(parent) else COMPATIBLE
        if isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is use:
            return COMPATIBLE
        if isinstance(parent, (cst.If, cst.While)) and parent.test is use:
            return COMPATIBLE
        if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not):
            return COMPATIBLE
        if isinstance(parent, cst.ComparisonTarget) and isinstance(parent.operator, (cst.In, cst.NotIn)):
            return COMPATIBLE
        if isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Add):
            return LIST_COPY
        if isinstance(parent, (cst.FormattedStringExpression,)):
            return LIST_COPY
        if isinstance(parent, cst.Arg):
            return self._argument_use(self.facts.parent(parent))
        if isinstance(parent, (cst.Element, cst.DictElement)) and parent.value is use:
            return self._literal_use(parent)
        return UNCERTAIN

    def _literal_use(self, element: cst.CSTNode) -> str:
        """In a literal: a copy if the literal goes straight to ``json.dump``, else the history escapes."""
        node = self.facts.parent(element)
        while isinstance(node, (cst.Element, cst.DictElement, cst.Dict, cst.List, cst.Tuple)):
            node = self.facts.parent(node)
        if isinstance(node, cst.Arg) and self._argument_use(self.facts.parent(node)) == LIST_COPY:
            return LIST_COPY
        return UNCERTAIN

    def _argument_use(self, call: Optional[cst.CSTNode]) -> str:
        if not isinstance(call, cst.Call):
            return UNCERTAIN
        name = dotted(call.func) or ""
        qualified = self.facts.qualified_name(call.func) or ""
        if qualified in DEQUE_TAKING_TORCH or qualified.startswith(READING_MODULES):
            return COMPATIBLE
        if not qualified and name in READING_FUNCTIONS:
            return COMPATIBLE
        if qualified.startswith(LIST_TAKING_MODULES) or (not qualified and name in EXPORTING_FUNCTIONS):
            return LIST_COPY
        return UNCERTAIN

    def _list_copy(self, use: cst.BaseExpression) -> Dict[cst.CSTNode, cst.CSTNode]:
        """Read a list copy of the history at ``use``: ``list(self.x)``, and ``self.x.copy()`` becomes ``list(self.x)``."""
        copied = cst.Call(func=cst.Name("list"), args=[cst.Arg(use)])
        method = self.facts.parent(use)
        call = self.facts.parent(method) if isinstance(method, cst.Attribute) else None
        if isinstance(call, cst.Call) and call.func is method and method.attr.value in COPYING_METHODS:
            return {call: copied}
        return {use: copied}

    def _copy_helps(self, use: cst.BaseExpression) -> bool:
        """Returned or placed in a literal (``{"norms": self.norms}``): export a list, as the original did."""
        parent = self.facts.parent(use)
        return isinstance(parent, (cst.Return, cst.Element, cst.DictElement)) and getattr(parent, "value", None) is use


def _counts_the_run(loop: cst.CSTNode) -> bool:
    """A ``while`` loop, or ``for`` over ``range(...)`` of a step count: the steps of a whole run.

    One loop over a loader, or over ``range(len(loader))``, is one pass over the data: a list it fills
    (predictions, per-batch metrics) is bounded by the data set; one over ``range(100)`` holds at most
    its literal, below :data:`SHORT_RUN` a demonstration's few values
    (fixtures/TL402_unbounded_step_history/ok_single_pass_lists.py).
    """
    if isinstance(loop, cst.While):
        return True
    if not (isinstance(loop, cst.For) and isinstance(loop.iter, cst.Call) and dotted(loop.iter.func) == "range"):
        return False
    bounds = [argument.value for argument in loop.iter.args]
    if not bounds or any(isinstance(bound, cst.Call) and dotted(bound.func) == "len" for bound in bounds):
        return False
    stop = bounds[0] if len(bounds) == 1 else bounds[1]
    return not (isinstance(stop, cst.Integer) and int(stop.value, 0) < SHORT_RUN)


def _counters(loop: cst.For) -> List[cst.Name]:
    """What a ``for`` counts: ``t`` in ``for t in range(n)``, ``i`` in ``for i, batch in enumerate(loader)``."""
    iterator = dotted(loop.iter.func) if isinstance(loop.iter, cst.Call) else None
    target = loop.target
    if iterator == "range" and isinstance(target, cst.Name):
        return [target]
    if iterator == "enumerate" and isinstance(target, cst.Tuple) and target.elements:
        first = target.elements[0].value
        return [first] if isinstance(first, cst.Name) else []
    return []


def _is_self(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "self"


def _class_families(facts: ModuleFacts) -> Dict[cst.ClassDef, cst.ClassDef]:
    """Each class of the module, mapped to one class standing for its family: the classes linked to it by
    inheritance in this module. A base's methods run on its subclasses' objects, so they share ``self``
    attributes; siblings join through their base, erring toward one history (a trim in either silences both)."""
    classes: List[cst.ClassDef] = facts.nodes(cst.ClassDef)  # type: ignore[assignment]
    defined = {c.name.value: c for c in classes}
    parent = {c: c for c in classes}

    def root(c: cst.ClassDef) -> cst.ClassDef:
        while parent[c] is not c:
            c = parent[c]
        return c

    for c in classes:
        for base in (defined.get(dotted(arg.value) or "") for arg in c.bases):
            if base is not None:
                parent[root(c)] = root(base)
    return {c: root(c) for c in classes}


def _moves_to_cpu(call: cst.Call) -> bool:
    """``x.to("cpu")``, ``x.to(device="cpu")``, ``x.to(torch.device("cpu"))``."""
    target = next((a.value for a in call.args if a.keyword is None or a.keyword.value == "device"), None)
    if isinstance(target, cst.Call) and dotted(target.func) in ("torch.device", "device") and target.args:
        target = target.args[0].value
    return isinstance(target, cst.SimpleString) and target.evaluated_value == "cpu"


def _reads_whole_history(facts: ModuleFacts, use: cst.BaseExpression) -> bool:
    """A read whose result depends on every entry (``len``, ``sum``, iteration, ``x[0]``, slices, ``==``...).

    Once the list is bounded, only appending, trimming, the last entries
    (``x[-1]``) and emptiness tests read the same as before.
    """
    parent = facts.parent(use)
    if isinstance(parent, cst.Attribute) and parent.value is use:
        return parent.attr.value not in GROWING_METHODS | TRIMMING_METHODS
    if isinstance(parent, cst.Subscript) and parent.value is use:
        return _slices(parent) or not all(_is_negative_int(element.slice) for element in parent.slice)
    if isinstance(parent, (cst.If, cst.While)) and parent.test is use:
        return False
    return not (isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not))


def _is_negative_int(index: cst.BaseSlice) -> bool:
    value = index.value if isinstance(index, cst.Index) else None
    return (
        isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus) and isinstance(value.expression, cst.Integer)
    )


def _slices(subscript: cst.Subscript) -> bool:
    return any(isinstance(element.slice, cst.Slice) for element in subscript.slice)


def _is_empty_list(node: Optional[cst.BaseExpression]) -> bool:
    if isinstance(node, cst.List):
        return not node.elements
    return isinstance(node, cst.Call) and dotted(node.func) == "list" and not node.args


def _history_shape(value: Optional[cst.BaseExpression]) -> Optional[str]:
    """``"list"`` for ``[]``/``list()``; ``"dict"`` for a dict of empty lists; else None."""
    if _is_empty_list(value):
        return "list"
    if isinstance(value, cst.Dict) and value.elements:
        if all(isinstance(e, cst.DictElement) and _is_empty_list(e.value) for e in value.elements):
            return "dict"
    if isinstance(value, cst.DictComp) and _is_empty_list(value.value):
        return "dict"
    if isinstance(value, cst.Call) and (dotted(value.func) or "").endswith("defaultdict") and len(value.args) == 1:
        if dotted(value.args[0].value) == "list":
            return "dict"
    return None


def _deque_call(deque: str, maxlen: int) -> cst.Call:
    return cst.parse_expression(f"{deque}(maxlen={maxlen})")  # type: ignore[return-value]


def _bounded_init(init: cst.BaseExpression, deque: str, maxlen: int) -> Dict[cst.CSTNode, cst.CSTNode]:
    """Replacements turning ``[]`` (or every ``[]`` of a dict of lists) into a bounded deque."""
    if _is_empty_list(init):
        return {init: _deque_call(deque, maxlen)}
    if isinstance(init, cst.Dict):
        return {e.value: _deque_call(deque, maxlen) for e in init.elements if isinstance(e, cst.DictElement)}
    if isinstance(init, cst.DictComp):
        return {init.value: _deque_call(deque, maxlen)}
    if isinstance(init, cst.Call):
        factory = cst.parse_expression(f"lambda: {deque}(maxlen={maxlen})")
        return {init.args[0].value: factory}
    return {}


def _stops_at_step_limit(function: cst.FunctionDef) -> bool:
    """A callback that runs for a fixed number of steps: ``if self.step >= self.num_training: return``.

    Also a function that counts its own runs against a cap and returns once
    it is reached (``if self.logged_count >= self.max_images: return`` with
    ``self.logged_count += 1`` further down): it appends at most that often.
    """
    nodes = list(walk(function.body))
    counters = {dotted(node.target) for node in nodes if isinstance(node, cst.AugAssign) and isinstance(node.operator, cst.AddAssign)}
    return any(isinstance(node, cst.If) and _guards_step_limit(node, counters - {None}) for node in nodes)


def _guards_step_limit(statement: cst.If, counters: Set[str]) -> bool:
    """``if`` comparing against ``num_training``/``max_steps``/..., or a counter of ``counters`` against a
    ``max_*`` cap, whose body returns, raises or sets ``should_stop``."""
    test = list(walk(statement.test))
    body = list(walk(statement.body))
    compares = any(isinstance(node, cst.Comparison) for node in test)
    names = [node.value for node in test if isinstance(node, cst.Name)]
    counted = any(dotted(node) in counters for node in test if isinstance(node, (cst.Name, cst.Attribute)))
    limit = any(STEP_LIMIT.match(name) or (counted and COUNT_LIMIT.search(name)) for name in names)
    stops = any(isinstance(node, (cst.Return, cst.Raise)) or (isinstance(node, cst.Name) and node.value in STOP_FLAGS) for node in body)
    return compares and limit and stops
