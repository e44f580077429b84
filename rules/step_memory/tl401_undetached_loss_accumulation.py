"""TL401 undetached-loss-accumulation: a graph-carrying loss kept beyond its training step."""

from __future__ import annotations

import re
from typing import Callable, FrozenSet, Iterator, List, NamedTuple, Optional, Set, Tuple

import libcst as cst

from trainlint.analysis import dotted
from trainlint.analysis.graph_values import GraphKind, GraphValues, is_store_target, storage_path
from trainlint.analysis.names import Names, element_at
from trainlint.analysis.steps import StepMethods, TrainingLoops, enclosing_function
from trainlint.diagnostics import Applicability
from trainlint.rule import CstFix, Rule
from trainlint.step_words import CASTS

NUMBER, TENSOR, UNKNOWN = "number", "tensor", "unknown"
CONTAINER_METHODS = frozenset(
    {"append", "extend", "insert", "clear", "pop", "remove", "copy", "index", "count", "keys", "setdefault"}
)
NUMBER_FUNCTIONS = frozenset({"float", "int", "str", "repr", "format", "print", "sorted", "len"})
ELEMENT_FUNCTIONS = frozenset({"sum", "max", "min", "abs", "round"})  # their result is read like the value itself
NUMBER_MODULES = ("numpy.", "math.", "statistics.", "json.")
NUMBER_SINKS = frozenset(  # loggers, TensorBoard writers, progress bars
    {"info", "debug", "warning", "error", "log", "add_scalar", "add_scalars", "set_postfix", "set_description", "write"}
)
WRAPPABLE = (cst.Name, cst.Attribute, cst.Subscript, cst.Call)
MAX_ALIAS_DEPTH = 3
MAX_DICT_DEPTH = 3  # assignments and returns followed to the dict a loop draws its values from
NUMBER_METHODS = frozenset({"item", "tolist", "numpy"})  # what they return is no tensor
STEP_COUNTER = re.compile(r"(^|[._])(step|global_step|batch_idx|batch_id|batch_index|iteration)$")


class Site(NamedTuple):
    """A statement keeping ``value`` in ``storage``: ``total`` for ``total += loss``, ``self.h`` for ``self.h[k].append(x)``."""

    node: cst.CSTNode
    how: str  # "sum" (``+=``, ``acc = acc + x``), "append", or "store" (``d[k] = x``)
    storage: str
    value: cst.BaseExpression
    levels: int  # subscripts from the storage to the value: ``total`` 0, ``d[k]`` 1, ``self.h["loss"].append`` 2

    @property
    def keyed(self) -> bool:
        """The storage's first level is indexed by keys (a dict), not a list of stored values."""
        return self.how != "append" or self.levels > 1


