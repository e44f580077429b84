"""The questions of the batch rules (TL301, TL302), asked of the walk's facts: is a model called with
a batch's ``**`` keys, and may a float tensor reach what takes indices.
"""

from __future__ import annotations

import ast
import functools
import re
from typing import Dict, List, Optional

from trainlint.prescreen.nodes import _argument_values, _callable_names, _keyword_value
from trainlint.prescreen.traversal import _children, _header_parts
from trainlint.prescreen.values import MODULE, last_name, root_name
from trainlint.prescreen.walk import (
    _FLOAT_CASTS,
    _ITERATION_WRAPPERS,
    _SHAPED_MAKERS,
    TreeFacts,
)
from trainlint.step_words import (
    DTYPE_KEEPING,
    FLOAT_DTYPES,
    INTEGER_DTYPES,
    INTEGER_METHODS,
)

# mirror TL302's FLOAT_TENSOR_TYPES, by last name: `torch.LongTensor(ids)` makes no float tensor
_FLOAT_TENSOR_TYPES = frozenset({"FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "Tensor"})
# Where TL302's `_float_source` follows a value: what makes a float tensor (a tensor type, a factory, `from_numpy`:
# by last name, wider than the rule's qualified names); the casts that end the chain, the calls that keep a dtype and
# what makes a Python list are the rule's own tables, shared through step_words.
_DATA_FACTORIES = frozenset({"tensor", "as_tensor", "asarray", "from_numpy", "zeros", "ones", "empty"})
_NUMPY_FLOAT_DEFAULTS = frozenset({"zeros", "ones", "empty", "loadtxt", "genfromtxt"})  # mirror NUMPY_FLOAT_DEFAULTS
_MAX_NUMPY_DEPTH = 12  # mirror TL302's MAX_DEPTH
# Mirror rules/batches/batch_keys.py's MODEL_NAME: what TL301 takes for a model when no class of the module says so.
_MODEL_LIKE = re.compile(r"model|net", re.IGNORECASE)
# What TL302's `_iterated_source` iterates through to its arguments: `enumerate`, `zip`, a wrapper keeping items, a
# `DataLoader` (by last name, wider than the rule's qualified names: a `DataLoader` given a `collate_fn` too).
_ITEM_KEEPERS = frozenset({"enumerate", "zip", "DataLoader", *_ITERATION_WRAPPERS})


class BatchQuestions(TreeFacts):
    """What TL301 and TL302 ask of a module's facts."""

    def _module_takes_float(self) -> bool:
        """Mirror TL302's ``_made_by``/``_forward_embeds``: a call of an embedding or index criterion bound here
        (by its dotted name, in any scope) with a value that may be float; or an embedding called in a ``forward``,
        whose model's callers the screen does not follow (any of them may pass the float tensor)."""
        for name, call, functions in self._calls:
            arguments = self._index_modules.get(name, ())
            if 0 in arguments and any(self._names[f] == "forward" for f in functions) and self._instance_may_get_float():
                return True
            if arguments and any(isinstance(a, ast.Starred) for a in call.args):
                return True
            values = [*(a for i in arguments for a in call.args[i : i + 1]), *(k.value for k in call.keywords if arguments and k.arg in ("input", "target"))]
            if any(map(self._may_be_float, values)):
                return True
        return False

    def _instance_may_get_float(self) -> bool:
        """Mirror TL302's ``_forward_embeds``: ``model(x)``, ``model`` a plain name bound here to an instance of a
        class of the module (``Model(...)``, ``Model(...).to(device)``, also through an alias of the class), and
        some argument that may be a float tensor; the model's ``forward`` embeds what that call passes."""
        for name, call, _ in self._calls:
            values = self.values.bound_anywhere(name) if "." not in name else ()  # `model, extra = Model(4)` too
            if any(map(self._instantiates_a_class_here, values)) and any(map(self._may_be_float, _argument_values(call))):
                return True
        return False

    def _instantiates_a_class_here(self, value: ast.AST) -> bool:
        while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in DTYPE_KEEPING:
            value = value.func.value
        if not isinstance(value, ast.Call):
            return False
        # `Model()`, `model_cls()` given `Model`, `pick()()`, `partial(Model, 4)()`, `self.cls()`: what `_class_of_call`'s
        # `resolve_callable` may follow
        return any(n in self._class_names or n in self._plain_values for c in _callable_names(value.func) for n in self._runs_of(c))

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
                # a function of this module by its name or through what the name holds (`make = to_ids`, a `partial`,
                # an instance's `__call__`, a factory's closure), as `names.callees` resolves it; a callee that is a
                # call by what it returns (`padder(8)(rows)`: `_resolve_call_result`)
                callees = _callable_names(func) if isinstance(func, ast.Call) else {last_name(func)}  # `_runs_of` adds an alias's original
                if name in _FLOAT_TENSOR_TYPES or any(n in self._names and self._may_return_float(n) for c in callees for n in self._runs_of(c)):
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
            if self._called_by_another_name(self._names[scope]):
                return None
            if self._names[scope] in self._called:  # what the calls pass, and the default where one leaves it out
                values = values + [value for value, _ in self.values.given((scope, name.id), unpacked=False)]
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
        if isinstance(iterable, ast.Call) and (iterable.args or iterable.keywords):
            func = iterable.func
            name = self._aliases.get(func.id, func.id) if isinstance(func, ast.Name) else last_name(func)
            arguments = _argument_values(iterable)  # by keyword too: `DataLoader(dataset=...)`, `tqdm(iterable=ids)`
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
                    pending.extend(_header_parts(node))
                    continue
                if type(node) is ast.Name:
                    scopes[id(node)] = function
                pending.extend(_children(node))
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
        positional = (a for a in call.args if not isinstance(a, ast.Constant))  # the rule takes no string for a dtype there
        return _keyword_value(call, "dtype") or next((a for a in positional if self._dtype_name(a) in FLOAT_DTYPES | INTEGER_DTYPES), None)

    def _factory_may_make_float(self, call: ast.Call, name: str) -> bool:
        """Mirror TL302's ``_call_source`` on ``torch.tensor``/``as_tensor``/``asarray``/``from_numpy`` and the shaped
        factories, wider: a ``dtype=`` decides; without one a shaped factory makes float32, and a conversion is float
        where its data may be a float NumPy array (:meth:`_may_be_numpy_float`)."""
        dtype = _keyword_value(call, "dtype")
        if dtype is not None and name != "from_numpy":
            return self._dtype_name(dtype) not in INTEGER_DTYPES
        if name in _SHAPED_MAKERS:
            return True
        # the rule's `call.args[0]` is LibCST's first argument: the first positional one, else a keyword (`data=`)
        return any(self._may_be_numpy_float(a, 0) for a in [*_argument_values(call)[:1], *(k.value for k in call.keywords)])

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
        name = last_name(data.func)
        return self._aliases.get(name, name) in _NUMPY_FLOAT_DEFAULTS if isinstance(data.func, ast.Name) else name in _NUMPY_FLOAT_DEFAULTS

    @functools.cached_property
    def _redefines_range_or_enumerate(self) -> bool:
        """A binding of ``range``, ``enumerate`` or ``reversed`` in the module (a def, ``range = make_range``): its loop
        targets are not counters."""
        return not {"range", "enumerate", "reversed"}.isdisjoint(self._bindings)

    def _called_by_another_name(self, function: str) -> bool:
        """Whether a call by another name may run the function (``make = to_device; make(x)``, a factory's closure):
        ``argument_for`` reads those calls' arguments, which :meth:`ModuleValues.given` (calls by its name) does not."""
        return bool(self._callers_by_callee.get(function, set()) - {function})

    def _dtype_name(self, node: ast.AST) -> str:
        """``float16`` for ``torch.float16``, for ``"float16"`` and ``"torch.float16"`` (``_dtype_is_float`` reads a
        string after its last dot) and for a name an import binds to ``float16``."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value.rsplit(".", 1)[-1]
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
                and not self._called_by_another_name(function)
                and (function not in self._called or not any(self._may_be_float(v) for v, _ in self.values.given(key, unpacked=False)))
            )
        finally:
            self._following.discard(following)

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
        lists = any(n in self._sequence_names and self._may_be_float(i) for n, i in self._list_subscripts)
        functional = [value for func, value in self._functional_index_values if self._may_be_functional(func)]
        return lists or any(map(self._may_be_float, self._index_values + functional)) or self._module_takes_float()

    def _may_be_functional(self, func: ast.AST) -> bool:
        """Mirror TL302's qualified ``torch.nn.functional.embedding``/``cross_entropy``/``nll_loss``, wider: a callee
        whose root an import binds (``F.embedding``, ``embedding`` imported), not ``torch.embedding`` itself nor
        ``self.embedding(x)`` nor a def of the module (``torch/nn/functional.py``'s own)."""
        if not self.values.is_imported(root_name(func)):
            return False
        return not self._is_torch_function(func)
