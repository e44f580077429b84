"""The one walk of CPython's tree that gathers every fact the structural conditions read.

The walk records; it answers nothing. Each family of rules asks its questions of these facts in a module
of its own (``step_memory``, ``evaluation``, ``devices``, ``loaders``, ``batches``), and a few questions
that several families ask are answered here, beside the facts they read.
"""

from __future__ import annotations

import ast
import functools
import itertools
import re
from typing import Dict, FrozenSet, Iterator, List, NamedTuple, Optional, Set, Tuple

from trainlint.prescreen.nodes import (
    _INDEX_KEYS,
    _argument_values,
    _binds_self,
    _callable_names,
    _class_scope,
    _counter_name,
    _dotted,
    _history_shape,
    _history_targets,
    _in_body,
    _is_dotted,
    _is_false,
    _is_index_key,
    _is_self_attribute,
    _is_zero,
    _may_add_to_itself,
    _may_count_a_run,
    _names_held_out_data,
    _names_no_grad,
    _optimizer_receiver,
    _paired,
    _plain_root,
    _scope,
    _sets_eval_mode,
    _sniff_shaped,
    _the_method,
)
from trainlint.prescreen.traversal import _calls_below, _children, _header_parts, _nodes_of
from trainlint.prescreen.values import MODULE, ModuleValues, last_name, target_names
from trainlint.step_words import (
    BACKWARD_METHODS,
    CUDA_ONLY_LIBRARIES,
    EVALUATION_STEP,
    GRAD_FREE_HOOK,
    ITERATION_WRAPPERS,
    SEQUENCE_MAKERS,
    TEST_FRAMEWORKS,
    collected_as_tests,
    names_a_training_hook,
)

