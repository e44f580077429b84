"""Which keys a batch provably carries, and which keyword arguments a model's ``forward`` takes.

Rules about ``model(**batch)`` need both sides, and only on evidence the
module itself shows. Key sets are *lower bounds*: a key is listed only when
every way the module builds the batch puts it there. Whatever cannot be
followed (a tokenizer call, a library collator, a filtered dict comprehension,
``batch.pop(name)``) contributes no key, so a rule built on this stays silent
instead of guessing. A name resolves to the one binding that reaches its use
when the enclosing blocks show it (straight-line code, a ``for`` target at the
top of its body); otherwise every binding of the name in its function (else
the module; ``self.x`` across the class) must agree.

Where keys come from:

- a loop over a loader (``for batch in loader``, ``enumerate(loader)``, found by
  ``analysis.steps.TrainingLoops``) or ``next(iter(loader))``;
- a ``DataLoader(dataset, collate_fn=...)`` built here: the dict that the
  ``__getitem__`` of a Dataset class defined here returns, passed on by the
  default collate or by a collate function here that copies every key, or the
  dict such a collate function returns;
- a loader handed in from elsewhere (a parameter): the keys every DataLoader
  built in this module carries;
- a Hugging Face ``datasets`` chain: the columns of a well-known hub data set
  (``HUB_COLUMNS``) and those a ``.map`` function reads stay unless
  ``remove_columns`` names them, or ``select_columns`` or
  ``set_format(columns=...)`` narrows them; transformers' pass-through
  collators (``PASS_THROUGH_COLLATORS``) and a collate returning
  ``tokenizer.pad(items, ...)`` keep the keys that are not strings;
- ``accelerator.prepare(...)``, which gives back each loader and model it gets;
- ``{k: v for k, v in batch.items() if isinstance(v, torch.Tensor)}``: the keys
  known not to hold strings;
- derivations that keep every key: ``{k: v.to(device) for k, v in batch.items()}``,
  ``batch.to(device)``, ``dict(batch)``, a helper here that returns such a
  comprehension, and a parameter of a function called with a batch.

Each key records where it was seen and, when its value shows that no model
takes it (the item's own index, a string), why.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Callable, Dict, FrozenSet, Iterable, Iterator, List, NamedTuple, Optional, Set, Tuple, Union

import libcst as cst

from trainlint.analysis import walk
from trainlint.analysis.classes import enclosing_class
from trainlint.analysis.imports import dotted
from trainlint.analysis.steps import TrainingLoops

if TYPE_CHECKING:
    from trainlint.analysis import ModuleFacts

MODEL_NAME = re.compile(r"model|net", re.IGNORECASE)
TOKENIZER_NAME = re.compile(r"tokeni[sz]", re.IGNORECASE)
DEFAULT_COLLATES = frozenset(
    {
        "torch.utils.data.default_collate",
        "torch.utils.data.dataloader.default_collate",
        "torch.utils.data._utils.collate.default_collate",
    }
)
# Methods returning the module they are called on, or a batch with the same keys.
MODULE_PASSTHROUGH = frozenset({"to", "cuda", "cpu", "train", "float", "half", "double", "bfloat16"})
BATCH_PASSTHROUGH = frozenset({"to", "cuda", "cpu", "copy"})
# Wrappers whose ``forward`` hands every keyword argument to the module they wrap.
MODEL_WRAPPERS = frozenset(
    {
        "torch.compile",
        "torch.nn.DataParallel",
        "torch.nn.parallel.DataParallel",
        "torch.nn.parallel.DistributedDataParallel",
    }
)
# ``datasets.Dataset`` methods that keep every column.
HF_KEEP_COLUMNS = frozenset({"filter", "shuffle", "select", "sort", "train_test_split", "flatten_indices"})
# Columns of well-known Hugging Face hub data sets, from their dataset cards: library knowledge, like a
# signature. GLUE keeps each row's ``idx``; text columns are raw strings. Keyed by (path, config); the
# owner prefix of a path (``nyu-mll/glue``, ``stanfordnlp/imdb``) is ignored. Justified by
# fixtures/TL301_unfiltered_batch_kwargs/bad_glue_map_keeps_idx.py.
_TEXT, _INDEX, _LABEL = "raw text", "the row index", None
HUB_COLUMNS: Dict[Tuple[str, Optional[str]], Dict[str, Optional[str]]] = {
    ("glue", "cola"): {"sentence": _TEXT, "label": _LABEL, "idx": _INDEX},
    ("glue", "sst2"): {"sentence": _TEXT, "label": _LABEL, "idx": _INDEX},
    ("glue", "mrpc"): {"sentence1": _TEXT, "sentence2": _TEXT, "label": _LABEL, "idx": _INDEX},
    ("glue", "qqp"): {"question1": _TEXT, "question2": _TEXT, "label": _LABEL, "idx": _INDEX},
    ("glue", "stsb"): {"sentence1": _TEXT, "sentence2": _TEXT, "label": _LABEL, "idx": _INDEX},
    ("glue", "mnli"): {"premise": _TEXT, "hypothesis": _TEXT, "label": _LABEL, "idx": _INDEX},
    ("glue", "qnli"): {"question": _TEXT, "sentence": _TEXT, "label": _LABEL, "idx": _INDEX},
    ("glue", "rte"): {"sentence1": _TEXT, "sentence2": _TEXT, "label": _LABEL, "idx": _INDEX},
    ("glue", "wnli"): {"sentence1": _TEXT, "sentence2": _TEXT, "label": _LABEL, "idx": _INDEX},
    ("imdb", None): {"text": _TEXT, "label": _LABEL},
    ("rotten_tomatoes", None): {"text": _TEXT, "label": _LABEL},
    ("ag_news", None): {"text": _TEXT, "label": _LABEL},
}
TEXT_REASONS = frozenset({"a string", "a file path", "raw text for the tokenizer", _TEXT})
# transformers collators that keep every feature key and pass ``label`` on as ``labels``
# (transformers/data/data_collator.py): default_data_collator leaves strings out, DataCollatorWithPadding
# hands them to ``tokenizer.pad``, which fails on them before the model is called. Justified by
# tests/test_rule_TL301.py::test_a_transformers_collator_keeps_the_index_of_a_glue_row.
PASS_THROUGH_COLLATORS = frozenset({"default_data_collator", "DataCollatorWithPadding"})
# Standard-library calls that return lists of file names (strings).
FILE_NAME_LISTS = frozenset({"glob.glob", "os.listdir"})


class KeyOrigin(NamedTuple):
    """Where a batch key was seen, why no model takes it when its value shows that, and whether it is a string.

    ``text`` is True for a string, False for a value known not to be one (the
    index, a torch tensor, a hub label column), None when unknown: a batch
    filtered to its tensors keeps only the keys known not to be strings.
    """

    where: str
    not_a_model_input: Optional[str] = None
    text: Optional[bool] = None


KeyMap = Dict[str, KeyOrigin]
# ``None`` means "no constraint": a binding that refers back to the name being
# resolved (``batch = {k: v.to(d) for k, v in batch.items()}``) keeps the keys
# that the other bindings give, so it is left out of the intersection.
Bound = Optional[KeyMap]
Visiting = FrozenSet[Tuple[str, cst.CSTNode]]
_UNKNOWN = object()


class ForwardSignature(NamedTuple):
    """The keyword arguments a model class's ``forward`` accepts."""

    owner: str
    names: FrozenSet[str]
    var_keyword: bool  # takes ``**kwargs``: every key is accepted
    exhaustive: bool  # False for a decorated ``forward``: the decorator may accept more keywords

    def accepts(self, key: str) -> bool:
        return self.var_keyword or key in self.names

    def rejects(self, key: str) -> bool:
        return self.exhaustive and not self.accepts(key)


