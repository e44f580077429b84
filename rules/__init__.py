"""The rule registry: one entry per rule, in code order.

Like Ruff's ``codes.rs``, this table is the single place where a code is bound
to a name and an implementation. It also holds each rule's trigger texts: a
file is parsed only when one of the selected rules' triggers occurs in it, and
this decision is made from this table alone, without importing LibCST.
A trigger is a substring, or a tuple of parts that must all occur, where a
part is a substring, a compiled regular expression (for a part that
substrings cannot state without also matching common library code), or a
tuple of alternatives, each a substring or a regular expression. Parts are
tried in order and the first that fails ends the trial: put the cheap and
the rare first.
Triggers must be chosen so that every file a rule could report on matches
one (a missed trigger is a missed finding); tests/test_triggers.py checks
this against every fixture, and tests/test_prescreen_probes.py against every
shape a red team found a trigger or a condition hiding. A trigger reads a
string as it is spelled: a key or literal written with escapes or in parts
(`"v\\x61l"`, `"input_" "ids"`), which a rule reads by value, is the one
known spelling they miss.
"""

from __future__ import annotations

import re
from typing import Any, Callable, NamedTuple, Optional, Pattern, Tuple, Union

from trainlint.step_words import HELD_OUT_SPLITS, SPLIT_LOADER_PREFIXES, SPLIT_LOADER_SUFFIXES


class RuleEntry(NamedTuple):
    code: str
    name: str
    module: str  # module under trainlint.rules that defines the rule class: <family>.<file>
    cls: str
    triggers: Tuple[Union[str, Tuple[Union[str, Pattern[str], Tuple[str, ...]], ...]], ...]
    # A condition on trainlint.prescreen.Features (CPython's tree) that every module the rule could
    # report on satisfies; None: the rule runs whenever a trigger matches.
    structure: Optional[Callable[[Any], bool]] = None


# Code that runs once per training step, as trainlint.analysis.steps sees it:
# a `.backward(`, a step hook's definition (`def training_step(`,
# `def on_train_batch_end(`, not `def prepare_extra_step_kwargs(`; not a bare `def step(`, a hook only in a module
# that trains, `GENERIC_HOOK_NAMES`: a diffusion scheduler's), or an
# optimizer's or scaler's `.step(`. A bare `step(` would also match every diffusion pipeline's `scheduler.step(` and
# have half of a diffusers checkout parsed for nothing.
# (Its first letter is a character class: a case-insensitive group at the start of a pattern makes the regular
# expression engine try every position of the text, 5x slower on pytorch-image-models.)
# One alternation would cost the engine its fast scan for a first letter or a literal prefix (every branch of it
# must start with a literal), so the three are alternatives of a trigger part, each with a literal or class first:
# `def(?<!\wdef)` is `\bdef` with the literal first.
# Between tokens Python allows a line continuation too (`optimizer \` then `.step()` on the next line): `_GAP`.
# An optimizer may be an item of a container named like one (`self.optimizers[0].step()`, `opts["g"].step()`: the
# analyses' `optimizer_name_match`), and a step hook may take type parameters (`def train_step[T](`, Python 3.12).
# The prefilter searches the raw text first, comments and all, so a gap must also step over a comment between two
# tokens inside brackets (`model.train(  # frozen` + `False)`): else that first search misses what the code holds.
# A comment is read to its line's end (`#[^\r\n]*\r?\n`): stopping anywhere inside it would let the engine try every
# way to split a line of `#`s into comments, exponential in their number (`# ####...`).
_GAP = r"[\s\\]*(?:#[^\r\n]*\r?\n[\s\\]*)*"
_BLANK = rf"[\s\\]{_GAP}"  # at least one blank between two words (`def f`, `torch as th`)
# `[...]`, two levels of brackets inside, across lines (unrolled: a run of other characters at a time)
_BRACKETS = r"\[[^\[\]]*(?:\[[^\[\]]*(?:\[[^\[\]]*\][^\[\]]*)*\][^\[\]]*)*\]"
# (and in parentheses: `(opt).step()`; the lookahead drops `options(`, `optimizer =` before any group is tried)
_OPTIMIZER_STEP = (
    rf"[oOsS\u017f](?i:pt|caler)\w*(?=[\s\\\[).#])(?:{_GAP}\))*(?:{_GAP}{_BRACKETS})?(?:{_GAP}\))*{_GAP}\.{_GAP}step{_GAP}\("
)
_PER_STEP_CODE = (
    "backward",
    re.compile(
        rf"def(?<!\wdef){_BLANK}(?:\w*_step(?:_(?:end|begin|start))?|step_(?:end|begin|start)|on_\w*batch\w*)"
        rf"{_GAP}(?:{_BRACKETS}{_GAP})?\("
    ),
    re.compile(_OPTIMIZER_STEP),
)


