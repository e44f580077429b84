"""Where tensors live: which values are on an accelerator, and what a DataLoader does with them.

Pinning host memory and forking worker processes both assume that a data set
is on the CPU. Two rules ask the same questions of every ``DataLoader(...)``
(TL101 pin-memory-device-tensors, TL102 device-dataset-in-workers), and both
offer the same fix, so the answers live here, computed once per module:

* Which calls put the batches on an accelerator? ``.cuda()``, ``.to(<device
  that is not provably CPU>)``, a torch factory with ``device=``, followed
  through local assignments, tuple unpacking, same-module Dataset classes
  (``__init__`` storing such tensors, ``__getitem__`` returning them),
  ``Subset``/``random_split``/``ConcatDataset`` views, and collate
  functions, including ones made by a ``make_collate(device)`` factory or
  ``functools.partial``. ``device=t.device`` is no move: the result goes
  wherever ``t`` is.  -> :meth:`DevicePlacement.trace`
* What are ``pin_memory``, ``num_workers`` and ``collate_fn``, including
  values passed through ``**kwargs`` built with ``{...}``, ``dict(...)``,
  ``.update(...)`` or ``kwargs[key] = ...``?  -> :class:`LoaderArguments`
* Which loops consume the loader, and how does each batch reach the device
  once the data set stays on the CPU?  -> :class:`CpuDatasetFix`

Names are followed through :class:`~trainlint.analysis.names.Names`: a name
holds what the binding it sees holds (:meth:`Names.binding_of`, the last one
before it), so a tensor moved *after* the loader was built does not count;
``self.x`` holds any ``self.x = ...`` of its class; a parameter holds the
argument of the call that runs its function, where the trace came through
that call (:data:`Invocations`). Whatever is not understood counts as "not
on an accelerator" (precision first) and as "not provably CPU / false / zero".
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from trainlint.analysis import walk
from trainlint.analysis.devices import TORCH_DEVICE_MAKERS
from trainlint.analysis.imports import dotted
from trainlint.analysis.names import (
    ASSIGN, AUGMENTED, COMPREHENSION, COMPREHENSIONS, DEF, FOR, PARAMETER, WITH, Binding, Names, passed_argument,
)  # fmt: skip
from trainlint.analysis.steps import LoaderLoop, TrainingLoops, enclosing_function
from trainlint.analysis.values import Values, string_value
from trainlint.diagnostics import Applicability
from trainlint.rule import CstFix
from trainlint.step_words import DEVICE_NAME

if TYPE_CHECKING:
    from trainlint.analysis import ModuleFacts

STRINGS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
MAX_DEVICE_DEPTH = 8  # names followed to the torch.device they hold (`device = dev = torch.device(...)`)

DATALOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
# DataLoader's leading positional parameters, in order.
LOADER_PARAMETERS = (
    "dataset", "batch_size", "shuffle", "sampler", "batch_sampler", "num_workers", "collate_fn", "pin_memory",
)  # fmt: skip
TENSOR_DATASETS = frozenset({"torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset"})
# Views whose items are items of the data set(s) given first: placed wherever those are.
DATASET_VIEWS = frozenset(
    f"torch.utils.data{module}.{name}"
    for module in ("", ".dataset")
    for name in ("Subset", "random_split", "ConcatDataset", "ChainDataset")
)
# torch factories that take ``device=``: with an accelerator device they create the tensor there.
TORCH_FACTORIES = frozenset(
    f"torch.{name}"
    for name in (
        "tensor", "as_tensor", "zeros", "ones", "empty", "full", "rand", "randn", "randint", "arange", "linspace",
        "eye", "zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like",
    )
)  # fmt: skip
# torch functions whose result lives where their tensor arguments live.
COMBINING_FUNCTIONS = frozenset(
    f"torch.{name}" for name in ("stack", "cat", "concat", "concatenate", "hstack", "vstack", "as_tensor")
)
CONTAINER_BUILTINS = frozenset({"tuple", "list", "dict"})
LIST_GROWERS = frozenset({"append", "extend", "insert"})  # list methods that add their arguments
START_METHOD_SETTERS = frozenset({"multiprocessing.set_start_method", "torch.multiprocessing.set_start_method"})
CUDA_TENSOR_TYPE = re.compile(r"torch\.cuda\.[A-Z][a-z]*Tensor")
# Tensor methods and attributes whose result stays on the tensor's device.
PRESERVING_METHODS = frozenset(
    {
        "float", "double", "half", "bfloat16", "long", "int", "short", "bool", "byte", "char", "contiguous", "clone",
        "detach", "view", "view_as", "reshape", "reshape_as", "squeeze", "unsqueeze", "permute", "transpose",
        "flatten", "expand", "expand_as", "repeat", "type_as", "narrow", "requires_grad_",
    }
)  # fmt: skip
CHAIN_METHODS = PRESERVING_METHODS | {"to"}  # a `.to` that is not a move converts the dtype
PRESERVING_ATTRIBUTES = frozenset({"T", "mT", "H", "data"})
# Reading these does not depend on where the tensor lives.
PLACEMENT_FREE_ATTRIBUTES = frozenset({"shape", "dtype", "ndim", "size", "dim", "numel", "batch_size"})
SIZED_LOADER_PARTS = frozenset({"dataset", "sampler"})  # ``len(loader.dataset)`` reads a size
EARLY_EXITS = (cst.Break, cst.Continue, cst.Return)
MAX_DEPTH = 40

Invocations = Tuple[Tuple[cst.CSTNode, cst.Call], ...]  # (function, the call that runs it), innermost last


def _first_exit_free(statements: Iterable[cst.BaseStatement]) -> Optional[cst.BaseStatement]:
    """The first statement that is not a guard like ``if step >= max_steps: break``."""
    for statement in statements:
        if not (isinstance(statement, cst.If) and statement.orelse is None and _only_exits(statement.body)):
            return statement
    return None


def _only_exits(body: cst.BaseSuite) -> bool:
    lines = body.body if isinstance(body, cst.IndentedBlock) else (body,)
    simple = [line for line in lines if isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite))]
    smalls = [small for line in simple for small in line.body]
    return len(smalls) == len(lines) and all(isinstance(small, EARLY_EXITS) for small in smalls)


def _sum(traces: Iterable["Trace"]) -> "Trace":
    total = EMPTY
    for trace in traces:
        total = total + trace
    return total


def _unique(items: Iterable) -> tuple:
    seen: List = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return tuple(seen)


# ---------------------------------------------------------------------------------------------
# Placement: which values are on an accelerator


@dataclass(frozen=True)
class Move:
    """A call that puts a tensor on an accelerator.

    ``device`` is the target expression, None for the current CUDA device
    (``.cuda()``, ``torch.cuda.FloatTensor(...)``); ``cuda`` says the target
    is CUDA whatever ``device`` is. ``invocations`` tell which call runs the
    function the move is in, so that its parameters can be traced to arguments.
    """

    call: cst.Call
    device: Optional[cst.BaseExpression]
    invocations: Invocations
    cuda: bool = False


@dataclass(frozen=True)
class Trace:
    """The moves an expression's value comes from, and the bindings it passed through."""

    moves: Tuple[Move, ...] = ()
    through: Tuple[Binding, ...] = ()

    def __add__(self, other: "Trace") -> "Trace":
        return Trace(_unique(self.moves + other.moves), _unique(self.through + other.through))

    def __bool__(self) -> bool:
        return bool(self.moves)

    def via(self, binding: Optional[Binding]) -> "Trace":
        if not self.moves or binding is None:
            return self
        return Trace(self.moves, _unique(self.through + (binding,)))


EMPTY = Trace()


@dataclass(frozen=True)
class TensorBatch:
    """Each batch is one accelerator tensor."""


@dataclass(frozen=True)
class SequenceBatch:
    """Each batch is a tuple/list; ``resident[i]`` says element ``i`` was on the accelerator."""

    resident: Tuple[bool, ...]


@dataclass(frozen=True)
class MappingBatch:
    """Each batch is a dict; ``keys`` were on the accelerator, and ``complete`` when every value was."""

    keys: Tuple[str, ...]
    complete: bool


Layout = Union[TensorBatch, SequenceBatch, MappingBatch]


