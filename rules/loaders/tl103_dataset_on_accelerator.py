"""TL103 dataset-on-accelerator: a whole data set read from a file and moved to the accelerator before batching."""

from __future__ import annotations

import math
import re
from typing import Dict, List, NamedTuple, Optional, Set, Tuple

import libcst as cst

from trainlint.analysis.names import WITH, Binding, Names, passed_argument
from trainlint.analysis.values import Values, string_value
from trainlint.analysis.walk import walk
from trainlint.diagnostics import Applicability
from trainlint.rule import CstFix, Import, Rule
from trainlint.rules.loaders.placement import CpuDatasetFix, DeviceBatches, DevicePlacement, Move
from trainlint.step_words import SPLITTERS

# Calls that read a whole file into memory (NumPy, torch, pandas); h5py reads are ``dataset[:]``/``[()]``.
FILE_READERS = frozenset(
    {"numpy.load", "numpy.loadtxt", "numpy.genfromtxt", "numpy.fromfile", "torch.load"}
    | {f"pandas.read_{kind}" for kind in ("csv", "parquet", "feather", "pickle", "excel", "json", "table", "hdf")}
)
H5PY_FILES = frozenset({"h5py.File"})
# Converters whose first argument is the data they hold (the whole of it).
CONVERTERS = frozenset(
    {"torch.tensor", "torch.as_tensor", "torch.from_numpy", "torch.asarray", "torch.stack", "torch.cat",
     "numpy.array", "numpy.asarray", "numpy.stack", "numpy.concatenate", "numpy.expand_dims", "numpy.float32",
     "tensorflow.constant", "tensorflow.convert_to_tensor", "tensorflow.cast"}
    | {f"torch.{kind}Tensor" for kind in ("", "Float", "Double", "Half", "Long", "Int", "Byte", "Bool")}
)  # fmt: skip
WHOLE_ATTRIBUTES = frozenset({"values", "T", "data", "mT"})
# Methods that keep only some rows: a data set made small on purpose (``df.head(1000)``).
ROW_LIMITING = frozenset({"head", "tail", "sample", "nlargest", "nsmallest"})
# TensorFlow: building a pipeline from in-memory arrays makes one constant of all of them, on the GPU by default.
TF_PIPELINES = frozenset({"tensorflow.data.Dataset.from_tensor_slices", "tensorflow.data.Dataset.from_tensors"})
TF_DEVICE = frozenset({"tensorflow.device"})
# TensorFlow/Keras code reads big arrays from `.npy`/`.npz` files and HDF5; a CSV or text table handed to `fit` is
# tabular data of a few hundred rows (iris, auto-mpg: docs/precision-audit.md), whose copy on the GPU costs nothing.
TF_ARRAY_FILE_READERS = frozenset({"numpy.load", "h5py.File"})
CPU_DEVICE = re.compile(r"^/?(device:)?cpu(:\d+)?$", re.IGNORECASE)
# Keras ``fit`` arguments that the data-set fix folds into the pipeline, and those it cannot express.
FIT_DATA_ARGUMENTS = frozenset({"x", "y", "batch_size", "shuffle"})
FIT_BLOCKERS = frozenset({"validation_split", "sample_weight", "class_weight", "steps_per_epoch"})
# Uses of an array that only read it: a memory-mapped, read-only array serves them all.
READ_ONLY_ARRAY_USES = frozenset({"astype", "reshape", "shape", "dtype", "ndim", "T", "copy", "size"})
COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
# What the message needs to put a size on the array: reshapes with literal sizes, and element types.
RESHAPES = frozenset({"reshape", "view"})
DTYPE_BYTES = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2, "int64": 8, "int32": 4, "int16": 2, "int8": 1, "uint8": 1, "bool": 1}
DTYPE_ALIASES = {"float": "float32", "double": "float64", "half": "float16", "long": "int64", "int": "int32", "short": "int16", "bool_": "bool"}
DTYPE_METHODS = {"float": "float32", "double": "float64", "half": "float16", "bfloat16": "bfloat16", "long": "int64", "int": "int32", "byte": "uint8", "bool": "bool"}
TENSOR_TYPE = re.compile(r"torch\.(?:cuda\.)?([A-Z][a-z]*)Tensor")
TENSOR_TYPE_DTYPES = {"Float": "float32", "Double": "float64", "Half": "float16", "Long": "int64", "Int": "int32", "Byte": "uint8", "Bool": "bool"}
MAX_DEPTH = 30