class _Binding(NamedTuple):
    """One way ``name`` gets a value: ``value`` (an expression), ``for`` (a loop), ``param``, ``other``."""

    name: str
    kind: str
    node: cst.CSTNode
    function: Optional[cst.FunctionDef] = None  # the function that owns a parameter


class BatchKeys:
    """Batch keys and ``forward`` signatures for one module (see the module docstring)."""

    def __init__(self, facts: "ModuleFacts") -> None:
        self.facts = facts
        self._scopes: Dict[cst.CSTNode, Dict[str, List[_Binding]]] = {}

    def keys(self, expression: cst.BaseExpression) -> KeyMap:
        """The keys ``expression`` (the ``X`` of ``f(**X)``) provably carries; empty when unknown."""
        return self._keys(expression, frozenset()) or {}

    def forward_signature(self, model: cst.BaseExpression) -> Optional[ForwardSignature]:
        """``forward``'s keyword parameters when ``model`` is an instance of a class defined here."""
        model_class = self._instantiated_class(model, frozenset())
        if not isinstance(model_class, cst.ClassDef) or self._method(model_class, "__call__") is not None:
            return None
        forward = self._method(model_class, "forward")
        if forward is None:
            return None
        positional = _positional_parameters(forward)
        receiver = positional[0] if positional else None
        by_keyword = list(forward.params.params) + list(forward.params.kwonly_params)
        names = frozenset(p.name.value for p in by_keyword if p is not receiver)
        var_keyword = isinstance(forward.params.star_kwarg, cst.Param)
        return ForwardSignature(model_class.name.value, names, var_keyword, exhaustive=not forward.decorators)

    def is_model_like(self, callee: cst.BaseExpression) -> bool:
        """``model``, ``self.net``, ``bert_model``, or a name bound to an instance of a class defined here.

        Never a name bound to a ``def``, a ``class`` or an import, whatever it is called.
        """
        name = dotted(callee)
        if name is None or self._names_code(name, callee):
            return False
        return bool(MODEL_NAME.search(name.rsplit(".", 1)[-1])) or self._model_class_defined_here(callee)

    def _names_code(self, name: str, callee: cst.BaseExpression) -> bool:
        """A function, method, class or import: calling it runs no model's ``forward`` (``log_model_inputs(**b)``)."""
        code = (cst.FunctionDef, cst.ClassDef, cst.ImportAlias)
        return self._function_named(callee) is not None or any(
            isinstance(binding.node, code) for binding in self._bindings(name, callee)
        )

    def _model_class_defined_here(self, callee: cst.BaseExpression) -> bool:
        model_class = self._instantiated_class(callee, frozenset())
        return isinstance(model_class, cst.ClassDef) and self._method(model_class, "forward") is not None

    # ----- batches ------------------------------------------------------------

    def _keys(self, expression: cst.BaseExpression, visiting: Visiting) -> Bound:
        if isinstance(expression, (cst.Name, cst.Attribute)):
            keys = self._resolve(expression, visiting, self._binding_keys, unbound=dict)
            return self._without_removed_keys(dotted(expression) or "", keys)
        if isinstance(expression, cst.DictComp):
            mapping = _iterated_mapping(expression)
            if mapping is not None:
                return self._keys(mapping, visiting)
            mapping = self._tensors_of(expression)
            keys = self._keys(mapping, visiting) if mapping is not None else {}
            return {key: origin for key, origin in keys.items() if origin.text is False} if keys else keys
        if isinstance(expression, cst.Call):
            return self._call_keys(expression, visiting)
        return {}

    def _tensors_of(self, comprehension: cst.DictComp) -> Optional[cst.BaseExpression]:
        """``Y`` in ``{k: ... for k, v in Y.items() if isinstance(v, torch.Tensor)}``: its keys that hold tensors."""
        clause = comprehension.for_in
        if len(clause.ifs) != 1 or not isinstance(clause.target, cst.Tuple) or len(clause.target.elements) != 2:
            return None
        value = clause.target.elements[1].value
        unfiltered = comprehension.with_changes(for_in=clause.with_changes(ifs=()))
        mapping = _iterated_mapping(unfiltered)
        test = clause.ifs[0].test
        if mapping is None or not isinstance(value, cst.Name) or not isinstance(test, cst.Call):
            return None
        arguments = [argument.value for argument in test.args]
        checked = self.facts.qualified_name(test.func) or dotted(test.func)
        if checked == "torch.is_tensor" and len(arguments) == 1:
            tensor_test = arguments[0]
        elif checked == "isinstance" and len(arguments) == 2:
            tensor_test = arguments[0] if self.facts.qualified_name(arguments[1]) == "torch.Tensor" else None
        else:
            tensor_test = None
        return mapping if isinstance(tensor_test, cst.Name) and tensor_test.value == value.value else None

    def _call_keys(self, call: cst.Call, visiting: Visiting) -> Bound:
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in BATCH_PASSTHROUGH:
            return self._keys(func.value, visiting)
        first = call.args[0] if call.args else None
        if first is None or first.star or first.keyword is not None:
            return {}
        if isinstance(func, cst.Name) and func.value == "dict" and len(call.args) == 1:
            return self._keys(first.value, visiting)
        loader = _iter_argument(first.value) if isinstance(func, cst.Name) and func.value == "next" else None
        if loader is not None:
            return self._loader_keys(loader, visiting)
        helper = self._function_named(func)
        return self._keys(first.value, visiting) if helper is not None and self._moves_every_key(helper) else {}

    def _binding_keys(self, binding: _Binding, visiting: Visiting) -> Bound:
        if binding.kind == "value":
            return self._keys(binding.node, visiting)  # type: ignore[arg-type]
        if binding.kind == "for":
            loop = self.facts.fact(TrainingLoops).loop_of(binding.node)  # type: ignore[arg-type]
            if loop is not None and loop.loader is not None and dotted(loop.batch) == binding.name:
                return self._loader_keys(loop.loader, visiting)
        if binding.kind == "param" and binding.function is not None:
            return self._argument_keys(binding.function, binding.node, visiting)  # type: ignore[arg-type]
        return {}

    def _argument_keys(self, function: cst.FunctionDef, parameter: cst.Param, visiting: Visiting) -> Bound:
        """Keys of what every call of ``function`` in this module passes as ``parameter``."""
        arguments = [self._argument_for(function, parameter, call) for call in self._calls_of(function)]
        if not arguments or None in arguments:
            return {}
        return _intersect(self._keys(argument, visiting) for argument in arguments)  # type: ignore[arg-type]

    def _argument_for(self, function: cst.FunctionDef, parameter: cst.Param, call: cst.Call) -> Optional[cst.BaseExpression]:
        if any(argument.star for argument in call.args):
            return None
        for argument in call.args:
            if argument.keyword is not None and argument.keyword.value == parameter.name.value:
                return argument.value
        parameters = _positional_parameters(function)
        if parameter not in parameters:
            return None
        bound_self = self._is_method(function) and isinstance(call.func, cst.Attribute)
        index = parameters.index(parameter) - (1 if bound_self else 0)
        positional = [argument.value for argument in call.args if argument.keyword is None]
        return positional[index] if 0 <= index < len(positional) else None

    def _without_removed_keys(self, name: str, keys: Bound) -> Bound:
        """Drop what ``name.pop("k")`` or ``del name["k"]`` anywhere in the module removes."""
        if not keys:
            return keys
        for method, node in self._walk.mutations.get(name, ()):
            if method in ("popitem", "clear"):
                return {}
            if method in ("pop", "__delitem__"):
                removed = _string_key(node)
                if removed is None:
                    return {}
                keys = {key: origin for key, origin in keys.items() if key != removed}
        return keys

    def _moves_every_key(self, function: cst.FunctionDef) -> bool:
        """A helper returning ``{k: f(v) for k, v in batch.items()}`` for its batch parameter."""
        parameters = self._data_parameters(function)
        returns = _function_returns(function)
        if not parameters or any(isinstance(value, cst.Dict) for value in returns):
            return False
        mappings = [_iterated_mapping(value) for value in returns if isinstance(value, cst.DictComp)]
        batch = parameters[0].name.value
        return bool(mappings) and all(m is not None and dotted(m) == batch for m in mappings)

    # ----- loaders and collate functions ---------------------------------------

    def _loader_keys(self, loader: cst.BaseExpression, visiting: Visiting) -> Bound:
        if isinstance(loader, cst.Call) and self._is_dataloader(loader):
            return self._dataloader_keys(loader, visiting)
        prepared = _prepared_argument(loader)
        if prepared is not None:
            return self._loader_keys(prepared, visiting)
        if isinstance(loader, (cst.Name, cst.Attribute)):
            return self._resolve(loader, visiting, self._loader_binding_keys, unbound=lambda: self._module_loader_keys)
        return {}

    def _loader_binding_keys(self, binding: _Binding, visiting: Visiting) -> Bound:
        if binding.kind == "value":
            return self._loader_keys(binding.node, visiting)  # type: ignore[arg-type]
        return self._module_loader_keys if binding.kind == "param" else {}

    @functools.cached_property
    def _module_loader_keys(self) -> KeyMap:
        """For a loader handed in from elsewhere: the keys every DataLoader built in this module carries."""
        built = [self._dataloader_keys(call, frozenset()) for call in self._walk.calls if self._is_dataloader(call)]
        return _intersect(built) or {}

    def _is_dataloader(self, call: cst.Call) -> bool:
        callee = self.facts.qualified_name(call.func) or dotted(call.func) or ""
        return callee.rsplit(".", 1)[-1] == "DataLoader"

    def _dataloader_keys(self, call: cst.Call, visiting: Visiting) -> Bound:
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        dataset = _keyword_argument(call, "dataset") or (positional[0] if positional else None)
        collate = _keyword_argument(call, "collate_fn")
        items = self._dataset_keys(dataset, visiting) if dataset is not None else {}
        if collate is None or self.facts.qualified_name(collate) in DEFAULT_COLLATES:
            return items
        library = self._library_collator(collate)
        if library is not None:
            return _passed_through(items or {}, library)
        function = self._function_named(collate)
        return self._collate_keys(function, items or {}) if function is not None else {}

    def _library_collator(self, collate: cst.BaseExpression) -> Optional[str]:
        """The name in :data:`PASS_THROUGH_COLLATORS` of ``collate``: the function, an instance built in the
        argument, or a name bound only to one of those."""
        if isinstance(collate, cst.Name):
            bindings = self._bindings(collate.value, collate)
            if len(bindings) == 1 and bindings[0].kind == "value":
                collate = bindings[0].node  # type: ignore[assignment]
        if isinstance(collate, cst.Call):
            collate = collate.func
        qualified = self.facts.qualified_name(collate) or ""
        name = qualified.rsplit(".", 1)[-1]
        return name if qualified.startswith("transformers.") and name in PASS_THROUGH_COLLATORS else None

    def _collate_keys(self, function: cst.FunctionDef, items: KeyMap) -> KeyMap:
        """All item keys for a collate that copies every key, else the keys of the dict it returns."""
        returns = _function_returns(function)
        if self._pads_with_tokenizer(function, returns):
            return _passed_through(items, "pad") or {}
        if self._copies_every_key(function):
            for name in filter(None, map(dotted, returns)):
                items = self._without_removed_keys(name, items) or {}
            return items
        if not returns or not all(isinstance(value, cst.Dict) for value in returns):
            return {}
        where = f"{function.name.value}()"
        return _intersect(_collated_keys(value, where, items) for value in returns) or {}  # type: ignore[arg-type]

    def _pads_with_tokenizer(self, function: cst.FunctionDef, returns: List[cst.BaseExpression]) -> bool:
        """``return tokenizer.pad(items, ...)``: a tokenizer's ``pad`` keeps every key of the features."""
        parameters = self._data_parameters(function)
        if not parameters or not returns:
            return False
        items = parameters[0].name.value
        return all(
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value == "pad"
            and bool(value.args)
            and value.args[0].keyword is None
            and dotted(value.args[0].value) == items
            and self._is_tokenizer(value.func.value)
            for value in returns
        )

    def _is_tokenizer(self, receiver: cst.BaseExpression) -> bool:
        """Bound to ``<...Tokenizer...>.from_pretrained(...)``; where no binding is in sight (one in an enclosing
        function, which this lookup does not see: port to trainlint.analysis.names), named like a tokenizer."""
        name = dotted(receiver)
        if name is None:
            return False
        bindings = self._bindings(name, receiver)
        if not bindings:
            return bool(TOKENIZER_NAME.search(name.rsplit(".", 1)[-1]))
        return all(
            binding.kind == "value"
            and isinstance(binding.node, cst.Call)
            and isinstance(binding.node.func, cst.Attribute)
            and binding.node.func.attr.value == "from_pretrained"
            and "Tokenizer" in (dotted(binding.node.func.value) or "")
            for binding in bindings
        )

    def _copies_every_key(self, function: cst.FunctionDef) -> bool:
        """``default_collate(items)``, ``{k: ... for k in items[0]}``, or ``for k in items[0]: batch[k] = ...``."""
        parameters = self._data_parameters(function)
        if not parameters:
            return False
        items = parameters[0].name.value
        returns = _function_returns(function)
        for value in returns:
            if isinstance(value, cst.Call) and self.facts.qualified_name(value.func) in DEFAULT_COLLATES:
                return True
            if isinstance(value, cst.DictComp) and _comprehension_over_first_item(value, items):
                return True
        returned = {name for name in map(dotted, returns) if name is not None}
        return any(
            isinstance(statement, cst.For) and _loop_copies_every_key(statement, items, returned)
            for statement in function.body.body
        )

    # ----- datasets -------------------------------------------------------------

    def _dataset_keys(self, dataset: cst.BaseExpression, visiting: Visiting) -> Bound:
        if isinstance(dataset, (cst.Name, cst.Attribute)):
            keys = self._resolve(dataset, visiting, self._dataset_binding_keys, unbound=dict)
            return {} if self._columns_narrowed_in_place(dataset) else keys
        if isinstance(dataset, cst.Call):
            dataset_class = self._class_named(dataset.func)
            if dataset_class is not None:
                return self._item_keys(dataset_class)
            if self.facts.qualified_name(dataset.func) == "datasets.load_dataset":
                return _hub_columns(dataset)
            if isinstance(dataset.func, cst.Attribute) and self._is_hf_dataset(dataset.func.value, frozenset()):
                return self._hf_method_keys(dataset, visiting)
        if isinstance(dataset, cst.Subscript) and self._is_hf_dataset(dataset.value, frozenset()):
            return self._dataset_keys(dataset.value, visiting)  # one split of a DatasetDict
        return {}

    def _dataset_binding_keys(self, binding: _Binding, visiting: Visiting) -> Bound:
        return self._dataset_keys(binding.node, visiting) if binding.kind == "value" else {}  # type: ignore[arg-type]

    def _item_keys(self, dataset_class: cst.ClassDef) -> KeyMap:
        """Keys of the dict that every ``return`` of the class's ``__getitem__`` builds."""
        getitem = self._method(dataset_class, "__getitem__")
        parameters = self._data_parameters(getitem) if getitem is not None else []
        if getitem is None or not parameters:
            return {}
        index = parameters[0].name.value
        where = f"{dataset_class.name.value}.__getitem__"
        maps = []
        for value in _function_returns(getitem):
            built = value.value if isinstance(value, cst.Name) else None  # ``item = {...}; ...; return item``
            entries = _dict_built_in(getitem, built) if built else _dict_entries(value)
            keys = {key: self._element_origin(where, item, index) for key, item in entries or []}
            maps.append(self._without_removed_keys(built, keys) if built else keys)
        return _intersect(maps) or {}

    def _element_origin(self, where: str, value: cst.BaseExpression, index: str) -> KeyOrigin:
        """As :func:`_origin`; also ``self.paths[idx]`` where every ``self.paths = ...`` lists file names."""
        origin = _origin(where, value, index)
        if origin.not_a_model_input or not isinstance(value, cst.Subscript):
            return origin
        name = dotted(value.value) or ""
        bindings = self._bindings(name, value) if name.startswith("self.") else []
        if bindings and all(b.kind == "value" and self._lists_file_names(b.node) for b in bindings):  # type: ignore[arg-type]
            return _origin_of_reason(where, "a file path")
        return origin

    def _lists_file_names(self, value: cst.BaseExpression) -> bool:
        """``glob.glob(...)``, ``os.listdir(...)``, ``sorted(...)``/``list(...)`` of one, ``[os.path.join(...) for ...]``."""
        if isinstance(value, cst.ListComp):
            return isinstance(value.elt, cst.Call) and self.facts.qualified_name(value.elt.func) == "os.path.join"
        if not isinstance(value, cst.Call):
            return False
        if self.facts.qualified_name(value.func) in FILE_NAME_LISTS:
            return True
        wrapped = isinstance(value.func, cst.Name) and value.func.value in ("sorted", "list") and len(value.args) >= 1
        return wrapped and self._lists_file_names(value.args[0].value)

    # ----- Hugging Face datasets ------------------------------------------------

    def _is_hf_dataset(self, expression: cst.BaseExpression, visiting: Visiting) -> bool:
        """A chain that starts at a ``datasets`` function: ``load_dataset(...)["train"].map(...)``."""
        if isinstance(expression, cst.Call):
            if (self.facts.qualified_name(expression.func) or "").startswith("datasets."):
                return True
            return isinstance(expression.func, cst.Attribute) and self._is_hf_dataset(expression.func.value, visiting)
        if isinstance(expression, cst.Subscript):
            return self._is_hf_dataset(expression.value, visiting)
        name = dotted(expression)
        key = (name or "", self._scope_of(expression))
        if name is None or key in visiting:
            return False
        return any(
            b.kind == "value" and self._is_hf_dataset(b.node, visiting | {key})  # type: ignore[arg-type]
            for b in self._bindings(name, expression)
        )

    def _hf_method_keys(self, call: cst.Call, visiting: Visiting) -> Bound:
        method = call.func.attr.value  # type: ignore[attr-defined]
        source = call.func.value  # type: ignore[attr-defined]
        if method in HF_KEEP_COLUMNS or (method == "with_format" and not _formats_selected_columns(call)):
            return self._dataset_keys(source, visiting)
        if method == "rename_column":
            names = [_string_value(argument.value) for argument in call.args]
            if len(names) != 2 or None in names:
                return {}
            keys = self._dataset_keys(source, visiting) or {}  # renaming its own name's columns: no bound kept
            return {names[1] if key == names[0] else key: origin for key, origin in keys.items()}  # type: ignore[misc]
        removed = _removed_columns(call) if method == "map" else None
        if removed is not None and call.args:
            columns = dict(self._dataset_keys(source, visiting) or {})
            for column, origin in self._columns_read(call.args[0].value).items():
                if origin.not_a_model_input or column not in columns:  # the tokenizer call says more than a table
                    columns[column] = origin
            return {column: origin for column, origin in columns.items() if column not in removed}
        return {}

    def _columns_read(self, function: cst.BaseExpression) -> KeyMap:
        """Columns a ``.map`` function reads from its batch; those it hands to a tokenizer are raw text."""
        if isinstance(function, cst.Lambda):
            parameters, body, where = list(function.params.params), function.body, "the map lambda"
            returns: List[cst.BaseExpression] = [function.body]
        else:
            defined = self._function_named(function)
            if defined is None:
                return {}
            parameters, body, where = self._data_parameters(defined), defined.body, f"{defined.name.value}()"
            returns = _function_returns(defined)
        if not parameters:
            return {}
        reader = _ColumnReader(parameters[0].name.value)
        walk.visit(body, reader)
        overwritten = {key for value in returns for key, _ in _dict_entries(value) or []}
        return {
            column: _origin_of_reason(where, "raw text for the tokenizer" if column in reader.tokenized - overwritten else None)
            for column in reader.columns
        }

    def _columns_narrowed_in_place(self, dataset: cst.BaseExpression) -> bool:
        """``dataset.set_format(columns=[...])`` or ``set_transform`` anywhere: other columns never come out."""
        return any(
            method == "set_transform" or (method == "set_format" and _formats_selected_columns(node))  # type: ignore[arg-type]
            for method, node in self._walk.mutations.get(dotted(dataset) or "", ())
        )

    # ----- models -------------------------------------------------------------

    def _instantiated_class(self, model: cst.BaseExpression, visiting: Visiting) -> object:
        """The class defined here that every binding of ``model`` instantiates; else ``_UNKNOWN``.

        ``None`` when the name refers back to itself (``model = model.to(device)``).
        """
        name = dotted(model)
        if name is None:
            return _UNKNOWN
        key = (name, self._scope_of(model))
        if key in visiting:
            return None
        found = {self._binding_class(binding, visiting | {key}) for binding in self._bindings(name, model)} - {None}
        return found.pop() if len(found) == 1 else _UNKNOWN

    def _binding_class(self, binding: _Binding, visiting: Visiting) -> object:
        value = binding.node
        if binding.kind == "param" and isinstance(value, cst.Param) and value.annotation is not None:
            return self._class_named(value.annotation.annotation) or _UNKNOWN
        return self._expression_class(value, visiting) if binding.kind == "value" else _UNKNOWN  # type: ignore[arg-type]

    def _expression_class(self, value: cst.BaseExpression, visiting: Visiting) -> object:
        """``Model(...)``, ``Model.from_pretrained(...)``, ``model.to(device)``, ``DataParallel(Model())``: as above."""
        if isinstance(value, (cst.Name, cst.Attribute)):
            return self._instantiated_class(value, visiting)
        if not isinstance(value, cst.Call):
            return _UNKNOWN
        func = value.func
        if isinstance(func, cst.Attribute) and func.attr.value in MODULE_PASSTHROUGH:
            return self._expression_class(func.value, visiting)
        if self.facts.qualified_name(func) in MODEL_WRAPPERS and value.args and value.args[0].keyword is None:
            return self._expression_class(value.args[0].value, visiting)  # the wrapped module gets the batch
        prepared = _prepared_argument(value)
        if prepared is not None:
            return self._expression_class(prepared, visiting)
        if isinstance(func, cst.Attribute) and func.attr.value == "from_pretrained":
            func = func.value
        return self._class_named(func) or _UNKNOWN

    # ----- names, scopes and definitions ----------------------------------------

    def _resolve(
        self,
        name_node: cst.BaseExpression,
        visiting: Visiting,
        evaluate: Callable[[_Binding, Visiting], Bound],
        unbound: Callable[[], Bound],
    ) -> Bound:
        """Intersect ``evaluate`` over every binding of a name; ``unbound()`` when it has none here.

        In straight-line code only the binding that reaches the use counts
        (``ds = ds.rename_column("label", "labels")`` reads the ``ds`` before it).
        """
        name = dotted(name_node)
        if name is None:
            return {}
        bindings = self._bindings(name, name_node)
        reaching = self._reaching(bindings, name_node)
        key = (name, reaching.node if reaching is not None else self._scope_of(name_node))
        if key in visiting:
            return None
        if reaching is not None:
            return evaluate(reaching, visiting | {key})
        if not bindings:
            return unbound()
        return _intersect(evaluate(binding, visiting | {key}) for binding in bindings)

    def _reaching(self, bindings: List[_Binding], use: cst.CSTNode) -> Optional[_Binding]:
        """The one binding that reaches ``use`` when the statements around it show it; else None.

        Walking out from ``use`` block by block: the last earlier statement of
        a block that binds the name decides (a plain assignment reaches; any
        other statement binding it leaves the answer open); a ``for`` whose
        target is the name binds it at the top of its body. A loop that
        rebinds the name elsewhere in its body leaves the answer open (the
        value may come round again). Deliberately small: port to
        ``trainlint.analysis.names`` (reaching values) once it lands.
        """
        if not bindings:
            return None
        scope = self._scope_of(use)
        if any(self._scope_of(binding.node) is not scope for binding in bindings):
            return None
        node = use
        for block in self.facts.ancestors(use):
            if isinstance(block, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):  # runs later, or its own scope
                return None
            if isinstance(block, (cst.IndentedBlock, cst.Module)):
                statement = next(s for s in block.body if s is node)
                earlier = block.body[: block.body.index(statement)]
                for sibling in reversed(earlier):
                    bound = [binding for binding in bindings if self._within(binding.node, sibling)]
                    if bound:
                        plain = isinstance(sibling, cst.SimpleStatementLine) and len(bound) == 1
                        return bound[0] if plain and bound[0].kind == "value" else None
                owner = self.facts.parent(block)
                if isinstance(owner, cst.For) and block is owner.body:
                    found = [binding for binding in bindings if binding.kind == "for" and binding.node is owner]
                    if found:
                        return found[0]
                if isinstance(owner, (cst.For, cst.While)) and any(self._within(b.node, owner) for b in bindings):
                    return None
            node = block
        return None

    def _within(self, node: cst.CSTNode, outer: cst.CSTNode) -> bool:
        return node is outer or any(ancestor is outer for ancestor in self.facts.ancestors(node))

    def _scope_of(self, node: cst.CSTNode) -> cst.CSTNode:
        return next((a for a in self.facts.ancestors(node) if isinstance(a, cst.FunctionDef)), self.facts.module)

    def _bindings(self, name: str, at: cst.CSTNode) -> List[_Binding]:
        """Bindings of ``name`` seen from ``at``: its function, else the module; ``self.x`` class-wide."""
        scope = self._scope_of(at)
        owner = self._owner_class(scope) if isinstance(scope, cst.FunctionDef) else None
        if name.startswith("self.") and owner is not None:
            return [binding for method in _methods(owner) for binding in self._scope_bindings(method).get(name, [])]
        found = self._scope_bindings(scope).get(name, [])
        return found or self._scope_bindings(self.facts.module).get(name, [])

    def _scope_bindings(self, scope: cst.CSTNode) -> Dict[str, List[_Binding]]:
        if scope not in self._scopes:
            collector = _BindingCollector(scope if isinstance(scope, cst.FunctionDef) else None)
            if isinstance(scope, cst.FunctionDef):
                walk.visit(scope.params, collector)
                walk.visit(scope.body, collector)
            else:
                walk.visit(scope, collector)
            self._scopes[scope] = collector.bindings
        return self._scopes[scope]

    def _owner_class(self, function: cst.FunctionDef) -> Optional[cst.ClassDef]:
        block = self.facts.parent(function)
        owner = self.facts.parent(block) if block is not None else None
        return owner if isinstance(owner, cst.ClassDef) else None

    def _is_method(self, function: cst.FunctionDef) -> bool:
        static = any(dotted(d.decorator) == "staticmethod" for d in function.decorators)
        return self._owner_class(function) is not None and not static

    def _data_parameters(self, function: cst.FunctionDef) -> List[cst.Param]:
        """Positional parameters after ``self``: the batch of a helper, the index of ``__getitem__``."""
        return _positional_parameters(function)[1 if self._is_method(function) else 0 :]

    def _function_named(self, func: cst.BaseExpression) -> Optional[cst.FunctionDef]:
        """The function defined here that ``func`` names: a (possibly nested) function or ``self.method``."""
        name = dotted(func) or ""
        if name.startswith("self.") and name.count(".") == 1:
            owner = enclosing_class(self.facts, func)
            return next((m for m in _methods(owner) if m.name.value == name[5:]), None)
        found = self._definition(func)
        return found if isinstance(found, cst.FunctionDef) else None

    def _class_named(self, func: cst.BaseExpression) -> Optional[cst.ClassDef]:
        found = self._definition(func)
        return found if isinstance(found, cst.ClassDef) else None

    def _definition(self, name: cst.BaseExpression) -> Optional[cst.CSTNode]:
        """The ``def`` or ``class`` a plain name is bound to, when that is its only binding in scope."""
        if not isinstance(name, cst.Name):
            return None
        bindings = self._bindings(name.value, name)
        only = bindings[0].node if len(bindings) == 1 else None
        return only if isinstance(only, (cst.FunctionDef, cst.ClassDef)) else None

    def _method(self, class_def: cst.ClassDef, name: str, seen: FrozenSet[str] = frozenset()) -> Optional[cst.FunctionDef]:
        """``name`` as defined by the class or inherited from a base class defined here."""
        own = next((method for method in _methods(class_def) if method.name.value == name), None)
        if own is not None:
            return own
        for base in class_def.bases:
            parent = self._class_named(base.value)
            if parent is not None and parent.name.value not in seen:
                found = self._method(parent, name, seen | {class_def.name.value})
                if found is not None:
                    return found
        return None

    def _calls_of(self, function: cst.FunctionDef) -> List[cst.Call]:
        name, method = function.name.value, self._is_method(function)
        return [
            call
            for call in self._walk.calls
            if (method and isinstance(call.func, cst.Attribute) and call.func.attr.value == name)
            or (not method and isinstance(call.func, cst.Name) and call.func.value == name)
        ]

    @functools.cached_property
    def _walk(self) -> "_CallAndMutationCollector":
        collector = _CallAndMutationCollector()
        walk.visit(self.facts.module, collector)
        return collector