@dataclass(frozen=True)
class LoaderArguments:
    """A ``DataLoader(...)`` call's arguments by parameter name, ``**kwargs`` dicts included."""

    call: cst.Call
    values: Mapping[str, cst.BaseExpression]

    def get(self, name: str) -> Optional[cst.BaseExpression]:
        return self.values.get(name)


@dataclass(frozen=True)
class DeviceBatches:
    """A DataLoader whose batches are on an accelerator before the loop sees them.

    ``trace`` holds the moves responsible (in the data set, its ``__getitem__``
    or the collate function); ``layout`` the shape of a batch where known.
    """

    arguments: LoaderArguments
    trace: Trace
    layout: Optional[Layout]

    @property
    def first_move(self) -> cst.Call:
        return self.trace.moves[0].call


_UNKNOWN = object()


class DevicePlacement:
    """Accelerator placement of values, and the DataLoaders that serve accelerator batches.

    Use ``facts.fact(DevicePlacement)``; the rules ask :meth:`device_batches`
    for each ``DataLoader(...)`` call.
    """

    def __init__(self, facts: "ModuleFacts") -> None:
        self.facts = facts
        # Most calls are not a DataLoader: in a file that never names it, skip building the import table.
        self._mentions_loader = "DataLoader" in facts.text
        self._traces: Dict[Tuple[cst.CSTNode, Invocations], Trace] = {}
        self._active: Set[Tuple[cst.CSTNode, Invocations]] = set()

    @functools.cached_property
    def scopes(self) -> Names:
        """The module's names, asked for on the first DataLoader call (most calls are not one)."""
        return self.facts.fact(Names)

    @functools.cached_property
    def values(self) -> Values:
        """The literals expressions hold: what makes a switch provably on or off."""
        return self.facts.fact(Values)

    # -- what a name holds ---------------------------------------------------------------

    def bindings(self, expr: cst.BaseExpression) -> List[Binding]:
        """What a name or ``self.x`` may hold: the binding a name sees (:meth:`Names.binding_of`), every
        store of ``self.x`` in the class; none for a name bound by a comprehension (see :meth:`_trace_name`)."""
        if isinstance(expr, cst.Name):
            binding = self.scopes.binding_of(expr)
            return [binding] if binding is not None and binding.kind != COMPREHENSION else []
        if isinstance(expr, cst.Attribute):
            return self.scopes.reaching(expr)
        return []

    def held(self, binding: Binding, inv: Invocations = ()) -> Tuple[Optional[cst.BaseExpression], Tuple[int, ...]]:
        """The expression ``binding`` holds and the indices still to apply to it (``a, b = f()``: ``f()``, ``(1,)``);
        for a parameter, the argument of the call in ``inv`` that runs its function. None when not followed."""
        if binding.kind == PARAMETER:
            for function, call in reversed(inv):
                if function is binding.statement:
                    return self.scopes.argument_for(call, function, binding.node), ()  # type: ignore[arg-type]
            return None, ()
        return self.scopes.unpacked(binding) or (None, ())

    def binding_value(self, binding: Binding, inv: Invocations) -> Optional[cst.BaseExpression]:
        """The expression ``binding`` holds, the whole of it for one target of an unpacking."""
        return self.held(binding, inv)[0]

    def _plain_value(self, binding: Binding) -> Optional[cst.BaseExpression]:
        """The expression ``binding`` holds, when that is an expression of its own (not an element of one)."""
        value, path = self.held(binding)
        return None if path else value

    def called_definition(self, func: cst.BaseExpression) -> Optional[Union[cst.FunctionDef, cst.ClassDef]]:
        """The one same-module ``def`` or ``class`` that calling ``func`` runs (:meth:`Names.resolve_callable`)."""
        found = self.scopes.resolve_callable(func)
        if len(found) == 1 and isinstance(found[0], (cst.FunctionDef, cst.ClassDef)):
            return found[0]
        return None

    # -- the DataLoader ------------------------------------------------------------------

    def device_batches(self, call: cst.Call, switch: Optional[str]) -> Optional[DeviceBatches]:
        """For a ``DataLoader(...)`` whose batches come out on an accelerator and whose ``switch`` argument
        (``pin_memory``, ``num_workers``; None for none) is not provably off: why, and the batches' layout."""
        arguments = self.loader_arguments(call)
        if arguments is None or (switch is not None and self.is_provably_off(arguments.get(switch))):
            return None
        return self.loader_batches(arguments)

    def loader_batches(self, arguments: LoaderArguments) -> Optional[DeviceBatches]:
        """For a ``DataLoader(...)`` whose batches come out on an accelerator, whatever its options: why, and the layout."""
        dataset = arguments.get("dataset")
        dataset_trace = self.trace(dataset) if dataset is not None else EMPTY
        collate = arguments.get("collate_fn")
        default_collate = collate is None or self._constant(collate) is None
        function = None if default_collate else self._function_value(collate, (), 0)
        collate_trace = EMPTY
        if function is not None:
            definition, invocations, links = function
            collate_trace = _sum(self.trace(r, invocations) for r in self.scopes.returns(definition))
            for link in links:
                collate_trace = collate_trace.via(link)
        trace = dataset_trace + collate_trace
        if not trace:
            return None
        if default_collate:
            layout = self._item_layout(dataset, (), 0) if dataset is not None else None
        elif function is not None and not dataset_trace:
            layout = self._same(self._value_layout(r, function[1], 0) for r in self.scopes.returns(function[0]))
        else:
            layout = None
        return DeviceBatches(arguments, trace, layout)

    def loader_arguments(self, call: cst.Call) -> Optional[LoaderArguments]:
        """Arguments of a torch ``DataLoader(...)`` call; None for any other call.

        A ``**kwargs`` whose content cannot be read statically adds nothing:
        a key it might hold is treated as absent (precision first).
        """
        if not self._mentions_loader or self.facts.qualified_name(call.func) not in DATALOADERS:
            return None
        values: Dict[str, cst.BaseExpression] = {}
        position = 0
        for arg in call.args:
            if arg.star == "**":
                values.update(self._keyword_dict(arg.value, 0) or {})
            elif arg.star:
                position = len(LOADER_PARAMETERS)
            elif arg.keyword is not None:
                values[arg.keyword.value] = arg.value
            else:
                if position < len(LOADER_PARAMETERS):
                    values[LOADER_PARAMETERS[position]] = arg.value
                position += 1
        return LoaderArguments(call, values)

    def forwarded_loader_arguments(self, call: cst.Call) -> Optional[LoaderArguments]:
        """``InfiniteDataLoader(ds, pin_memory=True)``, where the same-module function or class that ``call`` runs
        hands its ``**kwargs`` to a ``DataLoader(...)``: that loader's arguments as ``call`` gives them (its keywords
        that the wrapper does not name itself; its positional arguments are the wrapper's own), with ``call`` as the
        loader's call (karpathy/makemore's ``InfiniteDataLoader``, precision round 6)."""
        if not self._forwarding_loaders:
            return None
        for function in self.scopes.callees(call):
            for loader in self._forwarding_loaders.get(function, ()):
                named = {p.name.value for p in (*function.params.posonly_params, *function.params.params, *function.params.kwonly_params)}
                given = {a.keyword.value: a.value for a in call.args if a.keyword is not None and a.keyword.value not in named}
                return LoaderArguments(call, {**loader.values, **given})
        return None

    @functools.cached_property
    def _forwarding_loaders(self) -> Dict[cst.FunctionDef, List[LoaderArguments]]:
        """The DataLoader calls that pass on the ``**kwargs`` parameter of the function around them, by function."""
        found: Dict[cst.FunctionDef, List[LoaderArguments]] = {}
        if not self._mentions_loader:
            return found
        for call in self.facts.nodes(cst.Call):
            passed = [a.value.value for a in call.args if a.star == "**" and isinstance(a.value, cst.Name)]  # type: ignore[attr-defined]
            function = enclosing_function(self.facts, call) if passed else None
            keywords = function.params.star_kwarg if function is not None else None
            if isinstance(keywords, cst.Param) and keywords.name.value in passed:
                arguments = self.loader_arguments(call)  # type: ignore[arg-type]
                if arguments is not None:
                    found.setdefault(function, []).append(arguments)  # type: ignore[arg-type]
        return found

    def _keyword_dict(self, expr: cst.BaseExpression, depth: int) -> Optional[Dict[str, cst.BaseExpression]]:
        """The string-keyed content of a dict expression: a display, ``dict(...)``, or a name bound to one."""
        if depth > MAX_DEPTH:
            return None
        if isinstance(expr, cst.Dict):
            result: Dict[str, cst.BaseExpression] = {}
            for element in expr.elements:
                if isinstance(element, cst.StarredDictElement):
                    result.update(self._keyword_dict(element.value, depth + 1) or {})
                elif string_value(element.key) is not None:
                    result[string_value(element.key)] = element.value  # type: ignore[index]
            return result
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "dict":
            return self._call_keywords(expr, depth)
        if isinstance(expr, cst.Name):
            binding = self.scopes.binding_of(expr)
            value = self._plain_value(binding) if binding is not None else None
            if value is None:
                return None
            result = self._keyword_dict(value, depth + 1)
            if result is not None:
                self._apply_dict_updates(binding, expr, result, depth)  # type: ignore[arg-type]
            return result
        return None

    def _call_keywords(self, call: cst.Call, depth: int) -> Dict[str, cst.BaseExpression]:
        """Keys set by ``dict(mapping, k=v)`` or ``d.update(mapping, k=v)``."""
        result: Dict[str, cst.BaseExpression] = {}
        for arg in call.args:
            if arg.keyword is not None:
                result[arg.keyword.value] = arg.value
            elif not arg.star or arg.star == "**":
                result.update(self._keyword_dict(arg.value, depth + 1) or {})
        return result

    def _apply_dict_updates(self, binding: Binding, use: cst.CSTNode, result: Dict, depth: int) -> None:
        """Add the ``d.update(...)`` and ``d[key] = value`` made to ``binding``'s dict before ``use``."""
        for read in self.scopes.uses(binding):
            if not self.scopes.precedes(read, use):
                continue
            parent = self.facts.parent(read)
            holder = self.facts.parent(parent)
            if isinstance(parent, cst.Attribute) and parent.attr.value == "update" and isinstance(holder, cst.Call):
                result.update(self._call_keywords(holder, depth + 1))
            elif isinstance(parent, cst.Subscript) and isinstance(holder, cst.AssignTarget) and len(parent.slice) == 1:
                index = parent.slice[0].slice
                key = string_value(index.value) if isinstance(index, cst.Index) else None
                statement = self.facts.parent(holder)
                if key is not None and isinstance(statement, cst.Assign):
                    result[key] = statement.value

    def forks_workers(self, arguments: LoaderArguments) -> bool:
        """The loader's workers start by ``fork``: neither ``multiprocessing_context`` nor the module says otherwise.

        A ``spawn``/``forkserver`` worker starts its own CUDA context, so CUDA
        in a worker then works; a context that cannot be read counts as not fork.
        """
        context = arguments.get("multiprocessing_context")
        chosen = self._constant(context) if context is not None else None
        if chosen is not None:
            return chosen == "fork"
        for call in self.facts.nodes(cst.Call):
            method = passed_argument(call, "method", 0) if self.facts.qualified_name(call.func) in START_METHOD_SETTERS else None
            if method is not None and self._constant(method) != "fork":
                return False
        return True

    # -- provable values -----------------------------------------------------------------

    def is_provably_off(self, expr: Optional[cst.BaseExpression]) -> bool:
        """An argument that is absent, ``False``, ``None`` or ``0``, directly or through names.

        ``True``, ``torch.cuda.is_available()``, a parameter or a config
        attribute are not provably off.
        """
        if expr is None:
            return True
        found = self.values.literal_values(expr)
        return found is not None and all(value in (False, None) for value in found)

    def is_provably_on(self, expr: cst.BaseExpression) -> bool:
        """``True``, directly or through names: a switch that is on whatever the machine.

        ``torch.cuda.is_available()``, ``device.type == "cuda"``, a parameter or
        a config attribute are not provably on.
        """
        found = self.values.literal_values(expr)
        return found is not None and all(value is True for value in found)

    def _constant(self, expr: cst.BaseExpression) -> object:
        """The one literal (``True``/``False``/``None``/a number/a string) ``expr`` holds wherever it is read."""
        found = self.values.literal_values(expr)
        return next(iter(found)) if found is not None and len(found) == 1 else _UNKNOWN

    def is_provably_cpu(self, device: cst.BaseExpression, invocations: Invocations = (), depth: int = 0) -> bool:
        """``"cpu"``, ``torch.device("cpu")``, or a name every binding of which is one of those."""
        if depth > MAX_DEPTH:
            return False
        text = string_value(device)
        if text is not None:
            return text == "cpu" or text.startswith("cpu:")
        if isinstance(device, cst.IfExp):
            return self.is_provably_cpu(device.body, invocations, depth + 1) and self.is_provably_cpu(
                device.orelse, invocations, depth + 1
            )
        if isinstance(device, cst.Call) and self.facts.qualified_name(device.func) == "torch.device":
            first = passed_argument(device, "type", 0)
            return first is not None and self.is_provably_cpu(first, invocations, depth + 1)
        if isinstance(device, (cst.Name, cst.Attribute)):
            values = [self.binding_value(b, invocations) for b in self.bindings(device)]
            return bool(values) and all(
                value is not None and self.is_provably_cpu(value, invocations, depth + 1) for value in values
            )
        return False

    # -- tracing values to their moves ---------------------------------------------------

    def trace(self, expr: cst.BaseExpression, invocations: Invocations = ()) -> Trace:
        """The accelerator moves ``expr``'s value comes from (empty: not known to be on an accelerator)."""
        key = (expr, invocations)
        cached = self._traces.get(key)
        if cached is not None:
            return cached
        if key in self._active or len(self._active) > MAX_DEPTH:
            return EMPTY
        self._active.add(key)
        try:
            result = self._trace(expr, invocations)
        finally:
            self._active.discard(key)
        self._traces[key] = result
        return result

    def _trace(self, expr: cst.BaseExpression, inv: Invocations) -> Trace:
        if isinstance(expr, cst.Call):
            return self._trace_call(expr, inv)
        if isinstance(expr, (cst.Name, cst.Attribute)):
            return self._trace_name(expr, inv)
        if isinstance(expr, cst.Subscript):
            return self.trace(expr.value, inv)
        if isinstance(expr, (cst.Tuple, cst.List, cst.Set, cst.Dict)):
            return _sum(self.trace(element.value, inv) for element in expr.elements)
        if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
            return self.trace(expr.elt, inv)
        if isinstance(expr, cst.DictComp):
            return self.trace(expr.value, inv)
        if isinstance(expr, cst.IfExp):
            return self.trace(expr.body, inv) + self.trace(expr.orelse, inv)
        if isinstance(expr, cst.BinaryOperation):
            return self.trace(expr.left, inv) + self.trace(expr.right, inv)
        return EMPTY

    def _trace_call(self, call: cst.Call, inv: Invocations) -> Trace:
        move = self.move(call, inv)
        if move is not None:
            return Trace((move,))
        owner = self.following_tensor(call, inv)
        if owner is not None:
            return self.trace(owner, inv)
        qualified = self.facts.qualified_name(call.func)
        if qualified is not None:
            if qualified in COMBINING_FUNCTIONS or qualified in TENSOR_DATASETS:
                return _sum(self.trace(arg.value, inv) for arg in call.args)
            viewed = self._viewed_datasets(call)
            return self.trace(viewed, inv) if viewed is not None else EMPTY
        if isinstance(call.func, cst.Name) and call.func.value in CONTAINER_BUILTINS:
            return _sum(self.trace(arg.value, inv) for arg in call.args)
        definition = self.called_definition(call.func)
        if isinstance(definition, cst.ClassDef):
            return self._instance_trace(definition, call, inv).via(self.scopes.binding_at(definition))
        if isinstance(definition, cst.FunctionDef):
            inner = inv + ((definition, call),)
            return _sum(self.trace(r, inner) for r in self.scopes.returns(definition)).via(self.scopes.binding_at(definition))
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in CHAIN_METHODS:
            if call.func.attr.value == "to" and self.to_device(call) is not None:
                return EMPTY  # not a move, yet a device: the CPU
            return self.trace(call.func.value, inv)
        return EMPTY

    def _viewed_datasets(self, call: cst.Call) -> Optional[cst.BaseExpression]:
        """The data set (or list of them) a ``Subset``/``random_split``/``ConcatDataset`` call draws its items from."""
        if self.facts.qualified_name(call.func) not in DATASET_VIEWS:
            return None
        return passed_argument(call, "dataset", 0) or passed_argument(call, "datasets")

    def _instance_trace(self, cls: cst.ClassDef, call: cst.Call, inv: Invocations) -> Trace:
        """An instance of a same-module Dataset: what its ``__getitem__`` returns, with ``__init__`` run by ``call``."""
        getitem = self.scopes.method(cls, "__getitem__")
        if getitem is None:
            return EMPTY
        return _sum(self.trace(r, self._constructed(cls, call, inv)) for r in self.scopes.returns(getitem))

    def _constructed(self, cls: cst.ClassDef, call: cst.Call, inv: Invocations) -> Invocations:
        init = self.scopes.method(cls, "__init__")
        return inv + ((init, call),) if init is not None else inv

    def _trace_name(self, expr: cst.BaseExpression, inv: Invocations) -> Trace:
        if isinstance(expr, cst.Attribute) and expr.attr.value in PRESERVING_ATTRIBUTES:
            return self.trace(expr.value, inv)
        target = self.scopes.binding_of(expr) if isinstance(expr, cst.Name) else None
        if target is not None and target.kind in (FOR, COMPREHENSION) and target.value is not None and not target.starred:
            # ``column`` in ``(torch.stack(column) for column in columns)``, ``ds`` in ``for split, ds in sets.items()``
            iterated = self._iterated_element(target.value, target.path)
            return self.trace(iterated, inv).via(target) if iterated is not None else EMPTY
        total = EMPTY
        for binding in self.bindings(expr):
            total = total + self.binding_trace(binding, inv) + self._appended_trace(binding, expr, inv)
        return total

    def _iterated_element(self, iterable: cst.BaseExpression, path: Tuple[int, ...]) -> Optional[cst.BaseExpression]:
        """What holds the part at ``path`` of the items ``iterable`` yields, as far as its shape tells: the dict's
        values for ``k, v in d.items()`` (None for the keys), ``d`` for ``d.values()``, ``xs`` for ``i, x in
        enumerate(xs)``, the ``k``-th argument of ``zip``; else the whole iterable (any of its elements)."""
        call = iterable if isinstance(iterable, cst.Call) else None
        method = call.func.attr.value if call is not None and isinstance(call.func, cst.Attribute) else None
        if call is not None and method in ("items", "values") and not call.args:
            if method == "items" and path[:1] == (0,):
                return None  # a key
            return call.func.value  # type: ignore[union-attr]  # ``_trace`` of a dict display reads its values
        builtin = call.func.value if call is not None and isinstance(call.func, cst.Name) else None
        if builtin == "enumerate" and call.args and path[:1]:  # type: ignore[union-attr]
            return call.args[0].value if path[0] == 1 else None  # type: ignore[union-attr]
        if builtin == "zip" and path[:1] and path[0] < len(call.args):  # type: ignore[union-attr]
            return call.args[path[0]].value  # type: ignore[union-attr]
        return iterable

    def _appended_trace(self, binding: Binding, use: cst.BaseExpression, inv: Invocations) -> Trace:
        """What was appended to the list ``binding`` holds before ``use``: ``xs.append(x.to(d))``,
        ``columns[i].append(...)``, ``xs.extend(...)`` (a collate building its batch part by part)."""
        total = EMPTY
        for read in self.scopes.uses(binding):
            holder = self.facts.parent(read)
            while isinstance(holder, cst.Subscript) and holder.value is read:  # ``columns[i]``
                read, holder = holder, self.facts.parent(holder)
            call = self.facts.parent(holder)
            if (
                isinstance(holder, cst.Attribute)
                and holder.value is read
                and holder.attr.value in LIST_GROWERS
                and isinstance(call, cst.Call)
                and self.scopes.precedes(call, use)
            ):
                total = total + _sum(self.trace(arg.value, inv) for arg in call.args)
        return total.via(binding)

    def binding_trace(self, binding: Binding, inv: Invocations = ()) -> Trace:
        """The moves the value held by ``binding`` comes from; for ``a, b = f()`` only those of ``b``'s element."""
        value, path = self.held(binding, inv)
        if value is None:
            return EMPTY
        return self._element_trace(value, path, inv, 0).via(binding)

    def _element_trace(
        self, value: cst.BaseExpression, element: Tuple[int, ...], inv: Invocations, depth: int
    ) -> Trace:
        """The trace of ``value[element]``: narrowed through tuple displays and same-module function returns.

        Where the element cannot be singled out, the whole value's trace.
        """
        if not element or depth > MAX_DEPTH:
            return self.trace(value, inv)
        starred = any(isinstance(e, cst.StarredElement) for e in getattr(value, "elements", ()))
        if isinstance(value, (cst.Tuple, cst.List)) and not starred and element[0] < len(value.elements):
            return self._element_trace(value.elements[element[0]].value, element[1:], inv, depth + 1)
        if isinstance(value, cst.Call):
            definition = self.called_definition(value.func)
            if isinstance(definition, cst.FunctionDef):
                inner = inv + ((definition, value),)
                returns = self.scopes.returns(definition)
                traces = (self._element_trace(r, element, inner, depth + 1) for r in returns)
                return _sum(traces).via(self.scopes.binding_at(definition))
        if isinstance(value, cst.Name):
            bindings = self.bindings(value)
            if len(bindings) == 1:
                inner_value, path = self.held(bindings[0], inv)
                if inner_value is not None and not path:
                    return self._element_trace(inner_value, element, inv, depth + 1).via(bindings[0])
        return self.trace(value, inv)

    def _function_value(
        self, expr: cst.BaseExpression, inv: Invocations, depth: int
    ) -> Optional[Tuple[Union[cst.FunctionDef, cst.Lambda], Invocations, Tuple[Binding, ...]]]:
        """The same-module function (or lambda) ``expr`` evaluates to, the calls that made it, and the names on the way.

        Follows ``collate``, ``make_collate(device)`` (what the factory
        returns, its parameters bound to the call's arguments),
        ``functools.partial(collate, device=device)``, a bound method
        (``self._collate``) and an instance of a class here whose ``__call__``
        collates (``Collator(device)``, its ``__init__`` run by that call).
        :meth:`Names.resolve_callable` finds the definitions; this also keeps
        the calls whose arguments the function's parameters receive.
        """
        if depth > MAX_DEPTH:
            return None
        if isinstance(expr, cst.Lambda):
            return expr, inv, ()
        if isinstance(expr, cst.Attribute):  # a bound method: ``self._collate``
            method = self.called_definition(expr)
            binding = self.scopes.binding_at(method) if isinstance(method, cst.FunctionDef) else None
            return (method, inv, (binding,)) if binding is not None else None  # type: ignore[return-value]
        if isinstance(expr, cst.Name):
            binding = self.scopes.binding_of(expr)
            if binding is None:
                return None
            if binding.kind == DEF:
                return binding.node, inv, (binding,)  # type: ignore[return-value]
            value = self.binding_value(binding, inv)
            found = self._function_value(value, inv, depth + 1) if value is not None else None
            return (found[0], found[1], found[2] + (binding,)) if found is not None else None
        if not isinstance(expr, cst.Call):
            return None
        if self.facts.qualified_name(expr.func) == "functools.partial" and expr.args:
            found = self._function_value(expr.args[0].value, inv, depth + 1)
            return (found[0], found[1] + ((found[0], expr),), found[2]) if found is not None else None
        definition = self.called_definition(expr.func)
        link = self.scopes.binding_at(definition) if definition is not None else None
        if isinstance(definition, cst.ClassDef):  # ``Collator(device)``: its ``__call__``, on the instance built here
            call_method = self.scopes.method(definition, "__call__")
            if call_method is None or link is None:
                return None
            return call_method, self._constructed(definition, expr, inv), (link,)
        if not isinstance(definition, cst.FunctionDef) or link is None:
            return None
        inner = inv + ((definition, expr),)
        for returned in self.scopes.returns(definition):
            found = self._function_value(returned, inner, depth + 1)
            if found is not None:
                return found[0], found[1], found[2] + (link,)
        return None

    # -- moves ---------------------------------------------------------------------------

    def move(self, call: cst.Call, invocations: Invocations = ()) -> Optional[Move]:
        """``call`` itself as an accelerator move, if it is one."""
        func = call.func
        if isinstance(func, cst.Attribute) and self.facts.qualified_name(func) is None:
            if func.attr.value == "cuda":
                return Move(call, passed_argument(call, "device", 0), invocations, cuda=True)
            if func.attr.value == "to":
                device = self.to_device(call)
                if device is not None and self._targets_accelerator(device, invocations):
                    return Move(call, device, invocations)
            return None
        qualified = self.facts.qualified_name(func) or ""
        if qualified in TORCH_FACTORIES:
            device = passed_argument(call, "device")
            if device is not None and self._targets_accelerator(device, invocations):
                return Move(call, device, invocations)
        if CUDA_TENSOR_TYPE.fullmatch(qualified) and isinstance(func, cst.Attribute):
            return Move(call, None, invocations, cuda=True)
        if isinstance(func, cst.Name) and self._names_cuda_tensor_type(func):
            return Move(call, None, invocations, cuda=True)  # Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor
        return None

    def _names_cuda_tensor_type(self, name: cst.Name) -> bool:
        """``name`` may hold a CUDA tensor type: bound to ``torch.cuda.FloatTensor``, directly or in one arm of a conditional."""
        for binding in self.scopes.reaching(name):
            value = self.scopes.bound_value(binding)
            arms = [value.body, value.orelse] if isinstance(value, cst.IfExp) else [value]
            if any(isinstance(arm, cst.Attribute) and CUDA_TENSOR_TYPE.fullmatch(self.facts.qualified_name(arm) or "") for arm in arms):
                return True
        return False

    def _targets_accelerator(self, device: cst.BaseExpression, invocations: Invocations) -> bool:
        """A device argument that may name an accelerator by itself: not provably the CPU, not ``t.device``."""
        return not self.is_provably_cpu(device, invocations) and self._device_owner(device, invocations, 0) is None

    def following_tensor(self, call: cst.Call, invocations: Invocations = ()) -> Optional[cst.BaseExpression]:
        """The tensor ``t`` on whose device ``call`` puts its result: ``.to(t.device)``, ``torch.ones(n, device=t.device)``.

        Such a call is no move of its own: its result is wherever ``t`` is
        (``torch.arange(n, device=ids.device)`` in a ``__getitem__`` over CPU
        data makes a CPU tensor).
        """
        func = call.func
        if isinstance(func, cst.Attribute) and self.facts.qualified_name(func) is None:
            device = self.to_device(call) if func.attr.value == "to" else None
        elif self.facts.qualified_name(func) in TORCH_FACTORIES:
            device = passed_argument(call, "device")
        else:
            device = None
        return self._device_owner(device, invocations, 0) if device is not None else None

    def _device_owner(self, device: cst.BaseExpression, inv: Invocations, depth: int) -> Optional[cst.BaseExpression]:
        """``t`` for a device read off a tensor, ``t.device`` (also through a name bound to it); else None.

        ``args.device``, ``self.device`` or ``cfg.device`` name a configured
        device instead: their owner is not known to be a tensor.
        """
        if depth > MAX_DEPTH:
            return None
        if isinstance(device, cst.Attribute) and device.attr.value == "device":
            return device.value if self._is_tensor_valued(device.value, inv, depth + 1) else None
        if isinstance(device, cst.Name):
            values = [self.binding_value(b, inv) for b in self.bindings(device)]
            if len(values) == 1 and values[0] is not None:
                return self._device_owner(values[0], inv, depth + 1)
        return None

    def _is_tensor_valued(self, expr: cst.BaseExpression, inv: Invocations, depth: int) -> bool:
        """Positive evidence that ``expr`` is a tensor (on whatever device), never a configuration object.

        An element (``batch[0]``), arithmetic, a ``torch.*`` call, a tensor
        method, or a name bound to one of those or by iteration (``for x in xs``).
        """
        if depth > MAX_DEPTH:
            return False
        if isinstance(expr, (cst.Subscript, cst.BinaryOperation)):
            return True
        if isinstance(expr, cst.Call):
            qualified = self.facts.qualified_name(expr.func)
            if qualified is not None:
                return qualified.startswith("torch.") and qualified != "torch.device"
            func = expr.func
            return isinstance(func, cst.Attribute) and func.attr.value in CHAIN_METHODS | {"cuda", "cpu"}
        if isinstance(expr, cst.Attribute) and expr.attr.value in PRESERVING_ATTRIBUTES:
            return self._is_tensor_valued(expr.value, inv, depth + 1)
        if isinstance(expr, cst.Name):
            binding = self.scopes.binding_of(expr)
            if binding is not None and binding.kind == COMPREHENSION:
                return True
        if isinstance(expr, (cst.Name, cst.Attribute)):
            bindings = self.bindings(expr)
            return bool(bindings) and all(self._binds_tensor(b, inv, depth + 1) for b in bindings)
        return False

    def _binds_tensor(self, binding: Binding, inv: Invocations, depth: int) -> bool:
        """A binding of a tensor: its value is one, or it is a loop target (a parameter nobody binds is unknown)."""
        if binding.kind in (FOR, WITH, AUGMENTED) or (binding.kind == ASSIGN and self.scopes.unpacked(binding) is None):
            return True  # ``for x in xs``, ``with ... as x``, ``x += y``, ``a, *rest = xs``
        value = self.binding_value(binding, inv)
        return value is not None and self._is_tensor_valued(value, inv, depth)

    def to_device(self, call: cst.Call) -> Optional[cst.BaseExpression]:
        """The device argument of a ``.to(...)`` call (not a dtype, not another tensor)."""
        keyword = passed_argument(call, "device")
        if keyword is not None:
            return keyword
        first = passed_argument(call, "device", 0)  # no ``device=``: the first positional argument
        return first if first is not None and self._is_device_like(first, 0) else None

    def _is_device_like(self, expr: cst.BaseExpression, depth: int) -> bool:
        if depth > MAX_DEPTH:
            return False
        if isinstance(expr, STRINGS):
            return True
        if isinstance(expr, cst.IfExp):
            return self._is_device_like(expr.body, depth + 1) or self._is_device_like(expr.orelse, depth + 1)
        if isinstance(expr, cst.Call):
            return self.facts.qualified_name(expr.func) == "torch.device"
        name = dotted(expr)
        if name is None or (self.facts.qualified_name(expr) or "").startswith("torch."):
            return False  # torch.float32, torch.long: a dtype
        if DEVICE_NAME.search(name.rsplit(".", 1)[-1]):
            return True
        values = (self._plain_value(b) for b in self.bindings(expr))
        return any(value is not None and self._is_device_like(value, depth + 1) for value in values)

    # -- batch layouts -------------------------------------------------------------------

    def _item_layout(self, dataset: cst.BaseExpression, inv: Invocations, depth: int) -> Optional[Layout]:
        """The layout of a batch that the default collate makes from ``dataset``'s items."""
        if depth > MAX_DEPTH:
            return None
        if isinstance(dataset, (cst.Name, cst.Attribute)):
            values = [self.binding_value(b, inv) for b in self.bindings(dataset)]
            if len(values) == 1 and values[0] is not None:
                return self._item_layout(values[0], inv, depth + 1)
            return None
        if not isinstance(dataset, cst.Call):
            return None
        if self.facts.qualified_name(dataset.func) in TENSOR_DATASETS:
            if any(arg.star or arg.keyword is not None for arg in dataset.args):
                return None
            return SequenceBatch(tuple(bool(self.trace(arg.value, inv)) for arg in dataset.args))
        viewed = self._viewed_datasets(dataset)
        if isinstance(viewed, (cst.List, cst.Tuple)):
            return self._same(self._item_layout(e.value, inv, depth + 1) for e in viewed.elements)
        if viewed is not None:
            return self._item_layout(viewed, inv, depth + 1)
        definition = self.called_definition(dataset.func)
        if isinstance(definition, cst.ClassDef):
            getitem = self.scopes.method(definition, "__getitem__")
            inner = self._constructed(definition, dataset, inv)
            returns = self.scopes.returns(getitem) if getitem is not None else []
            return self._same(self._value_layout(r, inner, depth + 1) for r in returns)
        if isinstance(definition, cst.FunctionDef):
            inner = inv + ((definition, dataset),)
            return self._same(self._item_layout(r, inner, depth + 1) for r in self.scopes.returns(definition))
        return None

    def _value_layout(self, expr: cst.BaseExpression, inv: Invocations, depth: int) -> Optional[Layout]:
        """The layout of an item or batch built by ``expr`` (a return value of ``__getitem__`` or a collate)."""
        if depth > MAX_DEPTH:
            return None
        if isinstance(expr, (cst.Tuple, cst.List)):
            if any(isinstance(e, cst.StarredElement) for e in expr.elements):
                return None
            resident = [self._resident_tensor(e.value, inv, depth) for e in expr.elements]
            return None if None in resident else SequenceBatch(tuple(resident))  # type: ignore[arg-type]
        if isinstance(expr, cst.Dict):
            keys = [string_value(e.key) if isinstance(e, cst.DictElement) else None for e in expr.elements]
            if any(key is None for key in keys):
                return None
            flags = [self._resident_tensor(e.value, inv, depth) for e in expr.elements]
            if None in flags:
                return None
            resident = [key for key, flag in zip(keys, flags) if flag]
            return MappingBatch(tuple(resident), complete=len(resident) == len(keys))  # type: ignore[arg-type]
        if isinstance(expr, cst.DictComp):
            return MappingBatch((), complete=True) if self._resident_tensor(expr.value, inv, depth) else None
        if isinstance(expr, cst.Name):
            values = [self.binding_value(b, inv) for b in self.bindings(expr)]
            if len(values) == 1 and values[0] is not None:
                return self._value_layout(values[0], inv, depth + 1)
            return None
        return TensorBatch() if self._is_tensor(expr, inv, depth + 1) else None

    def _resident_tensor(self, expr: cst.BaseExpression, inv: Invocations, depth: int) -> Optional[bool]:
        """True for an accelerator tensor, False for a part never moved, None for a moved part that is not
        shown to be a tensor (a list of moved tensors): the fix must not call ``.to`` on it."""
        if not self.trace(expr, inv):
            return False
        return True if self._is_tensor(expr, inv, depth + 1) else None

    def _is_tensor(self, expr: cst.BaseExpression, inv: Invocations, depth: int) -> bool:
        """An accelerator tensor for sure: a move, or indexing/converting one (not a tuple of them)."""
        if depth > MAX_DEPTH:
            return False
        if isinstance(expr, cst.Subscript):
            return self._is_tensor(expr.value, inv, depth + 1)
        if isinstance(expr, (cst.Name, cst.Attribute)):
            values = [self.binding_value(b, inv) for b in self.bindings(expr)]
            return bool(values) and all(v is not None and self._is_tensor(v, inv, depth + 1) for v in values)
        if not isinstance(expr, cst.Call):
            return False
        if self.move(expr, inv) is not None:
            return True
        if self.facts.qualified_name(expr.func) in COMBINING_FUNCTIONS:
            return bool(self.trace(expr, inv))
        func = expr.func
        return (
            isinstance(func, cst.Attribute)
            and self.facts.qualified_name(func) is None
            and func.attr.value in CHAIN_METHODS
            and self._is_tensor(func.value, inv, depth + 1)
        )

    @staticmethod
    def _same(layouts: Iterable[Optional[Layout]]) -> Optional[Layout]:
        found = list(layouts)
        if found and found[0] is not None and all(layout == found[0] for layout in found):
            return found[0]
        return None