class WholeRead(NamedTuple):
    """The call that read the file (``np.load(...)``, ``h5py.File(...)`` for a ``ds[:]`` read), and the calls
    its data went through on the way to the move, outermost first (``.reshape(...)``, ``.float()``)."""

    call: cst.Call
    through: Tuple[cst.Call, ...] = ()

    def via(self, call: cst.Call) -> "WholeRead":
        return self._replace(through=(call, *self.through))


class Batching(NamedTuple):
    """How the moved data set is cut into batches after the move."""

    description: str
    loader: Optional[DeviceBatches]  # the DataLoader over it
    slices: Tuple[cst.Subscript, ...]  # or the loop subscripts that take each batch
    names: Tuple[Binding, ...]  # bindings whose reads were inspected (for the fix's safety)
    rows: Optional[int] = None  # rows in one batch, where the code shows it


class DatasetOnAccelerator(Rule):
    """## What it does
    Finds a data set that is read whole from a file (`np.load` of a `.npy`
    or `.npz`, `torch.load`, `pd.read_csv(...).values`, an h5py dataset
    read with `[:]` or `[()]`), moved to the accelerator (`.to(device)`,
    `.cuda()`, `torch.tensor(..., device=device)`, a CUDA tensor type such
    as `torch.cuda.FloatTensor(...)`, also through an alias like `Tensor =
    torch.cuda.FloatTensor if cuda else torch.FloatTensor`) and only then cut into
    mini-batches: handed to a `DataLoader` (directly, in a `TensorDataset`
    or a same-module Dataset class) or sliced batch by batch in a loop.
    TensorFlow/Keras: `tf.data.Dataset.from_tensor_slices(arrays)` or a
    compiled Keras model's `fit(x=arrays)` over arrays read whole from
    `.npy`/`.npz` files (`np.load`) or HDF5, outside a
    `with tf.device("/CPU:0"):` block; a CSV or text table handed to Keras
    is tabular data of a few hundred rows, and is left alone.

    Silent for tensors made in code (`torch.randn`, synthetic data), data
    moved one batch at a time, data trained full-batch (one forward over
    the whole tensor, no batching), data made small on purpose before
    the move (`X[:1000]`, `df.head(500)`), and TensorFlow pipelines built
    from generators, TFRecords or files, or under `tf.device("/CPU:0")`.
    scikit-learn's `fit` is not Keras's: a `fit` is checked only on a
    model compiled in the module or built by Keras.

    The message names the file and, where the code shows them (a
    `.reshape`/`.view` with literal sizes, a dtype, the batch size), what
    the whole array costs against one batch: "16283x3x224x224 float32
    values, 9.1 GiB, 254 times one batch of 64".

    ## Why is this bad
    The accelerator must then hold the whole data set, not one batch. It
    works while the data set is small and dies with an out-of-memory error
    when it grows ("Allocator (GPU_0_bfc) ran out of memory trying to
    allocate 4.09GiB" after switching 1,000 images to 16,283), on a GPU that
    would have trained on batches of it without trouble.

    ## Example
    ```python
    X = torch.from_numpy(np.load("train_images.npy")).to(device)
    y = torch.from_numpy(np.load("train_labels.npy")).to(device)
    loader = DataLoader(TensorDataset(X, y), batch_size=32)
    for xb, yb in loader:
        ...
    ```

    ```python
    images = np.load("train_images.npy")
    labels = np.load("train_labels.npy")
    train_ds = tf.data.Dataset.from_tensor_slices((images, labels)).batch(32)
    ```

    ## Use instead
    ```python
    X = torch.from_numpy(np.load("train_images.npy"))
    y = torch.from_numpy(np.load("train_labels.npy"))
    loader = DataLoader(TensorDataset(X, y), batch_size=32)
    for xb, yb in loader:
        xb = xb.to(device, non_blocking=True)
        yb = yb.to(device, non_blocking=True)
        ...
    ```
    ```python
    images = np.load("train_images.npy", mmap_mode="r")
    labels = np.load("train_labels.npy", mmap_mode="r")
    with tf.device("/CPU:0"):
        train_ds = tf.data.Dataset.from_tensor_slices((images, labels)).batch(32)
    ```

    ## Fix safety
    The fix keeps the data set on the CPU (the move is removed, dtype
    conversions stay) and moves each batch where it is taken: at the top of
    every loop over the `DataLoader` (TL101's loop rewrite), or on each
    slice a loop takes (`X[i:i + bs]` becomes `X[i:i + bs].to(device,
    non_blocking=True)`). It is safe when every use of the moved data is
    such a loop in this module, so each batch reaches the same device as
    before; otherwise it is unsafe or not offered (an index tensor on the
    accelerator, the moved tensor also read whole, a tensor-type alias that
    picks CUDA or the CPU at run time: the batches would have to follow it).
    TensorFlow: the statement that builds the pipeline is wrapped in
    `with tf.device("/CPU:0"):` (safe: only where the data sits changes),
    and each `np.load` feeding it opens its `.npy` file with
    `mmap_mode="r"` where the array is only read (never written in place,
    no `allow_pickle`). A Keras `fit(x, y, batch_size=...)` gets such a
    pipeline built first, shuffled each epoch unless `shuffle=False` as
    `fit` shuffles arrays (unsafe: the shuffling order and the last batch
    may differ); no fix where `fit` takes `validation_split`,
    `sample_weight`, `class_weight` or `steps_per_epoch`.

    ## Evidence
    `fixtures/TL103_dataset_on_accelerator/` and
    `tests/test_runtime_TL103.py`: with `Tensor.to` recorded, each bad
    fixture moves the whole array in one call before the first batch, while
    each fixed one moves one batch per call and trains exactly like
    `reference_trainer`'s lstm task. `tests/test_runtime_TL103_tf.py`
    (with tensorflow-cpu): under a default device standing in for the
    GPU, each bad TensorFlow fixture's pipeline holds the whole arrays
    there, each fixed one holds them on `CPU:0` and trains to the same
    losses.
    """

    fix = Applicability.SAFE

    def visit_Module(self, node: cst.Module) -> None:
        self.placement = self.facts.fact(DevicePlacement)
        self.names = self.facts.fact(Names)
        self.fixer = self.facts.fact(CpuDatasetFix)
        loaders = [b for b in (self.placement.device_batches(c, None) for c in self.facts.nodes(cst.Call)) if b is not None]
        for call in self.facts.nodes(cst.Call):
            move = self.placement.move(call)
            if move is None or self._per_batch(call):
                continue
            read = self._whole_read(self._moved_value(call), 0)
            if read is None:
                continue
            batching = self._batching(move, loaders)
            if batching is not None:
                self._report(move, read, batching)
        for call in self.facts.nodes(cst.Call):
            self._check_tensorflow(call)

    # ----- detection ------------------------------------------------------------------

    def _per_batch(self, call: cst.Call) -> bool:
        """Inside a loop of its function, or in a per-item method: the move already happens per batch."""
        for ancestor in self.facts.ancestors(call):
            if isinstance(ancestor, (cst.For, cst.While, *COMPREHENSIONS)):
                return True
            if isinstance(ancestor, (cst.FunctionDef, cst.Lambda)):
                return isinstance(ancestor, cst.FunctionDef) and ancestor.name.value in ("__getitem__", "__iter__", "collate", "collate_fn")
        return False

    def _moved_value(self, call: cst.Call) -> cst.BaseExpression:
        if isinstance(call.func, cst.Attribute) and self.facts.qualified_name(call.func) is None:
            return call.func.value  # x.to(device), x.cuda()
        return call.args[0].value if call.args else call  # torch.tensor(data, device=device)

    def _whole_read(self, expr: cst.BaseExpression, depth: int) -> Optional[WholeRead]:
        """The file read whose whole content ``expr`` holds, followed through names and conversions."""
        if depth > MAX_DEPTH:
            return None
        if isinstance(expr, cst.Name):
            for value in self._values_of(expr):
                found = self._whole_read(value, depth + 1)
                if found is not None:
                    return found
            return None
        if isinstance(expr, cst.Attribute):
            return self._whole_read(expr.value, depth + 1) if expr.attr.value in WHOLE_ATTRIBUTES else None
        if isinstance(expr, cst.Subscript):
            return self._subscript_read(expr, depth)
        if isinstance(expr, cst.BinaryOperation):
            return self._whole_read(expr.left, depth + 1) or self._whole_read(expr.right, depth + 1)
        if isinstance(expr, cst.Dict):
            return next((r for r in (self._whole_read(e.value, depth + 1) for e in expr.elements) if r is not None), None)
        if isinstance(expr, (cst.List, cst.Tuple)):
            return next((r for r in (self._whole_read(e.value, depth + 1) for e in expr.elements) if r is not None), None)
        if isinstance(expr, cst.Call):
            return self._call_read(expr, depth)
        return None

    def _call_read(self, call: cst.Call, depth: int) -> Optional[WholeRead]:
        qualified = self.facts.qualified_name(call.func) or ""
        if qualified in FILE_READERS:
            return WholeRead(call)
        if qualified in CONVERTERS or qualified == "numpy.reshape":
            found = self._whole_read(call.args[0].value, depth + 1) if call.args else None
            return found.via(call) if found is not None else None
        if isinstance(call.func, cst.Attribute) and self.facts.qualified_name(call.func) is None:
            if call.func.attr.value in ROW_LIMITING:
                return None
            found = self._whole_read(call.func.value, depth + 1)  # df.to_numpy(), X.astype(...), X.float()
            return found.via(call) if found is not None else None
        for definition in self.names.resolve_callable(call.func):
            if isinstance(definition, cst.FunctionDef):
                for returned in self.names.returns(definition):
                    found = self._whole_read(returned, depth + 1)
                    if found is not None:
                        return found
        return None

    def _subscript_read(self, subscript: cst.Subscript, depth: int) -> Optional[WholeRead]:
        """``X[:, 1:]`` and ``data["x_train"]`` keep every row; ``X[:1000]`` is small by construction;
        ``f["images"][:]`` reads an h5py dataset whole."""
        if _limits_rows(subscript):
            return None
        h5py_file = self._h5py_file(subscript.value, depth)
        if h5py_file is not None:
            return WholeRead(h5py_file) if _reads_everything(subscript) else None
        return self._whole_read(subscript.value, depth + 1)

    def _h5py_file(self, expr: cst.BaseExpression, depth: int) -> Optional[cst.Call]:
        """The ``h5py.File(...)`` that ``expr`` (``f["images"]``) is a dataset of."""
        if depth > MAX_DEPTH:
            return None
        if isinstance(expr, cst.Subscript):
            return self._h5py_file(expr.value, depth + 1)
        if isinstance(expr, cst.Call) and (self.facts.qualified_name(expr.func) or "") in H5PY_FILES:
            return expr
        if isinstance(expr, cst.Name):
            for value in self._values_of(expr):
                found = self._h5py_file(value, depth + 1)
                if found is not None:
                    return found
        return None

    def _values_of(self, name: cst.Expression) -> List[cst.BaseExpression]:
        """What ``name`` may hold where it is read: its assigned values, or the context manager of
        ``with <value> as name:`` (``with np.load(path) as data:``, ``with h5py.File(path) as f:``)."""
        values = []
        for binding in self.names.reaching(name):
            value = binding.value if binding.kind == WITH and not binding.path else self.names.bound_value(binding)
            if value is not None:
                values.append(value)
        return values

    def _batching(self, move: Move, loaders: List[DeviceBatches]) -> Optional[Batching]:
        """Where the moved data set is cut into batches: a DataLoader over it, or slices taken in a loop."""
        for batches in loaders:
            if any(m.call is move.call for m in batches.trace.moves):
                size = batches.arguments.get("batch_size")
                rows = f", {self.facts.code(size)} rows at a time" if size is not None else ""
                return Batching(f"a `DataLoader`{rows}", batches, (), (), self._integer(size))
        bindings = self._bindings_of(move.call)
        slices: List[cst.Subscript] = []
        for binding in bindings:
            for read in self.names.uses(binding):
                parent = self.facts.parent(read)
                if isinstance(parent, cst.Subscript) and parent.value is read and self._varies_per_iteration(parent):
                    slices.append(parent)
                elif _split_into_batches(self.facts, read):
                    return Batching(f"`{self.facts.code(self.facts.parent(read) or read)}`", None, (), ())
        if not slices:
            return None
        return Batching(f"`{self.facts.code(slices[0])}` in a loop", None, tuple(slices), tuple(bindings), self._slice_rows(slices[0]))

    def _integer(self, expression: Optional[cst.BaseExpression]) -> Optional[int]:
        """The one positive integer ``expression`` holds (``32``, ``BATCH_SIZE`` bound to 32), else None."""
        values = self.facts.fact(Values).literal_values(expression) if expression is not None else None
        if values is None or len(values) != 1:
            return None
        (value,) = values
        return value if type(value) is int and value > 0 else None

    def _slice_rows(self, subscript: cst.Subscript) -> Optional[int]:
        """The rows ``X[i:i + n]`` takes: ``n``, when the upper bound is the lower plus it."""
        parts = _slice_parts(subscript)
        first = parts[0] if parts else None
        if not isinstance(first, cst.Slice) or first.lower is None or not isinstance(first.upper, cst.BinaryOperation):
            return None
        upper = first.upper
        if not isinstance(upper.operator, cst.Add) or not upper.left.deep_equals(first.lower):
            return None
        return self._integer(upper.right)

    def _bindings_of(self, call: cst.Call) -> List[Binding]:
        """The names bound to the moved tensor (``X = torch.from_numpy(a).to(device).float()``)."""
        value: cst.CSTNode = call
        parent = self.facts.parent(value)
        while isinstance(parent, (cst.Attribute, cst.Call)) and (
            (isinstance(parent, cst.Attribute) and parent.value is value) or (isinstance(parent, cst.Call) and parent.func is value)
        ):
            value, parent = parent, self.facts.parent(parent)
        return [b for b in self.names.bindings_holding(value) if not b.path]

    def _varies_per_iteration(self, subscript: cst.Subscript) -> bool:
        """``X[i:i + bs]``, ``X[perm[k]]`` in a loop that rebinds ``i``/``k``: each iteration takes other rows.

        ``out[train_mask]`` with a mask bound before the loop takes the same rows every epoch (full-batch training).
        """
        loop = next((a for a in self.facts.ancestors(subscript) if isinstance(a, (cst.For, cst.While, cst.FunctionDef, cst.ClassDef))), None)
        if not isinstance(loop, (cst.For, cst.While)):
            return False
        rebound = _names_bound_in(loop)
        return any(isinstance(n, cst.Name) and n.value in rebound for element in subscript.slice for n in walk(element))

    # ----- TensorFlow / Keras ---------------------------------------------------------

    def _check_tensorflow(self, call: cst.Call) -> None:
        """``tf.data.Dataset.from_tensor_slices(arrays)`` or ``model.fit(x=arrays)`` over arrays read whole,
        outside a ``with tf.device("/CPU:0"):`` block."""
        qualified = self.facts.qualified_name(call.func) or ""
        if qualified in TF_PIPELINES:
            data, how = (call.args[0].value if call.args else None), f"`{qualified.rsplit('.', 1)[-1]}`"
        elif self._is_keras_fit(call):
            data, how = passed_argument(call, "x", 0), "`fit` over in-memory arrays"
        else:
            return
        read = self._whole_read(data, 0) if data is not None else None
        if read is None or self.facts.qualified_name(read.call.func) not in TF_ARRAY_FILE_READERS or self._under_cpu_scope(call):
            return
        message = (
            f"the whole data set{_file_named(read.call)} (read by `{_short(self.facts.code(read.call))}`) becomes one tensor on the GPU: {how} "
            "copies every array it is given to the default device before a single batch is taken, which works until "
            "the data grows; build the pipeline under `with tf.device(\"/CPU:0\"):` so that only batches reach the GPU"
        )
        fix = self._pipeline_fix(call) if qualified in TF_PIPELINES else self._fit_fix(call)
        self.report(call, message, fix=fix)

    def _is_keras_fit(self, call: cst.Call) -> bool:
        """``model.fit(...)`` where ``model`` is compiled in this module or built by Keras (sklearn has no ``compile``)."""
        if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "fit" and isinstance(call.func.value, cst.Name)):
            return False
        model = call.func.value.value
        compiled = any(
            isinstance(c.func, cst.Attribute) and c.func.attr.value == "compile" and isinstance(c.func.value, cst.Name) and c.func.value.value == model
            for c in self.facts.nodes(cst.Call)
        )
        if compiled:
            return True
        return any(
            isinstance(value, cst.Call) and (self.facts.qualified_name(value.func) or "").startswith(("tensorflow.keras.", "keras."))
            for value in self._values_of(call.func.value)
        )

    def _under_cpu_scope(self, node: cst.CSTNode) -> bool:
        for ancestor in self.facts.ancestors(node):
            if isinstance(ancestor, cst.With):
                for item in ancestor.items:
                    device = item.item
                    if isinstance(device, cst.Call) and (self.facts.qualified_name(device.func) or "") in TF_DEVICE and device.args:
                        if CPU_DEVICE.match(string_value(device.args[0].value) or ""):
                            return True
        return False

    def _pipeline_fix(self, call: cst.Call) -> Optional[CstFix]:
        """The statement that builds the pipeline, wrapped in ``with tf.device("/CPU:0"):``."""
        statement = self._statement_of(call)
        if statement is None:
            return None
        tf, imports = self._tensorflow()
        wrapped = cst.With(
            items=[cst.WithItem(item=cst.parse_expression(f'{tf}.device("/CPU:0")'))],
            body=cst.IndentedBlock(body=[statement.with_changes(leading_lines=[])]),
            leading_lines=statement.leading_lines,
        )
        replacements: Dict[cst.CSTNode, object] = {statement: wrapped}
        for load in self._mappable_loads(call):
            mapped = load.with_changes(args=[*load.args[:-1], load.args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), cst.Arg(cst.SimpleString('"r"'), keyword=cst.Name("mmap_mode"), equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))])
            replacements[load] = mapped
        message = 'Build the input pipeline under `with tf.device("/CPU:0"):` so that only batches reach the GPU'
        return CstFix(message, Applicability.SAFE, replacements, imports=imports)

    def _tensorflow(self) -> Tuple[str, Tuple[Import, ...]]:
        """The name the module binds ``tensorflow`` to, or ``tensorflow`` with the import the fix then adds (a module
        that uses standalone ``keras`` or ``from tensorflow import keras`` may bind no ``tf``)."""
        bound = self.facts.imports.local_name_for_module("tensorflow")
        return (bound, ()) if bound is not None else ("tensorflow", (Import("tensorflow"),))

    def _mappable_loads(self, pipeline: cst.Call) -> List[cst.Call]:
        """The ``np.load`` calls feeding ``pipeline`` that can open their file memory-mapped instead: no
        ``mmap_mode`` or ``allow_pickle`` yet, not an ``.npz`` archive, and the array never written in place."""
        loads = []
        for part in _leaves(pipeline.args[0].value if pipeline.args else None):
            read = self._whole_read(part, 0)
            call = read.call if read is not None else None
            if call is None or self.facts.qualified_name(call.func) != "numpy.load" or not call.args or call in loads:
                continue
            if any(a.keyword is not None and a.keyword.value in ("mmap_mode", "allow_pickle") for a in call.args):
                continue
            if (string_value(call.args[0].value) or "").endswith(".npz") or not self._only_read(call):
                continue
            loads.append(call)
        return loads

    def _only_read(self, load: cst.Call) -> bool:
        """The array ``np.load`` returns is bound to a name whose every use reads it (no in-place write, no npz key)."""
        bindings = [b for b in self.names.bindings_holding(load) if not b.path]
        if not bindings:
            return False
        for binding in bindings:
            for read in self.names.uses(binding):
                parent = self.facts.parent(read)
                if isinstance(parent, cst.Attribute) and parent.attr.value in READ_ONLY_ARRAY_USES:
                    continue
                if isinstance(parent, (cst.BinaryOperation, cst.Element, cst.DictElement, cst.Tuple)):
                    continue
                if isinstance(parent, cst.Arg) and self.fixer.placement_free(read):
                    continue
                return False
        return True

    def _fit_fix(self, call: cst.Call) -> Optional[CstFix]:
        """``model.fit(X, y, batch_size=b, ...)`` -> a CPU-built ``tf.data`` pipeline of ``(X, y)`` batched by ``b``,
        shuffled each epoch as ``fit`` shuffles arrays, handed to ``fit`` in their place."""
        statement = self._statement_of(call)
        x, y = passed_argument(call, "x", 0), passed_argument(call, "y", 1)
        positional = [a for a in call.args if a.keyword is None]
        if statement is None or x is None or len(positional) > 2 or any(a.star for a in call.args):
            return None
        if any(a.keyword is not None and a.keyword.value in FIT_BLOCKERS for a in call.args):
            return None
        data_args = positional + [a for a in call.args if a.keyword is not None and a.keyword.value in FIT_DATA_ARGUMENTS]
        tf, imports = self._tensorflow()
        code = self.facts.code
        batch = passed_argument(call, "batch_size", None)
        shuffle = passed_argument(call, "shuffle", None)
        slices = f"({code(x)}, {code(y)})" if y is not None else code(x)
        pipeline = f"{tf}.data.Dataset.from_tensor_slices({slices})"
        if shuffle is None or not (isinstance(shuffle, cst.Name) and shuffle.value == "False"):
            pipeline += f".shuffle(len({code(x)}), reshuffle_each_iteration=True)"
        pipeline += f".batch({code(batch) if batch is not None else 32})"
        kept = [a for a in call.args if a not in data_args]
        new_call = call.with_changes(args=[cst.Arg(cst.Name("train_data"), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if kept else cst.MaybeSentinel.DEFAULT), *kept])
        build = cst.parse_statement(f'with {tf}.device("/CPU:0"):\n    train_data = {pipeline}\n')
        return CstFix(
            "Build a `tf.data` pipeline of the arrays on the CPU and fit on it (unsafe: shuffling and the last batch may differ)",
            Applicability.UNSAFE,
            {statement: cst.FlattenSentinel([build, statement.deep_replace(call, new_call)])},
            imports=imports,
        )

    def _statement_of(self, call: cst.Call) -> Optional[cst.SimpleStatementLine]:
        """The simple statement holding ``call``, when it sits directly in a block (so it can be wrapped)."""
        statement = next((a for a in self.facts.ancestors(call) if isinstance(a, cst.SimpleStatementLine)), None)
        if statement is None or not isinstance(self.facts.parent(statement), (cst.IndentedBlock, cst.Module)):
            return None
        return statement

    # ----- report and fix -----------------------------------------------------------

    def _report(self, move: Move, read: WholeRead, batching: Batching) -> None:
        message = (
            f"the whole data set{_file_named(read.call)} (read by `{_short(self.facts.code(read.call))}`) is moved to the accelerator by "
            f"`{_short(self.facts.code(move.call))}` before it is cut into batches ({batching.description}): the GPU "
            f"must hold all of it instead of one batch{self._cost(move, read, batching)}, which works until the data "
            "grows; keep it on the CPU and move each batch"
        )
        self.report(move.call, message, fix=self._fix(move, batching))

    def _cost(self, move: Move, read: WholeRead, batching: Batching) -> str:
        """What the whole array costs against one batch, from the shape and dtype the code gives it (else "")."""
        calls = (move.call, *read.through)
        shape = next((s for s in map(self._shape, calls) if s is not None), None)
        dtype = next((d for d in map(self._dtype, calls) if d is not None), None)
        if shape is None or any(d < 0 for d in shape[1:]):
            return ""
        row = math.prod(shape[1:])
        width = DTYPE_BYTES.get(dtype or "")
        kind = f"{dtype} " if dtype is not None else ""
        if shape[0] >= 0:
            whole = f" ({'x'.join(map(str, shape))} {kind}values{f', {_size(math.prod(shape) * width)}' if width else ''}"
            batch = f", {shape[0] // batching.rows:,} times one batch of {batching.rows}" if batching.rows else ""
            return f"{whole}{batch})"
        if batching.rows is None:
            return ""
        one_batch = f", {_size(batching.rows * row * width)}" if width else ""
        return f" (one batch is {batching.rows}x{'x'.join(map(str, shape[1:]))} {kind}values{one_batch}; the whole array is every row of the file)"

    def _shape(self, call: cst.Call) -> Optional[Tuple[int, ...]]:
        """The shape a ``.reshape``/``.view``/``np.reshape`` call gives, when its sizes are integer literals (-1 allowed once)."""
        if isinstance(call.func, cst.Attribute) and self.facts.qualified_name(call.func) is None and call.func.attr.value in RESHAPES:
            sizes = [a.value for a in call.args if a.keyword is None]
        elif self.facts.qualified_name(call.func) == "numpy.reshape" and len(call.args) >= 2:
            sizes = [call.args[1].value]
        else:
            return None
        if len(sizes) == 1 and isinstance(sizes[0], (cst.Tuple, cst.List)):
            sizes = [e.value for e in sizes[0].elements]
        shape = tuple(_signed_integer(size) for size in sizes)
        if not shape or None in shape or sum(1 for d in shape if d < 0) > 1:  # type: ignore[operator]
            return None
        return shape  # type: ignore[return-value]

    def _dtype(self, call: cst.Call) -> Optional[str]:
        """The element type a call gives its result: ``.float()``, ``.astype(np.float32)``, ``dtype=torch.long``,
        ``torch.FloatTensor(...)``; None when it does not say."""
        qualified = self.facts.qualified_name(call.func) or ""
        tensor_type = TENSOR_TYPE.fullmatch(qualified)
        if tensor_type is not None:
            return TENSOR_TYPE_DTYPES.get(tensor_type.group(1))
        if isinstance(call.func, cst.Attribute) and not qualified:
            method = call.func.attr.value
            if method in DTYPE_METHODS:
                return DTYPE_METHODS[method]
            if method == "astype" and call.args:
                return self._dtype_name(call.args[0].value)
        dtype = passed_argument(call, "dtype", None)
        return self._dtype_name(dtype) if dtype is not None else None

    def _dtype_name(self, expression: cst.BaseExpression) -> Optional[str]:
        """``torch.float32``, ``np.float32``, ``"float32"``, ``torch.long`` -> the canonical dtype name."""
        name = string_value(expression) or (self.facts.qualified_name(expression) or "").rsplit(".", 1)[-1]
        return DTYPE_ALIASES.get(name, name) if DTYPE_ALIASES.get(name, name) in DTYPE_BYTES else None

    def _fix(self, move: Move, batching: Batching) -> Optional[CstFix]:
        if batching.loader is not None:
            return self.fixer.fix(batching.loader)
        if not batching.slices:
            return None
        on_cpu = self.fixer.on_cpu(move.call)
        if on_cpu is None:
            return None
        replacements: Dict[cst.CSTNode, object] = {move.call: on_cpu}
        for subscript in batching.slices:
            target = self.fixer.target((move,), subscript)
            index = subscript.slice[0].slice if len(subscript.slice) == 1 else None
            if target is None or (isinstance(index, cst.Index) and self.placement.trace(index.value)):
                return None  # the device is not in scope there, or the index is on the accelerator itself
            replacements[subscript] = cst.parse_expression(f"{self.facts.code(subscript)}{target.transfer()}")  # a subscript binds tighter
        only_batched = all(
            self.facts.parent(read) in batching.slices or self.fixer.placement_free(read)
            for binding in batching.names
            for read in self.names.uses(binding)
        )
        applicability = Applicability.SAFE if only_batched else Applicability.UNSAFE
        return CstFix("Keep the data set on the CPU and move each batch where the loop takes it", applicability, replacements)