def _intersect(maps: Iterable[Bound]) -> Bound:
    """Keys present in every map; a key's reason survives only when every map gives one."""
    result: Bound = None
    for keys in maps:
        if keys is None:
            continue
        if result is None:
            result = dict(keys)
            continue
        result = {
            key: KeyOrigin(
                origin.where,
                origin.not_a_model_input if keys[key].not_a_model_input else None,
                origin.text if keys[key].text == origin.text else None,
            )
            for key, origin in result.items()
            if key in keys
        }
    return result


def _methods(class_def: Optional[cst.ClassDef]) -> Iterator[cst.FunctionDef]:
    if class_def is not None:
        yield from (s for s in class_def.body.body if isinstance(s, cst.FunctionDef))


def _positional_parameters(function: cst.FunctionDef) -> List[cst.Param]:
    return list(function.params.posonly_params) + list(function.params.params)


def _function_returns(function: cst.FunctionDef) -> List[cst.BaseExpression]:
    """The values of ``function``'s own ``return`` statements (nested functions excluded)."""
    collector = _ReturnCollector()
    walk.visit(function.body, collector)
    return collector.values


def _string_value(node: cst.CSTNode) -> Optional[str]:
    value = node.evaluated_value if isinstance(node, cst.SimpleString) else None
    return value if isinstance(value, str) else None