class UndetachedLossAccumulation(Rule):
    """## What it does
    Finds a loss (or any tensor still carrying its autograd graph) summed or
    stored into something that outlives the training step.

    The value is a loss, a model output, or anything `.backward()` is
    called on, computed with grad enabled; the storage is a local bound
    before the step loop, or an attribute: `total += loss`,
    `self.epoch_loss += loss`, a moving average
    `smoothed = 0.9 * smoothed + 0.1 * loss`, `losses.append(loss)`,
    `history.append({"step": s, "loss": loss})` (also a dict filled with
    the loss in the step, then appended), `totals[name] += loss`,
    `self.train_losses[k] += loss[k]` in a method called from the training
    loop, Lightning's `self.training_step_outputs.append(loss)`. The step
    loop may train through a same-module function (`total +=
    train_step(model, batch)` where `train_step` calls `backward()` and
    returns the loss).

    ## Why is this bad
    The stored tensor references its `grad_fn`, and through it the autograd
    graph of its step. `total += loss` chains every step's graph into one
    that grows for the whole epoch (or run): memory grows step by step until
    the process runs out of it, hours into training. The PyTorch FAQ ("Don't
    accumulate history across your training loop") describes exactly this.

    Deliberately silent: values detached on the way (`.item()`, `.detach()`,
    `float()`, `.cpu().numpy()`, a step function returning `loss.item()`);
    sums and lists under `torch.no_grad()` or `torch.inference_mode()` and in
    `validation_step`/`test_step` (also `total += loss` under `no_grad` of a
    loss computed with grad: the addition records nothing); a loss being built before `backward()`
    (`loss += crit(head(x), y)` then `loss.backward()`); accumulators reset
    inside the step loop (gradient-accumulation sums zeroed at each optimizer
    step) or, for attributes, in another per-step method; local lists
    rebuilt every step (chunked losses `torch.cat`-ed into the loss); a
    key that does not change with the step (`log["loss"] = loss`,
    `log[name] = loss` keep one graph per key, not one per step); what is
    read off an engine that backpropagates the loss (DeepSpeed's
    `model.backward(loss)`: `model` is the engine, not a tensor given a
    gradient, so `model.global_samples` is a number); locals of a function
    called every step filled by a nested helper (a `train_step` whose inner
    `forward_backward` sums into its own dict); queues whose items are
    popped again (a pipeline schedule keeping outputs for a later backward).

    ## Example
    ```python
    running_loss = 0.0
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        running_loss += loss
    ```

    ## Use instead
    ```python
    running_loss += loss.item()
    ```

    ## Fix safety
    The fix detaches the stored value where it is stored, choosing per site:
    `.item()` when the value is a scalar loss and every later read of the
    accumulator takes a number (arithmetic, f-strings, `print`, `json`,
    NumPy, `len(loader)` divisions); `.detach()` when the accumulator must
    stay a tensor (it starts as `torch.zeros(...)`, or is later read with
    tensor methods or `torch.stack`), or when the value is not known to be a
    scalar. Both are safe then. When a read cannot be classified statically
    (the accumulator is returned, passed to an unknown function, iterated),
    `.item()` is offered as an unsafe fix; so is `.detach()` on a model
    output, which may be a structure rather than a tensor, and on a value
    that comes from a parameter of a function other modules can call
    (`Meter.update(value)`): this module's callers pass tensors, but another
    caller may pass a float, which has no `.item()`. A stored
    container of graph tensors (`outputs.append(output)` after
    `output["loss"].backward()`) gets no fix, and neither does a value drawn
    from a dict in a loop (`for name, value in losses.items()`) unless the
    dict's display is in sight and none of its values is a number
    (`"kl": kl.item()`), which has no `.detach()`.

    ## Evidence
    `fixtures/TL401_undetached_loss_accumulation/` (bad cases and their
    fixed snapshots, ok traps) and `tests/test_runtime_TL401.py`, which shows
    the bad accumulator's graph growing with every step and the fixed
    scripts training exactly like `reference_trainer`.
    """

    fix = Applicability.SAFE

    def visit_Module(self, node: cst.Module) -> None:
        self._sites: List[Site] = []

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.operator, (cst.AddAssign, cst.SubtractAssign)):
            self._add_site(node, "sum", node.target, node.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1:
            return
        target = node.targets[0].target
        addend = _self_addend(self.facts.code, target, node.value)
        if addend is not None:
            self._add_site(node, "sum", target, addend)
        elif isinstance(target, cst.Subscript):
            self._add_site(node, "store", target, node.value)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "append" and len(node.args) == 1 and not node.args[0].star:
            self._add_site(node, "append", func.value, node.args[0].value, element=True)

    def _add_site(
        self, node: cst.CSTNode, how: str, target: cst.BaseExpression, value: cst.BaseExpression, element: bool = False
    ) -> None:
        """Record a store; ``element``: the value becomes an element of ``target`` (``append``), not ``target`` itself."""
        storage = storage_path(target)
        if storage is not None:
            self._sites.append(Site(node, how, storage, value, _subscript_depth(target) + int(element)))

    def leave_Module(self, original_node: cst.Module) -> None:
        per_step = [site for site in self._sites if self._runs_per_step(site.node)]
        if not per_step:
            return  # most modules: no need for the graph analysis
        graph = self.facts.fact(GraphValues)
        per_step = [site for site in per_step if site.how != "store" or self._new_key_every_step(graph, site.node)]
        per_step = [site for site in per_step if not _adds_without_grad(graph, site)]
        reported: Set[cst.CSTNode] = set()
        for site in per_step:
            atoms = [(a, k) for a, k in graph.graph_atoms(site.value) if not self._comes_from(graph, a, reported, 0)]
            if atoms and self._outlives_step(graph, site):
                reported.add(site.node)
                self._report(site, atoms)

    # ----- detection ------------------------------------------------------------------

    def _runs_per_step(self, node: cst.CSTNode) -> bool:
        in_loop = self.facts.fact(TrainingLoops).in_training_loop(node)
        return in_loop or self.facts.fact(StepMethods).step_function_of(node) is not None

    def _comes_from(self, graph: GraphValues, atom: cst.BaseExpression, reported: Set[cst.CSTNode], depth: int) -> bool:
        """True when ``atom`` only carries a graph through an accumulator already reported (fixed at its source)."""
        if not isinstance(atom, cst.Name) or depth > MAX_ALIAS_DEPTH:
            return False
        binding = graph.reaching_binding(atom)
        if binding is None:
            return False
        if binding.statement in reported:
            return True
        if not binding.assigns or binding.path or binding.value is None:
            return False
        atoms = graph.graph_atoms(binding.value)
        return bool(atoms) and all(self._comes_from(graph, a, reported, depth + 1) for a, _ in atoms)

    def _new_key_every_step(self, graph: GraphValues, store: cst.CSTNode) -> bool:
        """``log[step] = loss`` keeps one graph per step; ``log["loss"] = loss`` or ``log[name] = loss`` overwrite.

        The key must read the step loop's variables (``for step, batch in
        enumerate(loader)``) or a step counter (``batch_idx``, ``self.global_step``).
        """
        target = store.targets[0].target if isinstance(store, cst.Assign) else None
        if not isinstance(target, cst.Subscript):
            return False
        keys = set().union(*(graph.reads(s.slice) for s in target.slice))
        loops = self.facts.fact(TrainingLoops).enclosing(store)
        bound_per_step = [loop.node.target if isinstance(loop.node, cst.For) else loop.batch for loop in loops]
        loop_variables = set().union(*(graph.reads(bound) for bound in bound_per_step if bound is not None))
        return bool(keys & loop_variables) or any(STEP_COUNTER.search(key) for key in keys)

    def _step_region(self, graph: GraphValues, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """What one step is, around ``node``: the innermost loader loop in its function, or the step function itself."""
        scope = graph.scope_of(node)
        for loop in self.facts.fact(TrainingLoops).enclosing(node):
            if graph.scope_of(loop.node) is scope:
                return loop.node
        return enclosing_function(self.facts, node)

    def _outlives_step(self, graph: GraphValues, site: Site) -> bool:
        """Whether ``site.storage`` survives the step: bound before the step loop, or an attribute, and never reset per step."""
        scope = graph.scope_of(site.node)
        if site.storage in graph.backpropagated(scope):
            return False  # the loss being built, then backpropagated
        region = self._step_region(graph, site.node)
        if region is None:
            return False
        root = site.storage.split(".", 1)[0]
        bindings = graph.bindings(scope, root)
        if not bindings and root not in ("self", "cls"):
            owner = self._closure_owner(graph, scope, root)
            if owner is not None and self._runs_per_step(owner.body):
                return False  # a local of a function called every step, filled by a nested helper
        if self._drained(graph, site.storage):
            return False  # a queue: what is stored is popped again (and backpropagated, in a pipeline schedule)
        if region is scope:  # a step function without a loop: its locals die with the call...
            handed_in = "." in site.storage and any(b.receives_argument for b in bindings)
            if root not in ("self", "cls") and bindings and not handed_in:  # ...not an object handed to it
                return False
        elif any(self._resets(b.statement) and graph.contains(region, b.statement) for b in bindings):
            return False
        steps = self.facts.fact(StepMethods)
        attribute = "." in site.storage

        def each_step(node: cst.CSTNode) -> bool:
            return graph.contains(region, node) or (attribute and steps.step_function_of(node) is not None)

        return not self._reset_where(graph, site.storage, each_step)

    def _closure_owner(self, graph: GraphValues, scope: cst.CSTNode, name: str) -> Optional[cst.FunctionDef]:
        """The enclosing function that binds ``name`` when a nested function reads it through a closure."""
        outer = scope
        while isinstance(outer, cst.FunctionDef):
            outer = graph.scope_of(outer)
            if isinstance(outer, cst.FunctionDef) and graph.bindings(outer, name):
                return outer
        return None

    def _drained(self, graph: GraphValues, storage: str) -> bool:
        """``storage.pop(...)``/``popleft()`` somewhere: items leave again, so the graphs do not pile up."""
        receivers = self._method_receivers(graph, storage, ("pop", "popleft"))
        return any(isinstance(self.facts.parent(self.facts.parent(r)), cst.Call) for r in receivers)

    def _method_receivers(self, graph: GraphValues, storage: str, methods: Tuple[str, ...]) -> Iterator[cst.BaseExpression]:
        """Each ``storage`` read as the receiver of one of ``methods`` (``storage.clear``, ``storage.pop``)."""
        for reference in _references(graph, self.facts.module, storage):
            parent = self.facts.parent(reference)
            if isinstance(parent, cst.Attribute) and parent.attr.value in methods and dotted(reference) == storage:
                yield reference

    def _resets(self, statement: cst.CSTNode) -> bool:
        """A binding statement of the storage's root name that starts it afresh (not ``acc += x``/``acc = acc + x``)."""
        if isinstance(statement, cst.AugAssign):
            return False
        if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
            return _self_addend(self.facts.code, statement.targets[0].target, statement.value) is None
        return True

    def _reset_where(self, graph: GraphValues, storage: str, where: Callable[[cst.CSTNode], bool]) -> bool:
        """``storage = <fresh value>``, ``storage.clear()`` or ``del storage[:]`` at a place where ``where`` holds.

        Places: the step loop, or for an attribute any per-step method (a
        pipeline schedule's microbatch losses cleared in every ``step``).
        """
        for target, _value, statement in graph.assignments():
            if dotted(target) == storage and "." in storage and self._resets(statement) and where(statement):
                return True
        if any(where(reference) for reference in self._method_receivers(graph, storage, ("clear",))):
            return True
        return any(where(statement) and _empties(statement, storage) for statement in self.facts.nodes(cst.Del))

    # ----- report and fix -----------------------------------------------------------

    def _report(self, site: Site, atoms: List[Tuple[cst.BaseExpression, GraphKind]]) -> None:
        value = self.facts.code(atoms[0][0])
        verb = "summed into" if site.how == "sum" else "stored in"
        message = (
            f"`{value}` still carries its autograd graph and is {verb} `{site.storage}`, which outlives the training "
            "step: every step's graph stays alive with it and memory grows with each step"
        )
        self.report(site.node, message, fix=self._fix(site, atoms))

    def _fix(self, site: Site, atoms: List[Tuple[cst.BaseExpression, GraphKind]]) -> Optional[CstFix]:
        kinds = {kind for _, kind in atoms}
        if GraphKind.CONTAINER in kinds or not all(isinstance(a, WRAPPABLE) for a, _ in atoms):
            return None
        graph = self.facts.fact(GraphValues)
        if any(self._a_value_of_a_dict(graph, atom) for atom, _ in atoms):
            return None  # not shown to be a tensor: no tensor method on it
        initial = self._initial_value(graph, site)
        nesting = max(_literal_depth(self.facts, atom, site.value) for atom, _ in atoms)
        reads = self._reads(graph, site, nesting)
        as_number = kinds == {GraphKind.SCALAR} and TENSOR not in reads and not self._starts_as_tensor(initial)
        method = "item" if as_number else "detach"
        unsure = UNKNOWN in reads or GraphKind.OUTPUT in kinds or (as_number and initial is None)
        replacements = {atom: _method_call(atom, method) for atom, _ in atoms}
        verb = "Accumulate" if site.how == "sum" else "Store"
        title = f"{verb} `{self.facts.code(atoms[0][0])}.{method}()`"
        handed_in = [atom for atom, _ in atoms if self._from_parameter(graph, atom)]
        if handed_in:
            # Shown to be a tensor only by this module's calls: a caller elsewhere may pass a number.
            title += f" (unsafe: `{self.facts.code(handed_in[0])}` comes from a parameter, and a caller in another module may pass a number, which has no `.{method}()`)"
            unsure = True
        applicability = Applicability.UNSAFE if unsure else Applicability.SAFE
        return CstFix(title, applicability, replacements)

    def _a_value_of_a_dict(self, graph: GraphValues, atom: cst.BaseExpression) -> bool:
        """``value`` of ``for metric, value in loss_dict.items()`` (or ``.values()``) where the dict is not shown
        to hold graph-carrying tensors only: beside the loss it may hold numbers (``{"loss": loss, "kl":
        kl.item()}``, round 7's uvadlc notebooks), which have no ``.detach()``."""
        if not isinstance(atom, cst.Name):
            return False
        binding = graph.reaching_binding(atom)
        iterable = binding.value if binding is not None and binding.iterates else None
        func = iterable.func if isinstance(iterable, cst.Call) else None
        if not (isinstance(func, cst.Attribute) and func.attr.value in ("items", "values")):
            return False
        displays = self._dict_displays(graph, func.value, 0)
        values = [e for d in displays for e in d.elements]
        return not values or any(not isinstance(e, cst.DictElement) or _a_number(e.value) for e in values)

    def _dict_displays(self, graph: GraphValues, expression: cst.BaseExpression, depth: int) -> List[cst.Dict]:
        """The dict displays ``expression`` holds, through assignments and same-module returns (an instance's
        ``forward`` too); empty when some of what it may hold is not a display seen here."""
        if isinstance(expression, cst.Dict):
            return [expression]
        if depth > MAX_DICT_DEPTH:
            return []
        names = self.facts.fact(Names)
        if isinstance(expression, cst.Name):
            binding = graph.reaching_binding(expression)
            unpacked = names.unpacked(binding) if binding is not None else None
            if unpacked is None:
                return []
            value, path = unpacked
            return self._dict_displays(graph, value, depth + 1) if not path else self._returned_element(graph, value, path, depth)
        if isinstance(expression, cst.Call):
            return self._returned_element(graph, expression, (), depth)
        return []

    def _returned_element(self, graph: GraphValues, call: cst.BaseExpression, path: Tuple[int, ...], depth: int) -> List[cst.Dict]:
        """The dict displays at ``path`` of what the same-module function ``call`` runs returns."""
        if not isinstance(call, cst.Call):
            return []
        names = self.facts.fact(Names)
        functions = [d for d in names.resolve_callable(call.func) if isinstance(d, cst.FunctionDef)]
        functions += [m for c in names.instance_classes(call.func) for m in [names.method(c, "forward")] if m is not None]
        found: List[cst.Dict] = []
        for returned in (r for f in functions for r in names.returns(f)):
            element, rest = element_at(returned, path)
            displays = [] if rest else self._dict_displays(graph, element, depth + 1)
            if not displays:
                return []
            found += displays
        return found

    def _from_parameter(self, graph: GraphValues, atom: cst.BaseExpression) -> bool:
        """``value``, ``value[k]`` or ``value.mean()`` where ``value`` is a parameter of a function other modules can call."""
        root = atom
        while isinstance(root, (cst.Subscript, cst.Attribute, cst.Call)):
            root = root.func if isinstance(root, cst.Call) else root.value
        if not isinstance(root, cst.Name) or root.value in ("self", "cls"):
            return False
        binding = graph.reaching_binding(root)
        if binding is None or not binding.receives_argument or not isinstance(binding.statement, cst.FunctionDef):
            return False
        return not binding.statement.name.value.startswith("_")

    def _initial_value(self, graph: GraphValues, site: Site) -> Optional[cst.BaseExpression]:
        """What the storage starts as: its last plain assignment before the step region."""
        region = self._step_region(graph, site.node)
        candidates = [
            value
            for target, value, statement in graph.assignments()
            if isinstance(statement, (cst.Assign, cst.AnnAssign))
            and dotted(target) == site.storage
            and not (region is not None and graph.contains(region, statement))
            and (site.storage.startswith("self.") or graph.scope_of(statement) is graph.scope_of(site.node))
        ]
        return candidates[-1] if candidates else None

    def _starts_as_tensor(self, initial: Optional[cst.BaseExpression]) -> bool:
        """``torch.zeros(1, device=d)`` or ``defaultdict(lambda: torch.tensor(0.0, device=d))``."""
        if not isinstance(initial, cst.Call):
            return False
        name = self.facts.qualified_name(initial.func) or ""
        if name.startswith("torch."):
            return True
        if name == "collections.defaultdict" and initial.args and isinstance(initial.args[0].value, cst.Lambda):
            return self._starts_as_tensor(initial.args[0].value.body)
        return False

    # ----- how the accumulator is read later: NUMBER, TENSOR or UNKNOWN ------------------

    def _reads(self, graph: GraphValues, site: Site, nesting: int) -> FrozenSet[str]:
        """How the stored values are read outside the accumulating statements.

        ``nesting`` counts the literals around the stored tensor
        (``{"loss": loss}`` is 1): that many subscripts lead back to it.
        """
        sites = [s.node for s in self._sites if s.storage == site.storage]
        reads: Set[str] = set()
        for use in self._uses(graph, site):
            if any(graph.contains(s, use) for s in sites):
                continue
            if site.levels:
                reads |= self._container_read(use, keyed=site.keyed, nesting=nesting + site.levels - 1)
            else:
                reads |= self._value_read(use, 0, nesting)
        return frozenset(reads)

    def _uses(self, graph: GraphValues, site: Site) -> List[cst.BaseExpression]:
        """Reads of the storage: the name in its scope, or ``<anything>.<attribute>`` in the module."""
        scope = graph.scope_of(site.node)
        within = self.facts.module if "." in site.storage else scope
        uses = _references(graph, within, site.storage)
        return [u for u in uses if ("." in site.storage or graph.scope_of(u) is scope) and not is_store_target(self.facts, u)]

    def _container_read(self, use: cst.BaseExpression, keyed: bool, nesting: int) -> Set[str]:
        """A read of a list or dict accumulator, whose elements are what the fix changes."""
        parent = self.facts.parent(use)
        if isinstance(parent, cst.Attribute) and parent.value is use:
            call = self.facts.parent(parent)
            method = parent.attr.value
            if method in ("items", "values") and isinstance(call, cst.Call):
                return self._iteration_read(call, 1 if method == "items" else None, 0, nesting)
            if method == "get" and isinstance(call, cst.Call):
                return self._value_read(call, 0, nesting)
            return {NUMBER} if method in CONTAINER_METHODS else {UNKNOWN}
        if isinstance(parent, cst.Subscript) and parent.value is use:
            return self._value_read(parent, 0, nesting)
        if isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is use:
            return {NUMBER} if keyed else self._iteration_read(use, None, 0, nesting)
        return self._value_read(use, 0, nesting)

    def _value_read(self, use: cst.BaseExpression, depth: int, nesting: int = 0) -> Set[str]:
        """How the value at ``use`` is read: NUMBER if a float serves, TENSOR if it must be a tensor, else UNKNOWN."""
        parent = self.facts.parent(use)
        if isinstance(parent, cst.ComparisonTarget):
            parent = self.facts.parent(parent)
        if isinstance(parent, cst.Subscript) and parent.value is use and nesting > 0:
            return self._value_read(parent, depth, nesting - 1)
        if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison)):
            return self._value_read(parent, depth, nesting)
        if isinstance(parent, (cst.Element, cst.DictElement)):
            return self._value_read(self.facts.parent(parent), depth, nesting)  # type: ignore[arg-type]
        if isinstance(parent, (cst.Attribute, cst.Subscript)) and parent.value is use:
            return {TENSOR}
        if isinstance(parent, cst.FormattedStringExpression):
            return {NUMBER}
        if isinstance(parent, cst.Arg):
            return self._argument_read(self.facts.parent(parent), depth, nesting)
        if isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is use and nesting > 0:
            return self._iteration_read(use, None, depth, nesting - 1)
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name):
            return self._name_reads(parent.targets[0].target, self.facts.fact(GraphValues).scope_of(parent), depth, nesting)
        return {UNKNOWN}

    def _argument_read(self, call: Optional[cst.CSTNode], depth: int, nesting: int) -> Set[str]:
        """A value passed to ``call``: NumPy, ``json``, ``print`` and loggers take numbers, ``torch`` wants tensors."""
        if not isinstance(call, cst.Call):
            return {UNKNOWN}
        if _formats_a_string(call):
            return {NUMBER}
        name = dotted(call.func) or ""
        qualified = self.facts.qualified_name(call.func) or ""
        if qualified.startswith("torch."):
            return {TENSOR}
        if name in ELEMENT_FUNCTIONS and not qualified:
            return self._value_read(call, depth, nesting)
        if (name in NUMBER_FUNCTIONS and not qualified) or qualified.startswith(NUMBER_MODULES):
            return {NUMBER}
        if "." in name and name.rsplit(".", 1)[-1] in NUMBER_SINKS:
            return {NUMBER}
        return {UNKNOWN}

    def _iteration_read(self, iterable: cst.BaseExpression, index: Optional[int], depth: int, nesting: int) -> Set[str]:
        """``for v in xs`` / ``for k, v in d.items()``: the reads of the element name decide."""
        loop = self.facts.parent(iterable)
        if not isinstance(loop, (cst.For, cst.CompFor)) or loop.iter is not iterable:
            return {UNKNOWN}
        target = loop.target
        if index is not None:
            elements = target.elements if isinstance(target, cst.Tuple) else ()
            target = elements[index].value if len(elements) > index else None  # type: ignore[assignment]
        if not isinstance(target, cst.Name):
            return {UNKNOWN}
        if isinstance(loop, cst.For):
            return self._name_reads(target, loop.body, depth, nesting)
        return self._name_reads(target, _comprehension_of(self.facts, loop), depth, nesting, ordered=False)

    def _name_reads(self, name: cst.Name, region: cst.CSTNode, depth: int, nesting: int, ordered: bool = True) -> Set[str]:
        """The reads of ``name`` within ``region`` after it is bound (``avg = total / n``, a loop variable).

        A comprehension reads its target before the ``for`` clause binds it in
        source order (``[r["loss"] for r in log]``): ``ordered=False`` there.
        """
        if depth >= MAX_ALIAS_DEPTH:
            return {UNKNOWN}
        graph = self.facts.fact(GraphValues)
        reads: Set[str] = set()
        for use in graph.references(region, name=name.value):
            if use is not name and not is_store_target(self.facts, use) and (not ordered or graph.precedes(name, use)):
                reads |= self._value_read(use, depth + 1, nesting)
        return reads