def _file_named(read: cst.Call) -> str:
    """`` in `X.npy``` for ``np.load(os.path.join(root, "X.npy"))``: the last string literal of the path argument."""
    path = read.args[0].value if read.args else None
    literals = [text for text in (string_value(node) for node in walk(path)) if text] if path is not None else []
    return f" in `{literals[-1]}`" if literals else ""


def _signed_integer(node: cst.BaseExpression) -> Optional[int]:
    """``28`` or ``-1``."""
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and isinstance(node.expression, cst.Integer):
        return -int(node.expression.evaluated_value)
    return None


def _size(nbytes: int) -> str:
    """``3.1 GiB``: bytes in the binary units ``nvidia-smi`` and the allocator's errors use."""
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if nbytes < 1024 or unit == "GiB":
            return f"{nbytes} {unit}" if unit == "bytes" else f"{nbytes:.1f} {unit}"
        nbytes /= 1024  # type: ignore[assignment]
    raise AssertionError("unreachable")


def _leaves(expr: Optional[cst.BaseExpression]) -> List[cst.BaseExpression]:
    """The arrays in ``(x, y)`` or ``({"a": a}, y)``: what a pipeline slices."""
    if isinstance(expr, (cst.Tuple, cst.List, cst.Dict)):
        return [leaf for element in expr.elements for leaf in _leaves(element.value)]  # type: ignore[union-attr]
    return [expr] if expr is not None else []