def _led_by_a_letter_class(words: str, word_start: bool = False) -> str:
    """``val|test`` in any case as ``[tTvV](?i:(?<=v)al|(?<=t)est)``: the same words, led by a class of their first
    letters (``word_start``: and no letter, digit or ``_`` before, as ``\\b`` would say). A case-insensitive group,
    a ``\\b`` or an alternation first costs the regular expression engine its fast scan for a first character: the
    held-out loader pattern written so took 0.38 s over pytorch-image-models' 315 files, 4x this form."""
    options = words.split("|")
    first = "".join(sorted({letter for word in options for letter in (word[0].lower(), word[0].upper())}))
    rest = "|".join(f"(?<={word[0]}){word[1:]}" for word in options)
    after_first = r"(?<!\w\w)" if word_start else ""
    return f"[{first}]{after_first}(?i:{rest})"


# A loader of held-out data named in the text, in the words trainlint.analysis.steps matches whole names with.
_HELD_OUT_LOADER = (
    re.compile(rf"{_led_by_a_letter_class(HELD_OUT_SPLITS, word_start=True)}(?i:_?(?:{SPLIT_LOADER_SUFFIXES})s?\b)"),
    re.compile(rf"{_led_by_a_letter_class(SPLIT_LOADER_PREFIXES)}(?i:_?(?:{HELD_OUT_SPLITS})\b)"),
    # `loaders["val"]`, `loaders[r"val"]`, `loaders["val",]`
    re.compile(rf"\[(?:{_GAP}\()*{_GAP}[rRuU]?[\"']{{1,3}}(?i:{HELD_OUT_SPLITS})[\"']{{1,3}}{_GAP},?(?:{_GAP}\))*{_GAP}\]"),
)
# A model put in eval mode as trainlint.analysis.steps' `_mode_set` reads it: `m.eval()`, `m.train(False)` and its
# first argument by any keyword (`m.train(mode=False)`), spaced as Python allows.
_EVAL_MODE = (
    re.compile(rf"eval{_GAP}\("),
    re.compile(rf"train{_GAP}\((?:{_GAP}\()*{_GAP}(?:\w+{_GAP}=(?:{_GAP}\()*{_GAP})?False"),
)


