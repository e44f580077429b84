"""Which triggered rules can have something to say, judged on the tree CPython already built.

The text prefilter (``prefilter.py``) keeps a rule whenever its trigger words
occur; in training-heavy code they nearly always do. The syntax verdict
compiles every file with CPython's parser anyway (about a tenth of LibCST's
cost), so a rule may also declare, beside its triggers in the registry, a
structural condition on that tree: a predicate over :class:`Features`, facts
gathered in one walk. A rule is run only when its condition holds, and LibCST
is imported and the file parsed only when some rule is left.

A condition must hold for every module the rule could report on (a missed
module is a missed finding): ``tests/test_prescreen.py`` runs every fixture
with and without the screen and requires the same findings.
A rule without a condition runs whenever its trigger matches.
"""

from __future__ import annotations

import ast
import functools
import itertools
import re
from typing import Dict, FrozenSet, List, NamedTuple, Optional, Sequence, Set, Tuple

from trainlint.amp_entry_points import AMP_APIS, COMPAT_ERRORS
from trainlint.prescreen_values import FUNCTION, MODULE, ModuleValues, last_name, root_name, target_names
from trainlint.registry import ENTRIES_BY_CODE
from trainlint.step_words import (
    BACKWARD_METHODS,
    BOOKKEEPING_METHOD,
    CUDA_DEVICE,
    DEVICE_NAME,
    DTYPE_KEEPING,
    FLOAT_DTYPES,
    GENERIC_HOOK_NAMES,
    GRAD_FREE_HOOK,
    HELD_OUT_LOADER_NAME,
    HELD_OUT_SPLIT,
    INTEGER_DTYPES,
    INTEGER_METHODS,
    CUDA_ONLY_LIBRARIES,
    ITERATION_WRAPPERS,
    LAUNCHER_CLASSES,
    LAUNCHER_NAMES,
    MODEL_NAME,
    NO_GRAD_WRAPPER,
    NOT_FORWARD,
    OOM_MESSAGE,
    OPTIMIZER_NAME,
    SEQUENCE_MAKERS,
    STEP_HOOK_NAME,
    TEST_FRAMEWORKS,
    collected_as_tests,
    optimizer_name_match,
)