def _slice_parts(subscript: cst.Subscript) -> List[cst.BaseSlice]:
    return [element.slice for element in subscript.slice]


def _limits_rows(subscript: cst.Subscript) -> bool:
    """``X[:1000]``, ``X[:N_SMALL]`` with a literal bound: the first axis cut to a constant size."""
    parts = _slice_parts(subscript)
    first = parts[0] if parts else None
    if not isinstance(first, cst.Slice) or not isinstance(first.upper, cst.Integer):
        return False
    return first.lower is None or isinstance(first.lower, cst.Integer)


def _reads_everything(subscript: cst.Subscript) -> bool:
    """``ds[:]`` or ``ds[()]``: an h5py dataset read whole into memory."""
    parts = _slice_parts(subscript)
    if len(parts) != 1:
        return False
    part = parts[0]
    if isinstance(part, cst.Slice):
        return part.lower is None and part.upper is None and part.step is None
    return isinstance(part, cst.Index) and isinstance(part.value, cst.Tuple) and not part.value.elements


def _names_bound_in(loop: cst.CSTNode) -> Set[str]:
    """Names a loop rebinds on each iteration: its target, and what its body assigns."""
    targets: List[cst.BaseExpression] = [loop.target] if isinstance(loop, cst.For) else []
    for node in walk(loop.body):  # type: ignore[attr-defined]
        if isinstance(node, cst.Assign):
            targets.extend(t.target for t in node.targets)
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.NamedExpr)):
            targets.append(node.target)
        elif isinstance(node, (cst.For, cst.CompFor)):
            targets.append(node.target)
    return {n.value for target in targets for n in walk(target) if isinstance(n, cst.Name)}


def _split_into_batches(facts, read: cst.CSTNode) -> bool:
    """``X.split(batch_size)``, ``torch.chunk(X, n)``: the tensor cut into batches at once."""
    parent = facts.parent(read)
    if isinstance(parent, cst.Attribute) and parent.value is read and parent.attr.value in SPLITTERS:
        return isinstance(facts.parent(parent), cst.Call)
    if isinstance(parent, cst.Arg):
        call = facts.parent(parent)
        return isinstance(call, cst.Call) and (facts.qualified_name(call.func) or "").rsplit(".", 1)[-1] in SPLITTERS and call.args[0] is parent
    return False


def _short(code: str, limit: int = 60) -> str:
    flat = " ".join(code.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