# Mirror rules/batches/tl302_float_index_tensors.py: what creates a float tensor, what takes indices.
_FLOAT_CASTS = frozenset({"float", "double", "half", "bfloat16"})
_FLOAT_MAKERS = frozenset(
    {"FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "Tensor", "from_numpy", "loadtxt", "genfromtxt"}
)
_SHAPED_MAKERS = frozenset({"zeros", "ones", "empty"})  # mirror TL302's SHAPED_FACTORIES
_FLOAT_WORD = re.compile(r"float|double|half|single", re.IGNORECASE)  # `float16`, `torch.FloatTensor` (FLOAT_DTYPES)
_INDEX_SINKS = frozenset({"Embedding", "EmbeddingBag", "embedding", "embedding_bag", "cross_entropy", "CrossEntropyLoss", "nll_loss", "NLLLoss"})
_INDEX_FUNCTIONS = frozenset({"embedding", "embedding_bag", "cross_entropy", "nll_loss"})  # functional: given the indices
# Modules that take indices when called (`self.emb(x)`, `criterion(out, y)`): which positional argument.
_INDEX_MODULES = {"Embedding": 0, "EmbeddingBag": 0, "CrossEntropyLoss": 1, "NLLLoss": 1}
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
# Mirror rules/amp/tl201_cuda_amp_on_other_device.py and rules/loaders/tl103_dataset_on_accelerator.py: the calls
# those rules start from, by their last name (an import alias counts as the name it binds).
_AMP_APIS = frozenset({"autocast", "GradScaler"})
_LIST_GROWERS = frozenset({"append", "extend", "insert"})  # mirror the placement's LIST_GROWERS
# What TrainingLoops strips from a loop's iterable before asking whether it is a loader, by last name.
_ITERATION_WRAPPERS = frozenset(wrapper.rsplit(".", 1)[-1] for wrapper in ITERATION_WRAPPERS)
# Functions whose moves TL103 takes as per batch already (see its `_per_batch`).
_PER_ITEM_FUNCTIONS = frozenset({"__getitem__", "__iter__", "collate", "collate_fn"})
# Mirror trainlint.analysis.grad_mode's NO_GRAD_CONTEXTS, after `torch.`
_NO_GRAD_CONTEXTS = frozenset({"no_grad", "inference_mode", "autograd.no_grad", "autograd.grad_mode.no_grad"})
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


class TreeFacts:
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
        self._index_modules: Dict[str, Set[int]] = {}  # `self.emb = nn.Embedding(...)`: the target, its index arguments
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
        self._six_argument_callees: Set[str] = set()  # callees given six positional arguments or more, by last name
        self._sliced_in_loops: Set[str] = set()  # last names of `x[i:i + bs]`, `self.x[k]` in a loop: TL103's batching by hand
        self._pinned_tensors: List[ast.Call] = []  # `x.pin_memory()`: raises without CUDA wherever CUDA is not certain
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
        self._tensor_type_modules: Set[str] = set()  # `x` of `x.FloatTensor`: `torch.cuda` under another name?
        # a file of tests, where TL404 takes `def test_*` for a test: by its name, or an import of pytest/unittest
        self._holds_tests = collected_as_tests(path)
        self._tree = tree
        self._walk(tree)
        self._aliases = _import_aliases(self._imports_in_order)
        for *_, local, qualified in self._imports_in_order:  # what each name may stand for, every import kept
            self._imported.setdefault(local, set()).add(qualified)
        self.values.record_aliases(self._aliases)
        self._follow_import_aliases()
        self._follow_aliased_partials()
        self._resolve_calls_through_bindings()
        self.values.record_grad_free_spans(self._surely_grad_free_spans())

    @functools.cached_property
    def _all_nodes(self) -> List[ast.AST]:
        """The module's nodes (:func:`_nodes_of`), listed once for the questions that look through the whole tree."""
        return _nodes_of(self._tree)

    def _calls_in(self, node: ast.AST, *, into_functions: bool = True) -> List[ast.Call]:
        """:func:`_calls_below`, memoised: TL404 asks for the calls of the same loops and functions once per loop."""
        key = (id(node), into_functions)
        found = self._calls_memo.get(key)
        if found is None:
            found = self._calls_memo[key] = _calls_below(node, into_functions=into_functions)
        return found

    def _scope_at(self, node: ast.AST, functions: Tuple[int, ...]) -> int:
        """The scope ``node`` is evaluated in: the innermost function's, or the one around a def for the nodes of its
        decorators, defaults and annotations (as ``Names`` reads them; ``CallGraph`` still counts their calls as the
        def's own, and so does the walk's ``functions``)."""
        owner = self._scoped_outside.get(id(node))
        return _scope(functions) if owner is None else self.values.parents[owner]

    def _bind(self, *names: str) -> None:
        for name in names:
            self._bindings[name] = self._bindings.get(name, 0) + 1

    def _walk(self, tree: ast.AST) -> None:
        self._following: Set[Tuple[str, str]] = set()  # (question, name) pairs `_all_bindings` is following
        self.values = ModuleValues()  # every binding by scope: what TL401's and TL104's values may be
        self._method_class: Dict[int, ast.ClassDef] = {}  # ids of the defs directly in a class body -> the class
        self._function_classes: List[Optional[str]] = []  # function id -> the class it is a method of
        # class name -> what its bases may be, by last name, as `_callable_names` reads them (`Base`; `make_base()`)
        self._class_bases: Dict[str, Set[str]] = {}
        self._class_names: Set[str] = set()  # classes defined anywhere in the module
        self._counters: Dict[str, int] = {}  # `for i in range(n)`, `for i, x in enumerate(xs)`: bindings of integers
        self._augmented: Dict[str, int] = {}  # `x += v` by name: a binding TL302 follows to nothing
        self._comprehension_targets: Dict[str, int] = {}  # names a comprehension binds, how often: no binding outside it
        self._comprehension_bound: Set[Tuple[int, str]] = set()  # (scope around the comprehension, a target it binds)
        self._counted_iterations: Set[Tuple[int, str, int]] = set()  # (scope, counter, id of the iterable) of a `for` loop
        self._comprehension_reads: Dict[int, bool] = {}  # ids of reads of a comprehension's own target -> counted by range
        self._code_bindings: Dict[str, int] = {}  # bindings by an import, an undecorated def or a class
        self._first_module_code: Dict[str, int] = {}  # name -> line of the first module-level import/def/class binding it
        self._module_code_bindings: Dict[str, int] = {}  # name -> how many module-level imports, defs and classes bind it
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
        # `xs.append(v)`, with `v`: two loops deep in its function (maybe a local history), in one loop counting a run,
        # in a function (xs may be global)
        self._local_appends: List[Tuple[str, _Place, ast.AST]] = []
        self._counted_appends: List[Tuple[str, _Place, ast.AST]] = []
        self._appends_in_functions: List[Tuple[str, _Place, ast.AST]] = []
        self._module_lists: Set[str] = set()  # names a module-level statement binds to a list
        self._lists_bound_in_functions: Set[str] = set()  # ... a function binds: module-level where it says `global`
        # `self.x = []` (False) or a dict of lists (True) in an `__init__`; (x, whether `self.x[k]`) -> each append's place
        self._history_attributes: Set[Tuple[str, bool]] = set()
        self._appended_attributes: Dict[Tuple[str, bool], List[Tuple[_Place, ast.Call]]] = {}
        self._classes: List[ast.ClassDef] = []  # every class, in the walk's order
        self._mode_calls: List[Tuple[ast.AST, Tuple[int, ...], Tuple[int, int]]] = []  # `m.eval()`: call, enclosing functions, position
        self._in_tests: Set[int] = set()  # functions named `test_*`
        self._grad_free: Set[int] = set()  # functions decorated like `@torch.no_grad()`
        self._grad_free_hooks: Set[int] = set()  # functions named like the hooks Lightning runs without grad
        self._no_grad_blocks: List[Tuple[Tuple[int, ...], Tuple[int, int], Tuple[int, int]]] = []  # functions, start, end
        # `with <no_grad-like>:` blocks and defs decorated so, with the expressions naming the context; defs named like
        # an evaluation step (context None): where GraphValues may find code running without grad
        self._grad_free_candidates: List[Tuple[Optional[ast.AST], ast.AST]] = []
        self._grad_switches: List[Tuple[ast.Call, int]] = []  # `torch.set_grad_enabled(False)` as a statement, its scope
        self._stored_attributes: Set[str] = set()  # `x.name = v` (any store): a `self.name(...)` may run what it holds
        self._loops_for_eval: List[Tuple[ast.AST, Tuple[int, ...], bool]] = []  # loops for TL404: node, functions, held out
        self._calls_memo: Dict[Tuple[int, bool], List[ast.Call]] = {}  # `_calls_in`'s answers, by node id and reach
        # ids of the nodes of a def's decorators, defaults and annotations -> the def (`_scope_at`: the scope around it)
        self._scoped_outside: Dict[int, int] = {}
        self._called: Set[str] = set()  # last names of every callee
        # `make = BatchLoader`, `self.update = partial(sgd_update, ...)`, `self.step_fn = Step(...)`: by the target's
        # last name, what calling it may run (see `_callable_names`)
        self._callable_values: Dict[str, Set[str]] = {}
        self._runs: Dict[str, FrozenSet[str]] = {}  # memo of `_runs_of`
        self._runs_pending: Dict[str, Set[str]] = {}  # what `_runs_of` has found so far of the names it is following
        self._runs_cuts: Set[str] = set()  # pending names met again: answers that depend on them are not memoised
        self._lambda_results: Dict[str, List[ast.AST]] = {}  # `make = lambda: sgd_step`: what calling `make` returns
        self._named_calls_assigned: List[Tuple[str, ast.Call]] = []  # `update = bind(sgd, lr)`: target, call of a name
        self._lambdas: List[ast.AST] = []  # every lambda: its own scope to the analyses, not its function's
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
        # (line, column, position in the statement, local name, what it names) of each name an absolute import binds:
        # `_import_aliases` reads them in source order, as the analyses' ImportTable does
        self._imports_in_order: List[Tuple[int, int, int, str, str]] = []
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
                index = _single_index(node.slice)  # type: ignore[attr-defined]
                if isinstance(node.value, ast.Name) and index is not None:  # type: ignore[attr-defined]
                    self._list_subscripts.append((node.value.id, index))  # type: ignore[attr-defined]
                if loops and isinstance(node.value, (ast.Name, ast.Attribute)):  # type: ignore[attr-defined]
                    self._sliced_in_loops.add(last_name(node.value))  # type: ignore[attr-defined]
            elif kind is ast.AugAssign:
                self.values.record_assignment([node.target], node.value, _scope(functions))  # type: ignore[attr-defined]
                if isinstance(node.target, ast.Name):  # type: ignore[attr-defined]
                    self._augmented[node.target.id] = self._augmented.get(node.target.id, 0) + 1  # type: ignore[attr-defined]
                if isinstance(node.op, (ast.Add, ast.Sub)) and not isinstance(node.value, ast.Constant):  # type: ignore[attr-defined]
                    self._accumulated(_Place(functions, loops, local_loops), node.value, node.target)  # type: ignore[attr-defined]
            elif kind is ast.Assign or kind is ast.AnnAssign or kind is ast.NamedExpr:
                self._assigned(node, _Place(functions, loops, local_loops))
            elif kind is ast.ImportFrom or kind is ast.Import:
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
                if EVALUATION_STEP.match(name):
                    self._grad_free_candidates.append((None, node))
                if names_a_training_hook(name):
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
                in_class_body = owner is not None and any(node is statement for statement in owner.body)  # type: ignore[attr-defined]
                if self.values.record_function(name, _scope(functions), owner is not None, in_class_body) != index:
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
                    self._grad_free_candidates.extend((d, node) for d in node.decorator_list)  # type: ignore[attr-defined]
                elif GRAD_FREE_HOOK.match(name):
                    self._grad_free_hooks.add(index)
                self._scoped_outside.update((id(part), index) for root in _header_parts(node) for part in _nodes_of(root))
                inner = (functions + (index,), loops, 0, name in _PER_ITEM_FUNCTIONS)
                stack.extend((child, *inner) for child in _children(node))
                continue
            elif kind is ast.Lambda:  # its parameters are recorded in the scope around it: wider, never narrower
                self._lambdas.append(node)
                around = self._scope_at(node, functions)
                self.values.record_scope_of_its_own(node, around)
                for argument in _nodes_of(node.args):  # type: ignore[attr-defined]
                    if isinstance(argument, ast.arg):
                        self.values.record_opaque(argument.arg, around)
                self.values.record_lambda_defaults(node.args, around)  # type: ignore[attr-defined]
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
                    self._bind(capture)
                    self.values.record_opaque(capture, _scope(functions))
            elif kind is ast.ClassDef:
                self._classes.append(node)  # type: ignore[arg-type]
                self.values.record_scope_of_its_own(node, _scope(functions))
                self._bind(node.name)  # type: ignore[attr-defined]
                self._class_names.add(node.name)  # type: ignore[attr-defined]
                self._bind_code([node.name], node, module_statements, functions)  # type: ignore[attr-defined]
                self.values.record_class(node.name, _scope(functions))  # type: ignore[attr-defined]
                own = _class_scope(node)  # type: ignore[arg-type]  # its `if`/`try` blocks too (`Names.method_class`)
                for statement in own:
                    if isinstance(statement, ast.Assign) or (isinstance(statement, ast.AnnAssign) and statement.value):
                        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                        # `self.x` reads a class attribute too (`Names.attribute_bindings`): a stored attribute
                        self._stored_attributes.update(name for target in targets for name in target_names(target))
                        self.values.record_class_attribute(targets, statement.value, _scope(functions))  # type: ignore[arg-type]
                    else:  # a loop's, a `with`'s or a walrus's target in the class body is a class attribute too
                        self._stored_attributes.update(_class_body_targets(statement))
                        # a walrus has a value the placement's `trace` follows, in the body or in the header of a
                        # method or class defined there (`def __len__(self, _=(table := ...))`), which runs in the body
                        headers = _header_parts(statement) if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else []
                        for walrus in [statement, *(n for part in headers for n in _nodes_of(part))]:
                            if isinstance(walrus, ast.NamedExpr):
                                self._stored_attributes.update(target_names(walrus.target))
                                self.values.record_class_attribute([walrus.target], walrus.value, _scope(functions))
                self._method_class.update((id(n), node) for n in own if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))  # type: ignore[misc]
                self._class_bases.setdefault(node.name, set()).update(*map(_callable_names, node.bases))  # type: ignore[attr-defined]
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
                around = self._scope_at(node, functions)
                self.values.record_scope_of_its_own(node, around)
                held_out = any(_names_held_out_data(g.iter) for g in node.generators)  # type: ignore[attr-defined]
                self._loops_for_eval.append((node, functions, held_out))
                self._comprehension_scope(node)  # type: ignore[arg-type]
                for generator in node.generators:  # type: ignore[attr-defined]
                    self.values.record_iteration(generator.target, generator.iter, around)
                    self._comprehension_bound.update((around, name) for name in target_names(generator.target))
                per_batch = True
            elif kind is ast.Attribute:
                if type(node.ctx) is not ast.Load:  # type: ignore[attr-defined]
                    self._stored_attributes.add(node.attr)  # type: ignore[attr-defined]
                # `torch.cuda.FloatTensor` named anywhere: a call through any alias of it moves data
                if node.attr.endswith("Tensor") and last_name(node.value) == "cuda":  # type: ignore[attr-defined]
                    self._names_cuda_tensor_type = True
                elif node.attr.endswith("Tensor") and isinstance(node.value, ast.Name):  # type: ignore[attr-defined]
                    self._tensor_type_modules.add(node.value.id)  # type: ignore[attr-defined]  # `gpu.FloatTensor`
                if node.attr in _AMP_APIS and id(node) not in self._called_funcs:  # type: ignore[attr-defined]
                    self._amp_references.append(node)
            elif kind is ast.IfExp or kind is ast.If:
                self._sniff_shaped = self._sniff_shaped or _sniff_shaped(node)
            elif kind is ast.With or kind is ast.AsyncWith:
                for item in node.items:  # type: ignore[attr-defined]
                    for bound_name in target_names(item.optional_vars) if item.optional_vars else ():
                        self.values.record_context(bound_name, item.context_expr, _scope(functions))
                if any(_names_no_grad(i.context_expr) for i in node.items):  # type: ignore[attr-defined]
                    self._grad_free_candidates.extend((i.context_expr, node) for i in node.items)  # type: ignore[attr-defined]
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
        scope = self._scope_at(call, here.functions)
        self.values.record_call(call, scope)
        self._pinning_call(call, name, here.functions)
        if name == "add_argument":
            self.values.record_option(call)
        if not per_batch:
            self._whole_calls.append((call, scope))
        func = call.func
        if not isinstance(func, ast.Attribute):
            return
        method = func.attr
        if method in _LIST_GROWERS:
            self.values.record_growth(func.value, _argument_values(call), scope)  # keywords too: `_appended_trace`
        training = backward = False
        if method in BACKWARD_METHODS:
            training = backward = True
            self.values.record_backward(call)
        elif method == "step" and _optimizer_receiver(func.value):
            training = True
        elif method in ("append", "extend"):
            self.appends = True
            element = _appended_element(call) if method == "append" else None
            if element is not None and not isinstance(element, ast.Constant):
                self._accumulated(here, element, func.value)
                self.values.record_append(func.value, element, scope)
            if method == "append" and len(call.args) + len(call.keywords) == 1:
                self._appended(call, here)
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
        elif len(call.args) >= 6:  # a DataLoader's sixth positional argument, by its name or an import's alias
            self._six_argument_callees.add(name)

    def _pinning_call(self, call: ast.Call, name: str, functions: Tuple[int, ...]) -> None:
        """What TL104 reads: ``x.pin_memory()`` (not in a function named like ``pin_memory``, the DataLoader's
        pinning protocol, which the rule leaves alone), a ``pin_memory=`` value, a DataLoader's eighth positional
        argument."""
        if name == "pin_memory" and isinstance(call.func, ast.Attribute) and not call.args and not call.keywords:
            if not any("pin_memory" in self._names[f] for f in functions):
                self._pinned_tensors.append(call)
        self._pin_arguments.extend((call.func, k.value, False) for k in call.keywords if k.arg == "pin_memory")
        leading = call.args[:8]
        if len(leading) == 8 and not any(isinstance(a, ast.Starred) for a in leading):
            self._pin_arguments.append((call.func, leading[7], True))

    def _pin_key(self, key: Optional[ast.AST], value: ast.AST) -> None:
        """``{"pin_memory": v}`` (a DataLoader's ``**kwargs``) or ``d["pin_memory"] = v``: the key read, ``v`` kept;
        ``d["pin_memory",] = v`` too, whose one element LibCST's subscript holds as the key."""
        if isinstance(key, ast.Tuple) and len(key.elts) == 1:
            key = key.elts[0]
        if isinstance(key, ast.Constant) and key.value == "pin_memory":
            self._pin_values.append(value)

    def _bind_code(self, names: List[str], node: ast.AST, module_statements: Set[ast.AST], functions: Tuple[int, ...]) -> None:
        """Bindings TL301's model test takes for code (an import, a def, a class), and where the module makes them: on
        the line a statement's binding is complete (a class after its body, a def after its header: ``Names`` sees
        no binding of its name in them)."""
        for name in names:
            self._code_bindings[name] = self._code_bindings.get(name, 0) + 1
            if not functions and node in module_statements:
                line = _bound_from(node)
                self._first_module_code[name] = min(line, self._first_module_code.get(name, line))
                self._module_code_bindings[name] = self._module_code_bindings.get(name, 0) + 1

    def _float_or_index_call(self, call: ast.Call, here: "_Place") -> None:
        name = last_name(call.func)
        # a cast method (`x.float()`, `np.double(3)`, `torch.Tensor.float(raw)`: `_call_source` takes any attribute
        # call so named); the builtin `float(x)` makes a number
        if (name in _FLOAT_CASTS and (not call.args or isinstance(call.func, ast.Attribute))) or name in _FLOAT_MAKERS:
            self.creates_float = True
        elif name in _SHAPED_MAKERS and not any(k.arg == "dtype" for k in call.keywords):
            self.creates_float = True  # `torch.zeros(n, length)`: the default dtype, float32
        elif name in ("to", "type", "astype") and any(_FLOAT_WORD.search(ast.dump(a)) for a in call.args):
            self.creates_float = True
        if isinstance(call.func, (ast.Name, ast.Attribute)) and (call.args or call.keywords):
            self._calls.append((_dotted(call.func), call, here.functions))
        self._index_call(call, name)
        for keyword in call.keywords:
            if keyword.arg == "dtype" and _FLOAT_WORD.search(ast.dump(keyword.value)):
                self.creates_float = True
            elif keyword.arg in _INDEX_KEYS:
                self.takes_indices = True
                self._index_values.append(keyword.value)

    def _follow_import_aliases(self) -> None:
        """Mirror the analyses' qualified names where the walk read last names: a float maker or dtype, or an index
        function or module, imported under another name (``from torch import float32 as f32``, ``embedding as
        lookup``, ``Embedding as E``). The walk meets a module's imports last, so their aliases are read once it is
        done: any alias of a float maker or dtype makes floats (wider), and the calls of an alias of an index function
        or module are read as the original's."""
        originals = set(self._aliases.values())
        if originals & (_FLOAT_CASTS | _FLOAT_MAKERS | _SHAPED_MAKERS) or any(map(_FLOAT_WORD.search, originals)):
            self.creates_float = True
        for _, call, _ in self._calls:
            original = self._aliases.get(call.func.id) if isinstance(call.func, ast.Name) else None
            if original in _INDEX_SINKS:
                self._index_call(call, original)
        if any(self._aliases.get(name, name) == "DataLoader" for name in self._six_argument_callees):
            self.may_fork_workers = True
        if not self._tensor_type_modules.isdisjoint(self._cuda_imports):  # `from torch import cuda as gpu`
            self._names_cuda_tensor_type = True
        for callee, targets in self._calls_assigned:  # `self.emb = nn.Embedding(...)`, `self.emb = E(...)`
            made = self._aliases.get(callee, callee) if "." not in callee else callee.rsplit(".", 1)[-1]
            for target in targets if made in _INDEX_MODULES else ():  # a name may hold an embedding and a loss
                self._index_modules.setdefault(target, set()).add(_INDEX_MODULES[made])

    def _index_call(self, call: ast.Call, name: str) -> None:
        """A call of ``name`` that takes indices: an embedding or an index loss (TL302's sinks)."""
        if name in _INDEX_SINKS:
            self.takes_indices = True
        if name in _INDEX_FUNCTIONS:  # a module class's arguments are its sizes and weights; its calls take the indices
            argument = 1 if name in ("cross_entropy", "nll_loss") else 0  # the loss's target, the embedding's input
            keyword = "target" if argument else "input"
            self._functional_index_values.extend((call.func, k.value) for k in call.keywords if k.arg == keyword)
            starred = any(isinstance(a, ast.Starred) for a in call.args)  # the rule counts positions without them
            self._functional_index_values.extend((call.func, a) for a in (call.args if starred else call.args[argument : argument + 1]))

    def _accumulated(self, here: "_Place", value: ast.AST, storage: Optional[ast.AST]) -> None:
        """A sum, store or append of ``value`` into ``storage`` (the target, or the list appended to)."""
        self.accumulates = True
        self._accumulations.append((here, value, _plain_root(storage)))

    def _assigned(self, node: ast.AST, here: "_Place") -> None:
        value = node.value  # type: ignore[attr-defined]
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]  # type: ignore[attr-defined]
        scope = self._scope_at(node, here.functions)  # a walrus in a def's default binds around the def
        if value is None:  # `x: int`: a name annotated, holding nothing yet
            for name in target_names(node.target):  # type: ignore[attr-defined]
                self.values.record_inert(name, scope)
            return
        (self._lists_bound_in_functions if scope != MODULE else self._module_lists).update(_history_targets(targets, value))
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
        if isinstance(value, ast.Call) and _dotted(value.func):
            self._calls_assigned.append((_dotted(value.func), [t for t in map(_dotted, targets) if t]))
        shape = _history_shape(value) if here.functions and self._names[here.functions[-1]] == "__init__" else None
        if shape is not None:
            self._history_attributes.update((t.attr, shape == "dict") for t in targets if _is_self_attribute(t))
        for target, target_value in (pair for target in targets for pair in _paired(target, value)):
            if isinstance(target_value, ast.Lambda) and isinstance(target, (ast.Name, ast.Attribute)):
                self._lambda_results.setdefault(last_name(target), []).append(target_value.body)
            if isinstance(target, (ast.Name, ast.Attribute)) and isinstance(target_value, ast.Call) and isinstance(target_value.func, ast.Name):
                self._named_calls_assigned.append((last_name(target), target_value))
            callables = _callable_names(target_value) if isinstance(target, (ast.Name, ast.Attribute)) else ()
            if callables:
                self._callable_values.setdefault(last_name(target), set()).update(callables)

    def _surely_grad_free_spans(self) -> List[Tuple[Tuple[int, int], Tuple[int, int]]]:
        """Mirror ``GraphValues.runs_without_grad``, narrower: the spans of the code it surely takes for running without
        grad, decided once every binding is known: a ``with`` or a decorated def whose context is one of
        ``grad_mode.NO_GRAD_CONTEXTS`` (or ``set_grad_enabled(False)``) under a ``torch`` that one ``import torch``
        binds, the qualified name the rule resolves then certain; a def named like an evaluation step."""
        return [
            ((node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset))  # type: ignore[attr-defined]
            for context, node in self._grad_free_candidates
            if context is None or self._surely_disables_grad(context)
        ]

    def _surely_disables_grad(self, context: ast.AST) -> bool:
        call = context if isinstance(context, ast.Call) else None
        rest = self._under_torch(call.func if call is not None else context)
        if rest in _NO_GRAD_CONTEXTS:
            return True
        return rest == "set_grad_enabled" and call is not None and bool(call.args) and _is_false(call.args[0])

    def _under_torch(self, node: ast.AST) -> Optional[str]:
        """``node`` spelled ``torch.<rest>`` under a ``torch`` that one ``import torch`` (or ``import torch as th``)
        binds: ``rest``, the qualified name the analyses resolve then certain; None elsewhere."""
        root, _, rest = _dotted(node).partition(".")
        if not rest or root not in self._torch_modules or self._bindings.get(root) != 1:
            return None
        return rest

    def _resolve_calls_through_bindings(self) -> None:
        """Widen what each function and loop calls to what the analyses' ``Names.resolve_callable`` may resolve
        those calls to: through the bindings of the callee's last name (``self.update = sgd_update``; a ``partial``;
        an instance's ``__call__``; a factory's closure), a parameter's arguments, and a class's construction (``Evaluation(model, loader)`` runs its
        ``__init__``), transitively. Decided after the walk, once every binding is known; callees stay matched by
        last name, so ``__init__`` stands for every class's."""
        for callees in itertools.chain(self._callees, self._loop_calls.values(), [self._called]):
            callees |= self._may_call(callees)

    def _may_call(self, names: Set[str]) -> Set[str]:
        """The last names a call of any of ``names`` may run (:meth:`_runs_of` each)."""
        found: Set[str] = set()
        for name in names:
            found |= self._runs_of(name)
        return found

    def _runs_of(self, name: str) -> FrozenSet[str]:
        """The last names a call of ``name`` may run, itself included (see :meth:`_resolve_calls_through_bindings`), the
        import aliases' original names too; a parameter's through what it is given (its defaults, a lambda's too,
        what the module's calls of its function pass: ``set_step(sgd_step)``), and ``f()`` through what every function
        a call of ``f`` may run returns (``get = partial(pick, ...)``, ``picker = Picker()``: ``__call__``'s).

        That last step asks this question of ``f`` in turn. A name met again while it is being answered
        (``loss_fn = loss_fn()``) gives what is found of it so far, and its answer is grown again until it no
        longer grows (a least fixed point); an answer that leaned on another name still pending is not memoised."""
        known = self._runs.get(name)
        if known is not None:
            return known
        so_far = self._runs_pending.get(name)
        if so_far is not None:
            self._runs_cuts.add(name)
            return frozenset(so_far)
        outer_cuts, self._runs_cuts = self._runs_cuts, set()
        found = {name}
        self._runs_pending[name] = found
        try:
            while True:
                self._runs_cuts.discard(name)
                before = len(found)
                self._grow_runs(found)
                if name not in self._runs_cuts or len(found) == before:
                    break
        finally:
            del self._runs_pending[name]
        cuts = self._runs_cuts - {name}
        self._runs_cuts = outer_cuts | cuts
        answer = frozenset(n for n in found if not n.endswith("()"))
        if not cuts:
            self._runs[name] = answer
        return answer

    def _grow_runs(self, found: Set[str]) -> None:
        """Close ``found`` over what calling each of its names may run (:meth:`_runs_of`)."""
        pending = list(found)
        while pending:
            current = pending.pop()
            more = set(self._callable_values.get(current, ()))
            if current in self._aliases:
                more.add(self._aliases[current])
            if current in self._class_names:
                more |= _CONSTRUCTION
            if current.endswith("()"):
                called = current[:-2]
                runs = {called, *(self._runs_of(called) if called else ())}
                given = [v for n in runs for v in (*self.values.returns_of(n), *self._lambda_results.get(n, ()))]
            else:
                given = self.values.parameter_sources(current)
            for value in given:
                more |= _callable_names(value)
            more -= found
            found |= more
            pending.extend(more)

    def _follow_aliased_partials(self) -> None:
        """``update = bind(sgd_update, lr)`` after ``from functools import partial as bind``: calling ``update`` runs
        ``sgd_update`` (``Names._is_partial`` reads the qualified name), known once the walk has read the imports."""
        for target, call in self._named_calls_assigned:
            if self._aliases.get(call.func.id) == "partial" and call.args and not isinstance(call.args[0], ast.Starred):  # type: ignore[attr-defined]
                self._callable_values.setdefault(target, set()).update(_callable_names(call.args[0]))

    @functools.cached_property
    def _callers_by_callee(self) -> Dict[str, Set[str]]:
        """For each last name a call may run, the last names of the calls that may run it (:meth:`_may_call`); ""
        for a call whose callee is a call itself (``partial(to_device, device=d)(x)``, ``mover(d)(x)``)."""
        found: Dict[str, Set[str]] = {}
        for name in self.values.called_names():
            for callee in self._may_call({name}):
                found.setdefault(callee, set()).add(name)
        for call in self.values.calls_named(""):
            for callee in self._may_call(_callable_names(call.func)):
                found.setdefault(callee, set()).add("")
        return found

    def _calls_that_may_run(self, function: str) -> List[Tuple[ast.Call, int]]:
        """The calls that may run a function of this name, with their scopes: by its name, or through a binding."""
        names = self._callers_by_callee.get(function, set()) | {function}
        return [found for name in sorted(names) for found in self.values.scoped_calls_named(name)]

    def _appended(self, call: ast.Call, here: "_Place") -> None:
        """Mirror TL402's ``_appended``: an append to ``self.x`` or ``self.x[k]`` (a list's, a dict of lists'), or to a
        name inside two loops of its own function, or inside one that counts the steps of a run (TL402's
        ``_counts_the_run``, mirrored wider), or in a function, with the element (LibCST's ``args[0]``: ``*v``,
        ``object=v`` too)."""
        receiver = call.func.value  # type: ignore[attr-defined]
        element = _argument_values(call)[0]
        of_lists = isinstance(receiver, ast.Subscript)
        if of_lists:
            receiver = receiver.value
        if _is_self_attribute(receiver):
            self._appended_attributes.setdefault((receiver.attr, of_lists), []).append((here, call))  # type: ignore[attr-defined]
        elif isinstance(receiver, ast.Name) and not of_lists:
            if here.local_loops == 1 and _may_count_a_run(here.loops[-1]):
                self._counted_appends.append((receiver.id, here, element))  # judged once bindings are known
            if here.local_loops >= 2:
                self._local_appends.append((receiver.id, here, element))
            if here.functions:
                self._appends_in_functions.append((receiver.id, here, element))  # maybe a module-level list

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
        self._imports_in_order.extend((node.lineno, node.col_offset, index, *pair) for index, pair in enumerate(pairs))

    def _comprehension_scope(self, comprehension: ast.AST) -> None:
        """A comprehension's targets are its own (TL302 follows a name to the binding that reaches it): a read of one
        inside is that target's, counted by ``range``/``enumerate`` or not; outside, the target is no binding at all."""
        counters: Set[str] = set()
        uncounted: Set[str] = set()
        bound: Set[str] = set()
        generators = comprehension.generators  # type: ignore[attr-defined]
        for generator in generators:
            names = list(target_names(generator.target))
            for name in names:
                self._comprehension_targets[name] = self._comprehension_targets.get(name, 0) + 1
            bound.update(names)
            counter = _counter_name(generator.target, generator.iter)
            counters.update([counter] if counter else [])
            uncounted.update(name for name in names if name != counter)
        counters -= uncounted  # `for t in range(2) for t in rows`: the read may see the later, uncounted binding
        # all but the first iterable, which is evaluated around the comprehension
        inside = [*_children(comprehension), *(g.iter for g in generators[1:]), *(c for g in generators for c in g.ifs)]
        for node in (node for part in inside if not isinstance(part, ast.comprehension) for node in _nodes_of(part)):
            if type(node) is ast.Name and node.id in bound and type(node.ctx) is ast.Load:  # type: ignore[attr-defined]
                self._comprehension_reads[id(node)] = node.id in counters  # type: ignore[attr-defined]

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

    @functools.cached_property
    def _called_names(self) -> Set[str]:
        """The last names of every callee, and the names an import alias of each stands for."""
        return self._called | {self._aliases[name] for name in self._called & self._aliases.keys()}

    def _is_torch_function(self, func: ast.AST) -> bool:
        """``torch.<name>`` under a name ``import torch`` binds (``torch.empty``, ``th.embedding``)."""
        return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in self._torch_modules

    def _names_code(self, func: ast.AST, line: int) -> bool:
        """Mirror TL301's ``_names_code`` where it surely holds: a plain name every binding of which is a module-level
        import, def or class, one of them before ``line``, so that every binding a read there may see is code (a def
        of the name in a function would make it that function's local, which no binding may reach before it)."""
        if not isinstance(func, ast.Name):
            return False
        name = func.id
        first = self._first_module_code.get(name)
        return first is not None and first < line and self._module_code_bindings.get(name) == self._bindings.get(name)

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
        if any(node is not positional[0] and _binds_self(node) for node in _nodes_of(definition)):
            return None
        return owner

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