# Mirror rules/batches/tl302_float_index_tensors.py: what creates a float tensor, what takes indices.
_FLOAT_CASTS = frozenset({"float", "double", "half", "bfloat16"})
_FLOAT_MAKERS = frozenset(
    {"FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "Tensor", "from_numpy", "loadtxt", "genfromtxt"}
)
_SHAPED_MAKERS = frozenset({"zeros", "ones", "empty"})  # mirror TL302's SHAPED_FACTORIES
# mirror TL302's FLOAT_TENSOR_TYPES, by last name: `torch.LongTensor(ids)` makes no float tensor
_FLOAT_TENSOR_TYPES = frozenset({"FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "Tensor"})
_FLOAT_WORD = re.compile(r"float|double|half|single")
_INDEX_SINKS = frozenset({"Embedding", "EmbeddingBag", "embedding", "embedding_bag", "cross_entropy", "CrossEntropyLoss", "nll_loss", "NLLLoss"})
_INDEX_FUNCTIONS = frozenset({"embedding", "embedding_bag", "cross_entropy", "nll_loss"})  # functional: given the indices
_INDEX_KEYS = frozenset({"input_ids", "labels"})
# Mirror trainlint.analysis.devices: the launchers that pick a device, the words of its sources of devices
# (DEVICE_VARIABLE, DEVICE_OPTION), and the accelerators other than CUDA (OTHER_ACCELERATOR_DEVICE).
_LAUNCHERS = frozenset(name.rsplit(".", 1)[-1] for name in LAUNCHER_CLASSES)
_LAUNCHER_WORDS = _LAUNCHERS | LAUNCHER_NAMES
_DEVICE_SOURCE_WORDS = ("device", "gpu_type", "accelerator")
_OTHER_ACCELERATORS = ("xpu", "npu", "hpu", "xla", "mlu", "musa")
# Calls whose keywords TL104 reads as a loader's: `partial(DataLoader, ...)`, and a `**` dict's content
# (placement's `_keyword_dict`: `dict(pin_memory=True)`, `kwargs.update(pin_memory=True)`).
_KEYWORD_DICTS = frozenset({"partial", "dict", "update"})
_CONDITIONAL_CODE = (ast.If, ast.IfExp, ast.Try, ast.BoolOp, ast.Match, *([ast.TryStar] if hasattr(ast, "TryStar") else []))
# Modules that take indices when called (`self.emb(x)`, `criterion(out, y)`): which positional argument.
_INDEX_MODULES = {"Embedding": 0, "EmbeddingBag": 0, "CrossEntropyLoss": 1, "NLLLoss": 1}
# Where TL302's `_float_source` follows a value: what makes a float tensor (a tensor type, a factory, `from_numpy`:
# by last name, wider than the rule's qualified names); the casts that end the chain, the calls that keep a dtype and
# what makes a Python list are the rule's own tables, shared through step_words.
_DATA_FACTORIES = frozenset({"tensor", "as_tensor", "asarray", "from_numpy", "zeros", "ones", "empty"})
_NUMPY_FLOAT_DEFAULTS = frozenset({"zeros", "ones", "empty", "loadtxt", "genfromtxt"})  # mirror NUMPY_FLOAT_DEFAULTS
_MAX_NUMPY_DEPTH = 12  # mirror TL302's MAX_DEPTH
_MAX_DEVICE_DEPTH = 8  # names followed for a device argument before the screen says it may be one
# Mirror rules/batches/batch_keys.py's MODEL_NAME: what TL301 takes for a model when no class of the module says so.
_MODEL_LIKE = re.compile(r"model|net", re.IGNORECASE)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
# Mirror rules/amp/tl201_cuda_amp_on_other_device.py and rules/loaders/tl103_dataset_on_accelerator.py: the calls
# those rules start from, by their last name (an import alias counts as the name it binds).
_AMP_APIS = frozenset({"autocast", "GradScaler"})
_FILE_READERS = frozenset({"load", "loadtxt", "genfromtxt", "fromfile", "File"}) | frozenset(
    f"read_{kind}" for kind in ("csv", "parquet", "feather", "pickle", "excel", "json", "table", "hdf")
)
_TF_PIPELINES = frozenset({"from_tensor_slices", "from_tensors", "fit"})
_SPLITTERS = frozenset({"split", "chunk", "tensor_split"})
_LIST_GROWERS = frozenset({"append", "extend", "insert"})  # mirror the placement's LIST_GROWERS
# What TrainingLoops strips from a loop's iterable before asking whether it is a loader, by last name.
_ITERATION_WRAPPERS = frozenset(wrapper.rsplit(".", 1)[-1] for wrapper in ITERATION_WRAPPERS)
# Mirror rules/step_memory/tl405_missing_zero_grad.py: what builds an optimizer (by qualified name), and the calls
# whose receivers its `_models_optimized` takes for the models an optimizer is built over.
_TORCH_OPTIMIZERS = "torch.optim."
_NOT_OPTIMIZERS = ("torch.optim.lr_scheduler.", "torch.optim.swa_utils.")
_PARAMETER_METHODS = frozenset({"parameters", "named_parameters"})
# What TL302's `_iterated_source` iterates through to its arguments: `enumerate`, `zip`, a wrapper keeping items, a
# `DataLoader` (by last name, wider than the rule's qualified names: a `DataLoader` given a `collate_fn` too).
_ITEM_KEEPERS = frozenset({"enumerate", "zip", "DataLoader", *_ITERATION_WRAPPERS})
# Functions whose moves TL103 takes as per batch already (see its `_per_batch`).
_PER_ITEM_FUNCTIONS = frozenset({"__getitem__", "__iter__", "collate", "collate_fn"})
_CONSTRUCTION = frozenset({"__new__", "__init__", "__post_init__"})  # what calling a class of the module runs


class _Place(NamedTuple):
    """Where a node is: the ids of the functions around it (innermost last), the loops around it, and how many of
    those loops are in the innermost function itself."""

    functions: Tuple[int, ...]
    loops: Tuple[ast.AST, ...]
    local_loops: int = 0


class _Step(NamedTuple):
    """A ``.step(...)`` call as TL405 reads it (``trainlint.analysis.calls.stepped_optimizer``)."""

    receiver: str  # the dotted receiver, or its dump when it is not a dotted name
    optimizer: str  # what it updates: the receiver, or a scaler's argument
    named_optimizer: bool  # the receiver's last name reads as an optimizer or a scaler


def _step(call: ast.Call) -> _Step:
    receiver = call.func.value  # type: ignore[attr-defined]
    text = _dotted(receiver) or ast.dump(receiver)
    match = _optimizer_receiver(receiver)
    optimizer = text
    if match and match.group(0).lower() == "scaler" and call.args and not isinstance(call.args[0], ast.Starred):
        optimizer = _dotted(call.args[0]) or ast.dump(call.args[0])
    return _Step(text, optimizer, match is not None)


class Features:
    """Facts about one module's tree, gathered in one walk (see the module docstring).

    Besides module-wide facts, the walk places what rules look for in *per-step code*, as
    ``trainlint.analysis.steps`` defines it but wider: inside a loop whose body (nested code
    included) trains, directly or through a same-module function named like what it calls,
    or inside a function that runs per step (a step hook, a function such a loop or hook calls,
    ``log``/``update`` in a module that trains). Callees are matched by their last name only,
    as ``trainlint.analysis.calls`` does, and a function's calls count for every function
    around it, so the region is a superset of the analyses' own.
    """

    def __init__(self, tree: ast.AST, path: str = "") -> None:
        self.trains = False  # a backward, an optimizer or scaler step, or a step hook's definition
        self.accumulates = False  # `x += v`, `x = x + v`, `d[k] = v`, `xs.append(v)` with v not a constant
        self.appends = False  # `xs.append(...)` / `xs.extend(...)`
        self.creates_float = False  # `.float()`, `FloatTensor(...)`, `from_numpy`, a float `dtype=`, `.to(torch.float16)`
        self.takes_indices = False  # an embedding, an index loss, `input_ids`/`labels` as a keyword or a key
        self._index_modules: Dict[str, int] = {}  # `self.emb = nn.Embedding(...)`: the target, its index argument
        self._calls: List[Tuple[str, ast.Call, Tuple[int, ...]]] = []  # calls of dotted names, with their functions
        self._index_values: List[ast.AST] = []  # what TL302's index uses receive: `input_ids=v`, `{"labels": v}`, ...
        self._functional_index_values: List[Tuple[ast.AST, ast.AST]] = []  # `F.embedding(v, w)`: the callee, `v`
        self._list_subscripts: List[Tuple[str, ast.AST]] = []  # `xs[i]`: the name and the index
        self._sequence_names: Set[str] = set()  # names some binding makes a Python list (`xs = []`, `list(...)`)
        # `f(**batch)`, `self.f.forward(**b)`: the dotted callee, its line, what the first `**` unpacks
        self._kwargs_callees: List[Tuple[ast.AST, int, ast.AST]] = []
        self.defines_forward = False  # a `def forward(`: a model class of this module, whatever its instances are called
        # where TL301's batch keys can come from: a `def __getitem__` (a Dataset here), an import of Hugging Face
        # `datasets`, a `collate_fn=` keyword (a collate function here building the batch)
        self.may_know_batch_keys = False
        # TL102's workers: a `num_workers=` not the literal 0, "num_workers" as a string (a key of loader options),
        # or a DataLoader given six positional arguments; absent, a DataLoader forks none
        self.may_fork_workers = False
        self.cuts_batches = False  # `x[i:i + bs]` in a loop, `x.split(n)`, `torch.chunk(x, n)`: what TL103 takes for batching by hand
        self._pins_a_tensor = False  # `x.pin_memory()`: raises without CUDA wherever CUDA is not certain
        self._pin_values: List[ast.AST] = []  # `{"pin_memory": v}`, `d["pin_memory"] = v`
        # `f(pin_memory=v)` (False) and `f(a1, ..., a8)` (True): the callee, the value, whether by position
        self._pin_arguments: List[Tuple[ast.AST, ast.AST, bool]] = []
        self._torch_modules: Set[str] = set()  # names `import torch` binds (`torch`, `th`)
        self._from_torch: Set[str] = set()  # names `from torch import ...` binds (`empty`, `e` for `empty as e`)
        self._cuda_only_imports: List[ast.AST] = []  # imports of a library that loads only where CUDA is (TensorRT)
        self._forwarding_functions: Set[str] = set()  # defs with a `**` parameter; classes whose `__init__` has one
        self._classes_with_init: Set[str] = set()  # classes defining an `__init__`
        self._whole_calls: List[Tuple[ast.Call, int]] = []  # calls outside loops and per-item code, with their scope: TL103's moves
        self._names_cuda_tensor_type = False  # `torch.cuda.FloatTensor` named: any call may be one, through an alias
        # a file of tests, where TL404 takes `def test_*` for a test: by its name, or an import of pytest/unittest
        self._holds_tests = collected_as_tests(path)
        self._tree = tree
        self._walk(tree)
        self._resolve_calls_through_bindings()

    # ----- the walk ---------------------------------------------------------------------

    def _bind(self, *names: str) -> None:
        for name in names:
            self._bindings[name] = self._bindings.get(name, 0) + 1

    def _walk(self, tree: ast.AST) -> None:
        self._following: Set[Tuple[str, str]] = set()  # (question, name) pairs `_all_bindings` is following
        self.values = ModuleValues()  # every binding by scope: what TL401's and TL104's values may be
        self._method_class: Dict[int, ast.ClassDef] = {}  # ids of the defs directly in a class body -> the class
        self._function_classes: List[Optional[str]] = []  # function id -> the class it is a method of
        self._class_bases: Dict[str, Set[str]] = {}  # class name -> its bases' last names
        self._class_names: Set[str] = set()  # classes defined anywhere in the module
        self._counters: Dict[str, int] = {}  # `for i in range(n)`, `for i, x in enumerate(xs)`: bindings of integers
        self._augmented: Dict[str, int] = {}  # `x += v` by name: a binding TL302 follows to nothing
        self._comprehension_targets: Dict[str, int] = {}  # names a comprehension binds, how often: no binding outside it
        self._comprehension_bound: Set[Tuple[int, str]] = set()  # (scope around the comprehension, a target it binds)
        self._counted_iterations: Set[Tuple[int, str, int]] = set()  # (scope, counter, id of the iterable) of a `for` loop
        self._comprehension_reads: Dict[int, bool] = {}  # ids of reads of a comprehension's own target -> counted by range
        self._code_bindings: Dict[str, int] = {}  # bindings by an import, an undecorated def or a class
        self._first_module_code: Dict[str, int] = {}  # name -> line of the first module-level import/def/class binding it
        self._names: List[str] = []  # function id -> its name
        self._function_nodes: List[ast.AST] = []  # function id -> its def
        self._callees: List[Set[str]] = []  # function id -> last names it calls (nested functions' calls included)
        self._training_functions: Set[str] = set()  # names of functions with a training call of their own
        self._backward_functions: Set[str] = set()  # ... with a backward of their own
        self._loop_calls: Dict[ast.AST, Set[str]] = {}  # loop -> last names called in it (header and nested code too)
        self._loop_trains: Set[ast.AST] = set()  # loops with a training call of their own
        self._loop_backward: Set[ast.AST] = set()  # ... with a backward of their own
        # a sum, store or append, the value kept, and the name it is kept in where that is a name (`d[k]`: `d`)
        self._accumulations: List[Tuple[_Place, ast.AST, Optional[str]]] = []
        self._loop_resets: Set[Tuple[int, str]] = set()  # (id of a loop, name) bound afresh in it: `loss = crit(...)`
        self._local_appends: List[Tuple[str, _Place]] = []  # `xs.append(v)` two loops deep in its function: maybe a local history
        self._counted_appends: List[Tuple[str, _Place, ast.AST]] = []  # `xs.append(v)` in one loop counting a run
        self._appends_in_functions: List[Tuple[str, _Place]] = []  # `xs.append(v)` in a function: xs may be global
        self._module_lists: Set[str] = set()  # names a module-level statement binds to a history-shaped value
        self._history_attributes: Set[str] = set()  # `self.x = []` (or a dict of lists) in an `__init__`
        self._appended_attributes: Dict[str, List[_Place]] = {}
        self._mode_calls: List[Tuple[ast.AST, Tuple[int, ...], Tuple[int, int]]] = []  # `m.eval()`: call, enclosing functions, position
        self._in_tests: Set[int] = set()  # functions named `test_*`
        self._grad_free: Set[int] = set()  # functions decorated like `@torch.no_grad()`
        self._grad_free_hooks: Set[int] = set()  # functions named like the hooks Lightning runs without grad
        self._no_grad_blocks: List[Tuple[Tuple[int, ...], Tuple[int, int], Tuple[int, int]]] = []  # functions, start, end
        self._grad_switches: List[Tuple[ast.Call, int]] = []  # `torch.set_grad_enabled(False)` as a statement, its scope
        self._stored_attributes: Set[str] = set()  # `x.name = v` (any store): a `self.name(...)` may run what it holds
        self._loops_for_eval: List[Tuple[ast.AST, Tuple[int, ...], bool]] = []  # loops for TL404: node, functions, held out
        self._calls_by_function: Dict[int, List[ast.Call]] = {}  # function id -> its calls, nested functions' too (lazily)
        self._called: Set[str] = set()  # last names of every callee
        # `make = BatchLoader`, `self.update = partial(sgd_update, ...)`, `self.step_fn = Step(...)`: by the target's
        # last name, what calling it may run (see `_callable_names`)
        self._callable_values: Dict[str, Set[str]] = {}
        self._loop_steps: Dict[ast.AST, Set[_Step]] = {}  # loop -> its `.step(...)` calls
        self._function_steps: Dict[int, Set[_Step]] = {}  # function id -> the same
        self._zero_grad_functions: Set[int] = set()  # functions with an `x.zero_grad()` in their body, nested defs too
        # loop -> the dotted `x` of each `x.zero_grad()` in its body, nested code too ("" where `x` is not dotted)
        self._loop_zero_grads: Dict[ast.AST, Set[str]] = {}
        self._loop_plain_calls: Dict[ast.AST, Set[str]] = {}  # loop -> names it calls as plain names, `f(...)`
        self._loop_function: Dict[ast.AST, Optional[int]] = {}  # loop -> the function it is in (None: module code)
        self._plain_functions: Dict[str, List[int]] = {}  # name of a function that is no method -> its ids
        self._called_by_function: Dict[int, Set[int]] = {}  # function id -> what TL405 surely runs from it, once asked
        self._top_level_defs: Dict[str, List[ast.AST]] = {}  # ... -> its definitions
        self._calls_assigned: List[Tuple[str, List[str]]] = []  # `x = f(...)`: the dotted callee, the dotted targets
        self._imported: Dict[str, Set[str]] = {}  # name an import binds -> what it may stand for (`optim` -> `torch.optim`)
        # every name bound in the module, how often (a cast may be shadowed; a name is followed only if all agree)
        self._bindings: Dict[str, int] = {}
        self._plain_values: Dict[str, List[ast.AST]] = {}  # `name = value` (one name per target): the values
        self._aliases: Dict[str, str] = {}  # `import x as y`, `from m import x as y`: y -> x
        self._cuda_imports: Set[str] = set()  # names bound by an import from or of something named `cuda` ("*" for a star)
        self._called_funcs: Set[int] = set()  # ids of the callees of calls
        self._sniff_shaped = False  # `"cuda" if c else "cpu"`, or an `if` branch that is only `x = "cuda"`/`"cpu"`
        self._handlers: List[ast.ExceptHandler] = []  # every `except` clause
        self._amp_references: List[ast.AST] = []  # `autocast`/`GradScaler` named other than as a callee
        # (node, enclosing functions, enclosing loops, loops around it in its own function, whether a move there
        # would already be per batch: in a loop or comprehension, or in `__getitem__`-like code, as TL103 reads it)
        stack: List[Tuple[ast.AST, Tuple[int, ...], Tuple[ast.AST, ...], int, bool]] = [(tree, (), (), 0, False)]
        body = getattr(tree, "body", [])
        top_level = {n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        module_statements = set(body)
        while stack:
            node, functions, loops, local_loops, per_batch = stack.pop()
            kind = type(node)
            if kind is ast.Name:  # the commonest nodes first; neither has children the walk reads
                if type(node.ctx) is not ast.Load:  # type: ignore[attr-defined]
                    self._bind(node.id)  # type: ignore[attr-defined]
                elif node.id in _AMP_APIS and id(node) not in self._called_funcs:  # type: ignore[attr-defined]
                    self._amp_references.append(node)
                continue
            if kind is ast.Constant:
                if node.value == "num_workers":  # type: ignore[attr-defined]
                    self.may_fork_workers = True
                continue
            if kind is ast.Call:
                self._call(node, _Place(functions, loops, local_loops), per_batch)  # type: ignore[arg-type]
                self._float_or_index_call(node, _Place(functions, loops))  # type: ignore[arg-type]
            elif kind is ast.Dict:
                for key, value in zip(node.keys, node.values):  # type: ignore[attr-defined]
                    if _is_index_key(key):
                        self.takes_indices = True
                        self._index_values.append(value)
                    self._pin_key(key, value)
            elif kind is ast.Subscript:
                self.takes_indices = self.takes_indices or _is_index_key(node.slice)  # type: ignore[attr-defined]
                if isinstance(node.value, ast.Name) and not isinstance(node.slice, (ast.Slice, ast.Tuple)):  # type: ignore[attr-defined]
                    self._list_subscripts.append((node.value.id, node.slice))  # type: ignore[attr-defined]
                if loops and isinstance(node.value, (ast.Name, ast.Attribute)):  # type: ignore[attr-defined]
                    self.cuts_batches = True
            elif kind is ast.AugAssign:
                self.values.record_assignment([node.target], node.value, _scope(functions))  # type: ignore[attr-defined]
                if isinstance(node.target, ast.Name):  # type: ignore[attr-defined]
                    self._augmented[node.target.id] = self._augmented.get(node.target.id, 0) + 1  # type: ignore[attr-defined]
                if isinstance(node.op, (ast.Add, ast.Sub)) and not isinstance(node.value, ast.Constant):  # type: ignore[attr-defined]
                    self._accumulated(_Place(functions, loops, local_loops), node.value, node.target)  # type: ignore[attr-defined]
            elif kind is ast.Assign or kind is ast.AnnAssign or kind is ast.NamedExpr:
                self._assigned(node, _Place(functions, loops, local_loops))
            elif kind is ast.ImportFrom or kind is ast.Import:
                self._aliases.update((alias.asname, alias.name.rsplit(".", 1)[-1]) for alias in node.names if alias.asname)  # type: ignore[attr-defined]
                module = getattr(node, "module", None) or ""
                bound = [(alias.asname or alias.name).split(".")[0] for alias in node.names]  # type: ignore[attr-defined]
                imported = [module] if kind is ast.ImportFrom else [alias.name for alias in node.names]  # type: ignore[attr-defined]
                if any(m.split(".")[0] == "datasets" for m in imported):
                    self.may_know_batch_keys = True
                if any(m.split(".")[0] in TEST_FRAMEWORKS for m in imported):
                    self._holds_tests = True
                if not getattr(node, "level", 0) and any(m.split(".")[0] in CUDA_ONLY_LIBRARIES for m in imported):
                    self._cuda_only_imports.append(node)
                self._bind(*bound)
                self.values.record_imports(bound)
                self._bind_code(bound, node, module_statements, functions)
                if module == "torch" and not node.level:  # type: ignore[attr-defined]
                    self._from_torch.update(alias.asname or alias.name for alias in node.names)  # type: ignore[attr-defined]
                if kind is ast.Import:
                    self._torch_modules.update(  # `import torch`, `import torch as th`, `import torch.nn` (binds `torch`)
                        alias.asname or "torch"
                        for alias in node.names  # type: ignore[attr-defined]
                        if alias.name == "torch" or (alias.asname is None and alias.name.startswith("torch."))
                    )
                self._record_import(node)  # type: ignore[arg-type]
                for alias in node.names:  # type: ignore[attr-defined]
                    if "cuda" in module or "cuda" in alias.name:  # `from torch.cuda.amp import autocast`, `import torch.cuda.amp as A`
                        self._cuda_imports.add(alias.asname or alias.name.split(".")[0])
            elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                name = node.name  # type: ignore[attr-defined]
                if STEP_HOOK_NAME.search(name):
                    self.trains = True
                self.defines_forward = self.defines_forward or name == "forward"
                self.may_know_batch_keys = self.may_know_batch_keys or name == "__getitem__"
                index = len(self._names)
                self._names.append(name)
                self._function_nodes.append(node)
                self._callees.append(set())
                owner = self._method_class.get(id(node))
                self._function_classes.append(owner.name if owner is not None else None)
                self._bind(name)
                if not node.decorator_list:  # type: ignore[attr-defined]
                    self._bind_code([name], node, module_statements, functions)  # a `@property` holds a value
                if self.values.record_function(name, _scope(functions), owner is not None) != index:
                    raise AssertionError("function ids out of step")
                self.values.record_parameters(index, node.args)  # type: ignore[attr-defined]
                if node in top_level:
                    self._top_level_defs.setdefault(name, []).append(node)
                if owner is None:
                    self._plain_functions.setdefault(name, []).append(index)
                if name.startswith("test_"):
                    self._in_tests.add(index)
                if name == "__init__" and owner is not None:
                    self._classes_with_init.add(owner.name)
                if node.args.kwarg is not None:  # type: ignore[attr-defined]
                    self._forwarding_functions.update([name] if name != "__init__" or owner is None else [name, owner.name])
                if any(_names_no_grad(d) for d in node.decorator_list):  # type: ignore[attr-defined]
                    self._grad_free.add(index)
                elif GRAD_FREE_HOOK.match(name):
                    self._grad_free_hooks.add(index)
                inner = (functions + (index,), loops, 0, name in _PER_ITEM_FUNCTIONS)
                stack.extend((child, *inner) for child in _children(node))
                continue
            elif kind is ast.Lambda:  # its parameters are recorded in the scope around it: wider, never narrower
                for argument in ast.walk(node.args):  # type: ignore[attr-defined]
                    if isinstance(argument, ast.arg):
                        self.values.record_opaque(argument.arg, _scope(functions))
                stack.extend((child, functions, loops, 0, False) for child in _children(node))
                continue
            elif kind is ast.arg:
                self._bind(node.arg)  # type: ignore[attr-defined]
            elif kind is ast.ExceptHandler and node.name:  # type: ignore[attr-defined]
                self._bind(node.name)  # type: ignore[attr-defined]
                self.values.record_inert(node.name, _scope(functions))  # type: ignore[attr-defined]
            elif kind is ast.Global or kind is ast.Nonlocal:
                self.values.record_shared(node.names)  # type: ignore[attr-defined]
            elif kind is ast.Return or kind is ast.Yield or kind is ast.YieldFrom:
                if node.value is not None and functions:  # type: ignore[attr-defined]
                    self.values.record_return(functions[-1], node.value)  # type: ignore[attr-defined]
            elif kind.__name__ in ("MatchAs", "MatchStar", "MatchMapping"):
                capture = getattr(node, "name", None) or getattr(node, "rest", None)
                if capture:
                    self.values.record_opaque(capture, _scope(functions))
            elif kind is ast.ClassDef:
                self._bind(node.name)  # type: ignore[attr-defined]
                self._class_names.add(node.name)  # type: ignore[attr-defined]
                self._bind_code([node.name], node, module_statements, functions)  # type: ignore[attr-defined]
                self.values.record_class(node.name, _scope(functions))  # type: ignore[attr-defined]
                for statement in node.body:  # type: ignore[attr-defined]
                    if isinstance(statement, ast.Assign) or (isinstance(statement, ast.AnnAssign) and statement.value):
                        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                        self.values.record_class_attribute(targets, statement.value, _scope(functions))  # type: ignore[arg-type]
                self._method_class.update((id(n), node) for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))  # type: ignore[attr-defined,misc]
                self._class_bases.setdefault(node.name, set()).update(map(last_name, node.bases))  # type: ignore[attr-defined]
                stack.extend((child, functions, loops, 0, per_batch) for child in _children(node))
                continue
            elif kind is ast.For or kind is ast.AsyncFor or kind is ast.While:
                self._loop_calls[node] = set()
                self._loop_plain_calls[node] = set()
                self._loop_function[node] = functions[-1] if functions else None
                held_out = kind is not ast.While and _names_held_out_data(node.iter)  # type: ignore[attr-defined]
                self._loops_for_eval.append((node, functions, held_out))
                if kind is not ast.While:
                    self.values.record_iteration(node.target, node.iter, _scope(functions))  # type: ignore[attr-defined]
                    counter = _counter_name(node.target, node.iter)  # type: ignore[attr-defined]
                    if counter:
                        self._counters[counter] = self._counters.get(counter, 0) + 1
                        self._counted_iterations.add((_scope(functions), counter, id(node.iter)))  # type: ignore[attr-defined]
                inner = (functions, loops + (node,), local_loops + 1, True)
                stack.extend((child, *inner) for child in _children(node))
                continue
            elif kind in _COMPREHENSIONS:
                held_out = any(_names_held_out_data(g.iter) for g in node.generators)  # type: ignore[attr-defined]
                self._loops_for_eval.append((node, functions, held_out))
                self._comprehension_scope(node)  # type: ignore[arg-type]
                for generator in node.generators:  # type: ignore[attr-defined]
                    self.values.record_iteration(generator.target, generator.iter, _scope(functions))
                    self._comprehension_bound.update((_scope(functions), name) for name in target_names(generator.target))
                per_batch = True
            elif kind is ast.Attribute:
                if type(node.ctx) is not ast.Load:  # type: ignore[attr-defined]
                    self._stored_attributes.add(node.attr)  # type: ignore[attr-defined]
                # `torch.cuda.FloatTensor` named anywhere: a call through any alias of it moves data
                if node.attr.endswith("Tensor") and last_name(node.value) == "cuda":  # type: ignore[attr-defined]
                    self._names_cuda_tensor_type = True
                if node.attr in _AMP_APIS and id(node) not in self._called_funcs:  # type: ignore[attr-defined]
                    self._amp_references.append(node)
            elif kind is ast.IfExp or kind is ast.If:
                self._sniff_shaped = self._sniff_shaped or _sniff_shaped(node)
            elif kind is ast.With or kind is ast.AsyncWith:
                for item in node.items:  # type: ignore[attr-defined]
                    for bound_name in target_names(item.optional_vars) if item.optional_vars else ():
                        self.values.record_context(bound_name, item.context_expr, _scope(functions))
                if any(_names_no_grad(i.context_expr) for i in node.items):  # type: ignore[attr-defined]
                    start = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
                    self._no_grad_blocks.append((functions, start, (node.end_lineno, node.end_col_offset)))  # type: ignore[attr-defined]
            elif kind is ast.Try or kind.__name__ == "TryStar":
                self._handlers.extend(node.handlers)  # type: ignore[attr-defined]
            elif kind is ast.Expr and type(node.value) is ast.Call and last_name(node.value.func) == "set_grad_enabled":  # type: ignore[attr-defined]
                self._grad_switches.append((node.value, _scope(functions)))  # type: ignore[attr-defined]
            stack.extend((child, functions, loops, local_loops, per_batch) for child in _children(node))

    def _call(self, call: ast.Call, here: "_Place", per_batch: bool) -> None:
        name = last_name(call.func)
        self._called_funcs.add(id(call.func))
        if name:
            self._called.add(name)
            for function in here.functions:
                self._callees[function].add(name)
            for loop in here.loops:
                self._loop_calls[loop].add(name)
                if isinstance(call.func, ast.Name):
                    self._loop_plain_calls[loop].add(name)
        self._kwargs_call(call)
        self._workers_call(call, name)
        self.values.record_call(call, _scope(here.functions))
        self._pinning_call(call, name, here.functions)
        if name == "add_argument":
            self.values.record_option(call)
        if name in _SPLITTERS and _splits_a_name(call):
            self.cuts_batches = True
        if not per_batch:
            self._whole_calls.append((call, _scope(here.functions)))
        func = call.func
        if not isinstance(func, ast.Attribute):
            return
        method = func.attr
        if method in _LIST_GROWERS:
            self.values.record_growth(func.value, call.args, _scope(here.functions))
        training = backward = False
        if method in BACKWARD_METHODS:
            training = backward = True
            self.values.record_backward(call)
        elif method == "step" and _optimizer_receiver(func.value):
            training = True
        elif method in ("append", "extend"):
            self.appends = True
            if method == "append" and len(call.args) == 1 and not isinstance(call.args[0], ast.Constant):
                self._accumulated(here, call.args[0], func.value)
                self.values.record_append(func.value, call.args[0], _scope(here.functions))
            if method == "append" and len(call.args) + len(call.keywords) == 1:
                self._appended(func.value, here, call.args[0] if call.args else None)
        elif method in ("eval", "train") and _is_dotted(func.value) and _sets_eval_mode(call):
            self._mode_calls.append((call, here.functions, (call.lineno, call.col_offset)))
        elif method == "zero_grad":
            self._zero_grad_functions.update(here.functions)
            receiver = _dotted(func.value)
            for loop in here.loops:
                if _in_body(loop, call):  # TL405 reads a loop's body only: not a `while` test, not its `else`
                    self._loop_zero_grads.setdefault(loop, set()).add(receiver)
        if method == "step":
            key = _step(call)
            for function in here.functions:
                self._function_steps.setdefault(function, set()).add(key)
            for loop in here.loops:
                self._loop_steps.setdefault(loop, set()).add(key)
        if training:
            self.trains = True
            self._training_functions.update(self._names[f] for f in here.functions)
            self._loop_trains.update(here.loops)
        if backward:
            self._backward_functions.update(self._names[f] for f in here.functions)
            self._loop_backward.update(here.loops)

    def _kwargs_call(self, call: ast.Call) -> None:
        if any(keyword.arg == "collate_fn" for keyword in call.keywords):
            self.may_know_batch_keys = True
        if not any(keyword.arg is None for keyword in call.keywords):
            return
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "forward":
            func = func.value
        if _is_dotted(func):  # `BatchKeys.is_model_like`: a callee that is no dotted name (`super().__init__`) is none
            batch = next(keyword.value for keyword in call.keywords if keyword.arg is None)  # the rule reads the first `**`
            self._kwargs_callees.append((func, call.lineno, batch))

    def _workers_call(self, call: ast.Call, name: str) -> None:
        if any(k.arg == "num_workers" and not _is_zero(k.value) for k in call.keywords):
            self.may_fork_workers = True
        elif name == "DataLoader" and len(call.args) >= 6:
            self.may_fork_workers = True

    def _pinning_call(self, call: ast.Call, name: str, functions: Tuple[int, ...]) -> None:
        """What TL104 reads: ``x.pin_memory()`` (not in a function named like ``pin_memory``, the DataLoader's
        pinning protocol, which the rule leaves alone), a ``pin_memory=`` value, a DataLoader's eighth positional
        argument."""
        if name == "pin_memory" and isinstance(call.func, ast.Attribute) and not call.args and not call.keywords:
            self._pins_a_tensor = self._pins_a_tensor or not any("pin_memory" in self._names[f] for f in functions)
        self._pin_arguments.extend((call.func, k.value, False) for k in call.keywords if k.arg == "pin_memory")
        leading = call.args[:8]
        if len(leading) == 8 and not any(isinstance(a, ast.Starred) for a in leading):
            self._pin_arguments.append((call.func, leading[7], True))

    def _pin_key(self, key: Optional[ast.AST], value: ast.AST) -> None:
        """``{"pin_memory": v}`` (a DataLoader's ``**kwargs``) or ``d["pin_memory"] = v``: the key read, ``v`` kept."""
        if isinstance(key, ast.Constant) and key.value == "pin_memory":
            self._pin_values.append(value)

    def _bind_code(self, names: List[str], node: ast.AST, module_statements: Set[ast.AST], functions: Tuple[int, ...]) -> None:
        """Bindings TL301's model test takes for code (an import, a def, a class), and where the module makes them."""
        for name in names:
            self._code_bindings[name] = self._code_bindings.get(name, 0) + 1
            if not functions and node in module_statements:
                line = node.lineno  # type: ignore[attr-defined]
                self._first_module_code[name] = min(line, self._first_module_code.get(name, line))

    def _float_or_index_call(self, call: ast.Call, here: "_Place") -> None:
        name = last_name(call.func)
        if (name in _FLOAT_CASTS and not call.args) or name in _FLOAT_MAKERS:
            self.creates_float = True
        elif name in _SHAPED_MAKERS and not any(k.arg == "dtype" for k in call.keywords):
            self.creates_float = True  # `torch.zeros(n, length)`: the default dtype, float32
        elif name in ("to", "type", "astype") and any(_FLOAT_WORD.search(ast.dump(a)) for a in call.args):
            self.creates_float = True
        if isinstance(call.func, (ast.Name, ast.Attribute)) and call.args:
            self._calls.append((_dotted(call.func), call, here.functions))
        if name in _INDEX_SINKS:
            self.takes_indices = True
        if name in _INDEX_FUNCTIONS:  # a module class's arguments are its sizes and weights; its calls take the indices
            argument = 1 if name in ("cross_entropy", "nll_loss") else 0  # the loss's target, the embedding's input
            keyword = "target" if argument else "input"
            self._functional_index_values.extend((call.func, k.value) for k in call.keywords if k.arg == keyword)
            starred = any(isinstance(a, ast.Starred) for a in call.args)  # the rule counts positions without them
            self._functional_index_values.extend((call.func, a) for a in (call.args if starred else call.args[argument : argument + 1]))
        for keyword in call.keywords:
            if keyword.arg == "dtype" and _FLOAT_WORD.search(ast.dump(keyword.value)):
                self.creates_float = True
            elif keyword.arg in _INDEX_KEYS:
                self.takes_indices = True
                self._index_values.append(keyword.value)

    def _accumulated(self, here: "_Place", value: ast.AST, storage: Optional[ast.AST]) -> None:
        """A sum, store or append of ``value`` into ``storage`` (the target, or the list appended to)."""
        self.accumulates = True
        self._accumulations.append((here, value, _plain_root(storage)))

    def _assigned(self, node: ast.AST, here: "_Place") -> None:
        value = node.value  # type: ignore[attr-defined]
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]  # type: ignore[attr-defined]
        scope = _scope(here.functions)
        if value is None:  # `x: int`: a name annotated, holding nothing yet
            for name in target_names(node.target):  # type: ignore[attr-defined]
                self.values.record_inert(name, scope)
            return
        if not here.functions:
            self._module_lists.update(_history_targets(targets, value))
        self.values.record_assignment(targets, value, scope)
        for target in targets:
            if isinstance(target, ast.Subscript):
                self._pin_key(target.slice, value)
        for target in targets:
            if isinstance(target, ast.Name):
                self._plain_values.setdefault(target.id, []).append(value)
                if isinstance(value, (ast.List, ast.ListComp)) or (
                    isinstance(value, ast.Call) and last_name(value.func) in SEQUENCE_MAKERS
                ):
                    self._sequence_names.add(target.id)
        adds_to_itself = len(targets) == 1 and _may_add_to_itself(targets[0], value)
        if adds_to_itself:
            self._accumulated(here, value, targets[0])
        elif len(targets) == 1 and isinstance(targets[0], ast.Subscript) and not isinstance(value, ast.Constant):
            self._accumulated(here, value, targets[0])
        resets = here.local_loops and not adds_to_itself and not isinstance(node, ast.NamedExpr)
        if resets:  # TL401's `_resets`: a binding statement that starts a name afresh in its loop (a walrus: left to the rule)
            self._loop_resets.update((id(here.loops[-1]), name) for target in targets for name in target_names(target))
        if isinstance(value, ast.Call):
            made = value.func.id if isinstance(value.func, ast.Name) else last_name(value.func)
            made = self._aliases.get(made, made)
            if made in _INDEX_MODULES:
                self._index_modules.update((_dotted(t), _INDEX_MODULES[made]) for t in targets if _dotted(t))
        if isinstance(value, ast.Call) and _dotted(value.func):
            self._calls_assigned.append((_dotted(value.func), [t for t in map(_dotted, targets) if t]))
        if here.functions and self._names[here.functions[-1]] == "__init__" and _history_shaped(value):
            self._history_attributes.update(t.attr for t in targets if _is_self_attribute(t))
        callables = _callable_names(value)
        for target in targets if callables else ():
            if isinstance(target, (ast.Name, ast.Attribute)):
                self._callable_values.setdefault(last_name(target), set()).update(callables)

    def _resolve_calls_through_bindings(self) -> None:
        """Widen what each function and loop calls to what the analyses' ``Names.resolve_callable`` may resolve
        those calls to: through the bindings of the callee's last name (``self.update = sgd_update``; a ``partial``;
        an instance's ``__call__``), and a class's construction (``Evaluation(model, loader)`` runs its
        ``__init__``), transitively. Decided after the walk, once every binding is known; callees stay matched by
        last name, so ``__init__`` stands for every class's."""
        if not self._callable_values and not self._class_names:
            return
        for callees in itertools.chain(self._callees, self._loop_calls.values(), [self._called]):
            callees |= self._may_call(callees)

    def _may_call(self, names: Set[str]) -> Set[str]:
        """The last names a call of any of ``names`` may run (see :meth:`_resolve_calls_through_bindings`), the import
        aliases' original names included."""
        found = set(names)
        pending = list(names)
        while pending:
            name = pending.pop()
            more = set(self._callable_values.get(name, ()))
            if name in self._aliases:
                more.add(self._aliases[name])
            if name in self._class_names:
                more |= _CONSTRUCTION
            more -= found
            found |= more
            pending.extend(more)
        return found

    @functools.cached_property
    def _callers_by_callee(self) -> Dict[str, Set[str]]:
        """For each last name a call may run, the last names of the calls that may run it (:meth:`_may_call`)."""
        found: Dict[str, Set[str]] = {}
        for name in self.values.called_names():
            for callee in self._may_call({name}):
                found.setdefault(callee, set()).add(name)
        return found

    def _calls_that_may_run(self, function: str) -> List[Tuple[ast.Call, int]]:
        """The calls that may run a function of this name, with their scopes: by its name, or through a binding."""
        names = self._callers_by_callee.get(function, set()) | {function}
        return [found for name in sorted(names) for found in self.values.scoped_calls_named(name)]

    def _appended(self, receiver: ast.AST, here: "_Place", element: Optional[ast.AST]) -> None:
        """Mirror TL402: an append to ``self.x``/``self.x[k]``, or to a name inside two loops of its own function,
        or inside one that counts the steps of a run (TL402's ``_counts_the_run``, mirrored wider) where the
        element may be a device tensor (see :meth:`_may_be_device_tensor`)."""
        if isinstance(receiver, ast.Subscript):
            receiver = receiver.value
        if _is_self_attribute(receiver):
            self._appended_attributes.setdefault(receiver.attr, []).append(here)  # type: ignore[attr-defined]
        elif isinstance(receiver, ast.Name):
            if here.local_loops == 1 and element is not None and _may_count_a_run(here.loops[-1]):
                self._counted_appends.append((receiver.id, here, element))  # judged once bindings are known
            if here.local_loops >= 2:
                self._local_appends.append((receiver.id, here))
            if here.functions:
                self._appends_in_functions.append((receiver.id, here))  # maybe a module-level list

    def _may_start_once(self, name: str, place: _Place) -> bool:
        """Mirror TL402's ``_local_growth``: a list of the function appended to grows only where the function binds
        it once, to ``[]`` or ``list()`` (``seen, kept = [], []`` too), and so does a module's list; rebound
        (``latents = torch.cat(latents)``, a reset per epoch) it does not. A name the function does not assign (a
        global, a closure's), or declares ``global``/``nonlocal``, is left to the rule."""
        scope = _scope(place.functions)
        if place.functions and not self.values.is_local(name, scope):
            return True
        values = self.values.assigned_in(scope, name)
        return not values or (len(values) == 1 and _may_make_a_list(values[0]))

    def _may_be_device_tensor(self, element: ast.AST) -> bool:
        """Mirror TL402's ``_element`` answering "device tensor", wider: anything but a display, a constant, a
        comprehension, a number made by ``.item()``, ``float()``, ``int()``, ``len()``, ``round()``, or a name
        whose every binding is one of those."""
        if isinstance(element, (ast.Dict, ast.List, ast.Tuple, ast.Set, ast.Constant, ast.JoinedStr, *_COMPREHENSIONS)):
            return False
        if isinstance(element, ast.Call):
            return last_name(element.func) not in ("item", "float", "int", "len", "round", "tolist")
        if isinstance(element, ast.Name):
            return not self._all_bindings("device tensor", element.id, lambda v: not self._may_be_device_tensor(v))
        return True

    def _record_import(self, node: "ast.Import | ast.ImportFrom") -> None:
        """Mirror ``trainlint.analysis.imports``' table: ``import a.b`` binds ``a`` to ``a``, ``import a.b as c`` binds
        ``c`` to ``a.b``, ``from a import b as c`` binds ``c`` to ``a.b`` (not a relative or a star import). Every
        binding is kept where the rule keeps the last: what a name may stand for."""
        if isinstance(node, ast.ImportFrom):
            if node.level or not node.module:
                return
            pairs = [(alias.asname or alias.name, f"{node.module}.{alias.name}") for alias in node.names if alias.name != "*"]
        else:
            pairs = [(alias.asname, alias.name) if alias.asname else (alias.name.split(".")[0],) * 2 for alias in node.names]
        for local, qualified in pairs:
            self._imported.setdefault(local, set()).add(qualified)

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

    def _module_takes_float(self) -> bool:
        """Mirror TL302's ``_made_by``/``_forward_embeds``: a call of an embedding or index criterion bound here
        (by its dotted name, in any scope) with a value that may be float; or an embedding called in a ``forward``,
        whose model's callers the screen does not follow (any of them may pass the float tensor)."""
        for name, call, functions in self._calls:
            argument = self._index_modules.get(name)
            if argument is None:
                continue
            if argument == 0 and any(self._names[f] == "forward" for f in functions) and self._instance_may_get_float():
                return True
            if any(isinstance(a, ast.Starred) for a in call.args):
                return True
            values = call.args[argument : argument + 1] + [k.value for k in call.keywords if k.arg in ("input", "target")]
            if any(map(self._may_be_float, values)):
                return True
        return False

    def _dies_with_its_call(self, place: _Place, storage: Optional[str], training_loops: Set[ast.AST]) -> bool:
        """Mirror TL401's storage ("a local bound before the step loop, or an attribute"): a name local to a
        function (a parameter too: the rule does not follow a list handed in), where no loop of that function
        around the accumulation trains, is gone when the call returns: it outlives no step."""
        if storage is None or not place.functions:
            return False
        own_loops = place.loops[len(place.loops) - place.local_loops :]
        return not training_loops.intersection(own_loops) and self.values.is_local(storage, place.functions[-1])

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

    def _never_a_loader_loop(self, loop: ast.AST) -> bool:
        """Mirror ``TrainingLoops``' loader loops, wider: a ``for`` over ``range(...)`` or ``zip(...)`` (through
        ``enumerate``, ``tqdm``, ``iter``) that pulls no batch with ``next(...)`` is never one."""
        if type(loop) is not ast.For or "next" in self._loop_plain_calls[loop]:
            return False
        iterable = loop.iter  # type: ignore[attr-defined]
        while isinstance(iterable, ast.Call) and iterable.args and last_name(iterable.func) in _ITERATION_WRAPPERS:
            iterable = iterable.args[0]
        if not isinstance(iterable, ast.Call) or not isinstance(iterable.func, ast.Name):
            return False
        return iterable.func.id in ("range", "zip") and iterable.func.id not in self._bindings

    def _instance_may_get_float(self) -> bool:
        """Mirror TL302's ``_forward_embeds``: ``model(x)``, ``model`` a plain name bound here to an instance of a
        class of the module (``Model(...)``, ``Model(...).to(device)``, also through an alias of the class), and
        some argument that may be a float tensor; the model's ``forward`` embeds what that call passes."""
        for name, call, _ in self._calls:
            values = self._plain_values.get(name, ()) if "." not in name else ()
            if any(map(self._instantiates_a_class_here, values)) and any(self._may_be_float(a) for a in call.args):
                return True
        return False

    def _instantiates_a_class_here(self, value: ast.AST) -> bool:
        while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in DTYPE_KEEPING:
            value = value.func.value
        if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Name):
            return False
        return value.func.id in self._class_names or value.func.id in self._plain_values

    def _may_be_float(self, value: ast.AST) -> bool:
        """Whether TL302's ``_float_source`` may find a float tensor made for ``value``: it follows names, subscripts,
        dtype-keeping calls, and stops at anything else that is not itself a float maker (``text_inputs.input_ids``,
        ``x.long()``, ``tokenizer(...)``, a constant). A name is given up on only when its every binding is such."""
        while True:
            if isinstance(value, ast.Subscript):
                value = value.value
            elif isinstance(value, ast.Name):
                counted = self._comprehension_reads.get(id(value))
                if counted is not None:  # a comprehension's own target: an integer if it counts, else whatever it iterates
                    return self._redefines_range_or_enumerate or not counted
                local = self._local_bindings_may_be_float(value)
                if local is not None:
                    return local
                key = ("float", value.id)
                if key in self._following:
                    return False  # met again while its bindings are read (`f(ids=ids)`): those bindings decide
                counters = 0 if self._redefines_range_or_enumerate else self._counters.get(value.id, 0)
                self._following.add(key)
                try:
                    parameters = self._parameters_given_no_float(value.id)
                finally:
                    self._following.discard(key)
                dead_ends = parameters + counters
                dead_ends += self._augmented.get(value.id, 0) + self._comprehension_targets.get(value.id, 0)
                dead_ends += self._code_bindings.get(value.id, 0)  # an import, def or class: the rule's binding has no value
                return not self._all_bindings("float", value.id, lambda v: not self._may_be_float(v), dead_ends)
            elif isinstance(value, ast.Call):
                func = value.func
                name = self._aliases.get(func.id, func.id) if isinstance(func, ast.Name) else last_name(func)
                if name in _FLOAT_TENSOR_TYPES or (name in self._names and self._may_return_float(name)):
                    return True
                if name in _DATA_FACTORIES:
                    return self._factory_may_make_float(value, name)
                if not isinstance(func, ast.Attribute) or name in INTEGER_METHODS:
                    return False
                if name in _FLOAT_CASTS:
                    return True
                if name in ("to", "type"):  # mirror TL302's `_call_source`: a dtype argument decides, else `to` keeps it
                    dtype = self._given_dtype(value)
                    if dtype is not None:
                        return self._dtype_name(dtype) in FLOAT_DTYPES
                if name not in DTYPE_KEEPING:
                    return False
                value = func.value
            elif isinstance(value, ast.Starred):
                value = value.value
            elif isinstance(value, (ast.Tuple, ast.List)):  # TL302 picks an element (`a, b = x, y`): any of them
                return any(map(self._may_be_float, value.elts))
            elif isinstance(value, ast.Dict):
                return any(map(self._may_be_float, value.values))
            elif isinstance(value, ast.IfExp):  # `x.cuda() if use_cuda else x`: TL302 follows either branch
                return self._may_be_float(value.body) or self._may_be_float(value.orelse)
            elif isinstance(value, (ast.ListComp, ast.GeneratorExp)):
                return self._element_may_be_float(value)
            else:
                return False  # constants, arithmetic, set and dict comprehensions: TL302 follows none

    def _may_return_float(self, name: str) -> bool:
        """Mirror TL302's ``_returned_source``: a function defined here (any of that name) may return or yield a
        float tensor. Its parameters are followed as :meth:`_may_be_float` follows any name (to every call's
        arguments, wider than the rule's one invocation). A function met again while its returns are read gives
        nothing of its own: its other returns decide."""
        following = ("returns", name)
        if following in self._following:
            return False
        self._following.add(following)
        try:
            return any(
                self._may_be_float(value) for function in self.values.functions_named(name) for value in self.values.returned(function)
            )
        finally:
            self._following.discard(following)

    def _local_bindings_may_be_float(self, name: ast.Name) -> Optional[bool]:
        """Mirror TL302's reaching binding by scope, wider: a name the function (or the module) reading it binds
        itself, by assignment (``x, y = batch`` too: the whole value, wider than the rule's element of it) or as a
        parameter, may be float only where one of those values may be, or a call of the function here may pass one
        (a hook the module never calls, ``training_step(self, batch)``, is passed nothing), or, as a ``for`` target,
        where iterating one of its iterables may (:meth:`_iteration_may_be_float`). A with/except name holds nothing
        the rule follows. None where the scope leaves the name open (a comprehension or ``*args`` target, a name
        declared ``global``/``nonlocal``, one bound only by a scope around): the module-wide following decides. A
        name met again while its scope's bindings are read adds nothing."""
        scope = self._scopes.get(id(name), MODULE)
        following = ("local float", scope, name.id)
        if following in self._following:
            return False
        values = self.values.scoped_values(scope, name.id)
        iterables: List[ast.AST] = []
        if values is None:
            # a comprehension here binds its target in a scope of its own, which a read outside it does not see
            iterables = self.values.scoped_iterables(scope, name.id) if (scope, name.id) not in self._comprehension_bound else None  # type: ignore[assignment]
            if iterables is None:
                return None
            if not self._redefines_range_or_enumerate:  # `_iterated_source`: a count of `range`/`enumerate` is no float
                iterables = [i for i in iterables if (scope, name.id, id(i)) not in self._counted_iterations]
            values = self.values.assigned_in(scope, name.id)
        if self.values.is_parameter(scope, name.id):
            if self._names[scope] in ("__init__", "__call__"):  # a class's: it may run under any name
                return None
            if self._names[scope] in self._called:
                values = values + [value for value, _ in self.values.passed((scope, name.id), unpacked=False)]
        self._following.add(following)
        try:
            return any(map(self._may_be_float, values)) or any(map(self._iteration_may_be_float, iterables))
        finally:
            self._following.discard(following)

    def _iteration_may_be_float(self, iterable: ast.AST) -> bool:
        """Mirror TL302's ``_iterated_source``, wider (any item): whether iterating ``iterable`` may give a float
        tensor the rule follows to its maker. A name: what its own scope assigns it, iterated (the rule follows an
        iterable's name only to an assignment of it: a parameter, ``for b in enumerate(loader)`` in a function
        handed ``loader``, gives it nothing); a display: its elements; a comprehension: its element; a call:
        any argument iterated where it is ``enumerate``, ``zip``, a wrapper keeping items (``tqdm``) or a
        ``DataLoader``, a ``TensorDataset``'s arguments, what a ``__getitem__`` here returns (a data set of this
        module), and the call itself, as the rows of a tensor (``_float_source``; a function of this module, even
        one named ``DataLoader``, through its returns); anything else: itself."""
        if isinstance(iterable, ast.Name):
            scope = self._scopes.get(id(iterable), MODULE)
            values = self.values.scoped_values(scope, iterable.id)
            following = ("iterated", scope, iterable.id)
            if values is None or following in self._following:
                return values is None
            self._following.add(following)
            try:
                return any(map(self._iteration_may_be_float, values))
            finally:
                self._following.discard(following)
        if isinstance(iterable, (ast.List, ast.Tuple, ast.Set)):
            return any(
                self._iteration_may_be_float(e.value) if isinstance(e, ast.Starred) else self._may_be_float(e) for e in iterable.elts
            )
        if isinstance(iterable, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return self._may_be_float(iterable.elt)
        if isinstance(iterable, ast.Call) and iterable.args:
            func = iterable.func
            name = self._aliases.get(func.id, func.id) if isinstance(func, ast.Name) else last_name(func)
            arguments = [a.value if isinstance(a, ast.Starred) else a for a in iterable.args]
            if name in _ITEM_KEEPERS and any(map(self._iteration_may_be_float, arguments)):
                return True
            if name == "TensorDataset" and any(map(self._may_be_float, arguments)):
                return True
            if "__getitem__" in self._names and self._may_return_float("__getitem__"):
                return True
        return self._may_be_float(iterable)

    @functools.cached_property
    def _scopes(self) -> Dict[int, int]:
        """The scope of each name read in a function (its function id; the module's are left out): walked again
        on demand, for TL302's question alone. A def's decorators, defaults and annotations are read around it."""
        scopes: Dict[int, int] = {}
        for function, definition in enumerate(self._function_nodes):
            pending: List[ast.AST] = list(definition.body)  # type: ignore[attr-defined]
            while pending:
                node = pending.pop()
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    pending.extend(node.decorator_list)
                    pending.extend(d for d in (*node.args.defaults, *node.args.kw_defaults) if d is not None)
                    continue
                if type(node) is ast.Name:
                    scopes[id(node)] = function
                pending.extend(ast.iter_child_nodes(node))
        return scopes

    def _element_may_be_float(self, comprehension: ast.AST) -> bool:
        """Mirror TL302's ``_comprehension_element_source``: ``(t.to(device) for t in batch)`` gives ``batch``'s
        elements, through dtype-keeping calls without a dtype; any other comprehension makes nothing it follows."""
        generators, element = comprehension.generators, comprehension.elt  # type: ignore[attr-defined]
        if len(generators) != 1 or not isinstance(generators[0].target, ast.Name):
            return False
        while isinstance(element, ast.Call) and isinstance(element.func, ast.Attribute) and element.func.attr in DTYPE_KEEPING:
            if element.func.attr in ("to", "type") and self._given_dtype(element) is not None:
                return False
            element = element.func.value
        return isinstance(element, ast.Name) and element.id == generators[0].target.id and self._may_be_float(generators[0].iter)

    def _given_dtype(self, call: ast.Call) -> Optional[ast.AST]:
        """The dtype ``x.to(...)``/``x.type(...)`` is given: ``dtype=``, or a positional argument naming one."""
        return _keyword_value(call, "dtype") or next((a for a in call.args if self._dtype_name(a) in FLOAT_DTYPES | INTEGER_DTYPES), None)

    def _factory_may_make_float(self, call: ast.Call, name: str) -> bool:
        """Mirror TL302's ``_call_source`` on ``torch.tensor``/``as_tensor``/``asarray``/``from_numpy`` and the shaped
        factories, wider: a ``dtype=`` decides; without one a shaped factory makes float32, and a conversion is float
        where its data may be a float NumPy array (:meth:`_may_be_numpy_float`)."""
        dtype = _keyword_value(call, "dtype")
        if dtype is not None and name != "from_numpy":
            return self._dtype_name(dtype) not in INTEGER_DTYPES
        if name in _SHAPED_MAKERS:
            return True
        return bool(call.args) and self._may_be_numpy_float(call.args[0], 0)

    def _may_be_numpy_float(self, data: ast.AST, depth: int) -> bool:
        """Mirror TL302's ``_numpy_float``, wider: a name some binding of which may be one; ``x.astype(d)`` with ``d``
        not an integer dtype; a call with a ``dtype=`` that is not an integer one, or named like NumPy's float
        defaults (``zeros``, ``ones``, ``empty``, ``loadtxt``, ``genfromtxt``). A display, a constant or any other
        call is not one (the rule reads only calls of ``numpy``)."""
        if depth > _MAX_NUMPY_DEPTH:
            return True
        if isinstance(data, ast.Name):
            unfollowed = self._bindings.get(data.id, 0) - len(self._plain_values.get(data.id, ()))  # loops, parameters...
            return not self._all_bindings("numpy float", data.id, lambda v: not self._may_be_numpy_float(v, depth + 1), unfollowed)
        if not isinstance(data, ast.Call):
            return False
        if isinstance(data.func, ast.Attribute) and data.func.attr == "astype":
            return not data.args or self._dtype_name(data.args[0]) not in INTEGER_DTYPES
        dtype = _keyword_value(data, "dtype")
        if dtype is not None:
            return self._dtype_name(dtype) not in INTEGER_DTYPES
        return last_name(data.func) in _NUMPY_FLOAT_DEFAULTS

    @functools.cached_property
    def _redefines_range_or_enumerate(self) -> bool:
        """A function of the module named ``range``, ``enumerate`` or ``reversed``: its loop targets are not counters."""
        return not {"range", "enumerate", "reversed"}.isdisjoint(self._names)

    def _comprehension_scope(self, comprehension: ast.AST) -> None:
        """A comprehension's targets are its own (TL302 follows a name to the binding that reaches it): a read of one
        inside is that target's, counted by ``range``/``enumerate`` or not; outside, the target is no binding at all."""
        counters: Set[str] = set()
        bound: Set[str] = set()
        generators = comprehension.generators  # type: ignore[attr-defined]
        for generator in generators:
            names = list(target_names(generator.target))
            for name in names:
                self._comprehension_targets[name] = self._comprehension_targets.get(name, 0) + 1
            bound.update(names)
            counter = _counter_name(generator.target, generator.iter)
            counters.update([counter] if counter else [])
        # all but the first iterable, which is evaluated around the comprehension
        inside = [*_children(comprehension), *(g.iter for g in generators[1:]), *(c for g in generators for c in g.ifs)]
        for node in (node for part in inside if not isinstance(part, ast.comprehension) for node in ast.walk(part)):
            if type(node) is ast.Name and node.id in bound and type(node.ctx) is ast.Load:  # type: ignore[attr-defined]
                self._comprehension_reads[id(node)] = node.id in counters  # type: ignore[attr-defined]

    def _dtype_name(self, node: ast.AST) -> str:
        """``float16`` for ``torch.float16``, for ``"float16"`` and for a name an import binds to ``float16``."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        name = last_name(node)
        return self._aliases.get(name, name) if isinstance(node, ast.Name) else name

    def _parameters_given_no_float(self, name: str) -> int:
        """How many bindings of ``name`` are parameters TL302's ``_parameter_source`` follows to no float tensor: of a
        function the module never calls by its name (``Names.calls_of`` finds no call: a ``forward`` runs as
        ``model(x)``), or whose every argument the module's calls may pass for it is no float tensor. A class's
        ``__init__``/``__call__`` may run under any name: never counted. A parameter met again while its arguments
        are read (``def f(x): return f(x)``) counts as none."""
        following = ("parameters", name)
        if following in self._following:
            return 0
        self._following.add(following)
        try:
            return sum(
                1
                for key, function in self.values.parameters_named(name)
                if function not in ("__init__", "__call__")
                and (function not in self._called or not any(self._may_be_float(v) for v, _ in self.values.passed(key, unpacked=False)))
            )
        finally:
            self._following.discard(following)

    def _all_bindings(self, question: str, name: str, holds, dead_ends: int = 0) -> bool:
        """Every binding of ``name`` in the module is ``name = value`` with ``holds(value)``, or one of ``dead_ends``
        bindings that give the rule nothing to follow. A name met again while its own bindings are read for the same
        ``question`` (``ids = ids.to(device)``) holds: a cycle brings no value of its own, and the bindings outside it
        are checked. (Only for the same question: the float question asks the NumPy one of the same name.)"""
        key = (question, name)
        if key in self._following:
            return True
        values = self._plain_values.get(name, [])
        if not (values or dead_ends) or len(values) + dead_ends != self._bindings.get(name):
            return False
        self._following.add(key)
        try:
            return all(map(holds, values))
        finally:
            self._following.discard(key)

    # ----- what the walk implies ----------------------------------------------------------

    # Each question below is asked only by the conditions of the rules a file's text triggered: computed on demand.

    @functools.cached_property
    def _training_loops(self) -> Set[ast.AST]:
        training = _close(self._training_functions, self._names, self._callees)
        return {loop for loop, calls in self._loop_calls.items() if loop in self._loop_trains or calls & training}

    @functools.cached_property
    def _per_step_functions(self) -> Set[str]:
        per_step = {name for name in self._names if STEP_HOOK_NAME.search(name)}
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
            and not self._dies_with_its_call(place, storage, self._training_loops)
            and not self._starts_afresh_each_iteration(place, storage)
            and self.values.may_carry_graph(value, _scope(place.functions))
            for place, value, storage in self._accumulations
        )

    @functools.cached_property
    def grows_history_per_step(self) -> bool:
        training_loops = self._training_loops
        histories = [p for name in self._history_attributes for p in self._appended_attributes.get(name, ())]
        # a local history grows in a training loop itself (TL402's `_local_growth`), not merely in per-step code
        local = [p for name, p in self._local_appends if self._may_start_once(name, p)]
        in_training_loop = (p for p in local if any(loop in training_loops for loop in p.loops))
        # a module-level list that per-step code of a function appends to (TL402's `_grows_per_step`)
        global_appends = (place for name, place in self._appends_in_functions if name in self._module_lists)
        counted = [p for name, p, element in self._counted_appends if self._may_start_once(name, p) and self._may_be_device_tensor(element)]
        in_training_loop = itertools.chain(in_training_loop, (p for p in counted if any(loop in training_loops for loop in p.loops)))
        return any(map(self._in_step, histories)) or any(in_training_loop) or any(map(self._in_step, global_appends))

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
            caught = [self._aliases.get(n.id, n.id) if isinstance(n, ast.Name) else n.attr for n in ast.walk(handler.type)
                      if isinstance(n, (ast.Name, ast.Attribute))] if handler.type is not None else []
            if "OutOfMemoryError" in caught:
                return True
            tests = (statement.test for statement in handler.body if isinstance(statement, ast.If))
            if any(_says_out_of_memory(node) for test in tests for node in ast.walk(test)):
                return True
        return False

    @functools.cached_property
    def evaluates(self) -> bool:
        return any(self._may_evaluate(*loop) for loop in self._loops_for_eval)

    @functools.cached_property
    def _called_names(self) -> Set[str]:
        """The last names of every callee, and the names an import alias of each stands for."""
        return self._called | {self._aliases[name] for name in self._called & self._aliases.keys()}

    @functools.cached_property
    def calls_dataloader(self) -> bool:
        return "DataLoader" in self._called_names

    @functools.cached_property
    def loads_moved_data(self) -> bool:
        return self.calls_dataloader and self._loader_may_hold_a_move()

    @functools.cached_property
    def pins(self) -> bool:
        """TL104's two kinds: a tensor pinned (reported wherever CUDA is not certain), or a loader's pinning
        (reported only where the module selects the CPU or MPS, ``DevicesInUse.selects_cpu_or_mps``)."""
        tensors: List[ast.AST] = []
        loaders = list(self._pin_values)
        for func, value, positional in self._pin_arguments:
            if self._may_take_pin_memory(func, positional):
                (tensors if self._may_pin_a_tensor(func) else loaders).append(value)
        if self._pins_a_tensor or any(map(self.values.may_be_true, tensors)):
            return True
        return any(map(self.values.may_be_true, loaders)) and self._may_select_cpu_or_mps

    def _may_take_pin_memory(self, func: ast.AST, positional: bool) -> bool:
        """Mirror TL104's calls, wider: a DataLoader's ``pin_memory`` (the eighth positional argument too), a
        ``torch.<factory>(..., pin_memory=)``, ``partial``'s, a dict's ``update``, or a keyword handed to a function or class of this
        module that may forward ``**kwargs`` to a DataLoader (``placement.forwarded_loader_arguments``: one with a
        ``**`` parameter, or a class without an ``__init__`` of its own). A method of anything else
        (``wds.WebLoader(..., pin_memory=True)``) pins nothing the rule reads."""
        names = self._may_call({last_name(func)})  # through an alias or a `partial` too (`make = BatchLoader`)
        if "DataLoader" in names:
            return True
        if positional:
            return False
        if self._may_pin_a_tensor(func) or not names.isdisjoint(_KEYWORD_DICTS):  # the rule reads a `**` dict's keywords
            return True
        if not names.isdisjoint(self._forwarding_functions):
            return True
        return any(n in self._class_names and n not in self._classes_with_init for n in names)

    def _may_pin_a_tensor(self, func: ast.AST) -> bool:
        """A callee whose ``pin_memory=`` TL104 reads as a tensor factory's, ``torch.<name>`` by its qualified name:
        ``torch.empty``, ``th.empty``, or a name ``from torch import empty`` binds. Not a name another import binds
        (``unittest.mock.call``), nor one a star import may (the rule's qualified names do not resolve those),
        nor a DataLoader, whose pinning is the loader kind."""
        if self._aliases.get(last_name(func), last_name(func)) == "DataLoader":
            return False
        return self._is_torch_function(func) or (isinstance(func, ast.Name) and func.id in self._from_torch)

    @functools.cached_property
    def _may_select_cpu_or_mps(self) -> bool:
        """Mirror ``DevicesInUse.selects_cpu_or_mps``, wider. The device lattice finds the CPU or MPS only in a
        literal (``"cpu"``, ``"mps:0"``, ``f"cpu:{i}"``, an option's ``"cuda or mps"``, a launcher's
        ``accelerator="gpu"``), a reference to ``torch.mps``/``torch.backends.mps``, ``torch._C._get_accelerator``,
        or a launcher's ``.device`` (``fabric.device``, ``Accelerator().device``)."""
        identifiers, strings = self._device_words
        if self._may_name_mps or "_get_accelerator" in identifiers:
            return True
        if "device" in identifiers and not identifiers.isdisjoint(_LAUNCHER_WORDS):
            return True
        return any(text.startswith("cpu") for text in strings)

    @functools.cached_property
    def _may_name_mps(self) -> bool:
        """MPS named: ``torch.mps``/``torch.backends.mps``, an ``"mps"`` literal or an option's words with it, or a
        launcher's ``accelerator="gpu"`` (CUDA or MPS), in the device lattice's terms, wider."""
        identifiers, strings = self._device_words
        return "mps" in identifiers or any("mps" in text or text == "gpu" for text in strings)

    @functools.cached_property
    def _may_reach_another_accelerator(self) -> bool:
        """Mirror ``DevicesInUse.reaches_other_accelerator``, wider: the lattice has a device other than CUDA and
        the CPU only from what names one (an ``"mps"``/``"xpu"`` literal, ``torch.mps``) or from a source of devices:
        a variable, parameter, field, keyword or helper spelled like a device (``device``, ``gpu_type``), an option
        naming a device or an accelerator, ``torch.device(...)``, a launcher; the sources count only where nothing
        surely pins the module to CUDA. A module with none of these words (Lightning's FSDP precision plugin,
        ``torch.autocast("cuda")`` and no device anywhere) reaches none, nor does one that imports TensorRT."""
        identifiers, strings = self._device_words
        if self._may_name_mps or any(text.startswith(_OTHER_ACCELERATORS) for text in strings):
            return True  # MPS or another accelerator named
        if self._surely_pinned_to_cuda:
            return False
        if not identifiers.isdisjoint(_LAUNCHERS) or "_get_accelerator" in identifiers:
            return True
        words = [name.lower() for name in identifiers] + strings
        return any(source in word for word in words for source in _DEVICE_SOURCE_WORDS)

    @functools.cached_property
    def _surely_pinned_to_cuda(self) -> bool:
        """Mirror ``DevicesInUse.pinned_to_cuda``, narrower: an import of a library that loads only where CUDA is
        (``import tensorrt as trt``, ``from cuda import cudart``, Transformer Engine in the method that uses it),
        under no ``if``, ``try``, conditional expression, boolean operation or ``match``. The rule reads a device
        from a caller or a launcher as another accelerator only where nothing pins the module to CUDA; one it
        names, never so."""
        return not all(map(self._under_a_condition, self._cuda_only_imports))

    def _under_a_condition(self, node: ast.AST) -> bool:
        """Mirror the device analysis' ``_CONDITIONAL_CODE``: some ancestor may not run it."""
        ancestor = self._parents.get(id(node))
        while ancestor is not None:
            if isinstance(ancestor, _CONDITIONAL_CODE):
                return True
            ancestor = self._parents.get(id(ancestor))
        return False

    @functools.cached_property
    def _device_words(self) -> Tuple[Set[str], List[str]]:
        """Every identifier of the module (names, attributes, parameters, keywords, definitions, imports) and every
        string literal, lowered: where the device analysis finds its devices. Walked again on demand, so that the
        walk stays as fast for the modules that never ask."""
        identifiers: Set[str] = set()
        strings: List[str] = []
        for node in ast.walk(self._tree):
            kind = type(node)
            if kind is ast.Constant:
                value = node.value  # type: ignore[attr-defined]
                if isinstance(value, (str, bytes)):
                    strings.append((value.decode("latin-1") if isinstance(value, bytes) else value).lower())
            elif kind is ast.Name:
                identifiers.add(node.id)  # type: ignore[attr-defined]
            elif kind is ast.Attribute:
                identifiers.add(node.attr)  # type: ignore[attr-defined]
            elif kind is ast.alias:
                identifiers.update(node.name.split("."))  # type: ignore[attr-defined]
                identifiers.add(node.asname or "")  # type: ignore[attr-defined]
            elif kind is ast.arg or kind is ast.keyword:
                identifiers.add(node.arg or "")  # type: ignore[attr-defined]
            elif kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
                identifiers.add(node.name)  # type: ignore[attr-defined]
        return identifiers, strings

    @functools.cached_property
    def _kwargs_code_callees(self) -> List[ast.AST]:
        return [func for func, line, batch in self._kwargs_callees if not self._names_code(func, line) and self._may_carry_keys(batch)]

    def _may_carry_keys(self, batch: ast.AST) -> bool:
        """Mirror ``BatchKeys._keys``, wider: only a name, ``x.a`` that may be bound (:meth:`_may_be_bound`), a dict
        comprehension or a call may carry keys the rule knows; a dict display, a subscript, ``load_model.config`` or
        ``a.b.c`` carry none it can tell."""
        return isinstance(batch, (ast.DictComp, ast.Call)) or self._may_be_bound(batch)

    def _may_be_bound(self, expression: ast.AST) -> bool:
        """Whether ``Names.reaching`` may give ``expression`` a binding: a name, or ``x.a`` where the module stores some
        attribute ``a`` (it binds ``self.a`` alone among attributes, to the class's stores)."""
        if isinstance(expression, ast.Attribute):
            return isinstance(expression.value, ast.Name) and expression.attr in self._stored_attributes
        return isinstance(expression, ast.Name)

    @functools.cached_property
    def calls_with_kwargs(self) -> bool:
        """A ``**`` call of what may be an instance of a class of this module (``BatchKeys._instantiated_class``
        follows the bindings that reach the callee: :meth:`_may_be_bound`), not ``progress_bar.set_postfix(**logs)``."""
        return any(map(self._may_be_bound, self._kwargs_code_callees))

    @functools.cached_property
    def calls_model_with_kwargs(self) -> bool:
        return any(_MODEL_LIKE.search(last_name(func)) for func in self._kwargs_code_callees)

    @functools.cached_property
    def may_index_with_float(self) -> bool:
        lists = self.takes_indices and any(n in self._sequence_names and self._may_be_float(i) for n, i in self._list_subscripts)
        functional = [value for func, value in self._functional_index_values if self._may_be_functional(func)]
        return lists or any(map(self._may_be_float, self._index_values + functional)) or self._module_takes_float()

    def _may_be_functional(self, func: ast.AST) -> bool:
        """Mirror TL302's qualified ``torch.nn.functional.embedding``/``cross_entropy``/``nll_loss``, wider: a callee
        whose root an import binds (``F.embedding``, ``embedding`` imported), not ``torch.embedding`` itself nor
        ``self.embedding(x)`` nor a def of the module (``torch/nn/functional.py``'s own)."""
        if not self.values.is_imported(root_name(func)):
            return False
        return not self._is_torch_function(func)

    def _is_torch_function(self, func: ast.AST) -> bool:
        """``torch.<name>`` under a name ``import torch`` binds (``torch.empty``, ``th.embedding``)."""
        return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in self._torch_modules

    @functools.cached_property
    def calls_amp(self) -> bool:
        return not self._called_names.isdisjoint(_AMP_APIS)

    @functools.cached_property
    def amp_may_be_cuda_only(self) -> bool:
        return self.calls_amp and self._amp_may_be_cuda_only() and self._may_reach_another_accelerator

    @functools.cached_property
    def sniffs_device_type(self) -> bool:
        return self.calls_amp and self._may_sniff_device_type()

    @functools.cached_property
    def reads_whole_file(self) -> bool:
        return not self._called_names.isdisjoint(_FILE_READERS)

    @functools.cached_property
    def moves_a_read_value(self) -> bool:
        """TL103's data set: a whole-file read that some move outside loops and per-item code may hold (any call there
        may be a move where a CUDA tensor type is named: ``T = torch.cuda.FloatTensor; T(np.load(p))``), followed as
        the rule's ``_whole_read`` follows it from what the move moves: through no attribute's stores."""
        if not self.reads_whole_file:
            return False
        moves = [(c, scope) for c, scope in self._whole_calls if self._names_cuda_tensor_type or self._moves(c)]
        return any(self.values.may_hold(self._moved_value(m), s, self._reads_a_file, attributes=False) for m, s in moves)

    def _moved_value(self, call: ast.Call) -> ast.AST:
        """Mirror TL103's ``_moved_value``: what a move moves, the only value the rule follows back to a read: the
        receiver of a method of a value (``x.to(device)``, ``x.cuda()``: a callee that no import names), else the
        first argument (``torch.tensor(data, device=device)``, not its ``dtype=t.dtype``), else the call itself."""
        func = call.func
        if isinstance(func, ast.Attribute) and not self.values.is_imported(_dotted(func).split(".")[0]):
            return func.value
        return call.args[0] if call.args else call

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
        methods: Dict[str, Set[str]] = {}
        for function, owner in enumerate(self._function_classes):
            if owner is not None:
                methods.setdefault(owner, set()).add(self._names[function])
        holding: FrozenSet[str] = frozenset()
        while True:
            holders = self.values.holders(self._moves, holding)
            found = {name for name, names in methods.items() if any((FUNCTION, m) in holders for m in names)}
            grown = True
            while grown:
                grown = False
                for name, bases in self._class_bases.items():
                    if name not in found and not bases.isdisjoint(found | holding):
                        found.add(name)
                        grown = True
            if found <= holding:
                return holding
            holding = holding | found

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
        name, in any scope) gives such a value; not ``torch.float16`` nor a name only ever given dtypes or bound
        otherwise (a parameter, a loop target: the placement follows only assigned values)."""
        if depth > _MAX_DEVICE_DEPTH or isinstance(node, ast.Starred):
            return True
        if isinstance(node, ast.Constant):
            return isinstance(node.value, str)
        if isinstance(node, ast.JoinedStr):  # `f"cuda:{rank}"`
            return True
        if isinstance(node, ast.IfExp):
            return self._may_name_a_device(node.body, depth + 1) or self._may_name_a_device(node.orelse, depth + 1)
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
            return any(self._may_name_a_device(value, depth + 1) for value in self.values.assigned_values(name))
        finally:
            self._following.discard(following)

    def _reads_a_file(self, call: ast.Call) -> bool:
        """A reader TL103 starts from, by its last name (an import alias counts as the name it binds)."""
        name = last_name(call.func)
        return self._aliases.get(name, name) in _FILE_READERS

    def _amp_may_be_cuda_only(self) -> bool:
        """Mirror TL201's ``_hard_wired``, wider: a ``torch.cuda.amp`` API called (not with ``enabled=False``),
        ``autocast("cuda")``, a ``GradScaler()`` without a device (it defaults to CUDA), or a CUDA-only API held by a
        name (``ctx = torch.cuda.amp.autocast if ... else nullcontext``), which the rule follows to its calls."""
        if any(self._may_name_cuda_amp(r) for r in self._amp_references):
            return True
        if any(alias in self._cuda_imports and original in _AMP_APIS for alias, original in self._aliases.items()):
            return True  # `from torch.cuda.amp import autocast as ac`: followed through any name
        calls = [call for api in _AMP_APIS for call in self._amp_calls(api)]
        return any(self._amp_call_may_be_cuda_only(call) and not self._surely_a_compat_fallback(call) for call in calls)

    def _surely_a_compat_fallback(self, call: ast.Call) -> bool:
        """Mirror TL201's ``_is_compat_fallback``, narrower: a call of one AMP API (``torch.cuda.amp.GradScaler()``)
        in one branch of an ``if``/conditional expression whose other branch calls the other API
        (``torch.amp.GradScaler(device=device) if TORCH_2_4 else torch.cuda.amp.GradScaler()``, Lightning's
        precision plugins), or in a ``try`` that calls it and catches what its absence raises. Only APIs spelled
        from ``import torch`` count, so that the API is the one the rule resolves."""
        cuda_only = self._surely_amp_api(call.func)
        if cuda_only is None:
            return False
        child: ast.AST = call
        ancestor = self._parents.get(id(call))
        while ancestor is not None:
            if isinstance(ancestor, (ast.If, ast.IfExp)):
                body, orelse = ancestor.body, ancestor.orelse
                in_body = child is body or (isinstance(body, list) and child in body)
                in_orelse = child is orelse or (isinstance(orelse, list) and child in orelse)
                other = orelse if in_body else body if in_orelse else None
                if other is not None and self._calls_amp(other, not cuda_only):
                    return True
            elif isinstance(ancestor, ast.Try) and _catches_compat_errors(ancestor) and self._calls_amp(ancestor, not cuda_only):
                return True
            child, ancestor = ancestor, self._parents.get(id(ancestor))
        return False

    def _calls_amp(self, code: "ast.AST | List[ast.stmt]", cuda_only: bool) -> bool:
        nodes = [n for part in (code if isinstance(code, list) else [code]) for n in ast.walk(part)]
        return any(isinstance(n, ast.Call) and self._surely_amp_api(n.func) is cuda_only for n in nodes)

    def _surely_amp_api(self, func: ast.AST) -> Optional[bool]:
        """Whether ``func`` is a CUDA-only AMP API (True) or the device-taking one (False), where its spelling from a
        single ``import torch`` (or ``import torch as th``) makes that certain; None elsewhere."""
        root, _, rest = _dotted(func).partition(".")
        if root not in self._torch_modules or self._bindings.get(root) != 1:
            return None
        api = AMP_APIS.get(f"torch.{rest}")
        return None if api is None else api.cuda_only

    @functools.cached_property
    def _parents(self) -> Dict[int, ast.AST]:
        """Each node's parent, by id: built only for a module whose AMP calls the rule may report."""
        return {id(child): node for node in ast.walk(self._tree) for child in ast.iter_child_nodes(node)}

    def _amp_calls(self, api: str) -> List[ast.Call]:
        """Calls of ``autocast``/``GradScaler`` by that name or an import alias, whose arguments the rules bind."""
        names = {api, *(alias for alias, original in self._aliases.items() if original == api)}
        return [call for name in names for call in self.values.calls_named(name) if _binds_arguments(call)]

    def _may_sniff_device_type(self) -> bool:
        """Mirror TL202: a sniff (``"cuda" if c else "cpu"``, or ``if`` branches binding those types), or a CPU
        autocast in the other branch of one; and an autocast given a device type, which a sniff must feed."""
        device_types = [
            call.args[0] if call.args else _keyword_value(call, "device_type")
            for call in self._amp_calls("autocast")
        ]
        cpu_autocast = any(isinstance(d, ast.Constant) and d.value == "cpu" for d in device_types)
        return any(d is not None for d in device_types) and (self._sniff_shaped or cpu_autocast)

    def _may_name_cuda_amp(self, func: ast.AST) -> bool:
        """``torch.cuda.amp.autocast``, ``amp.autocast`` after ``from torch.cuda import amp``, ``autocast`` imported
        from ``torch.cuda.amp`` (or by a star import from it)."""
        root = _dotted(func).split(".")[0] or last_name(func)
        return "cuda" in _dotted(func) or root in self._cuda_imports or "*" in self._cuda_imports

    def _amp_call_may_be_cuda_only(self, call: ast.Call) -> bool:
        keywords = {k.arg: k.value for k in call.keywords}
        if _is_false(keywords.get("enabled")):
            return False  # `_deliberately_cuda`: turned off
        autocast = self._aliases.get(last_name(call.func), last_name(call.func)) == "autocast"
        if self._may_name_cuda_amp(call.func):
            return not (autocast and call.args and _is_false(call.args[0]))  # `torch.cuda.amp.autocast(False)`
        device = call.args[0] if call.args else keywords.get("device_type" if autocast else "device")
        if device is None:
            return not autocast  # `torch.amp.GradScaler()` defaults to "cuda"
        return isinstance(device, ast.Constant) and isinstance(device.value, str) and CUDA_DEVICE.match(device.value) is not None

    def _names_code(self, func: ast.AST, line: int) -> bool:
        """Mirror TL301's ``_names_code``: a plain name every binding of which is an import, a def or a class, one
        of them at module level before ``line``, so that every binding a read there may see is code."""
        if not isinstance(func, ast.Name):
            return False
        name = func.id
        first = self._first_module_code.get(name)
        return first is not None and first < line and self._code_bindings.get(name) == self._bindings.get(name)

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
            for call in ast.walk(value)
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in _PARAMETER_METHODS
        } - {""}
        return not found or any(model == m or model.startswith(m + ".") or m.startswith(model + ".") for m in found)

    @functools.cached_property
    def _assigned_by_target(self) -> Dict[str, List[ast.AST]]:
        """What each dotted target is assigned anywhere in the module (``=``, ``:=``, annotated, augmented; not an
        unpacking, whose targets TL405's ``_assigned_values`` takes for unknown): every value the rule may find for it."""
        found: Dict[str, List[ast.AST]] = {}
        for node in ast.walk(self._tree):
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
        pending = list(self._surely_called(loop.body, self._loop_function[loop]))  # type: ignore[attr-defined]
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
            found = self._called_by_function[function] = self._surely_called(_own_nodes(self._function_nodes[function]), function)
        return found

    def _surely_called(self, code: List[ast.AST], function: Optional[int]) -> Set[int]:
        """Mirror ``CallGraph.resolve_call`` on the calls in ``code`` and the nodes under it, run in ``function``,
        narrower: ``f(...)`` reaches each function named ``f`` that is no method, and ``x.m(...)`` each method named
        ``m`` (by name); ``self.m(...)`` is dispatched to the method ``m`` of the function's class where that class
        defines one only (:meth:`_dispatching_class`)."""
        plain: Set[str] = set()
        by_name: Set[str] = set()
        dispatched: Set[str] = set()
        for node in (n for c in code for n in ast.walk(c)):
            if not isinstance(node, ast.Call):
                continue
            if isinstance(node.func, ast.Name):
                plain.add(node.func.id)
            elif isinstance(node.func, ast.Attribute) and _dotted(node.func):
                receiver = node.func.value.id if isinstance(node.func.value, ast.Name) else None
                if receiver != "cls":  # dispatched to a class method the screen does not follow
                    (dispatched if receiver == "self" else by_name).add(node.func.attr)
        found = {f for name in plain for f in self._plain_functions.get(name, ())}
        found.update(f for name in by_name for f in self._methods_by_name.get(name, ()))
        owner = self._dispatching_class(None if function is None else self._function_nodes[function])
        for name in dispatched if owner is not None else ():
            method = _the_method(owner, name)  # type: ignore[arg-type]
            found.update(f for f in self._methods_by_name.get(name, ()) if self._function_nodes[f] is method)
        return found

    @functools.cached_property
    def _methods_by_name(self) -> Dict[str, List[int]]:
        """Each name of a method (a def directly in a class body) -> the ids of the methods so named."""
        found: Dict[str, List[int]] = {}
        for function, node in enumerate(self._function_nodes):
            if id(node) in self._method_class:
                found.setdefault(self._names[function], []).append(function)
        return found

    def _dispatching_class(self, definition: Optional[ast.AST]) -> Optional[ast.ClassDef]:
        """The class whose methods ``self.m(...)`` in the function ``definition`` surely runs
        (``CallGraph._dispatched``; ``Names.instance_classes`` gives that class): the function is an instance method of
        it that takes ``self`` first and binds that name nowhere else; None otherwise."""
        if definition is None:
            return None
        owner = self._method_class.get(id(definition))
        arguments = definition.args  # type: ignore[attr-defined]
        positional = [*arguments.posonlyargs, *arguments.args]
        if owner is None or not positional or positional[0].arg != "self":
            return None
        if any(_dotted(d.func if isinstance(d, ast.Call) else d) in ("staticmethod", "classmethod") for d in definition.decorator_list):  # type: ignore[attr-defined]
            return None
        if any(node is not positional[0] and _binds_self(node) for node in ast.walk(definition)):
            return None
        return owner

    def _surely_trains(self, loop: ast.AST, caller: Optional[ast.AST]) -> bool:
        """A backward or an optimizer step that ``Loops.trains`` surely finds: in the loop's body, or in a function its
        body calls, transitively: a module-level function called by plain name, or a method of the caller's class
        called on ``self`` (:meth:`_dispatched_method`; a hand-written trainer's ``fit`` loop running
        ``self.train_epoch(...)``). The call graph follows at least those; a wider guess here would hide a finding.
        ``caller`` is the loop's function (None at module level)."""
        calls = [n for statement in loop.body for n in ast.walk(statement) if isinstance(n, ast.Call)]  # type: ignore[attr-defined]
        own = [
            n for statement in loop.body if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))  # type: ignore[attr-defined]
            for n in (statement, *_own_nodes(statement)) if isinstance(n, ast.Call)
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
            calls = [n for f in functions for n in ast.walk(f) if isinstance(n, ast.Call)]
            on_self = [(n, f) for f in functions for n in _own_nodes(f) if isinstance(n, ast.Call)]  # type: ignore[misc]
            plain = [c for c, _ in on_self]
        return False

    def _dispatched_method(self, call: ast.Call, caller: Optional[ast.AST]) -> Optional[ast.AST]:
        """Mirror ``CallGraph._dispatched``, narrower: the def that ``self.m(...)``, made by ``caller``'s own code,
        surely runs: ``caller`` is an instance method whose first parameter is ``self`` and that binds no other
        ``self`` (``Names.instance_classes`` then gives its class), and that class defines one ``m`` (``Names.method``
        takes it); None where unsure."""
        func = call.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"):
            return None
        owner = self._dispatching_class(caller)
        return None if owner is None else _the_method(owner, func.attr)

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
            if any(
                _scope(around) == scope and at < position and _dotted(mode.func.value) in handed | defaults  # type: ignore[attr-defined]
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
        calls = [n for n in ast.walk(loop) if isinstance(n, ast.Call)]
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
        found = self._calls_by_function.get(function)
        if found is None:
            found = self._calls_by_function[function] = [n for n in ast.walk(self._function_nodes[function]) if isinstance(n, ast.Call)]
        return found

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
            root, _, rest = _dotted(call.func).partition(".")
            qualified = root in self._torch_modules and self._bindings.get(root) == 1 and rest in ("set_grad_enabled", "autograd.set_grad_enabled")
            if qualified and call.args and isinstance(call.args[0], ast.Constant) and call.args[0].value is False:
                found.add(scope)
        return found

    def _built_in(self, function: int, mode: ast.Call) -> bool:
        """Mirror ``steps._built_in``: ``m.eval()`` on a name its function binds by a plain assignment (a model it
        builds and evaluates itself), which ``_put_in_eval_by_callees`` leaves to that function."""
        receiver = _dotted(mode.func.value)  # type: ignore[attr-defined]
        return any(
            isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == receiver for t in node.targets)
            for node in ast.walk(self._function_nodes[function])
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


def _counter_name(target: ast.AST, iterable: ast.AST) -> Optional[str]:
    """Mirror TL302's ``_iterated_source``: the name ``range(...)`` or ``reversed(range(...))`` binds, or
    ``enumerate``'s count (no float tensor)."""
    if not isinstance(iterable, ast.Call) or not isinstance(iterable.func, ast.Name):
        return None
    if iterable.func.id == "reversed" and iterable.args:
        inner = iterable.args[0]
        ranged = isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "range"
        return _counter_name(target, inner) if ranged else None
    if iterable.func.id == "enumerate" and isinstance(target, ast.Tuple) and target.elts:
        target = target.elts[0]
    elif iterable.func.id != "range":
        return None
    return target.id if isinstance(target, ast.Name) else None


def _scope(functions: Tuple[int, ...]) -> int:
    """The scope code runs in: its innermost function, else the module."""
    return functions[-1] if functions else MODULE


def _close(names: Set[str], functions: List[str], callees: List[Set[str]]) -> Set[str]:
    """``names`` and the names of every function that calls one of them, transitively."""
    found = set(names)
    changed = bool(found)
    while changed:
        added = {name for name, called in zip(functions, callees) if name not in found and called & found}
        found |= added
        changed = bool(added)
    return found


def _close_over_callees(names: Set[str], functions: List[str], callees: List[Set[str]]) -> Set[str]:
    """``names`` and every name that a function so named calls, transitively."""
    found = set(names)
    changed = True
    while changed:
        reached = set().union(*(called for name, called in zip(functions, callees) if name in found))
        changed = not reached <= found
        found |= reached
    return found


def _sniff_shaped(node: ast.AST) -> bool:
    """TL202's shapes: ``"cuda" if c else "cpu"`` (either way round); an ``if`` with a branch that is one
    assignment of ``"cuda"`` or ``"cpu"`` (``_type_bound_by_branches``)."""
    if isinstance(node, ast.IfExp):
        return {_string(node.body), _string(node.orelse)} == {"cuda", "cpu"}
    branches = [node.body, node.orelse]  # type: ignore[attr-defined]
    return any(
        len(branch) == 1 and isinstance(branch[0], ast.Assign) and len(branch[0].targets) == 1 and _string(branch[0].value) in ("cuda", "cpu")
        for branch in branches
    )


def _string(node: ast.AST) -> Optional[str]:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _binds_arguments(call: ast.Call) -> bool:
    """``amp_apis.bind_arguments`` gives up on ``*args`` and ``**kwargs``: the rule reports no such call."""
    return not any(isinstance(a, ast.Starred) for a in call.args) and all(k.arg is not None for k in call.keywords)


def _is_false(value: Optional[ast.AST]) -> bool:
    return isinstance(value, ast.Constant) and value.value is False


def _own_nodes(function: ast.AST) -> List[ast.AST]:
    """The nodes of ``function`` outside the functions defined in it (``CallGraph``'s callees of a function)."""
    found: List[ast.AST] = []
    pending = list(ast.iter_child_nodes(function))
    while pending:
        node = pending.pop()
        found.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            pending.extend(ast.iter_child_nodes(node))
    return found


_SKIPPED_FIELDS = frozenset({"ctx", "op", "ops", "type_comment", "type_ignores"})  # nodes no condition reads
_CHILD_FIELDS: Dict[type, Tuple[str, ...]] = {}


def _children(node: ast.AST) -> List[ast.AST]:
    """``ast.iter_child_nodes`` without the ``Load``/``Store`` contexts and the operators: a third of the nodes of a
    module, which the walk would otherwise push, pop and dispatch for nothing."""
    kind = type(node)
    fields = _CHILD_FIELDS.get(kind)
    if fields is None:
        fields = _CHILD_FIELDS[kind] = tuple(f for f in kind._fields if f not in _SKIPPED_FIELDS)
    found: List[ast.AST] = []
    for field in fields:
        value = getattr(node, field, None)
        if type(value) is list:
            found.extend(v for v in value if isinstance(v, ast.AST))
        elif isinstance(value, ast.AST):
            found.append(value)
    return found


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


def _optimizer_receiver(receiver: ast.AST) -> "Optional[re.Match[str]]":
    """Mirror ``trainlint.analysis.calls``: a receiver whose last name reads as an optimizer or a scaler, or an item of
    a container named like them (``opts["g"]``)."""
    if isinstance(receiver, ast.Subscript):
        return optimizer_name_match(last_name(receiver.value), indexed=True)
    return optimizer_name_match(last_name(receiver))


def _names_held_out_data(iterable: ast.AST) -> bool:
    """A name in ``iterable`` that TL404 reads as a held-out loader, or a held-out split as a key (``loaders["val"]``)."""
    for node in ast.walk(iterable):
        if isinstance(node, (ast.Name, ast.Attribute)) and HELD_OUT_LOADER_NAME.match(last_name(node)):
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and HELD_OUT_SPLIT.match(node.value):
            return True
    return False


def _in_body(loop: ast.AST, node: ast.AST) -> bool:
    """Whether ``node`` lies in ``loop``'s body (``Loops.body_nodes``, nested code included), not in its header or its
    ``else``, which start before the body and after it."""
    first, last = loop.body[0], loop.body[-1]  # type: ignore[attr-defined]
    start = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
    return (first.lineno, first.col_offset) <= start <= (last.end_lineno, last.end_col_offset)


def _callable_names(value: ast.AST) -> Set[str]:
    """What calling a name bound to ``value`` may run, by last name, as ``Names.resolve_callable`` resolves it but
    wider: the function or class a name or attribute names (``make = BatchLoader``, ``self.evaluate =
    self.validation_step``), what a ``partial`` wraps, and any other call's result as an instance, whose
    ``__call__`` runs (``self.step_fn = Step(opt)``); either arm of a conditional."""
    if isinstance(value, (ast.Name, ast.Attribute)):
        return {last_name(value)}
    if isinstance(value, ast.IfExp):
        return _callable_names(value.body) | _callable_names(value.orelse)
    if isinstance(value, ast.Call):
        if last_name(value.func) == "partial" and value.args and not isinstance(value.args[0], ast.Starred):
            return _callable_names(value.args[0])
        return {"__call__"}
    return set()


def _splits_a_name(call: ast.Call) -> bool:
    """``x.split(...)`` or ``chunk(x, ...)`` with ``x`` a name or an attribute, as TL103's ``_split_into_batches``."""
    named = (ast.Name, ast.Attribute)
    return (isinstance(call.func, ast.Attribute) and isinstance(call.func.value, named)) or (
        bool(call.args) and isinstance(call.args[0], named)
    )


def _catches_compat_errors(statement: ast.Try) -> bool:
    """Mirror TL201's: an ``except`` naming what a missing API raises (``AttributeError``, ``ImportError``...)."""
    kinds = [k for h in statement.handlers if h.type is not None for k in (h.type.elts if isinstance(h.type, ast.Tuple) else [h.type])]
    return not COMPAT_ERRORS.isdisjoint(_dotted(kind) for kind in kinds)


def _dotted(node: ast.AST) -> str:
    """``a.b.c`` for a chain of attributes on a name, else an empty string."""
    parts: List[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    parts.append(node.id)
    return ".".join(reversed(parts))


def _names_no_grad(expression: ast.AST) -> bool:
    """Mirror ``grad_mode._wraps_no_grad``: ``torch.no_grad()``, ``smart_inference_mode()``, named so."""
    target = expression.func if isinstance(expression, ast.Call) else expression
    name = _dotted(target)
    return bool(name) and NO_GRAD_WRAPPER.search(name.rsplit(".", 1)[-1]) is not None


def _binds_self(node: ast.AST) -> bool:
    """``node`` binds the name ``self``: a store, a parameter, a ``def``/``class``/``except``/``match`` name, an import,
    a ``global``/``nonlocal`` declaration."""
    if isinstance(node, ast.Name):
        return node.id == "self" and type(node.ctx) is not ast.Load
    if isinstance(node, ast.arg):
        return node.arg == "self"
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return "self" in node.names
    return "self" in (getattr(node, "name", None), getattr(node, "asname", None), getattr(node, "rest", None))


def _calls_on_self(call: ast.Call) -> bool:
    """``self.m(...)`` or ``cls.m(...)``: what ``CallGraph._dispatched`` resolves through the receiver's class."""
    func = call.func
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("self", "cls")


def _class_scope(class_def: ast.ClassDef) -> List[ast.AST]:
    """The nodes of a class's own scope: its body, into ``if``/``try`` blocks, not into the functions or classes
    it defines (those are listed, their bodies not)."""
    found: List[ast.AST] = []
    pending: List[ast.AST] = list(class_def.body)
    while pending:
        node = pending.pop()
        found.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            pending.extend(ast.iter_child_nodes(node))
    found.reverse()
    return found


def _the_method(owner: ast.ClassDef, name: str) -> Optional[ast.AST]:
    """The one def named ``name`` in ``owner``'s own scope (``Names.method``), its ``if``/``try`` blocks included; None
    where there is none or more than one (which runs depends on the branch taken)."""
    methods = [n for n in _class_scope(owner) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name]
    return methods[0] if len(methods) == 1 else None


def _is_dotted(node: ast.AST) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _sets_eval_mode(call: ast.Call) -> bool:
    """``m.eval()``, or ``m.train(False)`` (any ``False`` among its arguments, to stay a superset)."""
    arguments: List[ast.AST] = [*call.args, *(k.value for k in call.keywords)]
    if call.func.attr == "eval":  # type: ignore[attr-defined]
        return not arguments
    return any(isinstance(a, ast.Constant) and a.value is False for a in arguments)


def _may_count_a_run(loop: ast.AST) -> bool:
    """Mirror TL402's ``_counts_the_run``, wider: a ``while``, or a ``for`` over any ``range(...)`` call."""
    if isinstance(loop, ast.While):
        return True
    iterated = getattr(loop, "iter", None)
    return isinstance(iterated, ast.Call) and last_name(iterated.func) == "range"


def _keyword_value(call: ast.Call, keyword: str) -> Optional[ast.AST]:
    """The value ``call`` passes as ``keyword=``, else None."""
    return next((k.value for k in call.keywords if k.arg == keyword), None)


def _may_add_to_itself(target: ast.AST, value: ast.AST) -> bool:
    """Mirror TL401's ``_self_addend``, wider: ``acc = acc + x``, ``acc = x + acc``, ``acc = 0.9 * acc + 0.1 * x``
    (the target compared by its dotted name; a target that is none, such as ``d[k]``, always may); not
    ``target = noise - latents``, which keeps no running sum."""
    if not isinstance(value, ast.BinOp) or not isinstance(value.op, ast.Add):
        return False
    name = _dotted(target)
    return not name or _scales(value.left, name) or _scales(value.right, name)


def _scales(term: ast.AST, name: str) -> bool:
    """``term`` is the dotted ``name`` itself, or it multiplied or divided by something (``0.9 * acc``, ``acc / 2``)."""
    if _dotted(term) == name:
        return True
    if isinstance(term, ast.BinOp) and isinstance(term.op, (ast.Mult, ast.Div)):
        return _dotted(term.left) == name or (isinstance(term.op, ast.Mult) and _dotted(term.right) == name)
    return False


def _history_targets(targets: List[ast.AST], value: ast.AST) -> List[str]:
    """The names a module-level assignment may bind to a history-shaped value: ``xs = []``, and, wider than
    TL402's pairing, every name of ``a, b = [], 0`` where some element of the value is one."""
    names: List[str] = []
    for target in targets:
        if isinstance(target, ast.Name) and _history_shaped(value):
            names.append(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)):
            if any(map(_history_shaped, value.elts)):
                names.extend(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


def _history_shaped(value: ast.AST) -> bool:
    """Mirror TL402's ``_history_shape``, wider: an empty list, ``list()``, any dict (comprehension) or ``defaultdict``."""
    if isinstance(value, ast.List):
        return not value.elts
    if isinstance(value, (ast.Dict, ast.DictComp)):
        return True
    return isinstance(value, ast.Call) and last_name(value.func) in ("list", "defaultdict")


def _is_self_attribute(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _plain_root(storage: Optional[ast.AST]) -> Optional[str]:
    """The name a value is kept in when that is a plain name (``total``, ``d`` of ``d[k]``); None for an attribute."""
    while isinstance(storage, ast.Subscript):
        storage = storage.value
    return storage.id if isinstance(storage, ast.Name) else None


def _may_make_a_list(value: ast.AST) -> bool:
    """``[]``, ``list()``, or a display an unpacking may take one from (``a, b = [], []``)."""
    if isinstance(value, (ast.List, ast.Tuple)):
        return True
    return isinstance(value, ast.Call) and last_name(value.func) == "list"


def _says_out_of_memory(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and bool(OOM_MESSAGE.search(node.value))


def _is_zero(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == 0 and not isinstance(node.value, bool)


def _is_index_key(node: object) -> bool:
    return isinstance(node, ast.Constant) and node.value in _INDEX_KEYS


def screened_codes(tree: ast.AST, codes: Sequence[str], path: str = "") -> List[str]:
    """The rules among ``codes`` whose structural condition holds on ``tree`` (or that declare none); ``path`` is the
    file's, for what its name says (a file of tests)."""
    conditions = [(code, ENTRIES_BY_CODE[code].structure) for code in codes]
    if all(condition is None for _, condition in conditions):
        return list(codes)
    features = Features(tree, path)
    return [code for code, condition in conditions if condition is None or condition(features)]