# ---------------------------------------------------------------------------------------------
# The fix shared by TL101 and TL102: keep the data set on the CPU, move each batch in the loop


@dataclass(frozen=True)
class Consumer:
    """A loop over the loader; ``hop`` is the ``(function, call)`` the loader was passed through, if any."""

    loop: LoaderLoop
    hop: Optional[Tuple[cst.FunctionDef, cst.Call]]


@dataclass(frozen=True)
class DeviceTarget:
    """Where batches must go: ``node`` is the device expression, None for ``.cuda()``'s current device."""

    node: Optional[cst.BaseExpression]
    code: Optional[str]

    def transfer(self) -> str:
        if self.code is None:
            return ".cuda(non_blocking=True)"
        return f".to({self.code}, non_blocking=True)"


class CpuDatasetFix:
    """Builds the fix both rules offer for a :class:`DeviceBatches` loader.

    Remove the accelerator moves from the data set, its ``__getitem__`` or
    its collate function (keeping dtype conversions); make an unconditional
    ``pin_memory=True`` conditional on a CUDA target; and in every loop over
    the loader that does not already do it, move each batch with
    ``non_blocking=True``. Safe when every use of the loader is such a loop
    in this module (directly or through one function call); otherwise
    unsafe, with the message saying where the transfer must go. No fix when
    a removed move also feeds other code, which would then get CPU tensors.

    Use ``facts.fact(CpuDatasetFix).fix(batches)``.
    """

    def __init__(self, facts: "ModuleFacts") -> None:
        self.facts = facts
        self.placement = facts.fact(DevicePlacement)
        self.scopes = facts.fact(Names)

    def fix(self, batches: DeviceBatches) -> Optional[CstFix]:
        moves = batches.trace.moves
        sharing = self._sharing_loaders(batches)
        if sharing is None:
            return None
        loader_calls = {other.arguments.call for other in sharing}
        if not all(self._exclusive(binding, batches.trace, loader_calls) for binding in batches.trace.through):
            return None
        replacements: Dict[cst.CSTNode, object] = {}
        for move in moves:
            on_cpu = self.on_cpu(move.call)
            if on_cpu is None:
                return None
            replacements[move.call] = on_cpu
        replacements.update(self._pin_edit(batches))
        loop_edits = [self._loop_edits(other) for other in sharing]
        if all(edits is not None for edits in loop_edits):
            for edits in loop_edits:
                replacements.update(edits)  # type: ignore[arg-type]
            message = "Keep the dataset on the CPU and move each batch to the device in the training loop"
            return CstFix(message, Applicability.SAFE, replacements)
        target = self.target(moves, batches.arguments.call) or DeviceTarget(None, "device")
        where = f"where {self._loader_name(batches)} is iterated (`x = x{target.transfer()}`)"
        if any(other.layout is None and self._consumers(other.arguments.call) for other in sharing):
            reason = "this fix cannot tell which parts of a batch are tensors"
        else:
            reason = "this fix finds no such loop in this module"
        return CstFix(f"Keep the dataset on the CPU; then move each batch {where}: {reason}", Applicability.UNSAFE, replacements)

    # -- removing the moves --------------------------------------------------------------

    def _sharing_loaders(self, batches: DeviceBatches) -> Optional[List[DeviceBatches]]:
        """``batches`` and every other loader here whose batches come from the same moves (a train and a
        predict loader over one collate method); None when another loader shares only some of them."""
        removed = {move.call for move in batches.trace.moves}
        found = [batches]
        for call in self.facts.nodes(cst.Call):
            arguments = self.placement.loader_arguments(call) if call is not batches.arguments.call else None
            other = self.placement.loader_batches(arguments) if arguments is not None else None
            other_moves = {move.call for move in other.trace.moves} if other is not None else set()
            if removed & other_moves and other_moves != removed:
                return None
            if removed & other_moves:
                found.append(other)  # type: ignore[arg-type]
        return found

    def _exclusive(self, binding: Binding, trace: Trace, loader_calls: Set[cst.Call]) -> bool:
        """Nothing but the loaders that share these moves reads the value (reads of its shape or length aside).

        For one target of an unpacking (``train_ds, val_ds = random_split(ds, ...)``),
        the other targets that do not feed the loader must not be read when
        their value comes from the same moves: those moves are about to go.
        """
        if self._reads(binding, loader_calls) > 1:
            return False
        value, path = self.placement.held(binding)
        if value is None or not path:
            return True
        removed = {move.call for move in trace.moves}
        return not any(
            self._reads(sibling, loader_calls)
            and removed & {move.call for move in self.placement.binding_trace(sibling).moves}
            for sibling in self.scopes.bindings_holding(value)
            if sibling not in trace.through
        )

    def _reads(self, binding: Binding, loader_calls: Set[cst.Call]) -> int:
        """How many uses read the value held by ``binding`` (reads of its shape or length aside); the reads
        in the arguments of the loaders that share the moves count as one, as their loops get the fix."""
        reads = [read for read in self.scopes.uses(binding) if not self.placement_free(read)]
        by_loaders = [read for read in reads if any(a in loader_calls for a in self.facts.ancestors(read))]
        return len(reads) - len(by_loaders) + min(1, len(by_loaders))

    def placement_free(self, read: cst.CSTNode) -> bool:
        """A read of a size, which moving the data does not change: ``X.shape``, ``len(X)``, ``len(loader.dataset)``."""
        parent = self.facts.parent(read)
        if isinstance(parent, cst.Attribute) and parent.value is read:
            if parent.attr.value in SIZED_LOADER_PARTS:
                return self._is_len_argument(parent)
            return parent.attr.value in PLACEMENT_FREE_ATTRIBUTES
        return self._is_len_argument(read)

    def _is_len_argument(self, expr: cst.CSTNode) -> bool:
        parent = self.facts.parent(expr)
        call = self.facts.parent(parent) if isinstance(parent, cst.Arg) else None
        return isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "len"

    def on_cpu(self, expr: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """``expr`` with the accelerator moves of its method chain removed; dtype arguments are kept."""
        if not isinstance(expr, cst.Call):
            return expr
        func = expr.func
        move = self.placement.move(expr)
        if isinstance(func, cst.Attribute) and self.facts.qualified_name(func) is None:  # x.to(...), x.float()
            receiver = self.on_cpu(func.value)
            if receiver is None:
                return None
            if move is None:
                return expr.with_changes(func=func.with_changes(value=receiver))
            kept = self._without_device(expr.args, move) if func.attr.value == "to" else []
            if not kept:
                return receiver
            return expr.with_changes(func=func.with_changes(value=receiver), args=self._args(kept))
        if move is None:
            return expr
        if move.device is None:  # torch.cuda.FloatTensor(...) -> torch.FloatTensor(...)
            if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Attribute)):
                return None
            return expr.with_changes(func=func.with_changes(value=func.value.value))
        return expr.with_changes(args=self._args([a for a in expr.args if a.value is not move.device]))

    @staticmethod
    def _without_device(args: Sequence[cst.Arg], move: Move) -> List[cst.Arg]:
        """A ``.to(...)``'s arguments less the device and the transfer options; a dtype stays."""
        transfer_options = {"device", "non_blocking", "copy"}
        return [
            arg
            for arg in args
            if arg.value is not move.device and (arg.keyword is None or arg.keyword.value not in transfer_options)
        ]

    @staticmethod
    def _args(args: List[cst.Arg]) -> List[cst.Arg]:
        if args:
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return args

    # -- pin_memory ----------------------------------------------------------------------

    def _pin_edit(self, batches: DeviceBatches) -> Dict[cst.CSTNode, cst.BaseExpression]:
        """``pin_memory=True`` -> ``pin_memory=<device is CUDA>``: pinning helps only CPU data bound for CUDA."""
        pin = batches.arguments.get("pin_memory")
        if not (isinstance(pin, cst.Name) and pin.value == "True") or all(m.cuda for m in batches.trace.moves):
            return {}
        if self._under_cuda_check(pin):
            return {}
        target = self.target(batches.trace.moves, pin)
        if target is None or target.node is None:
            return {}
        if self._is_torch_device(target.node):
            condition = f'{target.code}.type == "cuda"'
        else:
            condition = f'{self.facts.torch_name()}.device({target.code}).type == "cuda"'
        return {pin: cst.parse_expression(condition)}

    def _under_cuda_check(self, node: cst.CSTNode) -> bool:
        """Inside ``if use_cuda:`` / ``if torch.cuda.is_available():``: already conditional on CUDA."""
        return any(
            isinstance(a, cst.If) and "cuda" in self.facts.code(a.test).lower() and self.scopes.contains(a.body, node)
            for a in self.facts.ancestors(node)
        )

    def _is_torch_device(self, device: Optional[cst.BaseExpression], depth: int = 0) -> bool:
        """Surely a ``torch.device``, so that ``.type`` works on it as ``torch.device(x).type`` does: a call of
        ``torch.device`` or ``torch.accelerator.current_accelerator()``, a conditional between two such, a
        name bound only to one, a parameter annotated ``torch.device``. A parameter's call sites are not
        followed: a caller in another module may pass a string."""
        if depth > MAX_DEVICE_DEPTH:
            return False
        if isinstance(device, cst.Call):
            return self.facts.qualified_name(device.func) in TORCH_DEVICE_MAKERS
        if isinstance(device, cst.IfExp):
            return self._is_torch_device(device.body, depth + 1) and self._is_torch_device(device.orelse, depth + 1)
        if not isinstance(device, (cst.Name, cst.Attribute)):
            return False
        bindings = self.placement.bindings(device)
        return bool(bindings) and all(self._makes_torch_device(b, depth + 1) for b in bindings)

    def _makes_torch_device(self, binding: Binding, depth: int) -> bool:
        if binding.kind == PARAMETER:
            annotation = binding.node.annotation  # type: ignore[attr-defined]
            return annotation is not None and self.facts.qualified_name(annotation.annotation) == "torch.device"
        value, path = self.placement.held(binding)
        return not path and self._is_torch_device(value, depth)

    # -- where the device expression is valid --------------------------------------------

    def target(self, moves: Tuple[Move, ...], site: cst.CSTNode, hop=None) -> Optional[DeviceTarget]:
        """The one device every move targets, spelled so that it is valid at ``site``; None if unknown."""
        targets: Dict[Optional[str], DeviceTarget] = {}
        for move in moves:
            device = None if move.device is None else self._device_at(move, site, hop)
            if move.device is not None and device is None:
                return None
            code = None if device is None else self.facts.module.code_for_node(device).strip()
            targets[code] = DeviceTarget(device, code)
        return next(iter(targets.values())) if len(targets) == 1 else None

    def _device_at(self, move: Move, site: cst.CSTNode, hop) -> Optional[cst.BaseExpression]:
        device = self._outermost(move.device, move.invocations, 0)
        if hop is None:
            return device if self._valid_at(device, site) else None
        function, call = hop
        if not self._valid_at(device, call):
            return None
        for parameter in self.scopes.parameters(function):
            argument = self.scopes.argument_for(call, function, parameter.node)
            if argument is not None and argument is not parameter.default and argument.deep_equals(device):
                return parameter.node.name
        return device if self._valid_at(device, site) else None

    def _outermost(self, device: cst.BaseExpression, inv: Invocations, depth: int) -> cst.BaseExpression:
        """Follow a device parameter (also through ``self.device = device``) out to the call's argument."""
        bindings = self.placement.bindings(device)
        if len(bindings) != 1 or depth > MAX_DEPTH:
            return device
        binding = bindings[0]
        if binding.kind == PARAMETER:
            argument = self.placement.binding_value(binding, inv)
            return device if argument is None else self._outermost(argument, inv, depth + 1)
        value, path = self.placement.held(binding)
        if isinstance(binding.node, cst.Attribute) and isinstance(value, cst.Name) and not path:  # ``self.device = device``
            inner = self._outermost(value, inv, depth + 1)
            return device if inner is value else inner
        return device

    def _valid_at(self, expr: cst.BaseExpression, site: cst.CSTNode) -> bool:
        """Every name in ``expr`` means the same at ``site`` as where ``expr`` is written."""
        for name in walk.walk(expr):
            if not (isinstance(name, cst.Name) and self.scopes.is_load(name)):
                continue
            if name.value == "self":
                cls = self._method_class_around(name)
                if cls is None or cls is not self._method_class_around(site):
                    return False
            elif self.scopes.binding_of(name) != self.scopes.binding_seen_at(name.value, site):
                return False
        return True

    def _method_class_around(self, node: cst.CSTNode) -> Optional[cst.ClassDef]:
        """The class whose method ``node`` is written in (directly: not in a lambda or nested function)."""
        scope = self.scopes.scope_of(node)
        while type(scope) in COMPREHENSIONS:
            scope = self.scopes.scope_of(scope)
        return self.scopes.method_class(scope)

    # -- the consuming loops -------------------------------------------------------------

    def _loop_edits(self, batches: DeviceBatches) -> Optional[Dict[cst.CSTNode, object]]:
        consumers = self._consumers(batches.arguments.call)
        if not consumers or batches.layout is None:
            return None
        edits: Dict[cst.CSTNode, object] = {}
        for consumer in consumers:
            target = self.target(batches.trace.moves, consumer.loop.node, consumer.hop)
            edit = self._loop_edit(consumer.loop, batches.layout, target) if target is not None else None
            if edit is None:
                return None
            edits.update(edit)
        return edits

    def _consumers(self, call: cst.Call) -> Optional[List[Consumer]]:
        """Every loop over the loader, or None when the loader is also used some other way."""
        # The fix moves each batch where a ``for`` loop binds it; a ``while`` loop pulling batches with ``next`` is left alone.
        loops = {loop.loader: loop for loop in self.facts.fact(TrainingLoops).loops if isinstance(loop.node, cst.For) and loop.loader is not None}
        statement = self.facts.parent(call)
        bindings = [b for b in self.scopes.bindings_holding(call) if not self.placement.held(b)[1]]
        if isinstance(statement, cst.Assign) and bindings:
            uses = [read for binding in bindings for read in self.scopes.uses(binding)]
        else:
            uses = [call]
        found: List[Consumer] = []
        for use in uses:
            consumers = self._consumers_of(use, loops, None)
            if consumers is None:
                return None
            found.extend(c for c in consumers if all(c.loop.node is not f.loop.node for f in found))
        return found

    def _consumers_of(self, use: cst.CSTNode, loops: Mapping, hop) -> Optional[List[Consumer]]:
        if use in loops:
            return [Consumer(loops[use], hop)]
        if self.placement_free(use):
            return []
        arg = self.facts.parent(use)
        call = self.facts.parent(arg) if isinstance(arg, cst.Arg) else None
        function = self.placement.called_definition(call.func) if hop is None and isinstance(call, cst.Call) else None
        if not isinstance(function, cst.FunctionDef):
            return None
        params = [p.node for p in self.scopes.parameters(function) if self.scopes.argument_for(call, function, p.node) is use]
        binding = self.scopes.binding_at(params[0]) if params else None
        if binding is None:
            return None
        found: List[Consumer] = []
        for read in self.scopes.uses(binding):
            consumers = self._consumers_of(read, loops, (function, call))
            if consumers is None:
                return None
            found.extend(consumers)
        return found

    def _loader_name(self, batches: DeviceBatches) -> str:
        statement = self.facts.parent(batches.arguments.call)
        if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
            return f"`{self.facts.code(statement.targets[0].target).strip()}`"
        return "the loader"

    def _loop_edit(self, loop: LoaderLoop, layout: Layout, target: DeviceTarget) -> Optional[Dict[cst.CSTNode, object]]:
        """Statements that move each batch of ``loop`` to the device, inserted before its first real statement."""
        body = loop.node.body
        anchor = _first_exit_free(body.body) if isinstance(body, cst.IndentedBlock) else None
        if anchor is None:
            return None
        moved = self._moved_in(loop.node.body)
        transfer = target.transfer()
        batch = loop.batch
        after = False
        if isinstance(batch, cst.Name) and isinstance(layout, SequenceBatch):
            unpacked = self._unpacking(anchor, batch, len(layout.resident))
            if unpacked is not None:
                batch, after = unpacked, True
        lines = self._transfer_lines(batch, layout, transfer, moved)
        if lines is None:
            return None
        if not lines:
            return {}
        statements = [cst.parse_statement(line + "\n") for line in lines]
        return {anchor: cst.FlattenSentinel([anchor, *statements] if after else [*statements, anchor])}

    @staticmethod
    def _unpacking(statement: cst.BaseStatement, batch: cst.Name, size: int) -> Optional[cst.Tuple]:
        """``xb, yb = batch`` as the loop's first statement: the names to move instead of the batch."""
        if not (isinstance(statement, cst.SimpleStatementLine) and isinstance(statement.body[0], cst.Assign)):
            return None
        assign = statement.body[0]
        target = assign.targets[0].target if len(assign.targets) == 1 else None
        if (
            isinstance(target, (cst.Tuple, cst.List))
            and isinstance(assign.value, cst.Name)
            and assign.value.value == batch.value
            and len(target.elements) == size
        ):
            return cst.Tuple(elements=list(target.elements))
        return None

    @staticmethod
    def _transfer_lines(batch: cst.BaseExpression, layout: Layout, transfer: str, moved: Set) -> Optional[List[str]]:
        """One line per batch part that was on the accelerator and that the loop does not move already."""
        if isinstance(batch, (cst.Tuple, cst.List)) and isinstance(layout, SequenceBatch):
            names = [e.value for e in batch.elements]
            if len(names) != len(layout.resident) or not all(isinstance(n, cst.Name) for n in names):
                return None
            todo = [
                n.value
                for n, resident in zip(names, layout.resident)
                if resident and n.value != "_" and (n.value, None) not in moved  # ``_`` is never read
            ]
            return [f"{name} = {name}{transfer}" for name in todo]
        if not isinstance(batch, cst.Name):
            return None
        name = batch.value
        if (name, None) in moved:
            return []
        if isinstance(layout, TensorBatch):
            return [f"{name} = {name}{transfer}"]
        if isinstance(layout, MappingBatch) and layout.complete:
            return [f"{name} = {{key: value{transfer} for key, value in {name}.items()}}"]
        if isinstance(layout, MappingBatch):
            keys = [json.dumps(key) for key in layout.keys if (name, key) not in moved]
            return [f"{name}[{key}] = {name}[{key}]{transfer}" for key in keys]
        if isinstance(layout, SequenceBatch) and all(layout.resident):
            return [f"{name} = [tensor{transfer} for tensor in {name}]"]
        return None

    def _moved_in(self, body: cst.CSTNode) -> Set[Tuple[str, Optional[str]]]:
        """Batch parts the loop already moves: ``(name, None)`` for all of ``name``, ``(name, key)`` for ``name[key]``.

        Only moves whose result is used count: ``x.to(device)`` alone is a no-op.
        """
        moved: Set[Tuple[str, Optional[str]]] = set()
        for call in (node for node in walk.walk(body) if isinstance(node, cst.Call)):
            func = call.func
            if not isinstance(func, cst.Attribute) or self.placement.move(call) is None:
                continue
            if isinstance(self.facts.parent(call), cst.Expr) or self.facts.qualified_name(func) is not None:
                continue
            part = self._batch_part(func.value)
            if part is not None:
                moved.add(part)
            moved.update(self._comprehension_sources(call, body))
        return moved

    @staticmethod
    def _batch_part(receiver: cst.BaseExpression) -> Optional[Tuple[str, Optional[str]]]:
        """``x`` -> ``("x", None)``; ``batch["ids"]`` -> ``("batch", "ids")``."""
        if isinstance(receiver, cst.Name):
            return receiver.value, None
        if isinstance(receiver, cst.Subscript) and isinstance(receiver.value, cst.Name) and len(receiver.slice) == 1:
            index = receiver.slice[0].slice
            key = string_value(index.value) if isinstance(index, cst.Index) else None
            return (receiver.value.value, key) if key is not None else None
        return None

    def _comprehension_sources(self, call: cst.Call, body: cst.CSTNode) -> Set[Tuple[str, Optional[str]]]:
        """``{k: v.to(device) for k, v in batch.items()}`` moves all of ``batch``."""
        sources: Set[Tuple[str, Optional[str]]] = set()
        for ancestor in self.facts.ancestors(call):
            if ancestor is body:
                break
            if type(ancestor) in COMPREHENSIONS:
                source = ancestor.for_in.iter
                if isinstance(source, cst.Call) and isinstance(source.func, cst.Attribute):
                    source = source.func.value
                if isinstance(source, cst.Name):
                    sources.add((source.value, None))
        return sources