def _bound_from(statement: ast.AST) -> int:
    """The line from which a module-level import, def or class binds its name: a class once its body has run, a def
    once its header (defaults, decorators' calls) has been evaluated, an import at once."""
    if isinstance(statement, ast.ClassDef):
        return statement.end_lineno or statement.lineno
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return statement.body[0].lineno
    return statement.lineno  # type: ignore[attr-defined]


def _class_body_targets(statement: ast.AST) -> Iterator[str]:
    """The names a ``for``, ``with`` or walrus binds (in a class body: attributes ``self.x`` may read)."""
    if isinstance(statement, (ast.For, ast.AsyncFor)):
        yield from target_names(statement.target)
    elif isinstance(statement, (ast.With, ast.AsyncWith)):
        for item in statement.items:
            yield from target_names(item.optional_vars) if item.optional_vars is not None else ()
    elif isinstance(statement, ast.NamedExpr):
        yield from target_names(statement.target)


def _appended_element(call: ast.Call) -> Optional[ast.AST]:
    """What ``xs.append(...)`` appends as TL401's ``visit_Call`` reads it (LibCST's one argument, a keyword too:
    ``history.append(object=loss)``), wider (one positional argument beside keywords); None for ``**kw``."""
    if len(call.args) == 1:
        return call.args[0]
    if not call.args and len(call.keywords) == 1 and call.keywords[0].arg is not None:
        return call.keywords[0].value
    return None


