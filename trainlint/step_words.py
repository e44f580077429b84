"""The names that make code a training step, an evaluation, or a value without a graph, in one place.

Both the analyses on LibCST's tree (``trainlint.analysis.calls``, ``steps``,
``grad_mode``, ``graph_values`` and TL302's rule) and the structural
pre-screen on CPython's tree (``trainlint.prescreen``) decide from these
"does this train?", "is grad off here?", "can this value carry a graph?".
The pre-screen must accept everything the analyses do, so they share the
words; this module imports nothing, so the pre-screen stays free of LibCST.
"""

from __future__ import annotations

import re

# ``loss.backward()``, ``accelerator.backward(loss)``, Lightning's ``self.manual_backward(loss)``.
BACKWARD_METHODS = frozenset({"backward", "manual_backward"})
# The receiver of ``x.backward(loss)`` that is an engine backpropagating ``loss`` (DeepSpeed's, Accelerate's,
# Fabric's), not a tensor given a gradient.
BACKWARD_OWNERS = re.compile(r"(accelerator|fabric|engine|trainer|deepspeed|model_engine)$", re.IGNORECASE)
# The receiver of a ``.step()`` that updates weights: an optimizer or a gradient scaler (not a scheduler). ``opt``
# also as the first word of a GAN's pair (``opt_g``, ``opt_disc``, ``optG``, ``opt2``); not ``option``/``adopted``.
OPTIMIZER_NAME = re.compile(r"(optim|opt$|(?:^|_)opt(?:_|\d|[gd]$)|optimizer|scaler)", re.IGNORECASE)


def optimizer_name_match(name: str, indexed: bool = False) -> "re.Match[str] | None":
    """``name`` reads as an optimizer or a scaler (``OPTIMIZER_NAME``); an ``indexed`` container of them, whose
    item is stepped (``opts["g"].step()``, ``self.optimizers[i].step()``), by its name less a plural ``s``."""
    if indexed and len(name) > 1 and name[-1] in "sS":
        name = name[:-1]
    return OPTIMIZER_NAME.search(name)
# ``training_step``, ``train_step``, ``_shared_step``, ``step``, ``log_step``, ``on_step_end``, ``training_step_end``,
# ``on_train_batch_end``. Not a helper that merely names steps (``prepare_extra_step_kwargs``, ``get_step_size``):
# diffusers' pipelines define the first in 135 files, none of them training.
STEP_HOOK_NAME = re.compile(r"(^|_)step(_(end|begin|start))?$|^on_\w*batch\w*$")

# Modules whose import marks a file of tests (``def test_*`` there is a test, its inputs test-sized).
TEST_FRAMEWORKS = frozenset({"pytest", "unittest"})


