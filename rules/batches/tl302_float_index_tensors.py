"""TL302 float-index-tensors: a tensor created as floating point that is used as indices."""

from __future__ import annotations

from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

import libcst as cst

from trainlint.analysis import dotted
from trainlint.analysis.graph_values import GraphValues
from trainlint.analysis.names import PARAMETER, Names, passed_argument
from trainlint.analysis.values import string_value
from trainlint.diagnostics import Applicability
from trainlint.rule import CstFix, Rule
from trainlint.step_words import DTYPE_KEEPING, FLOAT_DTYPES, INTEGER_DTYPES, INTEGER_METHODS, ITERATION_WRAPPERS, SEQUENCE_MAKERS

Path = Tuple[Union[int, str], ...]  # indexes into tuples, keys into dicts: where a value sits in a batch

FLOAT_TENSOR_TYPES = frozenset(
    {f"torch.{kind}Tensor" for kind in ("Float", "Double", "Half", "BFloat16")}
    | {f"torch.cuda.{kind}Tensor" for kind in ("Float", "Double", "Half", "BFloat16")}
    | {"torch.Tensor"}  # ``torch.Tensor(data)`` is the float32 constructor
)
TENSOR_FACTORIES = frozenset({"torch.tensor", "torch.as_tensor", "torch.asarray"})
# Creators of a tensor of the default (floating-point) dtype from its shape, filled in afterwards: a batch of token
# ids padded with ``torch.zeros(n, length)`` (fixtures/TL302_float_index_tensors/bad_zero_padded_ids.py).
SHAPED_FACTORIES = frozenset({"torch.zeros", "torch.ones", "torch.empty"})
FLOAT_METHODS = frozenset({"float", "double", "half", "bfloat16"})
# NumPy creators whose default dtype is float64 (token ids read with ``np.loadtxt`` are floats).
NUMPY_FLOAT_DEFAULTS = frozenset({"numpy.zeros", "numpy.ones", "numpy.empty", "numpy.loadtxt", "numpy.genfromtxt"})
# Float values that are class probabilities, not class indices: a legitimate cross-entropy target.
PROBABILITIES = frozenset({"one_hot", "softmax", "log_softmax", "sigmoid", "label_smooth", "smooth_labels"})
EMBEDDINGS = frozenset({"torch.nn.Embedding", "torch.nn.EmbeddingBag", "torch.nn.modules.sparse.Embedding"})
INDEX_LOSSES = {  # functional loss -> whether float targets may be class probabilities instead
    "torch.nn.functional.cross_entropy": True,
    "torch.nn.functional.nll_loss": False,
}
INDEX_CRITERIA = {"torch.nn.CrossEntropyLoss": True, "torch.nn.NLLLoss": False}
DATA_LOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
TENSOR_DATASETS = frozenset({"torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset"})
# What a loop iterates through (``enumerate`` shifts the item by one: followed apart).
WRAPPERS_KEEPING_ITEMS = ITERATION_WRAPPERS - {"enumerate"}
# Calls whose output is token ids (fixtures/TL302_float_index_tensors/bad_tokenizer_ids_as_float.py).
TOKENIZING_METHODS = frozenset({"encode", "encode_plus", "batch_encode_plus", "convert_tokens_to_ids", "texts_to_sequences"})
# Hugging Face heads that read float ``labels`` as regression or multi-label targets.
FLOAT_LABEL_PROBLEMS = frozenset({"regression", "multi_label_classification"})
MAX_DEPTH = 12


class IndexUse(NamedTuple):
    """A place that needs integer indices, and what the value there is used as."""

    value: cst.BaseExpression
    role: str
    error: str  # what PyTorch raises there
    probabilities_allowed: bool = False


EMBEDDING_ERROR = "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int"
LOSS_ERROR = "expected target dtype to be Long or Byte, but got Float"
LIST_ERROR = "only integer tensors of a single element can be converted to an index"


