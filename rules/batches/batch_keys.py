"""Which keys a batch provably carries, and which keyword arguments a model's ``forward`` takes.

Rules about ``model(**batch)`` need both sides, and only on evidence the
module itself shows. Key sets are *lower bounds*: a key is listed only when
every way the module builds the batch puts it there. Whatever cannot be
followed (a tokenizer call, a library collator, a filtered dict comprehension,
``batch.pop(name)``) contributes no key, so a rule built on this stays silent
instead of guessing. Names are followed through
:class:`~trainlint.analysis.names.Names`: every binding that may reach a use
(flow-sensitively; ``self.x`` across the class and its same-module bases) must
agree, so a key counts only when each of them carries it.

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
from typing import TYPE_CHECKING, Callable, Dict, FrozenSet, Iterable, List, NamedTuple, Optional, Set, Tuple, Union

import libcst as cst

from trainlint.analysis import walk
from trainlint.analysis.imports import dotted
from trainlint.analysis.names import (
    ANNOTATED, ASSIGN, CLASS, DEF, FOR, IMPORT, KEYWORD_ONLY, PARAMETER, POSITIONAL, VAR_KEYWORD, WALRUS,
    Binding, Names, Parameter, passed_argument,
)
from trainlint.analysis.steps import TrainingLoops
from trainlint.analysis.values import string_value

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
# ``None`` means "no constraint": a binding reached again while it is being
# followed (``batch = {k: v.to(d) for k, v in batch.items()}`` carried round a
# loop) keeps the keys that the other bindings give, so it is left out of the
# intersection.
Bound = Optional[KeyMap]
Visiting = FrozenSet[Binding]
_VALUED = (ASSIGN, ANNOTATED, WALRUS)  # bindings whose bound expression is what the name holds
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


class BatchKeys:
    """Batch keys and ``forward`` signatures for one module (see the module docstring)."""

    def __init__(self, facts: "ModuleFacts") -> None:
        self.facts = facts
        self.names = facts.fact(Names)

    def keys(self, expression: cst.BaseExpression) -> KeyMap:
        """The keys ``expression`` (the ``X`` of ``f(**X)``) provably carries; empty when unknown."""
        return self._keys(expression, frozenset()) or {}

    def forward_signature(self, model: cst.BaseExpression) -> Optional[ForwardSignature]:
        """``forward``'s keyword parameters when ``model`` is an instance of a class defined here."""
        model_class = self._instantiated_class(model, frozenset())
        if not isinstance(model_class, cst.ClassDef) or self.names.method(model_class, "__call__") is not None:
            return None
        forward = self.names.method(model_class, "forward")
        if forward is None:
            return None
        parameters = self.names.parameters(forward)
        names = frozenset(p.name for p in parameters if p.kind in (POSITIONAL, KEYWORD_ONLY) and p.position != 0)  # not ``self``
        var_keyword = any(p.kind == VAR_KEYWORD for p in parameters)
        return ForwardSignature(model_class.name.value, names, var_keyword, exhaustive=not forward.decorators)

    def is_model_like(self, callee: cst.BaseExpression) -> bool:
        """``model``, ``self.net``, ``bert_model``, or a name bound to an instance of a class defined here.

        Never a name bound to a ``def``, a ``class`` or an import, whatever it is called.
        """
        name = dotted(callee)
        if name is None or self._names_code(callee):
            return False
        return bool(MODEL_NAME.search(name.rsplit(".", 1)[-1])) or self._model_class_defined_here(callee)

    def _names_code(self, callee: cst.BaseExpression) -> bool:
        """A function, method, class or import: calling it runs no model's ``forward`` (``log_model_inputs(**b)``).

        Not a property (``self.model`` read through ``@property def model``), which holds a value.
        """
        return any(
            binding.kind in (CLASS, IMPORT) or (binding.kind == DEF and not _is_property(binding.node))  # type: ignore[arg-type]
            for binding in self.names.reaching(callee)
        )

    def _model_class_defined_here(self, callee: cst.BaseExpression) -> bool:
        model_class = self._instantiated_class(callee, frozenset())
        return isinstance(model_class, cst.ClassDef) and self.names.method(model_class, "forward") is not None

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
        if helper is None or not self._moves_every_key(helper):
            return {}
        batch = self.names.argument_for(call, helper, self._data_parameters(helper)[0].node)
        return self._keys(batch, visiting) if batch is not None else {}

    def _binding_keys(self, binding: Binding, visiting: Visiting) -> Bound:
        value = self._bound_value(binding)
        if value is not None:
            return self._keys(value, visiting)
        if binding.kind == FOR:
            loop = self.facts.fact(TrainingLoops).loop_of(binding.statement)  # type: ignore[arg-type]
            if loop is not None and loop.loader is not None and dotted(loop.batch) == binding.name:
                return self._loader_keys(loop.loader, visiting)
        if binding.kind == PARAMETER and type(binding.statement) is cst.FunctionDef:
            return self._argument_keys(binding.statement, binding.node, visiting)  # type: ignore[arg-type]
        return {}

    def _argument_keys(self, function: cst.FunctionDef, parameter: cst.Param, visiting: Visiting) -> Bound:
        """Keys of what every call of ``function`` in this module passes as ``parameter``."""
        arguments = [self.names.argument_for(call, function, parameter) for call in self.names.calls_of(function)]
        if not arguments or None in arguments:
            return {}
        return _intersect(self._keys(argument, visiting) for argument in arguments)  # type: ignore[arg-type]

    def _bound_value(self, binding: Binding) -> Optional[cst.BaseExpression]:
        """What an assignment binds the name to: :meth:`Names.bound_value`, and for
        ``model, loader = accelerator.prepare(model, loader)`` the object passed in the name's place."""
        if binding.kind not in _VALUED:
            return None
        value = self.names.bound_value(binding)
        if value is not None or len(binding.path) != 1 or binding.starred or binding.value is None:
            return value
        arguments = _prepare_arguments(binding.value)
        target = next(
            (t.target for t in getattr(binding.statement, "targets", ()) if self.names.contains(t.target, binding.node)), None
        )
        if arguments is None or not isinstance(target, (cst.Tuple, cst.List)) or len(target.elements) != len(arguments):
            return None
        if any(isinstance(element, cst.StarredElement) for element in target.elements):
            return None
        return arguments[binding.path[0]]

    def _without_removed_keys(self, name: str, keys: Bound) -> Bound:
        """Drop what ``name.pop("k")`` or ``del name["k"]`` anywhere in the module removes."""
        if not keys:
            return keys
        for method, node in self._mutations.get(name, ()):
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
        returns = self.names.returns(function)
        if not parameters or any(isinstance(value, cst.Dict) for value in returns):
            return False
        mappings = [_iterated_mapping(value) for value in returns if isinstance(value, cst.DictComp)]
        batch = parameters[0].name
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

    def _loader_binding_keys(self, binding: Binding, visiting: Visiting) -> Bound:
        value = self._bound_value(binding)
        if value is not None:
            return self._loader_keys(value, visiting)
        return self._module_loader_keys if binding.kind == PARAMETER else {}

    @functools.cached_property
    def _module_loader_keys(self) -> KeyMap:
        """For a loader handed in from elsewhere: the keys every DataLoader built in this module carries."""
        calls = self.facts.nodes(cst.Call)
        built = [self._dataloader_keys(call, frozenset()) for call in calls if self._is_dataloader(call)]  # type: ignore[arg-type]
        return _intersect(built) or {}

    def _is_dataloader(self, call: cst.Call) -> bool:
        callee = self.facts.qualified_name(call.func) or dotted(call.func) or ""
        return callee.rsplit(".", 1)[-1] == "DataLoader"

    def _dataloader_keys(self, call: cst.Call, visiting: Visiting) -> Bound:
        dataset = passed_argument(call, "dataset", 0)
        collate = passed_argument(call, "collate_fn")
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
            bindings = self.names.reaching(collate)
            collate = (self._bound_value(bindings[0]) if len(bindings) == 1 else None) or collate
        if isinstance(collate, cst.Call):
            collate = collate.func
        qualified = self.facts.qualified_name(collate) or ""
        name = qualified.rsplit(".", 1)[-1]
        return name if qualified.startswith("transformers.") and name in PASS_THROUGH_COLLATORS else None

    def _collate_keys(self, function: cst.FunctionDef, items: KeyMap) -> KeyMap:
        """All item keys for a collate that copies every key, else the keys of the dict it returns."""
        returns = self.names.returns(function)
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
        items = parameters[0].name
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
        """Bound to ``<...Tokenizer...>.from_pretrained(...)`` by every binding that reaches it; where none
        is in sight (``args.tokenizer``, a name from another module), named like a tokenizer."""
        name = dotted(receiver)
        if name is None:
            return False
        values = [self._bound_value(binding) for binding in self.names.reaching(receiver)]
        if not values:
            return bool(TOKENIZER_NAME.search(name.rsplit(".", 1)[-1]))
        return all(
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value == "from_pretrained"
            and "Tokenizer" in (dotted(value.func.value) or "")
            for value in values
        )

    def _copies_every_key(self, function: cst.FunctionDef) -> bool:
        """``default_collate(items)``, ``{k: ... for k in items[0]}``, or ``for k in items[0]: batch[k] = ...``."""
        parameters = self._data_parameters(function)
        if not parameters:
            return False
        items = parameters[0].name
        returns = self.names.returns(function)
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

    def _dataset_binding_keys(self, binding: Binding, visiting: Visiting) -> Bound:
        value = self._bound_value(binding)
        return self._dataset_keys(value, visiting) if value is not None else {}

    def _item_keys(self, dataset_class: cst.ClassDef) -> KeyMap:
        """Keys of the dict that every ``return`` of the class's ``__getitem__`` builds."""
        getitem = self.names.method(dataset_class, "__getitem__")
        parameters = self._data_parameters(getitem) if getitem is not None else []
        if getitem is None or not parameters:
            return {}
        index = parameters[0].name
        where = f"{dataset_class.name.value}.__getitem__"
        maps = []
        for value in self.names.returns(getitem):
            built = value.value if isinstance(value, cst.Name) else None  # ``item = {...}; ...; return item``
            entries = self._dict_built_in(getitem, built) if built else _dict_entries(value)
            keys = {key: self._element_origin(where, item, index) for key, item in entries or []}
            maps.append(self._without_removed_keys(built, keys) if built else keys)
        return _intersect(maps) or {}

    def _element_origin(self, where: str, value: cst.BaseExpression, index: str) -> KeyOrigin:
        """As :func:`_origin`; also ``self.paths[idx]`` where every ``self.paths = ...`` lists file names."""
        origin = _origin(where, value, index)
        if origin.not_a_model_input or not isinstance(value, cst.Subscript) or not isinstance(value.value, cst.Attribute):
            return origin
        listed = [self._bound_value(binding) for binding in self.names.reaching(value.value)]
        if listed and all(v is not None and self._lists_file_names(v) for v in listed):
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
        if dotted(expression) is None:
            return False
        for binding in self.names.reaching(expression):
            value = self._bound_value(binding) if binding not in visiting else None
            if value is not None and self._is_hf_dataset(value, visiting | {binding}):
                return True
        return False

    def _hf_method_keys(self, call: cst.Call, visiting: Visiting) -> Bound:
        method = call.func.attr.value  # type: ignore[attr-defined]
        source = call.func.value  # type: ignore[attr-defined]
        if method in HF_KEEP_COLUMNS or (method == "with_format" and not _formats_selected_columns(call)):
            return self._dataset_keys(source, visiting)
        if method == "rename_column":
            names = [string_value(argument.value) for argument in call.args]
            if len(names) != 2 or None in names:
                return {}
            keys = self._dataset_keys(source, visiting) or {}  # renaming its own name's columns: no bound kept
            return {names[1] if key == names[0] else key: origin for key, origin in keys.items()}  # type: ignore[misc]
        if method == "remove_columns":  # ``ds.remove_columns(["text"])``: every other column stays
            removed = _removed_columns(call, position=0)
            keys = self._dataset_keys(source, visiting) if removed is not None else {}
            return {column: origin for column, origin in (keys or {}).items() if column not in removed}  # type: ignore[operator]
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
            parameters, body, where = self._data_parameters(function), function.body, "the map lambda"
            returns: List[cst.BaseExpression] = [function.body]
        else:
            defined = self._function_named(function)
            if defined is None:
                return {}
            parameters, body, where = self._data_parameters(defined), defined.body, f"{defined.name.value}()"
            returns = self.names.returns(defined)
        if not parameters:
            return {}
        reader = _ColumnReader(parameters[0].name)
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
            for method, node in self._mutations.get(dotted(dataset) or "", ())
        )

    # ----- models -------------------------------------------------------------

    def _instantiated_class(self, model: cst.BaseExpression, visiting: Visiting) -> object:
        """The class defined here that every binding reaching ``model`` instantiates; else ``_UNKNOWN``.

        A binding met again while it is being followed (``model = model.to(device)``
        in a loop) says nothing: ``None`` when there is no other.
        """
        if dotted(model) is None:
            return _UNKNOWN
        found = {
            self._binding_class(binding, visiting | {binding}) if binding not in visiting else None
            for binding in self.names.reaching(model)
        } - {None}
        return found.pop() if len(found) == 1 else _UNKNOWN

    def _binding_class(self, binding: Binding, visiting: Visiting) -> object:
        parameter = binding.node
        if binding.kind == PARAMETER and isinstance(parameter, cst.Param) and parameter.annotation is not None:
            return self._class_named(parameter.annotation.annotation) or _UNKNOWN
        value = self._bound_value(binding)
        return self._expression_class(value, visiting) if value is not None else _UNKNOWN

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

    # ----- names and definitions ------------------------------------------------

    def _resolve(
        self,
        use: cst.BaseExpression,
        visiting: Visiting,
        evaluate: Callable[[Binding, Visiting], Bound],
        unbound: Callable[[], Bound],
    ) -> Bound:
        """Intersect ``evaluate`` over every binding that may reach ``use``; ``unbound()`` when none is in sight.

        Flow decides which bindings count: in ``ds = ds.rename_column("label",
        "labels")`` the ``ds`` on the right is the one bound before.
        """
        if dotted(use) is None:
            return {}
        bindings = self.names.reaching(use)
        if not bindings:
            return unbound()
        return _intersect(evaluate(binding, visiting | {binding}) for binding in bindings if binding not in visiting)

    def _data_parameters(self, function: Union[cst.FunctionDef, cst.Lambda]) -> List[Parameter]:
        """Positional parameters after ``self``/``cls``: the batch of a helper, the index of ``__getitem__``."""
        positional = [p for p in self.names.parameters(function) if p.position is not None]
        receiver = type(function) is cst.FunctionDef and self.names.method_kind(function) in ("instance", "class")  # type: ignore[arg-type]
        return positional[1 if receiver else 0 :]

    def _function_named(self, func: cst.BaseExpression) -> Optional[cst.FunctionDef]:
        """The one function defined here that ``func`` may be (a function, ``self.method``, an instance's
        ``__call__``, a factory's closure), where the caller passes it every argument itself: not a
        ``functools.partial``, which fills some parameters first."""
        found = self.names.resolve_callable(func)
        if len(found) != 1 or type(found[0]) is not cst.FunctionDef or self._is_partial(func, frozenset()):
            return None
        return found[0]

    def _is_partial(self, expression: cst.BaseExpression, visiting: Visiting) -> bool:
        """``functools.partial(...)``, or a name bound to one."""
        if isinstance(expression, cst.Call):
            return self.facts.qualified_name(expression.func) == "functools.partial"
        for binding in self.names.reaching(expression) if isinstance(expression, cst.Name) else ():
            value = self._bound_value(binding) if binding not in visiting else None
            if value is not None and self._is_partial(value, visiting | {binding}):
                return True
        return False

    def _class_named(self, func: cst.BaseExpression) -> Optional[cst.ClassDef]:
        """The one class defined here that ``func`` may be."""
        found = self.names.resolve_callable(func)
        return found[0] if len(found) == 1 and type(found[0]) is cst.ClassDef else None  # type: ignore[return-value]

    def _dict_built_in(self, function: cst.FunctionDef, name: str) -> Optional[List[Tuple[str, cst.BaseExpression]]]:
        """``item = ...`` then ``item["k"] = v``, as unconditional top-level statements of ``function``.

        The keys of a display (``{...}``, ``dict(...)``) and those set afterwards;
        for any other value (``{k: v[idx] for k, v in self.encodings.items()}``,
        ``self.rows[idx]``) only those set afterwards. None when ``name`` is
        also bound some other way in the function (``item = self.transform(item)``
        under an ``if``, ``for item in ...``), which may drop keys.
        """
        entries: Optional[List[Tuple[str, cst.BaseExpression]]] = None
        top_level: List[cst.CSTNode] = []
        for statement in function.body.body:
            assignments = statement.body if isinstance(statement, cst.SimpleStatementLine) else ()
            for small in assignments:
                if not isinstance(small, cst.Assign) or len(small.targets) != 1:
                    continue
                target = small.targets[0].target
                if isinstance(target, cst.Name) and target.value == name:
                    entries = _dict_entries(small.value) or []
                    top_level.append(target)
                elif entries is not None and isinstance(target, cst.Subscript) and dotted(target.value) == name:
                    key = _string_key(target)
                    entries = entries + [(key, small.value)] if key is not None else entries
        bound = [binding.node for binding in self.names.bindings(function, name) if binding.kind != PARAMETER]
        return entries if bound == top_level else None

    @functools.cached_property
    def _mutations(self) -> Dict[str, List[Tuple[str, cst.CSTNode]]]:
        """``name.method(...)`` and ``del name[...]`` anywhere in the module, by the dotted name (subscripts stripped)."""
        found: Dict[str, List[Tuple[str, cst.CSTNode]]] = {}
        for node in self.facts.nodes(cst.Call, cst.Del):
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
                owner, method, mutated = node.func.value, node.func.attr.value, node
            elif isinstance(node, cst.Del) and isinstance(node.target, cst.Subscript):
                owner, method, mutated = node.target.value, "__delitem__", node.target
            else:
                continue
            while isinstance(owner, cst.Subscript):
                owner = owner.value
            name = dotted(owner)
            if name is not None:
                found.setdefault(name, []).append((method, mutated))
        return found