def _references(graph: GraphValues, within: cst.CSTNode, storage: str) -> List[cst.BaseExpression]:
    """``storage`` read inside ``within``: the name, or for ``self.x`` any ``<object>.x``."""
    if "." in storage:
        return graph.references(within, attribute=storage.rsplit(".", 1)[-1])
    return graph.references(within, name=storage)


def _self_addend(code, target: cst.BaseExpression, value: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """``x`` for ``acc = acc + x``, ``acc = x + acc`` or a moving average ``acc = 0.9 * acc + 0.1 * x``, else None."""
    if not isinstance(value, cst.BinaryOperation) or not isinstance(value.operator, cst.Add):
        return None
    if _scales(code, value.left, target):
        return value.right
    if _scales(code, value.right, target):
        return value.left
    return None


def _scales(code, term: cst.BaseExpression, target: cst.BaseExpression) -> bool:
    """``term`` is ``target`` itself, or ``target`` multiplied or divided by something (``0.9 * acc``, ``acc / 2``)."""
    if code(term) == code(target):
        return True
    scaling = (cst.Multiply, cst.Divide)
    if isinstance(term, cst.BinaryOperation) and isinstance(term.operator, scaling):
        return code(term.left) == code(target) or (isinstance(term.operator, cst.Multiply) and code(term.right) == code(target))
    return False


def _empties(statement: cst.Del, storage: str) -> bool:
    """``del storage[:]`` (REINFORCE's ``del policy.saved_log_probs[:]`` after the episode's backward)."""
    target = statement.target
    if not isinstance(target, cst.Subscript) or dotted(target.value) != storage or len(target.slice) != 1:
        return False
    whole = target.slice[0].slice
    return isinstance(whole, cst.Slice) and whole.lower is None and whole.upper is None and whole.step is None


def _subscript_depth(target: cst.BaseExpression) -> int:
    """How many subscripts ``target`` applies to its storage: ``self.h["loss"][0]`` has 2."""
    depth = 0
    while isinstance(target, cst.Subscript):
        depth, target = depth + 1, target.value
    return depth


def _adds_without_grad(graph: GraphValues, site: Site) -> bool:
    """``total += loss`` under ``torch.no_grad()``: the sum records no graph, so nothing is kept.

    Appends and stores keep the tensor itself, graph included, grad mode or not;
    so does ``+=`` of a list literal (``kept += [loss]`` extends a list).
    """
    literal = isinstance(site.value, (cst.List, cst.Tuple))
    return site.how == "sum" and not literal and graph.runs_without_grad(site.node)


def _formats_a_string(call: cst.Call) -> bool:
    """``"{:.4f}".format(value)``: formatting takes a number as well as a tensor."""
    func = call.func
    strings = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
    return isinstance(func, cst.Attribute) and func.attr.value == "format" and isinstance(func.value, strings)


def _a_number(value: cst.BaseExpression) -> bool:
    """A value shown to be no tensor: a literal, ``x.item()``/``x.tolist()``/``x.numpy()``, ``float(x)``, ``len(x)``."""
    if isinstance(value, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
        return True
    if not isinstance(value, cst.Call):
        return False
    func = value.func
    if isinstance(func, cst.Attribute):
        return func.attr.value in NUMBER_METHODS
    return isinstance(func, cst.Name) and func.value in CASTS


def _literal_depth(facts, atom: cst.CSTNode, value: cst.CSTNode) -> int:
    """How many dict/list/tuple literals of ``value`` enclose ``atom`` (``{"loss": loss}``: 1)."""
    depth = 0
    for ancestor in facts.ancestors(atom):
        if isinstance(ancestor, (cst.Dict, cst.List, cst.Tuple, cst.Set)):
            depth += 1
        if ancestor is value:
            break
    return depth


def _comprehension_of(facts, comp_for: cst.CompFor) -> cst.CSTNode:
    """The comprehension a ``for ... in ...`` clause belongs to: where its target can be read."""
    node: cst.CSTNode = comp_for
    while isinstance(node, cst.CompFor):
        node = facts.parent(node)  # type: ignore[assignment]
    return node


def _method_call(atom: cst.BaseExpression, method: str) -> cst.Call:
    return cst.Call(func=cst.Attribute(value=atom, attr=cst.Name(method)))