def collected_as_tests(path: str) -> bool:
    """A file pytest collects ``def test_*`` functions from by default (``test_*.py``, ``*_test.py``); never a
    notebook, whose ``def test_model(...)`` is an evaluation like any other."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


# ``log``/``update``/``step`` run per step only in a module that trains (a backward or an optimizer step anywhere in
# it, a training loop, or a hook named for training); elsewhere those names mean anything: a diffusion scheduler's
# ``step`` samples, an RL environment's acts (fixtures/TL401_undetached_loss_accumulation/ok_sampler_step_method.py).
GENERIC_HOOK_NAMES = frozenset({"log", "update", "step"})


def names_a_training_hook(name: str) -> bool:
    """A step hook by its name alone (``STEP_HOOK_NAME``), in any module: not one of ``GENERIC_HOOK_NAMES``."""
    return STEP_HOOK_NAME.search(name) is not None and name not in GENERIC_HOOK_NAMES

# Splits of held-out data, and the names of their loaders: `val_loader`, `valid_dl`, `testloader`, `loader_val`,
# `self.val_dataloader()`, `loaders["val"]`. The analyses match a whole name; the registry's trigger finds one in text.
HELD_OUT_SPLITS = r"val|valid|validation|test|eval|dev"
SPLIT_LOADER_SUFFIXES = r"loader|dl|dataloader|data_loader|iter|iterator|batches|ds|dataset|data|set"
SPLIT_LOADER_PREFIXES = r"loader|dataloader|dl"
HELD_OUT_SPLIT = re.compile(rf"^({HELD_OUT_SPLITS})$", re.IGNORECASE)
HELD_OUT_LOADER_NAME = re.compile(
    rf"^({HELD_OUT_SPLITS})_?({SPLIT_LOADER_SUFFIXES})s?$|^({SPLIT_LOADER_PREFIXES})_?({HELD_OUT_SPLITS})$", re.IGNORECASE
)

# What TrainingLoops takes for a loader: a call of a factory (by the end of its qualified or dotted name), or a name so.
LOADER_FACTORIES = ("DataLoader",)
LOADER_NAME = re.compile(r"(loader|dataloader|(^|_)dl$|batches$)", re.IGNORECASE)
# A step method that evaluates: what GraphValues takes to run without grad (its `runs_without_grad`), whoever calls it.
EVALUATION_STEP = re.compile(r"^(validation|val|valid|test|predict|eval|evaluation|inference)_step$")
# Hooks Lightning runs under `torch.no_grad()`/`torch.inference_mode()`.
GRAD_FREE_HOOK = re.compile(
    r"^(validation|val|valid|test|predict|eval|evaluation|inference)_step$"
    r"|^on_(validation|test|predict)_\w+$|^(validation|test)_epoch_end$"
)
# Project wrappers of the two, known by their names: YOLOv5's `@smart_inference_mode()`
# (fixtures/TL404_eval_without_no_grad/ok_no_grad_functions.py).
NO_GRAD_WRAPPER = re.compile(r"(^|_)(no_grad|inference_mode)$")

# Methods and attributes whose result carries no graph, and the builtins that turn a tensor into a plain value.
DETACHING_METHODS = frozenset({
    "item", "tolist", "detach", "detach_", "numpy", "backward", "size", "dim", "numel", "nelement",
    "argmax", "argmin", "eq", "ne", "lt", "le", "gt", "ge", "isnan", "isinf", "isfinite", "long", "int", "bool",
    "nonzero", "any", "all", "count_nonzero", "__float__", "__int__", "__bool__", "data_ptr", "element_size",
})
DETACHING_ATTRIBUTES = frozenset({"data", "grad", "shape", "dtype", "device", "requires_grad", "ndim", "is_cuda", "grad_fn"})
CASTS = frozenset({"float", "int", "bool", "round", "str", "len", "repr", "format"})

# TL302's chain back to a float tensor: the integer casts that end it, the methods that keep a tensor's dtype
# (the value they return is as floating as their receiver), and the calls that make a Python sequence.
INTEGER_METHODS = frozenset({"long", "int", "short", "byte", "bool", "char", "round", "argmax", "argmin", "argsort"})
DTYPE_KEEPING = frozenset(
    {"to", "cuda", "cpu", "view", "reshape", "unsqueeze", "squeeze", "contiguous", "clone", "detach", "pin_memory",
     "flatten", "permute", "transpose", "t", "expand", "repeat", "requires_grad_", "share_memory_"}
)
SEQUENCE_MAKERS = frozenset({"list", "sorted", "split", "readlines", "splitlines", "keys", "values"})
# The last names of dtypes (`torch.float16`, `np.int64`, "float32"): what a `.to(...)`/`.type(...)` casts to.
FLOAT_DTYPES = frozenset(
    {"float", "float16", "float32", "float64", "half", "double", "bfloat16", "single", "float_", "FloatTensor", "DoubleTensor", "HalfTensor"}
)
INTEGER_DTYPES = frozenset({"int", "long", "int8", "int16", "int32", "int64", "uint8", "short", "int_", "intp", "LongTensor", "IntTensor", "bool"})

# Where ``trainlint.analysis.graph_values`` finds a graph that no operand brought: a model's output (a callee named
# like a model, not a factory), a criterion's or a functional loss's result.
CRITERION_NAME = re.compile(r"^(criterion|loss_fn|loss_func|loss_function|lossfn|compute_loss)$|_(criterion|loss_fn)$")
MODEL_NAME = re.compile(
    r"(^|_)(model|net|network|encoder|decoder|backbone|generator|discriminator|policy|actor|critic)$|^forward$"
)
MODEL_FACTORY = re.compile(r"^(make|build|create|get|load|init|setup)_|^from_pretrained$")
FUNCTIONAL_LOSSES = frozenset({"cross_entropy", "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "nll_loss"})

# What cuts a tensor into batches: `x.split(n)`, `torch.chunk(x, n)` (TL103's batching by hand, and the pre-screen's).
SPLITTERS = frozenset({"split", "chunk", "tensor_split"})
# A device string that names CUDA: what makes `torch.autocast("cuda")` hard-wired (TL201, trainlint.analysis.devices).
CUDA_DEVICE = re.compile(r"^cuda(:\d+)?$")
# Calls that hold only where CUDA is (trainlint.analysis.devices' CUDA conditions, and the pre-screen's mirror).
CUDA_CHECK_CALLS = frozenset({"torch.cuda.is_available", "torch.cuda.device_count", "torch.cuda.is_bf16_supported"})
# Test decorators that skip code off CUDA (trainlint.analysis.devices' CUDA-only regions, and the pre-screen's mirror).
SKIP_DECORATORS = {"skipif": False, "skipIf": False, "skipUnless": True}  # runs when its condition is ...
GPU_ONLY_DECORATOR = re.compile(r"cuda|gpu", re.IGNORECASE)  # @requires_cuda, @require_torch_gpu, @pytest.mark.cuda
# A device string that is not CUDA: the other arm of a switch picking CUDA (`"cuda" if args.cuda else "cpu"`).
NON_CUDA_DEVICE = re.compile(r"^(cpu|mps|xpu)(:\d+)?$")
# A variable, parameter, field or keyword that holds the selected device (trainlint.analysis.devices, the pre-screen).
DEVICE_VARIABLE = re.compile(r"^(_?device|DEVICE|\w+_device|device_type|gpu_type)$")
# A command-line option that picks the device: `--device`, `--gpu_type`, `--accelerator`.
DEVICE_OPTION = re.compile(r"device|gpu_type|accelerator", re.IGNORECASE)
# A name that may hold a device, read as `.to(<name>)`'s device by the loader placement (`to_device`) and the pre-screen.
DEVICE_NAME = re.compile(r"device|(^|_)(dev|gpu|cuda|accelerator)(_|$)", re.IGNORECASE)

# Libraries that load only where CUDA is: TensorRT, cuda-python, PyCUDA, CuPy, NVIDIA Apex.
# (+ NVIDIA Transformer Engine and Microsoft's MS-AMP, FP8 kernels for Hopper/Ada GPUs: accelerate's benchmarks/fp8)
CUDA_ONLY_LIBRARIES = frozenset({"tensorrt", "torch_tensorrt", "cuda", "pycuda", "cupy", "apex", "transformer_engine", "msamp"})
# Launchers whose `.device` is their pick of accelerator, or the CPU (trainlint.analysis.devices, and the pre-screen).
LAUNCHER_CLASSES = frozenset({"accelerate.Accelerator", "lightning.Fabric", "lightning.fabric.Fabric", "lightning_fabric.Fabric"})
# Untyped owners whose `.device` is a launcher's choice: `accelerator.device` in a function given the accelerator.
LAUNCHER_NAMES = frozenset({"accelerator", "fabric"})  # fixtures/TL201.../bad_accelerator_device.py

# Methods of a model that run no forward pass (`model.generate` of Hugging Face runs under no_grad itself).
NOT_FORWARD = frozenset({
    "eval", "train", "to", "cpu", "cuda", "half", "float", "double", "state_dict", "load_state_dict", "parameters",
    "named_parameters", "buffers", "modules", "children", "named_modules", "zero_grad", "apply", "requires_grad_",
    "generate", "save_pretrained", "register_forward_hook", "register_buffer", "get_parameter", "num_parameters",
})
# Method names that configure or inspect a model rather than run it (diffusers' `set_default_attn_processor`).
BOOKKEEPING_METHOD = re.compile(
    r"^(set|get|enable|disable|register|load|save|reset|init|prepare|fuse|unfuse|tie|resize|print|add|remove|freeze|unfreeze)_"
)
# Wrappers whose first argument is what a loop really iterates (`TrainingLoops`, and the pre-screen by last name).
ITERATION_WRAPPERS = frozenset({"enumerate", "tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "iter"})
# How an out-of-memory handler tells the error by its message (TL403, and the pre-screen).
OOM_MESSAGE = re.compile(r"out of memory|\boom\b", re.IGNORECASE)