def _string_key(node: cst.CSTNode) -> Optional[str]:
    """``"k"`` for ``x["k"]`` and for ``x.pop("k", ...)``."""
    if isinstance(node, cst.Call):
        return _string_value(node.args[0].value) if node.args else None
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        return _string_value(node.slice[0].slice.value)
    return None


def _keyword_argument(call: cst.Call, keyword: str) -> Optional[cst.BaseExpression]:
    return next((a.value for a in call.args if a.keyword is not None and a.keyword.value == keyword), None)


def _prepare_arguments(value: cst.BaseExpression) -> Optional[List[cst.BaseExpression]]:
    """The objects handed to ``accelerator.prepare(...)``, which gives back each one, wrapped, in its place."""
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "prepare"):
        return None
    if any(argument.star or argument.keyword is not None for argument in value.args):
        return None
    return [argument.value for argument in value.args]


def _prepared_argument(value: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """``loader`` in ``loader = accelerator.prepare(loader)``."""
    arguments = _prepare_arguments(value)
    return arguments[0] if arguments is not None and len(arguments) == 1 else None


def _prepared_pairs(
    target: cst.BaseExpression, value: cst.BaseExpression
) -> Optional[List[Tuple[cst.BaseExpression, cst.BaseExpression]]]:
    """``model, loader = accelerator.prepare(model, loader)``: each target with the object passed in its place."""
    arguments = _prepare_arguments(value)
    if arguments is None or not isinstance(target, (cst.Tuple, cst.List)) or len(target.elements) != len(arguments):
        return None
    if any(isinstance(element, cst.StarredElement) for element in target.elements):
        return None
    return [(element.value, argument) for element, argument in zip(target.elements, arguments)]


def _iter_argument(expression: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """``loader`` in ``iter(loader)``."""
    if isinstance(expression, cst.Call) and isinstance(expression.func, cst.Name) and expression.func.value == "iter":
        return expression.args[0].value if len(expression.args) == 1 else None
    return None


def _iterated_mapping(comprehension: cst.DictComp) -> Optional[cst.BaseExpression]:
    """``Y`` when the comprehension is ``{k: ... for k, v in Y.items()}``: the same keys, none filtered."""
    clause = comprehension.for_in
    target = clause.target
    if clause.ifs or clause.inner_for_in is not None or not isinstance(target, cst.Tuple) or len(target.elements) != 2:
        return None
    key, iterated = target.elements[0].value, clause.iter
    if not (isinstance(key, cst.Name) and isinstance(comprehension.key, cst.Name) and comprehension.key.value == key.value):
        return None
    if isinstance(iterated, cst.Call) and not iterated.args and isinstance(iterated.func, cst.Attribute):
        return iterated.func.value if iterated.func.attr.value == "items" else None
    return None


def _is_first_item_of(expression: cst.BaseExpression, parameter: str) -> bool:
    """``items[0]`` or ``items[0].keys()``: the keys of the first item a collate function gets."""
    if isinstance(expression, cst.Call) and isinstance(expression.func, cst.Attribute) and not expression.args:
        expression = expression.func.value if expression.func.attr.value == "keys" else expression
    if not isinstance(expression, cst.Subscript) or dotted(expression.value) != parameter or len(expression.slice) != 1:
        return False
    index = expression.slice[0].slice
    return isinstance(index, cst.Index) and isinstance(index.value, cst.Integer) and index.value.value == "0"


def _comprehension_over_first_item(comprehension: cst.DictComp, items: str) -> bool:
    clause = comprehension.for_in
    return (
        not clause.ifs
        and clause.inner_for_in is None
        and isinstance(clause.target, cst.Name)
        and isinstance(comprehension.key, cst.Name)
        and comprehension.key.value == clause.target.value
        and _is_first_item_of(clause.iter, items)
    )


def _loop_copies_every_key(loop: cst.For, items: str, returned: Set[str]) -> bool:
    """``for key in items[0]:`` that sets ``batch[key]`` on every path, never skipping a key."""
    if not isinstance(loop.target, cst.Name) or not _is_first_item_of(loop.iter, items):
        return False
    exits = _LoopExitFinder()
    walk.visit(loop.body, exits)
    key = loop.target.value
    return not exits.found and any(_always_sets(loop.body.body, batch, key) for batch in returned)


def _always_sets(statements: Iterable[cst.BaseStatement], batch: str, key: str) -> bool:
    """True when every path through ``statements`` runs ``batch[key] = ...``."""
    for statement in statements:
        if isinstance(statement, cst.If) and _if_always_sets(statement, batch, key):
            return True
        if isinstance(statement, cst.SimpleStatementLine) and any(
            isinstance(small, cst.Assign) and any(_is_item(t.target, batch, key) for t in small.targets)
            for small in statement.body
        ):
            return True
    return False


def _if_always_sets(statement: cst.If, batch: str, key: str) -> bool:
    orelse: Union[cst.If, cst.Else, None] = statement.orelse
    if not _always_sets(statement.body.body, batch, key):
        return False
    if isinstance(orelse, cst.If):
        return _if_always_sets(orelse, batch, key)
    return isinstance(orelse, cst.Else) and _always_sets(orelse.body.body, batch, key)


def _is_item(node: cst.CSTNode, batch: str, key: str) -> bool:
    """``batch[key]`` with ``key`` the loop variable."""
    if not isinstance(node, cst.Subscript) or dotted(node.value) != batch or len(node.slice) != 1:
        return False
    index = node.slice[0].slice
    return isinstance(index, cst.Index) and isinstance(index.value, cst.Name) and index.value.value == key


def _formats_selected_columns(call: cst.Call) -> bool:
    """``set_format("torch", columns=[...])`` / ``with_format(type, columns)``: only those columns remain."""
    positional = [argument for argument in call.args if argument.keyword is None]
    return len(positional) >= 2 or _keyword_argument(call, "columns") is not None


def _dict_entries(value: cst.BaseExpression) -> Optional[List[Tuple[str, cst.BaseExpression]]]:
    """String keys and values of ``{"k": v, ...}`` or ``dict(k=v, ...)``; None for anything else."""
    if isinstance(value, cst.Dict):
        entries = [(_string_value(e.key), e.value) for e in value.elements if isinstance(e, cst.DictElement)]
        return [(key, item) for key, item in entries if key is not None]
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "dict":
        return [(argument.keyword.value, argument.value) for argument in value.args if argument.keyword is not None]
    return None


def _dict_built_in(function: cst.FunctionDef, name: str) -> Optional[List[Tuple[str, cst.BaseExpression]]]:
    """``item = ...`` then ``item["k"] = v``, as unconditional top-level statements of ``function``.

    The keys of a display (``{...}``, ``dict(...)``) and those set afterwards;
    for any other value (``{k: v[idx] for k, v in self.encodings.items()}``,
    ``self.rows[idx]``) only those set afterwards. None when ``name`` is
    also rebound somewhere else in the function (``item = self.transform(item)``
    under an ``if``), which may drop keys.
    """
    entries: Optional[List[Tuple[str, cst.BaseExpression]]] = None
    top_level = 0
    for statement in function.body.body:
        assignments = statement.body if isinstance(statement, cst.SimpleStatementLine) else ()
        for small in assignments:
            if not isinstance(small, cst.Assign) or len(small.targets) != 1:
                continue
            target = small.targets[0].target
            if isinstance(target, cst.Name) and target.value == name:
                entries = _dict_entries(small.value) or []
                top_level += 1
            elif entries is not None and isinstance(target, cst.Subscript) and dotted(target.value) == name:
                key = _string_key(target)
                entries = entries + [(key, small.value)] if key is not None else entries
    rebinds = _NameRebinds(name)
    walk.visit(function.body, rebinds)
    return entries if rebinds.assignments == top_level and not rebinds.other else None


def _collated_keys(value: cst.Dict, where: str, items: KeyMap) -> KeyMap:
    """Keys of a dict a collate function returns; a value read from one item key keeps that key's reason."""
    keys: KeyMap = {}
    for key, item in _dict_entries(value) or []:
        read = _StringSubscripts()
        walk.visit(item, read)
        source = items.get(read.keys[0]) if len(set(read.keys)) == 1 else None
        keys[key] = source._replace(where=where) if source else _origin(where, item, None)
    return keys


def _removed_columns(call: cst.Call) -> Optional[FrozenSet[str]]:
    """The columns ``map(..., remove_columns=...)`` removes: none without it, the literal names given;
    None when they cannot be read (``remove_columns=ds.column_names`` may remove every column)."""
    removed = _keyword_argument(call, "remove_columns")
    if removed is None:
        return frozenset()
    names = [removed] if isinstance(removed, cst.SimpleString) else None
    if isinstance(removed, (cst.List, cst.Tuple)):
        names = [element.value for element in removed.elements]
    texts = [_string_value(name) for name in names or ()]
    return frozenset(texts) if names is not None and None not in texts else None  # type: ignore[arg-type]


def _passed_through(items: KeyMap, collator: str) -> Bound:
    """The keys a transformers collator (or a tokenizer's ``pad``) hands on: those known not to be strings;
    the collators pass ``label`` on as ``labels``, ``pad`` keeps its name.

    Where a string key is known to remain, ``DataCollatorWithPadding`` and ``pad`` fail in the tokenizer
    before the model is called: no keys.
    """
    if collator in ("DataCollatorWithPadding", "pad") and any(origin.text for origin in items.values()):
        return {}
    renamed = {"label": "labels"} if collator != "pad" else {}
    return {renamed.get(key, key): origin for key, origin in items.items() if origin.text is False}


def _hub_columns(call: cst.Call) -> KeyMap:
    """The columns of ``load_dataset(path, name)`` for a hub data set in :data:`HUB_COLUMNS`; else none known."""
    positional = [argument.value for argument in call.args if argument.keyword is None and not argument.star]
    path = _keyword_argument(call, "path") or (positional[0] if positional else None)
    name = _keyword_argument(call, "name") or (positional[1] if len(positional) > 1 else None)
    path_text = _string_value(path) if path is not None else None
    name_text = _string_value(name) if name is not None else None
    if path_text is None or (name is not None and name_text is None):
        return {}
    columns = HUB_COLUMNS.get((path_text.rsplit("/", 1)[-1], name_text))
    where = f'load_dataset("{path_text}"' + (f', "{name_text}")' if name_text else ")")
    return {column: KeyOrigin(where, reason, reason == _TEXT) for column, reason in (columns or {}).items()}


def _origin(where: str, value: cst.BaseExpression, index: Optional[str]) -> KeyOrigin:
    """A key set to ``value`` in ``where`` (``index``: the item's index parameter, if any)."""
    origin = _origin_of_reason(where, _value_reason(value, index))
    if origin.text is None and isinstance(value, cst.Call) and (dotted(value.func) or "").startswith("torch."):
        return origin._replace(text=False)
    return origin


def _origin_of_reason(where: str, reason: Optional[str]) -> KeyOrigin:
    return KeyOrigin(where, reason, True if reason in TEXT_REASONS else False if reason is not None else None)


def _value_reason(value: cst.BaseExpression, index: Optional[str]) -> Optional[str]:
    """Why no model's ``forward`` takes this value: it is the dataset index itself, or a string."""
    if index is not None and _is_index(value, index):
        return "the item's index"
    if isinstance(value, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)):
        return "a string"
    func = value.func if isinstance(value, cst.Call) else None
    if isinstance(func, cst.Name) and func.value == "str":
        return "a string"
    if isinstance(func, cst.Attribute) and func.attr.value in ("join", "format") and isinstance(func.value, cst.SimpleString):
        return "a string"
    if func is not None and dotted(func) == "os.path.join":
        return "a file path"
    return None


def _is_index(value: cst.BaseExpression, index: str) -> bool:
    """``idx`` itself, or only it converted: ``torch.tensor(idx)``, ``int(idx)``, ``torch.LongTensor([idx])``."""
    if isinstance(value, cst.Name):
        return value.value == index
    if isinstance(value, (cst.List, cst.Tuple)) and len(value.elements) == 1:
        return _is_index(value.elements[0].value, index)
    if isinstance(value, cst.Call) and len(value.args) >= 1 and value.args[0].keyword is None:
        return all(argument.keyword is not None for argument in value.args[1:]) and _is_index(value.args[0].value, index)
    return False


class _NameRebinds(cst.CSTVisitor):
    """Where a function body rebinds ``name``: plain ``name = ...`` statements, and any other binding."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.assignments = 0
        self.other = False

    def _binds(self, target: cst.CSTNode) -> bool:
        if isinstance(target, (cst.Tuple, cst.List)):
            return any(self._binds(element.value) for element in target.elements)
        if isinstance(target, cst.StarredElement):
            return self._binds(target.value)
        return isinstance(target, cst.Name) and target.value == self.name

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if isinstance(node.target, cst.Name):
            self.assignments += node.target.value == self.name
        else:
            self.other = self.other or self._binds(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.other = self.other or self._binds(node.target)

    def visit_For(self, node: cst.For) -> None:
        self.other = self.other or self._binds(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.other = self.other or self._binds(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self.other = self.other or self._binds(node.name)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False


class _ReturnCollector(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.values: List[cst.BaseExpression] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            self.values.append(node.value)


class _LoopExitFinder(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.found = False

    def visit_Continue(self, node: cst.Continue) -> None:
        self.found = True

    def visit_Break(self, node: cst.Break) -> None:
        self.found = True


class _StringSubscripts(cst.CSTVisitor):
    """String keys read with ``x["key"]`` in an expression."""

    def __init__(self) -> None:
        super().__init__()
        self.keys: List[str] = []

    def visit_Subscript(self, node: cst.Subscript) -> None:
        key = _string_key(node)
        if key is not None:
            self.keys.append(key)


class _ColumnReader(cst.CSTVisitor):
    """Columns a ``.map`` function reads as ``batch["column"]``, and which of them reach a tokenizer call."""

    def __init__(self, batch: str) -> None:
        super().__init__()
        self.batch = batch
        self.columns: Dict[str, None] = {}  # insertion-ordered set
        self.tokenized: Set[str] = set()
        self._inside_tokenizer = 0

    def visit_Call(self, node: cst.Call) -> None:
        self._inside_tokenizer += bool(TOKENIZER_NAME.search(dotted(node.func) or ""))

    def leave_Call(self, original_node: cst.Call) -> None:
        self._inside_tokenizer -= bool(TOKENIZER_NAME.search(dotted(original_node.func) or ""))

    def visit_Subscript(self, node: cst.Subscript) -> None:
        column = _string_key(node)
        if column is not None and dotted(node.value) == self.batch:
            self.columns[column] = None
            if self._inside_tokenizer:
                self.tokenized.add(column)


class _CallAndMutationCollector(cst.CSTVisitor):
    """Every call in the module, and ``name.method(...)`` / ``del name[...]`` by name (subscripts stripped)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: List[cst.Call] = []
        self.mutations: Dict[str, List[Tuple[str, cst.CSTNode]]] = {}

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)
        if isinstance(node.func, cst.Attribute):
            self._record(node.func.value, node.func.attr.value, node)

    def visit_Del(self, node: cst.Del) -> None:
        if isinstance(node.target, cst.Subscript):
            self._record(node.target.value, "__delitem__", node.target)

    def _record(self, owner: cst.BaseExpression, method: str, node: cst.CSTNode) -> None:
        while isinstance(owner, cst.Subscript):
            owner = owner.value
        name = dotted(owner)
        if name is not None:
            self.mutations.setdefault(name, []).append((method, node))