# A file read whole into memory (TL103): NumPy, torch, pandas, h5py, by the qualified names the rule resolves: also
# through a module alias other than `np` (`import torch as th`: `th.load(`) and an import of the reader itself
# (`from numpy import load`). A bare "load(" would also match json.load and yaml.safe_load: 348 of diffusers' 2,089
# files against 68 with this pattern.
# Substrings where they can be: a tenth of one regular expression's cost (0.04 s against 0.42 s over
# pytorch-image-models).
_WHOLE_FILE_READ = (
    *(re.compile(rf"{module}{_GAP}\.{_GAP}load") for module in ("np", "numpy", "torch")),
    "loadtxt", "genfromtxt", "fromfile", "h5py",
    *(f"read_{kind}" for kind in ("csv", "parquet", "feather", "pickle", "excel", "json", "table", "hdf")),
    re.compile(rf"numpy{_BLANK}as{_BLANK}(?!np\b)"),
    re.compile(rf"torch{_BLANK}as{_BLANK}(?!torch\b)"),
    re.compile(r"import(?:[^;)\n\\]|\\(?:\r\n|.))*?load(?!\w)", re.DOTALL),  # a backslash continues the line
    re.compile(rf"import{_GAP}\((?:[^)#]|#[^\r\n]*\r?\n)*?load(?!\w)"),
)  # fmt: skip
# A move (TL103): `.to(`, `.cuda(`, a factory's `device=`, a CUDA tensor type called directly or through an alias
# (``Tensor = torch.cuda.FloatTensor if cuda else ...``, ``import torch.cuda as tc``), or a tf.data pipeline or fit.
_MOVE = (
    re.compile(rf"\.{_GAP}to{_GAP}\("),
    re.compile(rf"\.{_GAP}cuda{_GAP}\("),
    re.compile(rf"device{_GAP}="),
    re.compile(rf"cuda{_GAP}\.{_GAP}[A-Z][a-z]*Tensor\b"),
    re.compile(rf"cuda{_BLANK}as\b"),
    "from_tensor",
    re.compile(rf"\.{_GAP}fit{_GAP}\("),
)
# A tensor created as floating point (TL302), in the words the rule's float makers and dtypes are spelled with
# (`FLOAT_DTYPES`: `torch.float32`, `FloatTensor`, `.half()`, `dtype="float32"`, `.astype(np.float64)`, `torch.single`),
# a reader of floats (`from_numpy`, `np.loadtxt`), or a maker of float32 called or imported under another name
# (`torch.Tensor(`, `torch.zeros (n)`, `Tensor as T`). Words, not the calls around them: a dtype can stand anywhere
# in a call (`.to(next(model.parameters()).device, torch.float32)`), and the index use before it is the rare part.
# Each pattern leads with its literal (`Tensor(?<!\wTensor)` is `\bTensor`), which keeps the engine's fast scan.
_FLOAT_TENSOR = (
    "float", "Float", "double", "Double", "half", "Half", "single",
    "from_numpy",
    "loadtxt",
    "genfromtxt",
    *(re.compile(rf"{word}(?<!\w{word}){_GAP}(?:\(|as\b)") for word in ("Tensor", "zeros", "ones", "empty")),
)
# ...and a place that takes indices: an embedding (`nn.Embedding`, `EmbeddingBag`, `F.embedding`, or an import of
# one: the word itself, not `time_embedding` or `TimestepEmbedding`), `input_ids`/`labels` as a keyword or a string
# key (not `text_inputs.input_ids`, `class_labels=`), an index loss. A Python list's subscript is an index use to
# the rule only beside one of these (`_index_uses`), as it is to this trigger: adding "= [", "list(" and "split(" had this rule parse 897 of diffusers' 2,089
# files instead of 648, for a sink that training scripts rarely hold alone. Each pattern leads with its literal
# (`Embedding(?<!\wEmbedding)` is `\bEmbedding`), which keeps the engine's fast scan.
_INDEX_USE = (
    "cross_entropy",
    "CrossEntropyLoss",
    "nll_loss",
    "NLLLoss",
    # called or imported under another name (`nn.Embedding(`, `F.embedding (`, `Embedding as E`), not `embedding_dim`
    *(re.compile(rf"{word}(?<!\w{word})(?:{bag})?{_GAP}(?:\(|as\b)") for word, bag in (("Embedding", "Bag"), ("embedding", "_bag"))),
    # (each its own alternatives: one pattern `key=|"key"` lost the literal scan to its quote class, 0.08 s a key
    # over pytorch-lightning's 646 files)
    *(re.compile(rf"{key}(?<!\w{key}){_GAP}=(?!=)") for key in ("input_ids", "labels")),
    *(f"{quote}{key}{quote}" for key in ("input_ids", "labels") for quote in "\"'"),
)