def _is_property(function: cst.FunctionDef) -> bool:
    return any((dotted(d.decorator) or "").rsplit(".", 1)[-1] in ("property", "cached_property") for d in function.decorators)


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


def _string_key(node: cst.CSTNode) -> Optional[str]:
    """``"k"`` for ``x["k"]`` and for ``x.pop("k", ...)``."""
    if isinstance(node, cst.Call):
        return string_value(node.args[0].value) if node.args else None
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        return string_value(node.slice[0].slice.value)
    return None


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
    return passed_argument(call, "columns", 1) is not None


def _dict_entries(value: cst.BaseExpression) -> Optional[List[Tuple[str, cst.BaseExpression]]]:
    """String keys and values of ``{"k": v, ...}`` or ``dict(k=v, ...)``; None for anything else."""
    if isinstance(value, cst.Dict):
        entries = [(string_value(e.key), e.value) for e in value.elements if isinstance(e, cst.DictElement)]
        return [(key, item) for key, item in entries if key is not None]
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "dict":
        return [(argument.keyword.value, argument.value) for argument in value.args if argument.keyword is not None]
    return None


def _collated_keys(value: cst.Dict, where: str, items: KeyMap) -> KeyMap:
    """Keys of a dict a collate function returns; a value read from one item key keeps that key's reason."""
    keys: KeyMap = {}
    for key, item in _dict_entries(value) or []:
        read = _StringSubscripts()
        walk.visit(item, read)
        source = items.get(read.keys[0]) if len(set(read.keys)) == 1 else None
        keys[key] = source._replace(where=where) if source else _origin(where, item, None)
    return keys


def _removed_columns(call: cst.Call, position: Optional[int] = None) -> Optional[FrozenSet[str]]:
    """The columns ``map(..., remove_columns=...)`` (or ``remove_columns(column_names)``, its argument at
    ``position``) removes: none without it, the literal names given; None when they cannot be read
    (``remove_columns=ds.column_names`` may remove every column)."""
    removed = passed_argument(call, "remove_columns" if position is None else "column_names", position)
    if removed is None:
        return frozenset()
    names = [removed] if isinstance(removed, cst.SimpleString) else None
    if isinstance(removed, (cst.List, cst.Tuple)):
        names = [element.value for element in removed.elements]
    texts = [string_value(name) for name in names or ()]
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
    path = passed_argument(call, "path", 0)
    name = passed_argument(call, "name", 1)
    path_text = string_value(path) if path is not None else None
    name_text = string_value(name) if name is not None else None
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