class _BindingCollector(cst.CSTVisitor):
    """How each name of one scope gets its values; nested functions, classes and comprehensions are other scopes."""

    def __init__(self, function: Optional[cst.FunctionDef]) -> None:
        super().__init__()
        self.function = function
        self.bindings: Dict[str, List[_Binding]] = {}

    def _add(self, target: cst.CSTNode, kind: str, node: cst.CSTNode) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:  # unpacking: no single value per name
                self._add(element.value, "other" if kind == "value" else kind, node)
            return
        if isinstance(target, cst.StarredElement):
            self._add(target.value, "other", node)
            return
        name = dotted(target) if isinstance(target, (cst.Name, cst.Attribute)) else None
        if name is not None:
            self.bindings.setdefault(name, []).append(_Binding(name, kind, node, self.function))

    def visit_Param(self, node: cst.Param) -> None:
        self._add(node.name, "param", node)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            for name, value in _prepared_pairs(target.target, node.value) or [(target.target, node.value)]:
                self._add(name, "value", value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._add(node.target, "value" if node.value is not None else "other", node.value or node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._add(node.target, "other", node)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._add(node.target, "other", node)

    def visit_For(self, node: cst.For) -> None:
        self._add(node.target, "for", node)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._add(node.asname.name, "other", node)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        local = node.asname.name if node.asname is not None else node.name
        while isinstance(local, cst.Attribute):  # ``import a.b`` binds ``a``
            local = local.value
        self._add(local, "other", node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self._add(node.name, "other", node)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self._add(node.name, "other", node)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_CompFor(self, node: cst.CompFor) -> bool:
        walk.visit(node.iter, self)  # the iterable belongs to the enclosing scope; the targets do not
        for condition in node.ifs:
            walk.visit(condition, self)
        if node.inner_for_in is not None:
            walk.visit(node.inner_for_in, self)
        return False