class FloatIndexTensors(Rule):
    """## What it does
    Finds a tensor created as floating point (`torch.FloatTensor(...)`,
    `torch.tensor(..., dtype=torch.float32)`, `torch.from_numpy` of a float
    array, `.float()`) that reaches a place that takes indices: the input of
    an `nn.Embedding` or `F.embedding`, `input_ids=`/`labels=` of a model call
    or batch dict, the class-index target of `F.cross_entropy`,
    `nn.CrossEntropyLoss` or `nll_loss`, or the subscript of a Python list
    (in a module that also gives indices to one of the others: every file
    subscripts lists, and a file is not parsed for that alone).
    The chain is followed through names, `.to(device)`-like calls, a
    `TensorDataset` and the `DataLoader` over it, and a same-module model
    whose `forward` embeds its input.

    ## Why is this bad
    Token ids, labels and positions are indices. A float tensor of them fails
    at the first step: "Expected tensor for argument #1 'indices' to have one
    of the following scalar types: Long, Int" (an embedding), "expected target
    dtype to be Long or Byte, but got Float" (a loss), or "only integer
    tensors of a single element can be converted to an index" (a list), after
    the data pipeline and the model were built.

    ## Example
    ```python
    input_ids = torch.FloatTensor(encoded)
    labels = torch.tensor(labels, dtype=torch.float32)
    loader = DataLoader(TensorDataset(input_ids, labels), batch_size=16)
    for ids, y in loader:
        loss = model(input_ids=ids, labels=y).loss
    ```

    ## Use instead
    ```python
    input_ids = torch.LongTensor(encoded)
    labels = torch.tensor(labels, dtype=torch.long)
    ```

    ## Fix safety
    The tensor is created as `torch.long` instead (`torch.LongTensor`,
    `dtype=torch.long`, `.long()`). Safe where the values are integral by
    construction (a tokenizer's output, `range`, an integer array);
    otherwise unsafe: `.long()` truncates a value such as `2.7` to `2`
    where the original fails loudly.
    Float labels are not reported where the module configures a Hugging
    Face regression or multi-label head (`num_labels=1`,
    `problem_type="regression"`), nor cross-entropy targets made as class
    probabilities (`one_hot(...).float()`, `softmax`, or a `torch.zeros`
    filled in as a multi-hot target). A tensor made from its shape
    (`torch.zeros(n, length)`) and filled with token ids is reported where
    an embedding takes it.

    ## Evidence
    `fixtures/TL302_float_index_tensors/` and `tests/test_runtime_TL302.py`:
    each bad fixture raises the index error on the CPU at its first step;
    each fixed one trains exactly like `reference_trainer`'s text task.
    """

    fix = Applicability.SAFE

    def visit_Module(self, node: cst.Module) -> None:
        self.values = self.facts.fact(GraphValues)
        self.names = self.facts.fact(Names)
        self.float_labels_expected = self._configures_float_labels()
        self.constructed = self._constructed_attributes()
        # The same-module calls whose ``return`` is being followed, innermost last: a parameter of the function
        # called there holds that call's argument, not any call's (``gpu(x)`` returns its own ``x``).
        self.invocations: List[Tuple[cst.FunctionDef, cst.Call]] = []
        reported: Dict[cst.Call, IndexUse] = {}
        for use in self._index_uses():
            source = self._float_source(use.value, (), 0)
            if source is None or source in reported:
                continue
            if use.probabilities_allowed and (_makes_probabilities(source) or self._shaped(source)):
                continue  # `labels = torch.zeros(n, classes); labels[i, c] = 1`: a multi-hot target, not indices
            reported[source] = use
        for source, use in reported.items():
            self._report(source, use)

    # ----- where indices are needed --------------------------------------------------

    def _index_uses(self) -> List[IndexUse]:
        uses: List[IndexUse] = []
        for call in self.facts.nodes(cst.Call):
            qualified = self.facts.qualified_name(call.func) or ""
            positional = [a.value for a in call.args if a.keyword is None and not a.star]
            keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
            if qualified == "torch.nn.functional.embedding" and (positional or "input" in keywords):
                uses.append(IndexUse(positional[0] if positional else keywords["input"], "the input of `F.embedding`", EMBEDDING_ERROR))
            elif self._made_by(call.func) in EMBEDDINGS and positional:
                uses.append(IndexUse(positional[0], f"the input of the embedding `{dotted(call.func)}`", EMBEDDING_ERROR))
            target_kind = INDEX_LOSSES.get(qualified)
            if target_kind is None:
                target_kind = INDEX_CRITERIA.get(self._made_by(call.func) or "")
            if target_kind is not None:
                target = keywords.get("target", positional[1] if len(positional) > 1 else None)
                if target is not None:
                    uses.append(IndexUse(target, "the class-index target of the loss", LOSS_ERROR, target_kind))
            for index, arg in enumerate(positional):
                role = self._forward_embeds(call, index)
                if role:
                    uses.append(IndexUse(arg, role, EMBEDDING_ERROR))
            uses.extend(self._keyword_uses(keywords.items()))
        for subscript in self.facts.nodes(cst.Subscript):
            index = _single_index(subscript)
            if index is not None and self._is_python_sequence(subscript.value):
                uses.append(IndexUse(index, f"an index into the Python list `{self.facts.code(subscript.value)}`", LIST_ERROR))
        for literal in self.facts.nodes(cst.Dict):
            pairs = [(string_value(e.key), e.value) for e in literal.elements if isinstance(e, cst.DictElement)]
            uses.extend(self._keyword_uses((k, v) for k, v in pairs if k is not None))
        # a Python list's subscript only beside another place that takes indices, as the rule's trigger reads the
        # text (`_INDEX_USE`): a file is not parsed for a list subscript alone
        return uses if any(use.error != LIST_ERROR for use in uses) else []

    def _keyword_uses(self, pairs) -> List[IndexUse]:
        uses = []
        for key, value in pairs:
            if key == "input_ids":
                uses.append(IndexUse(value, "`input_ids`, which the model embeds", EMBEDDING_ERROR))
            elif key == "labels" and not self.float_labels_expected:
                uses.append(IndexUse(value, "`labels`, class indices for the model's cross-entropy", LOSS_ERROR, True))
        return uses

    def _made_by(self, func: cst.BaseExpression) -> Optional[str]:
        """The qualified constructor of the module called as ``func``: ``torch.nn.Embedding`` for ``self.embed``
        or for a name whose visible binding is ``nn.CrossEntropyLoss()``; None where unknown or ambiguous."""
        if isinstance(func, cst.Name):
            binding = self.values.reaching_binding(func)
            value = binding.value if binding is not None and binding.assigns and not binding.path else None
            return self.facts.qualified_name(value.func) if isinstance(value, cst.Call) else None
        if isinstance(func, cst.Attribute):
            return self.constructed.get(dotted(func) or "")
        return None

    def _constructed_attributes(self) -> Dict[str, Optional[str]]:
        """``self.x`` chains and what constructs them, where every assignment agrees (None where they do not)."""
        found: Dict[str, Optional[str]] = {}
        for target, value, _ in self.values.assignments():
            name = dotted(target) if isinstance(target, cst.Attribute) else None
            if name is None:
                continue
            made = self.facts.qualified_name(value.func) if isinstance(value, cst.Call) else None
            found[name] = made if found.get(name, made) == made else None
        return found

    def _forward_embeds(self, call: cst.Call, index: int) -> Optional[str]:
        """``model(x)`` where ``model`` is an instance of a same-module class whose ``forward`` embeds its
        ``index``-th parameter: the value passed there is used as indices."""
        forward = self._forward_of_instance(call.func)
        if forward is None:
            return None
        params = [p for p in self.names.parameters(forward) if p.position is not None][1:]  # after ``self``
        if index >= len(params):
            return None
        name = params[index].name
        for inner in self.facts.nodes(cst.Call):
            if self.values.contains(forward, inner) and inner.args and self._made_by(inner.func) in EMBEDDINGS:
                first = inner.args[0].value
                if isinstance(first, cst.Name) and first.value == name:
                    return f"the `{name}` that `{self.facts.code(call.func)}.forward` embeds"
        return None

    def _forward_of_instance(self, func: cst.BaseExpression) -> Optional[cst.FunctionDef]:
        if not isinstance(func, cst.Name):
            return None
        binding = self.values.reaching_binding(func)
        value = binding.value if binding is not None and binding.assigns else None
        while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in DTYPE_KEEPING:
            value = value.func.value  # ``Model(...).to(device)``
        model_class = self._class_of_call(value) if isinstance(value, cst.Call) else None
        return self.names.method(model_class, "forward") if model_class is not None else None

    def _class_of_call(self, call: cst.Call) -> Optional[cst.ClassDef]:
        """The one same-module class that ``call`` instantiates (``Model(...)``, ``TextDataset(...)``)."""
        found = self.names.resolve_callable(call.func)
        return found[0] if len(found) == 1 and isinstance(found[0], cst.ClassDef) else None

    def _is_python_sequence(self, container: cst.BaseExpression) -> bool:
        if not isinstance(container, cst.Name):
            return False
        binding = self.values.reaching_binding(container)
        value = binding.value if binding is not None and binding.assigns and not binding.path else None
        if isinstance(value, (cst.List, cst.ListComp)):
            return True
        return isinstance(value, cst.Call) and (dotted(value.func) or "").rsplit(".", 1)[-1] in SEQUENCE_MAKERS

    def _configures_float_labels(self) -> bool:
        """``num_labels=1`` or ``problem_type="regression"`` somewhere: float labels are targets, not indices."""
        for call in self.facts.nodes(cst.Call):
            for arg in call.args:
                keyword = arg.keyword.value if arg.keyword is not None else None
                if keyword == "num_labels" and isinstance(arg.value, cst.Integer) and arg.value.value == "1":
                    return True
                if keyword == "problem_type" and string_value(arg.value) in FLOAT_LABEL_PROBLEMS:
                    return True
        return False

    # ----- where a value was created as floating point --------------------------------

    def _float_source(self, expr: cst.BaseExpression, path: Path, depth: int) -> Optional[cst.Call]:
        """The call that created ``expr`` (at ``path`` within it) as a floating-point tensor, if the chain shows one."""
        if depth > MAX_DEPTH:
            return None
        if isinstance(expr, cst.Name):
            return self._name_source(expr, path, depth)
        if isinstance(expr, (cst.Tuple, cst.List)) and path and isinstance(path[0], int):
            elements = expr.elements
            return self._float_source(elements[path[0]].value, path[1:], depth + 1) if path[0] < len(elements) else None
        if isinstance(expr, cst.Dict) and path and isinstance(path[0], str):
            for element in expr.elements:
                if isinstance(element, cst.DictElement) and string_value(element.key) == path[0]:
                    return self._float_source(element.value, path[1:], depth + 1)
            return None
        if isinstance(expr, (cst.GeneratorExp, cst.ListComp)) and path and isinstance(path[0], int):
            return self._comprehension_element_source(expr, path, depth)
        if isinstance(expr, cst.Subscript):
            key = _constant_index(expr)
            return self._float_source(expr.value, (key, *path) if key is not None else path, depth + 1)
        if isinstance(expr, cst.Call):
            return self._call_source(expr, path, depth)
        if isinstance(expr, cst.IfExp):  # ``x.cuda() if use_cuda else x``: either branch
            return self._float_source(expr.body, path, depth + 1) or self._float_source(expr.orelse, path, depth + 1)
        return None

    def _name_source(self, name: cst.Name, path: Path, depth: int) -> Optional[cst.Call]:
        binding = self.values.reaching_binding(name)
        if binding is not None and binding.receives_argument:
            return self._parameter_source(name, path, depth)
        if binding is None or binding.value is None:
            return None
        if binding.assigns:
            return self._float_source(binding.value, (*binding.path, *path), depth + 1)
        if binding.iterates:
            return self._iterated_source(binding.value, (*binding.path, *path), depth + 1)
        if binding.augments and isinstance(binding.statement.target, cst.Name):  # type: ignore[attr-defined]
            # `ids += 1` keeps a float tensor float (and an integer one cannot take a float in place): what the name
            # held before decides
            return self._name_source(binding.statement.target, path, depth + 1)  # type: ignore[attr-defined]
        return None

    def _parameter_source(self, name: cst.Name, path: Path, depth: int) -> Optional[cst.Call]:
        """A parameter of a same-module function: the first float source among the arguments its calls pass."""
        parameter = next((b for b in self.names.reaching(name) if b.kind == PARAMETER), None)
        function = parameter.statement if parameter is not None else None
        if not isinstance(function, cst.FunctionDef):
            return None
        invoked = [call for called, call in self.invocations if called is function]
        for call in invoked[-1:] or self.names.calls_of(function):
            argument = self.names.argument_for(call, function, parameter.node)  # type: ignore[union-attr,arg-type]
            source = self._float_source(argument, path, depth + 1) if argument is not None else None
            if source is not None:
                return source
        return None

    def _comprehension_element_source(self, comprehension: Union[cst.GeneratorExp, cst.ListComp], path: Path, depth: int) -> Optional[cst.Call]:
        """``a, b = (t.to(device) for t in batch)``: the ``i``-th element is ``batch[i]`` through dtype-keeping calls."""
        target, iterated = comprehension.for_in.target, comprehension.for_in.iter
        if comprehension.for_in.inner_for_in is not None or not isinstance(target, cst.Name):
            return None
        element = comprehension.elt
        while isinstance(element, cst.Call) and isinstance(element.func, cst.Attribute) and element.func.attr.value in DTYPE_KEEPING:
            if element.func.attr.value in ("to", "type") and (passed_argument(element, "dtype") or any(self._is_dtype(a.value) for a in element.args)):
                return None
            element = element.func.value
        if isinstance(element, cst.Name) and element.value == target.value:
            return self._float_source(iterated, path, depth + 1)
        return None

    def _call_source(self, call: cst.Call, path: Path, depth: int) -> Optional[cst.Call]:
        qualified = self.facts.qualified_name(call.func) or ""
        if qualified in FLOAT_TENSOR_TYPES:
            return call
        if qualified in TENSOR_FACTORIES:
            dtype = passed_argument(call, "dtype")
            if dtype is not None:
                return call if self._dtype_is_float(dtype) else None
            data = call.args[0].value if call.args else None
            return call if data is not None and self._numpy_float(data, depth + 1) else None
        if qualified == "torch.from_numpy":
            return call if call.args and self._numpy_float(call.args[0].value, depth + 1) else None
        if qualified in SHAPED_FACTORIES:
            dtype = passed_argument(call, "dtype")
            return call if dtype is None or self._dtype_is_float(dtype) else None
        if not isinstance(call.func, cst.Attribute) or not qualified.startswith("torch."):
            returned = self._returned_source(call, path, depth)
            if returned is not None or not isinstance(call.func, cst.Attribute):
                return returned
        method = call.func.attr.value
        if method in FLOAT_METHODS:
            return call
        if method in INTEGER_METHODS:
            return None
        if method in ("to", "type"):
            dtype = passed_argument(call, "dtype") or next((a.value for a in call.args if a.keyword is None and self._is_dtype(a.value)), None)
            if dtype is not None:
                return call if self._dtype_is_float(dtype) else None
        if method in DTYPE_KEEPING:
            return self._float_source(call.func.value, path, depth + 1)
        return None

    def _shaped(self, source: cst.Call) -> bool:
        return (self.facts.qualified_name(source.func) or "") in SHAPED_FACTORIES

    def _returned_source(self, call: cst.Call, path: Path, depth: int) -> Optional[cst.Call]:
        """A same-module function's call: the first float source among what its ``return`` statements give
        (``ids = batchify(seqs)``, fixtures/TL302_float_index_tensors/bad_helper_returns_float_ids.py)."""
        for function in self.names.callees(call):
            if not isinstance(function, cst.FunctionDef) or function.name.value == "__init__":
                continue
            self.invocations.append((function, call))
            try:
                for returned in self.names.returns(function):
                    source = self._float_source(returned, path, depth + 1)
                    if source is not None:
                        return source
            finally:
                self.invocations.pop()
        return None

    def _iterated_source(self, iterable: cst.BaseExpression, path: Path, depth: int) -> Optional[cst.Call]:
        """The float source of the item at ``path`` of what iterating ``iterable`` yields."""
        if depth > MAX_DEPTH:
            return None
        if isinstance(iterable, cst.Name):
            binding = self.values.reaching_binding(iterable)
            if binding is not None and binding.assigns and binding.value is not None and not binding.path:
                return self._iterated_source(binding.value, path, depth + 1)
            return None
        if isinstance(iterable, (cst.List, cst.Tuple, cst.Set)):  # ``for ids in [a, b]``: any element
            for element in iterable.elements:
                if isinstance(element, cst.StarredElement):
                    source = self._iterated_source(element.value, path, depth + 1)
                else:
                    source = self._float_source(element.value, path, depth + 1)
                if source is not None:
                    return source
            return None
        if isinstance(iterable, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):  # ``[torch.zeros(n) for _ in ...]``
            return self._float_source(iterable.elt, path, depth + 1)
        if not isinstance(iterable, cst.Call) or not iterable.args:
            return None if path else self._float_source(iterable, (), depth + 1)
        qualified = self.facts.qualified_name(iterable.func) or dotted(iterable.func) or ""
        first = iterable.args[0].value
        if qualified == "enumerate":
            return self._iterated_source(first, path[1:], depth + 1) if path[:1] == (1,) else None
        if qualified == "zip":
            index = path[0] if path and isinstance(path[0], int) else None
            return self._iterated_source(iterable.args[index].value, path[1:], depth + 1) if index is not None and index < len(iterable.args) else None
        if qualified in WRAPPERS_KEEPING_ITEMS:
            return self._iterated_source(first, path, depth + 1)
        if qualified in DATA_LOADERS and passed_argument(iterable, "collate_fn") is None:
            return self._iterated_source(first, path, depth + 1)  # default collation keeps each item's dtype
        item_source = self._dataset_item_source(iterable, path, depth)
        if item_source is not None:
            return item_source
        if qualified in TENSOR_DATASETS:
            index = path[0] if path and isinstance(path[0], int) else None
            return self._float_source(iterable.args[index].value, (), depth + 1) if index is not None and index < len(iterable.args) else None
        return self._float_source(iterable, (), depth + 1) if not path else None  # the rows of a float tensor

    def _dataset_item_source(self, call: cst.Call, path: Path, depth: int) -> Optional[cst.Call]:
        """An instance of a same-module Dataset class: the float source at ``path`` of what ``__getitem__`` returns."""
        dataset_class = self._class_of_call(call)
        getitem = self.names.method(dataset_class, "__getitem__") if dataset_class is not None else None
        for returned in self.names.returns(getitem) if getitem is not None else ():
            source = self._float_source(returned, path, depth + 1)
            if source is not None:
                return source
        return None

    def _is_dtype(self, expr: cst.BaseExpression) -> bool:
        name = (self.facts.qualified_name(expr) or dotted(expr) or "").rsplit(".", 1)[-1]
        return name in FLOAT_DTYPES or name in INTEGER_DTYPES

    def _dtype_is_float(self, dtype: cst.BaseExpression) -> bool:
        name = string_value(dtype) or self.facts.qualified_name(dtype) or dotted(dtype) or ""
        return name.rsplit(".", 1)[-1] in FLOAT_DTYPES

    def _numpy_float(self, expr: cst.BaseExpression, depth: int) -> bool:
        """A NumPy array created or cast as floating point (``astype(np.float32)``, ``np.zeros(n)``)."""
        if depth > MAX_DEPTH:
            return False
        if isinstance(expr, cst.Name):
            binding = self.values.reaching_binding(expr)
            return binding is not None and binding.assigns and not binding.path and binding.value is not None and self._numpy_float(binding.value, depth + 1)
        if not isinstance(expr, cst.Call):
            return False
        dtype = passed_argument(expr, "dtype")
        if isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "astype" and expr.args:
            return self._dtype_is_float(expr.args[0].value)
        qualified = self.facts.qualified_name(expr.func) or ""
        if not qualified.startswith("numpy."):
            return False
        if dtype is not None:
            return self._dtype_is_float(dtype)
        return qualified in NUMPY_FLOAT_DEFAULTS

    # ----- report and fix ---------------------------------------------------------------

    def _report(self, source: cst.Call, use: IndexUse) -> None:
        message = (
            f"`{_short(self.facts.code(source))}` makes a floating-point tensor that is used as {use.role} "
            f"(`{_short(self.facts.code(use.value))}`): indices must be integers, so the first step fails with "
            f"\"{use.error}\"; create it as `torch.long`"
        )
        self.report(source, message, fix=self._fix(source))

    def _fix(self, source: cst.Call) -> Optional[CstFix]:
        torch = self.facts.torch_name()
        qualified = self.facts.qualified_name(source.func) or ""
        replacement: Optional[cst.BaseExpression] = None
        data: Optional[cst.BaseExpression] = source.args[0].value if source.args else None
        if qualified in FLOAT_TENSOR_TYPES and isinstance(source.func, cst.Attribute):
            replacement = source.with_changes(func=source.func.with_changes(attr=cst.Name("LongTensor")))
        elif qualified in TENSOR_FACTORIES or (isinstance(source.func, cst.Attribute) and source.func.attr.value in ("to", "type")):
            dtype_arg = next((a for a in source.args if (a.keyword is not None and a.keyword.value == "dtype") or (a.keyword is None and self._is_dtype(a.value))), None)
            if dtype_arg is not None:
                replacement = source.deep_replace(dtype_arg.value, cst.parse_expression(f"{torch}.long"))
            else:
                replacement = cst.parse_expression(f"{self.facts.code(source)}.long()")
            if qualified not in TENSOR_FACTORIES:
                data = source.func.value  # type: ignore[attr-defined]
        elif qualified == "torch.from_numpy":
            replacement = cst.parse_expression(f"{self.facts.code(source)}.long()")
        elif qualified in SHAPED_FACTORIES:
            dtype_arg = next((a for a in source.args if a.keyword is not None and a.keyword.value == "dtype"), None)
            long_dtype = cst.parse_expression(f"{torch}.long")
            if dtype_arg is not None:
                replacement = source.deep_replace(dtype_arg.value, long_dtype)
            else:
                keyword = cst.Arg(long_dtype, keyword=cst.Name("dtype"), equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
                replacement = source.with_changes(args=[*_with_trailing_comma(source.args), keyword])
            data = None  # what fills the tensor is written elsewhere: a float written there would be truncated
        elif isinstance(source.func, cst.Attribute) and source.func.attr.value in FLOAT_METHODS:
            replacement = source.with_changes(func=source.func.with_changes(attr=cst.Name("long")))
            data = source.func.value
        if replacement is None:
            return None
        safe = data is not None and self._integral_by_construction(data, 0)
        return CstFix("Create the tensor as `torch.long`", Applicability.SAFE if safe else Applicability.UNSAFE, {source: replacement})

    def _integral_by_construction(self, expr: cst.BaseExpression, depth: int) -> bool:
        """Values that can only be integers: ``range``, a tokenizer's ids, an integer array or tensor."""
        if depth > MAX_DEPTH:
            return False
        if isinstance(expr, cst.Name):
            binding = self.values.reaching_binding(expr)
            return binding is not None and binding.assigns and not binding.path and binding.value is not None and self._integral_by_construction(binding.value, depth + 1)
        if isinstance(expr, (cst.ListComp, cst.GeneratorExp)):
            return self._integral_by_construction(expr.elt, depth + 1)
        if isinstance(expr, cst.Integer):
            return True
        if not isinstance(expr, cst.Call):
            return False
        name = dotted(expr.func) or ""
        method = name.rsplit(".", 1)[-1]
        if name in ("range", "len") or method in TOKENIZING_METHODS or method in ("long", "int"):
            return True
        dtype = passed_argument(expr, "dtype")
        if method == "astype" and expr.args:
            dtype = expr.args[0].value
        if dtype is not None:
            return (string_value(dtype) or dotted(dtype) or "").rsplit(".", 1)[-1] in INTEGER_DTYPES
        if method in ("tolist", "numpy", "array", "asarray", "list") and isinstance(expr.func, cst.Attribute):
            return self._integral_by_construction(expr.func.value, depth + 1)
        if method in ("array", "asarray", "list") and expr.args:
            return self._integral_by_construction(expr.args[0].value, depth + 1)
        return False


def _with_trailing_comma(args: Sequence[cst.Arg]) -> List[cst.Arg]:
    """``args`` ready for one more argument after them: the last one given a ``, `` separator."""
    if not args:
        return []
    last = args[-1]
    comma = last.comma if isinstance(last.comma, cst.Comma) else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return [*args[:-1], last.with_changes(comma=comma)]


def _single_index(subscript: cst.Subscript) -> Optional[cst.BaseExpression]:
    if len(subscript.slice) != 1 or not isinstance(subscript.slice[0].slice, cst.Index):
        return None
    return subscript.slice[0].slice.value


def _constant_index(subscript: cst.Subscript) -> Optional[Union[int, str]]:
    index = _single_index(subscript)
    if isinstance(index, cst.Integer):
        return int(index.value)
    return string_value(index) if index is not None else None


def _makes_probabilities(source: cst.Call) -> bool:
    """``F.one_hot(y).float()``, ``torch.softmax(t).float()``: float targets that are class probabilities."""
    receiver = source.func.value if isinstance(source.func, cst.Attribute) else None
    while isinstance(receiver, cst.Call):
        if (dotted(receiver.func) or "").rsplit(".", 1)[-1] in PROBABILITIES:
            return True
        receiver = receiver.func.value if isinstance(receiver.func, cst.Attribute) else None
    return False


def _short(code: str, limit: int = 60) -> str:
    flat = " ".join(code.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
