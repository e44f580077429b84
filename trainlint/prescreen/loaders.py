"""The questions of the loader rules (TL101-TL103), asked of the walk's facts: does a DataLoader
load data already moved to an accelerator, or does a whole file or data set move there at once.
"""

from __future__ import annotations

import ast
import functools
from typing import Callable, Dict, FrozenSet, List, Set

from trainlint.prescreen.nodes import _dotted, _split_names
from trainlint.prescreen.values import FUNCTION, last_name, root_name
from trainlint.prescreen.walk import TreeFacts
from trainlint.step_words import DEVICE_NAME, SPLITTERS

_MAX_DEVICE_DEPTH = 8  # names followed for a device argument before the screen says it may be one
_FILE_READERS = frozenset({"load", "loadtxt", "genfromtxt", "fromfile", "File"}) | frozenset(
    f"read_{kind}" for kind in ("csv", "parquet", "feather", "pickle", "excel", "json", "table", "hdf")
)
_TF_PIPELINES = frozenset({"from_tensor_slices", "from_tensors", "fit"})


class LoaderQuestions(TreeFacts):
    """What TL101-TL103 ask of a module's facts."""

    @functools.cached_property
    def calls_dataloader(self) -> bool:
        return "DataLoader" in self._called_names

    @functools.cached_property
    def loads_moved_data(self) -> bool:
        return self.calls_dataloader and self._loader_may_hold_a_move()

    @functools.cached_property
    def may_pin_a_loader(self) -> bool:
        """Mirror the switch TL101's ``device_batches`` reads (``loader_arguments``), wider: a ``pin_memory=``
        keyword, a ``"pin_memory"`` key of a dict display or item assignment (a ``**`` dict's), or eight positional
        arguments, given to any call. The trigger cannot ask this of the text: the eighth argument needs no word."""
        return bool(self._pin_arguments or self._pin_values)

    @functools.cached_property
    def reads_whole_file(self) -> bool:
        return not self._called_names.isdisjoint(_FILE_READERS)

    @functools.cached_property
    def moves_a_read_value(self) -> bool:
        return bool(self._moved_reads)

    @functools.cached_property
    def _moved_reads(self) -> Set[int]:
        """TL103's data set: the ids of the moves outside loops and per-item code that may hold a whole-file read (any
        call there may be a move where a CUDA tensor type is named: ``T = torch.cuda.FloatTensor; T(np.load(p))``),
        followed as the rule's ``_whole_read`` follows it from what the move moves: through no attribute's stores."""
        if not self.reads_whole_file:
            return set()
        moves = [(c, scope) for c, scope in self._whole_calls if self._names_cuda_tensor_type or self._moves(c)]
        # an instance whose method returns a read (`read = Reader(); read(p)`: `_call_read` follows `__call__`)
        reading = self._classes_holding(self._reads_a_file, attributes=False)
        return {
            id(m) for m, s in moves if any(self.values.may_hold(v, s, self._reads_a_file, reading, attributes=False) for v in self._moved_values(m))
        }

    @functools.cached_property
    def batches_a_moved_read(self) -> bool:
        """Mirror TL103's ``_batching``, wider: a DataLoader whose batches may hold a move (:attr:`loads_moved_data`,
        the placement's ``loader_batches``), or a name a moved read is bound to (``_bindings_of``: ``X = <...>`` or
        ``self.X = <...>`` whose value, or an element of its tuple display, is a chain of calls and attributes
        through the move, ``np.load(p).cuda().float()``) that some code sliced in a loop (``_varies_per_iteration``,
        by last name) or split (``_split_into_batches``: ``X.split(n)``, ``torch.chunk(X, n)``)."""
        if self.loads_moved_data:
            return True
        cut = set(self._sliced_in_loops)
        for name in {*SPLITTERS, *(alias for alias, original in self._aliases.items() if original in SPLITTERS)}:
            cut.update(found for call in self.values.calls_named(name) for found in _split_names(call))
        return any(_chain_through(value, self._moved_reads) for name in cut for value in self.values.bound_anywhere(name))

    def _moved_values(self, call: ast.Call) -> List[ast.AST]:
        """Mirror TL103's ``_moved_value``: what a move moves, the only value the rule follows back to a read: the
        receiver of a method of a value (``x.to(device)``, ``x.cuda()``: a callee that no import names), else the
        first argument (``torch.tensor(data, device=device)``, not its ``dtype=t.dtype``), else the call itself. A
        root some import binds may be rebound where the call is (``features = torch.from_numpy(...)`` in a function
        of a module that imports ``features``), where the rule's qualified name is None: both are followed then."""
        func = call.func
        # LibCST's first argument is the first in source order: a keyword may come before a `*args` (then all count)
        first = call.args[0] if call.args and not isinstance(call.args[0], ast.Starred) else call
        if isinstance(func, ast.Attribute):
            return [func.value] if not self.values.is_imported(_dotted(func).split(".")[0]) else [func.value, first]
        return [first]

    @functools.cached_property
    def builds_tf_pipeline(self) -> bool:
        return not self._called_names.isdisjoint(_TF_PIPELINES)

    def _loader_may_hold_a_move(self) -> bool:
        """TL101's and TL102's question, as the placement's ``loader_batches`` asks it but wider: may some DataLoader's
        data set or collate function hold a move? Followed through ``ModuleValues.may_hold``, with the classes that
        hold one (:meth:`_classes_holding_a_move`). A ``*``/``**`` argument may pass anything."""
        if self._names_cuda_tensor_type:
            return True
        holding = self._classes_holding_a_move()
        moving_class = bool(holding)
        loader_names = ["DataLoader", *(alias for alias, name in self._aliases.items() if name == "DataLoader")]
        for call, scope in (found for name in loader_names for found in self.values.scoped_calls_named(name)):
            if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
                return True
            given = [*call.args[:1], *call.args[6:7], *(k.value for k in call.keywords if k.arg in ("dataset", "collate_fn"))]
            if moving_class and any(isinstance(v, ast.Name) and v.id == "self" for v in given):
                return True  # a Dataset class's own loader
            if any(self.values.may_hold(v, scope, self._moves, holding) for v in given):
                return True
        return False

    def _classes_holding_a_move(self) -> FrozenSet[str]:
        """The classes whose instances may hold a move, as the placement's ``trace`` reads an instance (what its
        ``__getitem__`` returns, ``_instance_trace``; a collator's ``__call__``, ``_function_value``) but wider: a class
        some method of which (by its name, in any class) may return a move, or read one stored on an attribute
        (``self.x = x.to(device)``, ``self.xs.append(...)``); and its subclasses. Not a move made and used up in a
        method (``mean = torch.as_tensor(m, device=t.device)`` in ``t.sub(mean)``: a method's arguments are not
        followed). Grown to a fixed point: an instance of such a class stored on an attribute
        (``self.inner = Moved()``) makes a wrapper's ``__getitem__`` return it."""
        return self._classes_holding(self._moves)

    def _classes_holding(self, is_source: Callable[[ast.Call], bool], attributes: bool = True) -> FrozenSet[str]:
        """The classes whose instances may hold what an ``is_source`` call makes (:meth:`_classes_holding_a_move`)."""
        methods: Dict[str, Set[str]] = {}
        for function, owner in enumerate(self._function_classes):
            if owner is not None:
                methods.setdefault(owner, set()).add(self._names[function])
        holding: FrozenSet[str] = frozenset()
        while True:
            holders = self.values.holders(is_source, holding, attributes)
            found = {name for name, names in methods.items() if any((FUNCTION, m) in holders for m in names)}
            grown = True
            while grown:
                grown = False
                for name, bases in self._resolved_bases.items():
                    if name not in found and not bases.isdisjoint(found | holding):
                        found.add(name)
                        grown = True
            if found <= holding:
                return holding
            holding = holding | found

    @functools.cached_property
    def _resolved_bases(self) -> Dict[str, Set[str]]:
        """Each class's bases as ``Names.class_hierarchy`` resolves them: through what a name is bound to (``Base =
        WindowsBase``) or what a call returns (``class Windows(make_base())``), by last name."""
        return {name: {n for base in bases for n in self._runs_of(base)} for name, bases in self._class_bases.items()}

    def _moves(self, call: ast.Call) -> bool:
        """A call the placement's ``move`` may take for a move to an accelerator, decided once the walk has seen every
        import and binding: a ``device=``; ``x.cuda()``; ``x.to(d)`` where ``d`` may name a device
        (:meth:`_may_name_a_device`: not ``torch.float16``, not ``weight_dtype = torch.float16``); a tensor type called
        that is ``torch.cuda``'s (``torch.cuda.FloatTensor``, or through a name imported from a ``cuda`` module), not
        ``transforms.ToTensor``."""
        func = call.func
        name = last_name(func)
        if any(keyword.arg == "device" for keyword in call.keywords):
            return True
        if isinstance(func, ast.Attribute) and name == "cuda":
            return True
        if isinstance(func, ast.Attribute) and name == "to":
            return bool(call.args) and self._may_name_a_device(call.args[0], 0)
        if not name.endswith("Tensor"):
            return False
        cuda_imported = not self._cuda_imports.isdisjoint({root_name(func), "*"})
        if isinstance(func, ast.Name):  # imported from `torch.cuda` (an alias bound to one is `_names_cuda_tensor_type`)
            return cuda_imported
        return _dotted(func.value).endswith("cuda") or cuda_imported  # type: ignore[attr-defined]

    def _may_name_a_device(self, node: ast.AST, depth: int) -> bool:
        """Mirror the placement's ``_is_device_like``, wider: a string, either arm of a conditional, ``torch.device(...)``
        (any call named ``device``), a name or attribute spelled like a device, or one some assignment (by its last
        name, in any scope, an unpacking's element too: the placement's ``element_at``) gives such a value; not
        ``torch.float16`` nor a name only ever given dtypes or bound otherwise (a parameter, a loop target: the
        placement follows only assigned values)."""
        if depth > _MAX_DEVICE_DEPTH or isinstance(node, ast.Starred):
            return True
        if isinstance(node, ast.Constant):  # a string (bytes too: the placement's `_is_device_like` takes any)
            return isinstance(node.value, (str, bytes))
        if isinstance(node, ast.JoinedStr):  # `f"cuda:{rank}"`
            return True
        if isinstance(node, ast.IfExp):
            return self._may_name_a_device(node.body, depth + 1) or self._may_name_a_device(node.orelse, depth + 1)
        if isinstance(node, (ast.Tuple, ast.List)):  # what an unpacking binds (`where, n = "cuda", 100`): an element
            return any(self._may_name_a_device(element, depth + 1) for element in node.elts)
        if isinstance(node, ast.Call):
            name = last_name(node.func)
            return self._aliases.get(name, name) == "device"
        dotted = _dotted(node)
        if not dotted or dotted.startswith("torch."):
            return False
        name = dotted.rsplit(".", 1)[-1]
        if DEVICE_NAME.search(name):
            return True
        following = ("device", name)
        if following in self._following:
            return False
        self._following.add(following)
        try:
            return any(self._may_name_a_device(value, depth + 1) for value in self.values.bound_anywhere(name))
        finally:
            self._following.discard(following)

    def _reads_a_file(self, call: ast.Call) -> bool:
        """A reader TL103 starts from, by its last name (an import alias counts as the name it binds)."""
        name = last_name(call.func)
        return self._aliases.get(name, name) in _FILE_READERS


def _chain_through(value: ast.AST, calls: Set[int]) -> bool:
    """Mirror TL103's ``_bindings_of`` read from the bound value down: ``value`` (or an element of its tuple or list
    display, wider than ``element_at``) is a chain of calls and attributes on one of ``calls``: ``f(x).cuda().float()``."""
    if isinstance(value, (ast.Tuple, ast.List)):
        return any(_chain_through(element, calls) for element in value.elts)
    if isinstance(value, ast.Starred):
        return _chain_through(value.value, calls)
    while isinstance(value, (ast.Call, ast.Attribute)):
        if id(value) in calls:
            return True
        value = value.func if isinstance(value, ast.Call) else value.value
    return False