def _single_index(index: ast.AST) -> Optional[ast.AST]:
    """Mirror TL302's ``_single_index``, wider: the index of ``xs[i]``, also written ``xs[i,]`` (one element and a
    trailing comma, which LibCST reads as one element); a tuple of several as a whole (``xs[(i, j)]`` is one element
    to LibCST, ``xs[i, j]`` two: CPython's tree tells them apart no more); None for a slice."""
    if isinstance(index, ast.Tuple) and len(index.elts) == 1 and not isinstance(index.elts[0], ast.Starred):
        return index.elts[0]
    return None if isinstance(index, ast.Slice) else index


def _import_aliases(imports: List[Tuple[int, int, int, str, str]]) -> Dict[str, str]:
    """Mirror ``ImportTable``: each name an import binds, in source order, the later binding winning (``try: from
    fast import mse as lossf`` / ``except ImportError: from torch.nn.functional import mse_loss as lossf``); of them,
    the names bound under another name, by the last part of what they name (``lossf`` -> ``mse_loss``, ``F`` ->
    ``functional``). The walk meets a module's imports last: this is read once it is done."""
    bound = {local: qualified.rsplit(".", 1)[-1] for *_, local, qualified in sorted(imports)}
    return {local: original for local, original in bound.items() if local != original}


def _step(call: ast.Call) -> _Step:
    receiver = call.func.value  # type: ignore[attr-defined]
    text = _dotted(receiver) or ast.dump(receiver)
    match = _optimizer_receiver(receiver)
    optimizer = text
    if match and match.group(0).lower() == "scaler" and call.args and not isinstance(call.args[0], ast.Starred):
        optimizer = _dotted(call.args[0]) or ast.dump(call.args[0])
    return _Step(text, optimizer, match is not None)