RULES: Tuple[RuleEntry, ...] = (
    # A DataLoader: not also "pin_memory", which a loader's eighth positional argument is without the word (nor
    # "num_workers" for TL102, its sixth); the conditions read both ways.
    # as code: a DataLoader whose data set or collate function may hold a move to an accelerator (through names,
    # attributes, calls, returns, parameters; a class or def with a move anywhere in it holds it), and a pinning
    # switch given (`pin_memory=`, a "pin_memory" key, eight positional arguments)
    RuleEntry(
        "TL101", "pin-memory-device-tensors", "loaders.tl101_pin_memory_device_tensors", "PinMemoryDeviceTensors",
        ("DataLoader",), lambda module: module.may_pin_a_loader and module.loads_moved_data,
    ),
    RuleEntry(
        "TL102", "device-dataset-in-workers", "loaders.tl102_device_dataset_in_workers", "DeviceDatasetInWorkers",
        # as code: TL101's loader, and workers not provably absent (`num_workers=` other than 0, a
        # "num_workers" option key, six positional arguments)
        ("DataLoader",), lambda module: module.may_fork_workers and module.loads_moved_data,
    ),
    RuleEntry(
        "TL103",
        "dataset-on-accelerator",
        "loaders.tl103_dataset_on_accelerator",
        "DatasetOnAccelerator",
        # a whole-file read (NumPy, torch, pandas, h5py) and a move to a device or a CUDA tensor
        # type (PyTorch), or a tf.data pipeline or Keras fit built from the arrays (TensorFlow)
        ((_WHOLE_FILE_READ, _MOVE),),
        # as code: a reader called, and a move outside loops and per-item code of a value that may hold what it read
        # (through names, returns, `with` managers, defaults) then cut into batches (a DataLoader that may hold a move,
        # or a name bound to the move sliced in a loop or split), or a tf.data pipeline or fit
        lambda module: module.reads_whole_file
        and ((module.moves_a_read_value and module.batches_a_moved_read) or module.builds_tf_pipeline),
    ),
    RuleEntry(
        "TL104", "pin-memory-without-cuda", "loaders.tl104_pin_memory_without_cuda", "PinMemoryWithoutCuda", ("pin_memory", "DataLoader"),
        # as code: a tensor pinned (`.pin_memory()` outside a `def pin_memory`, `torch.<factory>(..., pin_memory=True)`,
        # `from torch import empty`'s), or a loader's pinning (the trigger's "DataLoader": its eighth positional argument)
        # (a "pin_memory" key of a dict display or item assignment, `pin_memory=` given to a DataLoader, `partial`,
        # `dict`, a dict's `update`, a function or class here that may
        # forward `**kwargs`; not `wds.WebLoader`) in a module that may select the CPU or MPS (a "cpu"/"mps" literal,
        # `torch.backends.mps`, a launcher's `.device`), where the rule reports that kind
        lambda module: module.pins,
    ),
    RuleEntry(
        "TL201", "cuda-amp-on-other-device", "amp.tl201_cuda_amp_on_other_device", "CudaAmpOnOtherDevice", ("autocast", "GradScaler"),
        # as code: `torch.cuda.amp.autocast(...)`/`GradScaler(...)` (not `enabled=False`, nor one branch of a version
        # shim offering the other API), `autocast("cuda")`, `torch.amp.GradScaler()` (CUDA by default), or a
        # `torch.cuda.amp` API held by a name; in a module that may reach another accelerator (names MPS or an XPU,
        # or has a source of devices: a device variable, parameter, option, keyword or helper, a launcher)
        lambda module: module.amp_may_be_cuda_only,
    ),
    # A device type decided by a string test where an autocast is called: as text, the autocast (the two literals
    # may be spelled in parts or escapes, `"c" "pu"`, which the rule reads by value); as code, a conditional
    # expression or an `if` statement (TL202's statement forms), and an autocast called
    RuleEntry(
        "TL202", "device-type-sniffing", "amp.tl202_device_type_sniffing", "DeviceTypeSniffing", ("autocast",),
        # as code: `"cuda" if c else "cpu"` or an `if` branch binding one of them (or a CPU autocast), and an autocast
        # given a device type
        lambda module: module.sniffs_device_type,
    ),
    RuleEntry(
        "TL301", "unfiltered-batch-kwargs", "batches.tl301_unfiltered_batch_kwargs", "UnfilteredBatchKwargs",
        # a loader, a source of batch keys (the condition's three, as text), and a `**`
        (("DataLoader", ("__getitem__", "datasets", "collate_fn"), "**"),),
        # a `**` into a dotted name that is model-like (named so, or maybe an instance of a class with a `forward` here),
        # and a source of batch keys the rule reads (rules/batches/batch_keys.py): a `__getitem__` here, Hugging Face
        # `datasets` imported, or a `collate_fn=` given
        lambda module: module.may_know_batch_keys
        and (module.calls_model_with_kwargs or (module.calls_with_kwargs and module.defines_forward)),
    ),
    RuleEntry(
        "TL302",
        "float-index-tensors",
        "batches.tl302_float_index_tensors",
        "FloatIndexTensors",
        ((_INDEX_USE, _FLOAT_TENSOR),),  # the cheap substrings first: the regex runs where they occur
        # the same two, as code: a float tensor made, and a call or key that takes indices whose value the rule
        # may follow to a float tensor (through names, subscripts, dtype-keeping calls; not an attribute such as
        # `text_inputs.input_ids`, nor a call that makes none, nor a parameter of a function the module never calls
        # by name, such as `forward`'s; nor a call of a function here whose returns make none; a name bound by the
        # scope reading it is followed to that scope's assignments and parameters); a list indexed where an
        # index use is; an embedding of `forward`'s input
        # where an instance of a class here is called with something that may be float
        lambda module: module.creates_float and module.may_index_with_float,
    ),
    RuleEntry(
        "TL401",
        "undetached-loss-accumulation",
        "step_memory.tl401_undetached_loss_accumulation",
        "UndetachedLossAccumulation",
        # (code that runs per step: a backward, a step hook's def, an optimizer's step; a hook may sum losses whose
        # backward runs in a base class elsewhere, a loop may train by `torch.autograd.grad` and a step)
        ((_PER_STEP_CODE,),),
        # a sum, append or store in per-step code (a training loop, a step hook, what they call) of a value that may
        # carry a graph: not `.item()`, `float(...)`, `x.size(0)`, nor a name every binding of which is such a value;
        # kept in an attribute, a global, or a local bound before a training loop of its own function (a local of a
        # function whose own loops do not train, a parameter, is gone when the call returns; one bound afresh in the
        # innermost loop around the sum that may be a loader loop, or in a loop inside it, lives one step)
        lambda module: module.accumulates_per_step,
    ),
    RuleEntry(
        "TL402",
        "unbounded-step-history",
        "step_memory.tl402_unbounded_step_history",
        "UnboundedStepHistory",
        # an append, a list, and something that runs per step (a training loop or a step hook)
        # (grown by `append`/`extend` or their `left` forms; a list is `[]` or `list()`, or a dict of them, or a
        # `defaultdict(list)`; spaced as Python allows)
        (
            (
                tuple(re.compile(rf"{method}\w*{_GAP}\(") for method in ("append", "extend")),
                ("[]", re.compile(rf"\[{_GAP}\]"), "list(", re.compile(rf"list{_GAP}\("), "defaultdict"),
                _PER_STEP_CODE,
            ),
        ),
        # as code: in per-step code, an append to `self.x` made a list (or a dict of lists) in an `__init__`,
        # or to a name inside two loops of its function that its function (or the module) binds once, to a list
        lambda module: module.grows_history_per_step,
    ),
    RuleEntry(
        "TL403",
        "oom-handler-keeps-step",
        "step_memory.tl403_oom_handler_keeps_step",
        "OomHandlerKeepsStep",
        # an out-of-memory error recognised by its type or its message, in code that trains
        # per-step code first: the rarer, and cheaper; "of memory" and "oom" (OOM_MESSAGE reads it in any case: `if
        # "oom" in str(e).lower()`) led by their first letter's class, not a case-insensitive group (which costs the
        # engine its fast scan); "room" matches too, and the structural condition leaves it
        ((_PER_STEP_CODE, (re.compile(r"[oO](?i:f[ \\\r\n]*memory)"), re.compile(r"[oO][oO][mM]\b"))),),
        lambda module: module.trains and module.handles_oom,  # as code: an except naming the error, or testing its message
    ),
    # a model put in eval mode, or a loop over a held-out loader (trainlint.analysis.steps.EvaluationLoops)
    RuleEntry(
        "TL404", "eval-without-no-grad", "step_memory.tl404_eval_without_no_grad", "EvalWithoutNoGrad",
        ((_EVAL_MODE + _HELD_OUT_LOADER,),),
        # as code: a loop or comprehension outside a `test_*` function, over a held-out loader, or around or
        # after (in its function) a `.eval()`/`.train(False)`; not under a `with` or in a function decorated like
        # `no_grad`/`inference_mode` (in the loop's own function), nor in a hook Lightning runs without grad
        lambda module: module.evaluates,
    ),
    # a backward and an optimizer's or scaler's `.step(` (`optimizer`, `self.G_optim`, `gen_opt`, `scaler`),
    # or any `.step(` in a module that builds a `torch.optim` optimizer (`adam = optim.Adam(...)`)
    RuleEntry(
        "TL405", "missing-zero-grad", "step_memory.tl405_missing_zero_grad", "MissingZeroGrad",
        (("backward", re.compile(_OPTIMIZER_STEP)), ("backward", "optim", re.compile(rf"\.{_GAP}step{_GAP}\("))),
        # as code: a loop that runs a backward and steps an optimizer (named like one, a scaler's argument, or built
        # by `torch.optim`; a scheduler is none), itself or through functions it calls, unless it steps one only
        # and a `zero_grad()` runs in its body or in a module-level function it calls by name, or every optimizer it
        # steps has a `zero_grad()` of its own name in its body
        lambda module: module.loop_may_miss_zero_grad,
    ),
)
