"""Which devices a module's code can run on, and which device expression is in scope at a node.

Rules about device-specific APIs (CUDA-only AMP, pinned memory, ...) need to
know three things that no single call shows:

- which devices the module can run on, as a set on the device lattice
  (:class:`Device`: cpu, cuda, mps, another accelerator, an accelerator of
  unknown kind, unknown; :class:`DeviceLattice` gives the devices of any
  expression), and whether something pins it to CUDA anyway
  (``assert torch.cuda.is_available()``, ``torch.cuda.set_device``, ``nccl``,
  ``f"cuda:{rank}"``, an unconditional ``model.cuda()`` or
  ``torch.cuda.synchronize()``). A module that can only be CUDA or the CPU
  differs from one that can reach MPS, an XPU, or whatever a caller passes;
- whether one node only ever runs on CUDA (inside ``if device.type ==
  "cuda":``, ``if args.cuda:`` where ``args.cuda`` picks the device,
  ``case "cuda":``, after ``if not torch.cuda.is_available(): raise`` or after
  ``if device == "cpu": sys.exit()`` where ``device`` is ``"cuda"`` or ``"cpu"``,
  or after a statement that raises without CUDA, ``torch.cuda.synchronize()``),
  or a value such as ``enabled=`` is tied to the device being CUDA;
- which expression holds the device where a fix needs it (``device``,
  ``self.device``, ``args.device``) and whether it is a ``torch.device`` or a
  string, so that a fix spells its device *type* correctly.

Four facts answer them, each requested with ``facts.fact(...)`` and sharing
one scan of the module (literals, calls, options): :class:`DeviceLattice`,
:class:`DevicesInUse`, :class:`CudaOnlyRegions` and :class:`DeviceScopes`.
What a name or attribute holds, and where, they read from names.py (its
bindings, flow-aware at a use; a spelling's assignments in every scope for
the module-wide questions); they keep no model of names of their own. All
err towards "can't tell", which rules turn into silence or into an unsafe fix.
"""

from __future__ import annotations

import functools
import re
from enum import Enum
from typing import TYPE_CHECKING, Dict, FrozenSet, Iterable, Iterator, List, NamedTuple, Optional, Sequence, Set, Tuple

import libcst as cst

from trainlint.analysis import walk
from trainlint.analysis.imports import dotted
from trainlint.analysis.names import (
    ANNOTATED, ASSIGN, CLASS, DEF, DELETE, FOR, IMPORT, PARAMETER, VAR_KEYWORD, WALRUS, WITH, Binding, Names,
)
from trainlint.analysis.values import Values as LiteralValues, string_value
from trainlint.step_words import (
    CUDA_CHECK_CALLS,
    CUDA_DEVICE,
    CUDA_ONLY_LIBRARIES,
    DEVICE_OPTION,
    DEVICE_VARIABLE,
    GPU_ONLY_DECORATOR,
    LAUNCHER_CLASSES,
    LAUNCHER_NAMES,
    NON_CUDA_DEVICE,
    SKIP_DECORATORS,
)

if TYPE_CHECKING:
    from trainlint.analysis import ModuleFacts

MPS_DEVICE = re.compile(r"^mps(:\d+)?$")
MPS_WORD = re.compile(r"\bmps\b", re.IGNORECASE)
# Where a run's settings live: `args.device`, `self.config.device` name the selected device.
SETTINGS_OWNERS = frozenset({"args", "opt", "opts", "config", "cfg", "hparams", "training_args"})
# A device qualified by one of these words is where input data is decoded or augmented (`--dali_device`,
# `data_device`), not where the model computes: a CPU data pipeline feeds CUDA-only models too.
DATA_PIPELINE_DEVICE = re.compile(
    r"(^|[-_])(dali|data|dataloader|loader|pipeline|decode|decoder|preprocess|preprocessing|augment|augmentation)[-_]",
    re.IGNORECASE,
)
# Names a scope binds to "the" device, looked up in this order; DEVICE_TYPE_NAMES count only
# when they hold a device type ("cuda"/"mps"/"cpu", `device.type`).
SCOPE_DEVICE_NAMES = ("device_type", "device", "_device", "DEVICE")
DEVICE_TYPE_NAMES = ("device_type",)
SELF_DEVICE_ATTRIBUTES = ("device_type", "device", "_device")
# Calls that return a ``torch.device`` (or raise): on their result ``.type`` is the device type.
TORCH_DEVICE_MAKERS = frozenset({"torch.device", "torch.accelerator.current_accelerator"})
EXIT_CALLS = frozenset({"sys.exit", "exit", "quit", "pytest.skip", "pytest.exit", "self.skipTest"})
# Calls that raise where there is no CUDA (a CPU-only build or an MPS machine): code running them cannot run there.
_CUDA_RUNTIME = "synchronize current_device current_stream get_device_name get_device_properties get_device_capability"
CUDA_RUNTIME_CALLS = frozenset(f"torch.cuda.{name}" for name in _CUDA_RUNTIME.split() + ["Stream", "Event"])
# A helper such as `check_amp(model)` imported from elsewhere decides whether AMP works on this device.
AMP_HELPER = re.compile(r"(^|_)amp($|_)", re.IGNORECASE)
EXITS = (cst.Raise, cst.Return, cst.Continue, cst.Break)

Values = List[Optional[cst.BaseExpression]]  # values a name may hold; None = unknown (unpacked, a parameter)
Seen = FrozenSet[object]  # bindings, helpers and dotted names being followed (a cycle adds nothing)


class DeviceKind(Enum):
    """What a device expression holds, which decides how to spell its type."""

    TORCH_DEVICE = "torch.device"  # `.type` is the device type
    TYPE_STRING = "device type"  # "cuda" / "mps" / "cpu": already the device type
    UNKNOWN = "unknown"  # a str such as "cuda:0", or a torch.device: `torch.device(x).type` takes both


class DeviceInScope(NamedTuple):
    """An expression that holds the device where some node runs."""

    expression: cst.BaseExpression
    kind: DeviceKind

    def type_expression(self, torch_name: str) -> cst.BaseExpression:
        """A fresh expression evaluating to the device type ("cuda", "mps", "cpu")."""
        value = self.expression.deep_clone()
        if self.kind is DeviceKind.TYPE_STRING:
            return value
        if self.kind is DeviceKind.UNKNOWN:
            value = cst.Call(func=cst.parse_expression(f"{torch_name}.device"), args=[cst.Arg(value=value)])
        return cst.Attribute(value=value, attr=cst.Name("type"))


def _strings_in(node: cst.BaseExpression) -> List[str]:
    """The literals of a string or of a tuple/list/set of strings (``{"cpu", "mps"}``)."""
    if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        return [v for v in (string_value(e.value) for e in node.elements) if v is not None]
    value = string_value(node)
    return [value] if value is not None else []


_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
# Code under these may not run: a `.cuda()` inside them does not pin a module to CUDA.
_CONDITIONAL_CODE = (cst.If, cst.IfExp, cst.Try, cst.TryStar, cst.BooleanOperation, cst.Match)
# Parts of a statement that may not be evaluated when it runs: `x.cuda() if c else x`, `[t.cuda() for t in batch]`.
_MAYBE_UNEVALUATED = frozenset(
    {cst.IfExp, cst.BooleanOperation, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp}
)


def _walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and every node below it, not entering nested functions, classes or lambdas."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if current is node or type(current) not in _SCOPES:  # exact types: isinstance() on LibCST's ABCs is slow
            stack.extend(reversed(walk.children(current)))


def _fails_without_cuda(call: cst.Call, facts: "ModuleFacts") -> bool:
    """``x.cuda()``, ``model.to("cuda")``, ``torch.cuda.synchronize()``: raises without CUDA, on a CPU-only build
    ("Torch not compiled with CUDA enabled") and on a CUDA build on a machine without a GPU alike."""
    method = call.func.attr.value if isinstance(call.func, cst.Attribute) else None
    if method == "to" and call.args and call.args[0].keyword is None:
        target = call.args[0].value
        if isinstance(target, cst.Call) and facts.qualified_name(target.func) == "torch.device" and target.args:
            target = target.args[0].value
        return bool(CUDA_DEVICE.match(string_value(target) or ""))
    return method == "cuda" or facts.qualified_name(call.func) in CUDA_RUNTIME_CALLS


def _evaluated_calls(statement: cst.BaseSmallStatement) -> Iterator[cst.Call]:
    """The calls a small statement makes whenever it runs: not those in ``a if c else b``, ``c and f()``,
    a lambda or a comprehension, which may be skipped."""
    stack: List[cst.CSTNode] = [statement]
    while stack:
        node = stack.pop()
        if type(node) is cst.Call:
            yield node
        if type(node) not in _MAYBE_UNEVALUATED:
            stack.extend(walk.children(node))


def _is_exit(small: cst.CSTNode) -> bool:
    if isinstance(small, EXITS):
        return True
    return isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) and dotted(small.value.func) in EXIT_CALLS


def _ends_in_exit(suite: cst.BaseSuite) -> bool:
    """The block ends in ``raise``/``return``/``continue``/``break``/``sys.exit()``."""
    last = suite.body[-1] if suite.body else None
    if isinstance(last, cst.SimpleStatementLine):
        last = last.body[-1] if last.body else None
    return last is not None and _is_exit(last)


def _suite_body(node: cst.CSTNode) -> Optional[Sequence[cst.CSTNode]]:
    return node.body if isinstance(node, (cst.Module, cst.IndentedBlock)) else None


def _statements_before(body: Sequence[cst.CSTNode], child: cst.CSTNode) -> List[cst.CSTNode]:
    for index, statement in enumerate(body):
        if statement is child:
            return list(body[:index])
    return []


class _ModuleScan(cst.CSTVisitor):
    """One pass collecting the raw material: literals, calls, parameters, functions, classes."""

    def __init__(self, facts: "ModuleFacts") -> None:
        super().__init__()
        self.facts = facts
        self.strings: List[cst.SimpleString] = []
        self.cuda_fstrings: List[cst.FormattedString] = []
        self.calls: List[cst.Call] = []
        self.parameters: List[cst.Param] = []
        self.requirement_candidates: List[cst.CSTNode] = []  # asserts and ifs
        self.functions: Dict[str, List[cst.FunctionDef]] = {}
        self.classes: Dict[str, List[cst.ClassDef]] = {}
        self.references_mps = False
        # `exec(open("configurator.py").read())`, `globals().update(...)`: any module-level name may be overridden
        self.overrides_globals = False
        # `"cuda" if args.cuda else "cpu"`: args.cuda -> {True}; `"cpu" if no_cuda else "cuda"`: no_cuda -> {False}
        self.device_choices: Dict[str, Set[bool]] = {}

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        self.strings.append(node)

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        first = node.parts[0] if node.parts else None
        if isinstance(first, cst.FormattedStringText) and first.value.startswith("cuda"):
            self.cuda_fstrings.append(node)

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)
        name = dotted(node.func)
        if name == "exec":
            self.overrides_globals = True
        elif isinstance(node.func, cst.Attribute) and node.func.attr.value == "update":
            inner = node.func.value
            self.overrides_globals |= isinstance(inner, cst.Call) and dotted(inner.func) == "globals"

    def visit_IfExp(self, node: cst.IfExp) -> None:
        """Note a switch that picks CUDA or another device: ``"cuda" if args.cuda else "cpu"``."""
        name = dotted(node.test)
        picks = (self._picks_cuda(node.body), self._picks_cuda(node.orelse))
        if name is not None and picks in ((True, False), (False, True)):
            self.device_choices.setdefault(name, set()).add(picks[0])

    def _picks_cuda(self, value: cst.BaseExpression) -> Optional[bool]:
        """True for a CUDA device (``"cuda"``, ``torch.device("cuda:0")``, ``f"cuda:{rank}"``), False for another one."""
        value = self.device_named_by(value)
        if isinstance(value, cst.FormattedString):
            first = value.parts[0] if value.parts else None
            return True if isinstance(first, cst.FormattedStringText) and first.value.startswith("cuda:") else None
        literal = string_value(value) or ""
        if CUDA_DEVICE.match(literal):
            return True
        return False if NON_CUDA_DEVICE.match(literal) else None

    def visit_Param(self, node: cst.Param) -> None:
        self.parameters.append(node)

    def visit_Assert(self, node: cst.Assert) -> None:
        self.requirement_candidates.append(node)

    def visit_If(self, node: cst.If) -> None:
        self.requirement_candidates.append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.setdefault(node.name.value, []).append(node)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.classes.setdefault(node.name.value, []).append(node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._note_mps_reference(node)

    def visit_Name(self, node: cst.Name) -> None:
        self._note_mps_reference(node)

    def _note_mps_reference(self, node: cst.BaseExpression) -> None:
        name = self.facts.qualified_name(node) or ""
        if name.startswith(("torch.backends.mps", "torch.mps")):
            self.references_mps = True

    def device_named_by(self, value: cst.BaseExpression) -> cst.BaseExpression:
        """The name inside ``torch.device(name)``, else ``value`` itself: both stand for the same device."""
        if isinstance(value, cst.Call) and self.facts.qualified_name(value.func) == "torch.device" and value.args:
            return value.args[0].value
        return value


def _scan(facts: "ModuleFacts") -> _ModuleScan:
    """The scan, fed from the module's shared index in source order (no traversal of its own)."""
    scan = _ModuleScan(facts)
    for node in facts.nodes(*_SCANNED):
        scan.on_visit(node)
    return scan


# The node types _ModuleScan has a visit_ method of its own for.
_SCANNED = tuple(getattr(cst, name[len("visit_") :]) for name in vars(_ModuleScan) if name.startswith("visit_"))


class DevicesInUse:
    """Where a module can run (:attr:`devices`, on the lattice) and whether something pins it to CUDA."""

    def __init__(self, facts: "ModuleFacts") -> None:
        self.facts = facts
        self._scan = facts.fact(_scan)
        self._names = facts.fact(Names)
        self._device_options = [c for c in self._scan.calls if _is_device_option(c)]
        self.mentions_mps: bool = self._scan.references_mps or any(self._names_mps(s) for s in self._scan.strings)
        self.pinned_to_cuda: bool = self._pinned_to_cuda()

    @property
    def reaches_other_accelerator(self) -> bool:
        """An accelerator that is not CUDA can run this module's code: one is named (MPS, XPU...), or the device
        comes from somewhere that can be anything (a caller, a launcher, a free-form option) and nothing pins
        the module to CUDA."""
        if self.devices & NAMED_OTHER_ACCELERATORS:
            return True
        return bool(self.devices & {Device.ACCELERATOR, Device.UNKNOWN}) and not self.pinned_to_cuda

    @property
    def selects_cpu_or_mps(self) -> bool:
        """The module chooses the CPU or MPS as a device it may run on (where a DataLoader's pinning warns)."""
        return bool(self.devices & {Device.CPU, Device.MPS})

    @property
    def can_run_off_cuda(self) -> bool:
        """CUDA is not certain: a device that is not CUDA is chosen, or the device comes from somewhere that can be
        anything and nothing pins the module to CUDA."""
        if self.devices & {Device.CPU, Device.MPS, Device.OTHER_ACCELERATOR}:
            return True
        if self.pinned_to_cuda:
            return False
        return bool(self.devices & {Device.ACCELERATOR, Device.UNKNOWN}) or self._branches_on_cuda

    @functools.cached_property
    def _branches_on_cuda(self) -> bool:
        """Some code runs only where CUDA is and the module goes on without it: ``if use_cuda: xs = xs.cuda()``
        with ``use_cuda = not args.no_cuda and torch.cuda.is_available()``, and no device variable to say so
        (ParlAI's batchify, docs/recall-audit.md #19). ``if not cuda: raise`` and an ``else`` that exits do not count."""
        regions = self.facts.fact(CudaOnlyRegions)
        for branch in self.facts.nodes(cst.If, cst.IfExp):
            if regions.cuda_condition(branch.test) is not True:
                continue
            orelse = branch.orelse if isinstance(branch, cst.If) else None
            if not (isinstance(orelse, cst.Else) and _ends_in_exit(orelse.body)):
                return True
        return False

    @functools.cached_property
    def devices(self) -> Devices:
        """Which devices this module can run on: the lattice's devices of everything that chooses one.

        That is: values assigned to device variables (``device``,
        ``self.device``, ``args.train_device``), device parameters, device
        options, ``torch.device(<variable>)``, device keywords of non-torch
        calls (``Trainer(device=...)``), what device-named helpers return,
        launchers (``Accelerator()``), and any mention of MPS or another
        accelerator (``torch.backends.mps``, ``"mps"``, ``"xpu"``).
        """
        lattice = self.facts.fact(DeviceLattice)
        found: Set[Device] = {Device.MPS} if self.mentions_mps else set()
        found.update(
            Device.OTHER_ACCELERATOR
            for s in self._scan.strings
            if OTHER_ACCELERATOR_DEVICE.match(string_value(s) or "") and not self._compared_against(s)
        )
        for target, values in self._device_variables.items():
            if _names_device_variable(target):
                found |= lattice.assigned_devices(target, values)
        for parameter in self._scan.parameters:
            if _names_selected_device(parameter.name.value):
                found |= lattice.parameter_devices(parameter)
        for definitions in self._scan.classes.values():
            for field in {t for d in definitions for t, _ in _field_defaults(self._names, d) if _names_device_variable(t)}:
                found |= lattice.field_devices(field)
        for call in self._scan.calls:
            found |= self._chosen_by_call(call, lattice)
        for name, definitions in self._scan.functions.items():
            if "device" in name.lower():
                returned = [v for d in definitions for v in self._names.returns(d)]
                found |= lattice._union(returned, frozenset(definitions))
        return frozenset(found)

    @functools.cached_property
    def _device_variables(self) -> Dict[str, Values]:
        """What each variable spelled like a device (``device``, ``self.device``, ``args.train_device``) is
        assigned, in any scope of the module: the variables that may choose the device."""
        found: Dict[str, Values] = {}
        for binding in [*self._names.bindings_anywhere(), *self._names.attribute_stores()]:
            if DEVICE_VARIABLE.match(binding.name.rsplit(".", 1)[-1]) and _is_assignment(binding):
                found.setdefault(binding.name, []).append(self._names.bound_value(binding))
        return found

    def _chosen_by_call(self, call: cst.Call, lattice: "DeviceLattice") -> Devices:
        """Devices a call chooses: a device option, ``torch.device(x)``, ``Trainer(device=x)``, ``Accelerator()``."""
        name = self.facts.qualified_name(call.func)
        if call in self._device_options:
            return lattice._option_devices(call, frozenset())
        if name == "torch.device" and call.args:
            return lattice.devices_of(call.args[0].value)
        if name in LAUNCHER_CLASSES:
            return _launcher_devices(call)
        found: Set[Device] = set()
        for argument in call.args:
            if argument.keyword is not None and self._passes_device_setting(argument):
                found |= lattice.devices_of(argument.value)
        return frozenset(found)

    def _names_mps(self, literal: cst.SimpleString) -> bool:
        """``"mps"`` chosen as a device, or an option offering it; not ``"mps"`` compared against, which tests
        for it (``device.type if device.type != "mps" else "cpu"`` in code given only CUDA or the CPU:
        fixtures/TL201_cuda_amp_on_other_device/ok_mps_only_compared_against.py)."""
        value = string_value(literal) or ""
        if self._compared_against(literal):
            return False
        return bool(MPS_DEVICE.match(value)) or (self._in_device_option(literal) and bool(MPS_WORD.search(value)))

    def _compared_against(self, literal: cst.SimpleString) -> bool:
        """``literal`` is an operand of a comparison (``x == "mps"``, ``"mps" in str(x)``, ``x in ("mps", "xpu")``)."""
        parent = self.facts.parent(literal)
        while isinstance(parent, (cst.Element, cst.Tuple, cst.List, cst.Set)):
            parent = self.facts.parent(parent)
        return isinstance(parent, (cst.Comparison, cst.ComparisonTarget))

    def _passes_device_setting(self, argument: cst.Arg) -> bool:
        """``Trainer(device="cpu")``: a device keyword to a call that is not a tensor placement."""
        call = self.facts.parent(argument)
        if not (isinstance(argument.keyword, cst.Name) and _names_selected_device(argument.keyword.value)):
            return False
        if not isinstance(call, cst.Call) or (isinstance(call.func, cst.Attribute) and call.func.attr.value == "to"):
            return False
        if self._hands_on_placement(argument.value):
            return False
        return not (self.facts.qualified_name(call.func) or "").startswith("torch.")

    def _hands_on_placement(self, value: cst.BaseExpression) -> bool:
        """``tokenizer.encode(..., device=model.device)``: the device a model or tensor already lives on, chosen
        where it was placed, not here (``self.device`` and a launcher's ``accelerator.device`` are choices:
        fixtures/TL104_pin_memory_without_cuda/ok_fabric_launched_on_cuda.py)."""
        if not (isinstance(value, cst.Attribute) and value.attr.value == "device") or dotted(value.value) == "self":
            return False
        return not self.facts.fact(DeviceLattice).is_launcher(value.value)

    def _until_statement(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        for ancestor in self.facts.ancestors(node):
            if isinstance(ancestor, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
                return
            yield ancestor

    def _in_device_option(self, literal: cst.SimpleString) -> bool:
        """Inside ``parser.add_argument("--device", ...)`` (or ``--gpu_type``, ``--accelerator``)."""
        if not self._device_options:
            return False
        return any(a in self._device_options for a in self._until_statement(literal) if isinstance(a, cst.Call))

    def _pinned_to_cuda(self) -> bool:
        """``torch.cuda.set_device``, NCCL, ``f"cuda:{rank}"``, a CUDA-only device variable, a CUDA requirement,
        an unconditional ``model.cuda()`` or CUDA runtime call, an unconditional import of a CUDA-only library."""
        if any(self._sets_cuda_device_unconditionally(c) for c in self._scan.calls):
            return True
        if any(self._imports_cuda_only_library(i) for i in self.facts.nodes(cst.Import, cst.ImportFrom)):
            return True
        if any(self._requires_cuda_unconditionally(c) for c in self._scan.calls):
            return True
        # `dist.init_process_group("nccl")`; not nanoGPT's `backend = "nccl"` default, used only `if ddp:`
        nccl = [s for s in self._scan.strings if string_value(s) == "nccl" and isinstance(self.facts.parent(s), cst.Arg)]
        if any(self._unconditional(node) for node in [*self._scan.cuda_fstrings, *nccl]):
            return True
        lattice = self.facts.fact(DeviceLattice)
        for target, values in self._device_variables.items():
            if any(self._is_cuda_device(v) for v in values):
                if lattice.assigned_devices(target, values) == {Device.CUDA}:  # CUDA whatever the run
                    return True
        regions = self.facts.fact(CudaOnlyRegions)
        return any(regions.requires_cuda(s) and self._unconditional(s) for s in self._scan.requirement_candidates)

    def _sets_cuda_device_unconditionally(self, call: cst.Call) -> bool:
        return self.facts.qualified_name(call.func) == "torch.cuda.set_device" and self._unconditional(call)

    def _unconditional(self, node: cst.CSTNode) -> bool:
        """Runs whenever its function (or the module) does: ``torch.cuda.set_device(rank)``, ``f"cuda:{rank}"``,
        ``"nccl"`` under ``if ddp:`` pin only the distributed runs, and the others may use any device."""
        for ancestor in self.facts.ancestors(node):
            if isinstance(ancestor, (cst.FunctionDef, cst.Lambda)):
                return True
            if isinstance(ancestor, _CONDITIONAL_CODE):
                return False
        return True

    def _imports_cuda_only_library(self, statement: cst.CSTNode) -> bool:
        """``import tensorrt as trt``, ``from cuda import cudart``: the module cannot even load without CUDA.
        Not under ``try``/``if``, where the library is optional."""
        if isinstance(statement, cst.Import):
            modules = [dotted(alias.name) or "" for alias in statement.names]
        else:
            modules = [dotted(statement.module) or ""] if statement.module is not None and not statement.relative else []
        if not any(module.split(".")[0] in CUDA_ONLY_LIBRARIES for module in modules):
            return False
        return not any(isinstance(a, _CONDITIONAL_CODE) for a in self.facts.ancestors(statement))

    def _requires_cuda_unconditionally(self, call: cst.Call) -> bool:
        """``model = Net().cuda()``, ``x.cuda(non_blocking=True)``, ``torch.cuda.synchronize()`` (which raise
        without CUDA): not under an ``if``, ``try``, ``x if c else y`` or ``c and x``, so the code around it
        cannot run without CUDA."""
        if not _fails_without_cuda(call, self.facts):
            return False
        for ancestor in self.facts.ancestors(call):
            if isinstance(ancestor, (cst.FunctionDef, cst.Lambda, cst.Module)):
                return True
            if isinstance(ancestor, _CONDITIONAL_CODE):
                return False
        return True

    def _is_cuda_device(self, value: Optional[cst.BaseExpression]) -> bool:
        return value is not None and bool(CUDA_DEVICE.match(string_value(self._scan.device_named_by(value)) or ""))


class CudaOnlyRegions:
    """Which code only runs on CUDA, and which values (``enabled=``) are tied to the device being CUDA."""

    def __init__(self, facts: "ModuleFacts") -> None:
        self.facts = facts
        self._scan = facts.fact(_scan)

    @functools.cached_property
    def _names(self) -> Names:
        return self.facts.fact(Names)

    def cuda_condition(self, test: cst.BaseExpression, _seen: FrozenSet[str] = frozenset()) -> Optional[bool]:
        """True if ``test`` holds only on CUDA, False if it fails only on CUDA, None if neither is known.

        ``device.type == "cuda"`` is True; ``device.type != "cuda"`` and
        ``device.type in {"cpu", "mps"}`` are False (they hold on every other
        device); ``device.type == "cpu"`` is None: its negation lets MPS through.
        """
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            inner = self.cuda_condition(test.expression, _seen)
            return None if inner is None else not inner
        if isinstance(test, cst.BooleanOperation):
            return self._combined_condition(test, _seen)
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            return self._comparison_condition(test.left, test.comparisons[0])
        if isinstance(test, cst.Call):
            return self._call_condition(test)
        if isinstance(test, cst.Attribute) and test.attr.value == "is_cuda":
            return True
        return self._variable_condition(test, _seen)

    def _combined_condition(self, test: cst.BooleanOperation, seen: FrozenSet[str]) -> Optional[bool]:
        """``a and b`` holds only on CUDA if either does; it fails only on CUDA if both do (``or``: the converse)."""
        sides = {self.cuda_condition(test.left, seen), self.cuda_condition(test.right, seen)}
        either, both = (True, False) if isinstance(test.operator, cst.And) else (False, True)
        if either in sides:
            return either
        return both if sides == {both} else None

    def _comparison_condition(self, left: cst.BaseExpression, target: cst.ComparisonTarget) -> Optional[bool]:
        right, operator = target.comparator, target.operator
        if isinstance(operator, (cst.Equal, cst.NotEqual)):
            if string_value(left) is not None:  # "cpu" == device
                left, right = right, left
            literal = string_value(right)
            choices = [literal] if literal is not None else []
            return self._choice_condition(left, choices, negated=isinstance(operator, cst.NotEqual))
        if isinstance(operator, (cst.In, cst.NotIn)):
            negated = isinstance(operator, cst.NotIn)
            if CUDA_DEVICE.match(string_value(left) or ""):  # "cuda" in str(device)
                return not negated
            return self._choice_condition(left, _strings_in(right), negated)
        if isinstance(left, cst.Call) and self.facts.qualified_name(left.func) == "torch.cuda.device_count":
            return True if isinstance(operator, (cst.GreaterThan, cst.GreaterThanEqual, cst.NotEqual)) else None
        return None

    def _choice_condition(self, device: cst.BaseExpression, choices: List[str], negated: bool) -> Optional[bool]:
        """``device in choices`` (or ``device == choice``), negated for ``not in`` (``!=``).

        Only on CUDA when every choice is CUDA. Only off CUDA when the choices
        are other devices and cover every one ``device`` can be but CUDA:
        ``device.type in {"cpu", "mps"}``, or ``device == "cpu"`` where
        ``device = "cuda" if torch.cuda.is_available() else "cpu"``. Otherwise
        unknown: ``device.type == "cpu"`` lets MPS through one way or the other.
        """
        if choices and all(CUDA_DEVICE.match(c) for c in choices):
            return not negated
        if not choices or not all(NON_CUDA_DEVICE.match(c) for c in choices):
            return None
        if {"cpu", "mps"} <= set(choices) or self._is_cuda_or_one_of(device, choices):
            return negated
        return None

    def _is_cuda_or_one_of(self, device: cst.BaseExpression, choices: List[str]) -> bool:
        """Every string ``device`` can hold is CUDA or one of ``choices``: a literal (through names, see
        values.py), or the type of a device (``device.type``, on the lattice). Not a ``torch.device``, which
        never equals a string (``torch.device("cpu") == "cpu"`` is False)."""
        if isinstance(device, cst.Attribute) and device.attr.value == "type":
            allowed = {Device.CUDA} | {device_of_literal(c) for c in choices} & {Device.CPU, Device.MPS}
            return self.facts.fact(DeviceLattice).devices_of(device.value) <= allowed
        values = self.facts.fact(LiteralValues).literal_values(device)
        return values is not None and all(isinstance(v, str) and (CUDA_DEVICE.match(v) or v in choices) for v in values)

    def _call_condition(self, test: cst.Call) -> Optional[bool]:
        if self.facts.qualified_name(test.func) in CUDA_CHECK_CALLS:
            return True
        method = test.func.attr.value if isinstance(test.func, cst.Attribute) else None
        if method == "startswith" and test.args and CUDA_DEVICE.match(string_value(test.args[0].value) or ""):
            return True
        return None

    def _variable_condition(self, test: cst.BaseExpression, seen: FrozenSet[str]) -> Optional[bool]:
        """``use_cuda`` when every assignment to it in the module is a CUDA condition of one sense.

        Failing that, a switch the module itself uses to pick CUDA
        (``device = "cuda" if args.cuda else "cpu"``): ``args.cuda`` holds
        only on CUDA.
        """
        name = dotted(test)
        if name is None or name in seen:
            return None
        values = _assigned(self._names, name)
        results = {self.cuda_condition(v, seen | {name}) if v is not None else None for v in values}
        if len(results) == 1 and None not in results:
            return results.pop()
        senses = self._scan.device_choices.get(name, set())
        return next(iter(senses)) if len(senses) == 1 else None

    def requires_cuda(self, statement: cst.CSTNode) -> bool:
        """``assert <on CUDA>``, ``if <off CUDA>: raise/return/exit/pytest.skip``, or a statement that raises
        without CUDA whenever it runs (``torch.cuda.synchronize()``, ``batch = batch.cuda()``): code after
        any of them only runs on CUDA."""
        if isinstance(statement, cst.Assert):
            return self.cuda_condition(statement.test) is True
        if isinstance(statement, cst.SimpleStatementLine):
            return any(self.requires_cuda(small) for small in statement.body)
        if isinstance(statement, cst.BaseSmallStatement):
            return any(_fails_without_cuda(call, self.facts) for call in _evaluated_calls(statement))
        if isinstance(statement, cst.If) and statement.orelse is None:
            return self.cuda_condition(statement.test) is False and _ends_in_exit(statement.body)
        return False

    def runs_only_on_cuda(self, node: cst.CSTNode) -> bool:
        """``node`` is reached only on CUDA: in a CUDA branch or ``case "cuda":``, after a CUDA requirement,
        in a CUDA-only test, or after the branch it is in set the device to CUDA."""
        child = node
        for ancestor in self.facts.ancestors(node):
            if isinstance(ancestor, (cst.If, cst.IfExp)):
                condition = self.cuda_condition(ancestor.test)
                if (child is ancestor.body and condition is True) or (child is ancestor.orelse and condition is False):
                    return True
            if isinstance(ancestor, cst.MatchCase) and child is ancestor.body and _matches_cuda_only(ancestor.pattern):
                return True
            if isinstance(ancestor, (cst.FunctionDef, cst.ClassDef)) and child is ancestor.body:
                if any(self._skips_off_cuda(d.decorator) for d in ancestor.decorators):
                    return True
            body = _suite_body(ancestor)
            if body is not None and any(self.requires_cuda(s) for s in _statements_before(body, child)):
                return True
            if body is not None and self._is_branch(ancestor) and any(
                self._selects_cuda(s) for s in _statements_before(body, child)
            ):
                return True
            child = ancestor
        return False

    def _is_branch(self, block: cst.CSTNode) -> bool:
        parent = self.facts.parent(block)
        return isinstance(parent, (cst.If, cst.Else)) and parent.body is block

    def _selects_cuda(self, statement: cst.CSTNode) -> bool:
        """``self.device = torch.device(f"cuda:{gpus[0]}")``: the branch that sets the device to CUDA runs on CUDA
        (issue 14: ``if not gpu_memory: <CPU setup> else: <CUDA setup, autocast("cuda")>``)."""
        if not isinstance(statement, cst.SimpleStatementLine):
            return False
        lattice = self.facts.fact(DeviceLattice)
        for small in statement.body:
            if isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is not None:
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                if any(_names_device_variable(dotted(t) or "") for t in targets) and lattice.devices_of(small.value) == {Device.CUDA}:
                    return True
        return False

    def _skips_off_cuda(self, decorator: cst.BaseExpression) -> bool:
        """``@pytest.mark.skipif(not torch.cuda.is_available(), ...)``, ``@unittest.skipUnless(<on CUDA>, ...)``,
        ``@requires_cuda``, ``@require_torch_gpu``, ``@pytest.mark.cuda``, ``@RunIf(min_cuda_gpus=1)``."""
        func = decorator.func if isinstance(decorator, cst.Call) else decorator
        name = (dotted(func) or "").rsplit(".", 1)[-1]
        runs_when = SKIP_DECORATORS.get(name)
        if runs_when is None:
            return bool(GPU_ONLY_DECORATOR.search(name)) or _asks_for_gpus(decorator)
        arguments = decorator.args if isinstance(decorator, cst.Call) else ()
        return bool(arguments) and self.cuda_condition(arguments[0].value) is runs_when

    def ties_to_cuda(self, value: cst.BaseExpression) -> bool:
        """``value`` (an ``enabled=``) can only be true on CUDA, by itself or through a variable or helper.

        ``device.type == "cuda"``; ``use_amp`` with ``use_amp = args.amp and
        torch.cuda.is_available()``, or set to False under ``if device.type !=
        "cuda":``; ``self.amp`` with ``self.amp = check_amp(model)`` where
        ``check_amp`` returns False for ``{"cpu", "mps"}``. Not ``dtype ==
        "float16"`` even where ``dtype`` was picked by a CUDA check: the check
        chooses the dtype, it does not keep AMP off MPS.
        """
        return self._ties(value, set())

    def _ties(self, node: cst.CSTNode, seen: Set[str]) -> bool:
        if isinstance(node, cst.BaseExpression) and self.cuda_condition(node) is True:
            return True
        if isinstance(node, (cst.Name, cst.Attribute)):
            return self._variable_ties(dotted(node), seen)
        if isinstance(node, cst.Call):  # a device-checking helper, or a wrapper: bool(x), torch.tensor(x)
            return self._calls_device_checking_helper(node) or any(self._ties(a.value, seen) for a in node.args)
        if isinstance(node, cst.BooleanOperation) and isinstance(node.operator, cst.And):
            return self._ties(node.left, seen) or self._ties(node.right, seen)
        if isinstance(node, cst.IfExp):  # `device.type == "cuda" if device else False`
            return all(is_false_constant(b) or self._ties(b, seen) for b in (node.body, node.orelse))
        return False

    def _variable_ties(self, name: Optional[str], seen: Set[str]) -> bool:
        """Some assignment ties the variable to CUDA, or switches it off where the device is not CUDA."""
        if name is None or name in seen:
            return False
        seen.add(name)
        for value in _assigned(self._names, name):
            if value is not None and (self._ties(value, seen) or (is_false_constant(value) and self._runs_only_off_cuda(value))):
                return True
        return False

    def _runs_only_off_cuda(self, node: cst.CSTNode) -> bool:
        """Under ``if device.type != "cuda":`` (or the ``else`` of a CUDA branch)."""
        child = node
        for ancestor in self.facts.ancestors(node):
            if isinstance(ancestor, cst.If):
                condition = self.cuda_condition(ancestor.test)
                if (child is ancestor.body and condition is False) or (child is ancestor.orelse and condition is True):
                    return True
            child = ancestor
        return False

    def _calls_device_checking_helper(self, call: cst.Call) -> bool:
        """``check_amp(model)``, ``self._amp_allowed()``: a local helper checking the device, or an imported AMP check.

        A same-module helper is read; one imported from elsewhere is trusted by
        its name (``check_amp``, ``amp_available``), which says it decides
        whether AMP works on this device.
        """
        func = call.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in ("self", "cls"):
            name = func.attr.value
        elif isinstance(func, cst.Name):
            name = func.value
        else:
            return False
        helpers = [d for d in self._names.resolve_callable(func) if isinstance(d, cst.FunctionDef)]
        if not helpers:
            return self.facts.qualified_name(func) is not None and bool(AMP_HELPER.search(name))
        return any(self._checks_cuda_or_mps(node) for helper in helpers for node in _walk(helper.body))

    def _checks_cuda_or_mps(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Comparison):
            sides = [node.left, *(t.comparator for t in node.comparisons)]
            return any(CUDA_DEVICE.match(s) or MPS_DEVICE.match(s) for side in sides for s in _strings_in(side))
        if isinstance(node, cst.Call):
            return self.facts.qualified_name(node.func) in CUDA_CHECK_CALLS
        return isinstance(node, cst.Attribute) and node.attr.value == "is_cuda"


class DeviceScopes:
    """The expression holding the device at a node, and what kind of value it is (bindings from names.py)."""

    def __init__(self, facts: "ModuleFacts") -> None:
        self.facts = facts
        self._names = facts.fact(Names)

    def device_in_scope(self, node: cst.CSTNode) -> Optional[DeviceInScope]:
        """The expression holding the device where ``node`` runs (``device``, ``self.device``, ``args.device``).

        Only an expression certainly bound at ``node`` qualifies: a parameter
        or a name assigned on every path before it, an attribute the class
        assigns, ``<parameter>.device`` used by the function, or a module-level
        name. Inner scopes first.
        """
        shadowed: Set[str] = set()
        for function, anchor in self._enclosing_functions(node):
            found = self._local_device(function, anchor, shadowed) or self._attribute_device(function, anchor)
            if found is not None:
                return found
        for name in SCOPE_DEVICE_NAMES:
            found = self._bound_device(name, node) if name not in shadowed else None
            if found is not None:
                return found
        return None

    def _enclosing_functions(self, node: cst.CSTNode) -> Iterator[Tuple[cst.FunctionDef, cst.CSTNode]]:
        """Functions whose body contains ``node`` (not their decorators or defaults), innermost first.

        Each comes with the anchor to look bindings up from: ``node`` for the
        innermost, the nested ``def`` statement for the outer ones.
        """
        child, anchor = node, node
        for ancestor in self.facts.ancestors(node):
            if isinstance(ancestor, cst.FunctionDef) and child is ancestor.body:
                yield ancestor, anchor
                anchor = ancestor
            child = ancestor

    def _local_device(
        self, function: cst.FunctionDef, anchor: cst.CSTNode, shadowed: Set[str]
    ) -> Optional[DeviceInScope]:
        for name in SCOPE_DEVICE_NAMES:
            if name in shadowed or not self._names.bindings(function, name):
                continue
            shadowed.add(name)  # local here: an outer binding of the name is not visible
            found = self._bound_device(name, anchor)
            if found is not None:
                return found
        return None

    def _bound_device(self, name: str, anchor: cst.CSTNode) -> Optional[DeviceInScope]:
        """``name`` as the device at ``anchor``, where a binding of it surely reaches ``anchor`` (names.py):
        not where a path leaves it unbound, a parameter may be None, or it names an import or a definition."""
        reaching, certain = self._names.reaching_at(name, anchor)
        if not certain or any(b.kind in (IMPORT, DEF, CLASS) for b in reaching):
            return None
        kinds: Set[DeviceKind] = set()
        for binding in reaching:
            if binding.kind != PARAMETER:
                kinds.add(self._value_kind(self._names.bound_value(binding)))
            elif _may_be_none(binding.node):  # type: ignore[arg-type]
                return None
            else:
                kinds.add(self._parameter_kind(binding.node))  # type: ignore[arg-type]
        return _device_named(name, _single(kinds))

    def _parameter_kind(self, parameter: cst.Param) -> DeviceKind:
        annotation = parameter.annotation.annotation if parameter.annotation is not None else None
        typed = annotation is not None and self.facts.qualified_name(annotation) == "torch.device"
        return DeviceKind.TORCH_DEVICE if typed else DeviceKind.UNKNOWN

    def _attribute_device(self, function: cst.FunctionDef, anchor: cst.CSTNode) -> Optional[DeviceInScope]:
        """``self.device`` that the enclosing class (or a same-module base) assigns, else ``<parameter>.device``
        used in the function.

        In the method that assigns ``self.device`` (``__init__``), it must be
        assigned before ``anchor`` on every path.
        """
        parameters = [p.name for p in self._names.parameters(function) if p.kind != VAR_KEYWORD]
        owner = self._names.method_class(function)
        if parameters[:1] == ["self"] and owner is not None:
            for attribute in SELF_DEVICE_ATTRIBUTES:
                stores = [b for b in self._names.attribute_bindings(owner, attribute) if b.kind != DELETE]
                assigned_here = any(self._names.scope_of(b.node) is function for b in stores)
                if stores and (not assigned_here or self._names.attribute_reaching_at(function, attribute, anchor)[1]):
                    found = _device_named(f"self.{attribute}", self._kind_of([self._names.bound_value(b) for b in stores]))
                    if found is not None:
                        return found
        for node in _walk(function.body):
            name = dotted(node) if isinstance(node, cst.Attribute) and node.attr.value == "device" else None
            if name is not None and name.split(".")[0] in parameters:
                return DeviceInScope(cst.parse_expression(name), DeviceKind.UNKNOWN)
        return None

    def _kind_of(self, values: Values, seen: Seen = frozenset()) -> DeviceKind:
        return _single({self._value_kind(v, seen) for v in values})

    def _value_kind(self, value: Optional[cst.BaseExpression], seen: Seen = frozenset()) -> DeviceKind:
        if isinstance(value, cst.IfExp):
            return self._kind_of([value.body, value.orelse], seen)
        if isinstance(value, cst.Attribute) and value.attr.value == "type":
            return DeviceKind.TYPE_STRING  # device.type, torch.device(x).type
        if isinstance(value, cst.Attribute) and value.attr.value == "device" and self._holds_torch_device(value.value):
            return DeviceKind.TORCH_DEVICE
        if isinstance(value, cst.Call) and self.facts.qualified_name(value.func) in TORCH_DEVICE_MAKERS:
            return DeviceKind.TORCH_DEVICE
        if isinstance(value, cst.Call):
            return self._returned_kind(self._names.resolve_callable(value.func), seen)
        literal = string_value(value) if value is not None else None
        is_type = literal is not None and ":" not in literal
        if is_type and (CUDA_DEVICE.match(literal) or NON_CUDA_DEVICE.match(literal)):
            return DeviceKind.TYPE_STRING
        return DeviceKind.UNKNOWN

    def _holds_torch_device(self, owner: cst.BaseExpression) -> bool:
        """``accelerator.device`` and ``next(model.parameters()).device`` are torch.devices; ``args.device`` may be a str."""
        return isinstance(owner, cst.Call) or self.facts.fact(DeviceLattice).is_launcher(owner)

    def _returned_kind(self, helpers: Sequence[cst.CSTNode], seen: Seen) -> DeviceKind:
        """What same-module functions such as ``pick_device()`` return on every path."""
        if not helpers or any(type(h) is not cst.FunctionDef or h in seen for h in helpers):
            return DeviceKind.UNKNOWN
        returns = [r for h in helpers for r in self._names.return_statements(h)]  # type: ignore[arg-type]
        if any(r.value is None for r in returns):  # a bare `return`: None, not a device
            return DeviceKind.UNKNOWN
        return self._kind_of([r.value for r in returns], seen | frozenset(helpers))


# Bindings that assign a variable (a loop or ``with`` target: a value not known here); not parameters, imports,
# definitions, ``del``, nor an annotation without a value.
_ASSIGNMENT_KINDS = frozenset({ASSIGN, ANNOTATED, WALRUS, FOR, WITH})


def _assigns(binding: Binding) -> bool:
    return binding.kind in _ASSIGNMENT_KINDS and not (binding.kind == ANNOTATED and binding.value is None)


def _is_assignment(binding: Binding) -> bool:
    """An assignment of a variable, or of an attribute (``self.device``, ``args.device``); a class body's
    ``device: str = "cuda"`` is a field default (:func:`_field_defaults`), not a variable."""
    return _assigns(binding) and ("." in binding.name or type(binding.scope) is not cst.ClassDef)


def _assigned(names: Names, spelled: str) -> Values:
    """What is assigned to the variable spelled ``spelled`` (``use_cuda``, ``self.amp``, ``args.device``) in any
    scope of the module, one value per assignment (None: not known here, such as a loop target's)."""
    stores = names.attribute_stores(spelled) if "." in spelled else names.bindings_anywhere(spelled)
    return [names.bound_value(b) for b in stores if _is_assignment(b)]


def _names_device_variable(target: str) -> bool:
    """``device``, ``self.device``, ``args.train_device``: an assignment target that holds the selected device."""
    owner, _, last = target.rpartition(".")
    if not _names_selected_device(last) or "cpu" in last or "cuda" in last:
        return False
    return owner in ("", "self") or owner.split(".")[-1] in SETTINGS_OWNERS


def _names_selected_device(name: str) -> bool:
    """``device``, ``train_device``, ``gpu_type``: a name for the device the model computes on.

    Not ``dali_device`` or ``data_device``: where the input pipeline runs. A
    CUDA-only script may decode its data on the CPU.
    """
    return bool(DEVICE_VARIABLE.match(name)) and not DATA_PIPELINE_DEVICE.search(name)


def is_false_constant(value: cst.BaseExpression) -> bool:
    """``False`` or ``None``: a switch that is off."""
    return isinstance(value, cst.Name) and value.value in ("False", "None")


def _is_device_option(call: cst.Call) -> bool:
    """``parser.add_argument("--device", ...)``, ``--gpu_type``, ``--accelerator``: picks the model's device.

    Not ``--dali_device``, ``--data-loader-device``: a choice of "cpu" there
    places the input pipeline, and CUDA-only scripts offer it. Which device an
    option picks is read from its name, as for variables; following
    ``args.<option>`` to the tensors it places would take data flow this
    module does not track.
    """
    if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "add_argument" and call.args):
        return False
    name = string_value(call.args[0].value) or ""
    return bool(DEVICE_OPTION.search(name)) and not DATA_PIPELINE_DEVICE.search(name)


def _may_be_none(parameter: cst.Param) -> bool:
    """``device=None`` or ``device: Optional[str]``: not a device until the function resolves it."""
    default = parameter.default
    if isinstance(default, cst.Name) and default.value == "None":
        return True
    annotation = parameter.annotation.annotation if parameter.annotation is not None else None
    names = {n.value for n in _walk(annotation) if isinstance(n, cst.Name)} if annotation is not None else set()
    return bool(names & {"None", "Optional"})


def _asks_for_gpus(decorator: cst.BaseExpression) -> bool:
    """A keyword that names CUDA or GPUs set to a positive number or True: ``@RunIf(min_cuda_gpus=1)``."""
    arguments = decorator.args if isinstance(decorator, cst.Call) else ()
    return any(
        a.keyword is not None
        and GPU_ONLY_DECORATOR.search(a.keyword.value)
        and ((isinstance(a.value, cst.Integer) and a.value.evaluated_value > 0) or dotted(a.value) == "True")
        for a in arguments
    )


def _matches_cuda_only(pattern: cst.MatchPattern) -> bool:
    """``case "cuda":`` or ``case "cuda" | "cuda:0":`` in a ``match device.type:``."""
    if isinstance(pattern, cst.MatchOr):
        return all(_matches_cuda_only(element.pattern) for element in pattern.patterns)
    return isinstance(pattern, cst.MatchValue) and bool(CUDA_DEVICE.match(string_value(pattern.value) or ""))


def _single(kinds: Set[DeviceKind]) -> DeviceKind:
    return next(iter(kinds)) if len(kinds) == 1 else DeviceKind.UNKNOWN


def _device_named(name: str, kind: DeviceKind) -> Optional[DeviceInScope]:
    """``name`` (``device``, ``self.device_type``) as the device in scope, unless it is a type name without a type."""
    if name.rsplit(".", 1)[-1] in DEVICE_TYPE_NAMES and kind is not DeviceKind.TYPE_STRING:
        return None
    return DeviceInScope(cst.parse_expression(name), kind)


# -- the device lattice ----------------------------------------------------------------


class Device(Enum):
    """One point of the device lattice: where an expression can put code to run."""

    CPU = "cpu"
    CUDA = "cuda"
    MPS = "mps"
    OTHER_ACCELERATOR = "another accelerator (xpu, npu, hpu)"
    ACCELERATOR = "an accelerator of unknown kind"  # Accelerate's or Fabric's choice: CUDA, MPS, XPU...
    UNKNOWN = "unknown"  # anything at all: a caller's argument, a free-form option, an imported helper


Devices = FrozenSet[Device]
ANY_DEVICE: Devices = frozenset({Device.UNKNOWN})
# Devices on which CUDA-only code is not CUDA but may still be an accelerator.
NAMED_OTHER_ACCELERATORS: Devices = frozenset({Device.MPS, Device.OTHER_ACCELERATOR})
OTHER_ACCELERATOR_DEVICE = re.compile(r"^(xpu|npu|hpu|xla|mlu|musa)(:\d+)?$")
# Queries whose answer is whichever accelerator the machine has: `current_accelerator()` returns None (never the
# CPU) on a machine without one (fixtures/TL104.../ok_loader_on_current_accelerator.py); the private query gives the CPU.
ACCELERATOR_QUERIES = {"torch.accelerator.current_accelerator": frozenset({Device.ACCELERATOR}), "torch._C._get_accelerator": frozenset({Device.ACCELERATOR, Device.CPU})}


def _launcher_devices(call: cst.Call) -> Devices:
    """``Fabric(accelerator="cuda")`` launches on CUDA (it raises where there is none), ``"gpu"`` on CUDA or MPS;
    any other launcher call picks whatever accelerator the machine has
    (fixtures/TL104_pin_memory_without_cuda/ok_fabric_launched_on_cuda.py)."""
    chosen = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "accelerator"), None)
    text = string_value(chosen) if chosen is not None else None
    if text == "gpu":
        return frozenset({Device.CUDA, Device.MPS})
    kind = device_of_literal(text) if text is not None else Device.UNKNOWN
    return frozenset({Device.ACCELERATOR}) if kind is Device.UNKNOWN else frozenset({kind})


def device_of_literal(text: str) -> Device:
    """``"cuda:1"`` is CUDA, ``"mps"`` MPS, ``"xpu"`` another accelerator; a string naming no device is unknown."""
    if CUDA_DEVICE.match(text):
        return Device.CUDA
    if text in ("cpu", "mps") or text.startswith(("cpu:", "mps:")):
        return Device(text.split(":")[0])
    return Device.OTHER_ACCELERATOR if OTHER_ACCELERATOR_DEVICE.match(text) else Device.UNKNOWN


class DeviceLattice:
    """Which devices an expression can name, and which the module can run on.

    ``devices_of(expr)`` follows literals and ``torch.device(...)``,
    ``x.type``, conditional expressions, names (the bindings that reach the
    use, flow-aware, from :class:`~trainlint.analysis.names.Names`), parameters
    (what the module's own calls pass, the default where they leave it out; a
    function nothing here calls is reusable code, whose caller can pass
    anything, and so is a call whose ``*args``/``**kwargs`` may pass it), argparse
    options (their ``choices``; without them anything), fields of the module's
    dataclasses and keys of its dict literals, same-module helpers (what they
    return), ``self.<attr>`` assigned in the class or a same-module base, and
    ``accelerator.device`` (a launcher's pick: an accelerator of unknown kind).
    """

    def __init__(self, facts: "ModuleFacts") -> None:
        self.facts = facts
        self._scan = facts.fact(_scan)
        self._memo: Dict[int, Devices] = {}

    @functools.cached_property
    def _names(self) -> Names:
        """Built on the first name to follow: literals and calls of torch need none."""
        return self.facts.fact(Names)

    def devices_of(self, expression: cst.BaseExpression) -> Devices:
        found = self._memo.get(id(expression))
        if found is None:
            found = self._memo[id(expression)] = self._devices(expression, frozenset())
        return found

    def _union(self, expressions: Iterable[Optional[cst.BaseExpression]], seen: Seen) -> Devices:
        found: Set[Device] = set()
        for expression in expressions:
            found |= ANY_DEVICE if expression is None else self._devices(expression, seen)
        return frozenset(found)

    def _devices(self, node: cst.BaseExpression, seen: Seen) -> Devices:
        if isinstance(node, cst.SimpleString):
            text = string_value(node)
            return frozenset({device_of_literal(text)}) if text is not None else ANY_DEVICE
        if isinstance(node, cst.FormattedString):
            first = node.parts[0] if node.parts else None
            text = first.value if isinstance(first, cst.FormattedStringText) else ""
            return frozenset({device_of_literal(text.split(":")[0])}) if text else ANY_DEVICE
        if isinstance(node, cst.IfExp):
            return self._union((node.body, node.orelse), seen)
        if isinstance(node, cst.BooleanOperation):  # `args.device or "cuda"`
            return self._union((node.left, node.right), seen)
        if isinstance(node, cst.Call):
            return self._call_devices(node, seen)
        if isinstance(node, cst.Attribute):
            return self._attribute_devices(node, seen)
        if isinstance(node, cst.Subscript):
            return self._key_devices(node, seen)
        if isinstance(node, cst.Name):
            return frozenset() if node.value == "None" else self._name_devices(node, seen)
        return ANY_DEVICE

    def _call_devices(self, call: cst.Call, seen: Seen) -> Devices:
        name = self.facts.qualified_name(call.func)
        if name == "torch.device" or dotted(call.func) == "str":
            return self._devices(call.args[0].value, seen) if call.args else ANY_DEVICE
        if name in ACCELERATOR_QUERIES:
            return ACCELERATOR_QUERIES[name]
        helpers = [d for d in self._names.resolve_callable(call.func) if not isinstance(d, cst.ClassDef)]
        if not helpers or name is not None:
            return ANY_DEVICE  # imported or unknown: an auto-detection helper elsewhere can return anything
        if any(helper in seen for helper in helpers):
            return frozenset()  # a helper reached again while reading its own returns adds nothing new
        returned = [value for helper in helpers for value in self._names.returns(helper)]  # type: ignore[arg-type]
        return self._union(returned, seen | frozenset(helpers))

    def _attribute_devices(self, node: cst.Attribute, seen: Seen) -> Devices:
        owner, attribute = node.value, node.attr.value
        if attribute == "type":
            return self._devices(owner, seen)
        if attribute == "device" and self.is_launcher(owner):
            return frozenset({Device.ACCELERATOR, Device.CPU})
        name = dotted(node)
        if name is None or name in seen:
            return ANY_DEVICE
        seen = seen | {name}
        if dotted(owner) == "self":
            return self._bound_devices(node, seen)
        if attribute == "device" and not isinstance(owner, cst.Name):
            return ANY_DEVICE
        option = self._argparse_option(attribute)
        if option is not None:
            return self._option_devices(option, seen)
        fields = self._dataclass_fields(attribute)
        if fields:
            return self._union(fields, seen)
        if attribute == "device":  # `x.device` of a tensor or model: where it was moved
            return self._placement_devices(owner, seen)
        values = self._assigned_values(node)
        return self._union(values, seen) if values else ANY_DEVICE

    def _assigned_values(self, expression: cst.BaseExpression) -> List[Optional[cst.BaseExpression]]:
        """What ``expression`` may hold, one entry per binding (None: a value not known here).

        A name or ``self.x`` through the bindings that reach it (names.py); an
        attribute of another object (``args.device = ...``, ``cfg.device =
        ...``), which no scope owns, through every assignment to it in the module.
        """
        if type(expression) is cst.Name or (type(expression) is cst.Attribute and dotted(expression.value) == "self"):  # type: ignore[attr-defined]
            return [self._names.bound_value(b) for b in self._names.reaching(expression)]
        spelled = dotted(expression)
        return _assigned(self._names, spelled) if spelled is not None else []

    def is_launcher(self, owner: cst.BaseExpression) -> bool:
        """``accelerator`` bound to ``Accelerator(...)``/``Fabric(...)``, or so named where it is passed in."""
        for value in self._assigned_values(owner):
            if isinstance(value, cst.Call) and self.facts.qualified_name(value.func) in LAUNCHER_CLASSES:
                return True
        return (dotted(owner) or "").rsplit(".", 1)[-1] in LAUNCHER_NAMES

    def _argparse_option(self, attribute: str) -> Optional[cst.Call]:
        """The ``add_argument`` call whose destination is ``attribute`` (``--device``, ``dest="device"``)."""
        for call in self._scan.calls:
            if isinstance(call.func, cst.Attribute) and call.func.attr.value == "add_argument" and call.args:
                if _option_destination(call) == attribute:
                    return call
        return None

    def _option_devices(self, option: cst.Call, seen: Seen) -> Devices:
        """An option's ``choices``; without them the user may type any device, whatever the default."""
        keywords = {a.keyword.value: a.value for a in option.args if a.keyword is not None}
        choices = keywords.get("choices")
        if isinstance(choices, (cst.List, cst.Tuple, cst.Set)):
            return self._union([e.value for e in choices.elements], seen)
        return ANY_DEVICE

    def _dataclass_fields(self, attribute: str) -> List[Optional[cst.BaseExpression]]:
        """Defaults of a same-module class field ``attribute: str = "cuda"`` and the values its constructor calls
        pass; None (anything) where it is built from ``**overrides`` or handed to a parser (``tyro.cli(Config)``)."""
        values: List[Optional[cst.BaseExpression]] = []
        for definitions in self._scan.classes.values():
            for definition in definitions:
                defaults = [v for t, v in _field_defaults(self._names, definition) if t == attribute]
                if defaults:
                    values.extend(defaults)
                    values.extend(self._constructor_arguments(definition, attribute))
        return values

    def field_devices(self, attribute: str) -> Devices:
        """The devices ``<config>.<attribute>`` can hold, for a field of one of the module's classes."""
        fields = self._dataclass_fields(attribute)
        return self._union(fields, frozenset({attribute})) if fields else frozenset()

    def _constructor_arguments(self, cls: cst.ClassDef, keyword: str) -> Iterator[Optional[cst.BaseExpression]]:
        """What the module's calls of ``cls`` pass as ``keyword``; None where it is built from ``**overrides`` or
        handed to a parser (``tyro.cli(Config)``, ``HfArgumentParser(Config)``)."""
        for call in self._scan.calls:
            if self._names_class(call.func, cls):
                for argument in call.args:
                    if argument.star == "**":
                        yield None
                    elif argument.keyword is not None and argument.keyword.value == keyword:
                        yield argument.value
            elif any(self._names_class(a.value, cls) for a in call.args):
                yield None

    def _names_class(self, expression: cst.BaseExpression, cls: cst.ClassDef) -> bool:
        """``expression`` is this class (the spelling is checked first: resolving every call costs more)."""
        spelled = dotted(expression) or ""
        return spelled.rsplit(".", 1)[-1] == cls.name.value and cls in self._names.resolve_callable(expression)

    def _placement_devices(self, owner: cst.BaseExpression, seen: Seen) -> Devices:
        """``model.device`` where ``model = Net().to(device)``: the devices it was moved to."""
        targets: List[Optional[cst.BaseExpression]] = []
        for value in self._assigned_values(owner):
            if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in ("to", "cuda"):
                moved_to = value.args[0].value if value.args else None
                targets.append(cst.SimpleString('"cuda"') if value.func.attr.value == "cuda" else moved_to)
            else:
                return ANY_DEVICE
        return self._union(targets, seen) if targets else ANY_DEVICE

    def _key_devices(self, node: cst.Subscript, seen: Seen) -> Devices:
        """``config["device"]`` where ``config`` is a dict literal of the module."""
        key = string_value(node.slice[0].slice.value) if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index) else None
        values: List[Optional[cst.BaseExpression]] = []
        for value in self._assigned_values(node.value) if key is not None else ():
            if not isinstance(value, cst.Dict):
                return ANY_DEVICE
            values.extend(e.value for e in value.elements if isinstance(e, cst.DictElement) and string_value(e.key) == key)
        return self._union(values, seen) if values else ANY_DEVICE

    def assigned_devices(self, target: str, values: Sequence[Optional[cst.BaseExpression]]) -> Devices:
        """The devices of the values assigned to ``target`` (``device``, ``self.device``), and anything at all
        where the module lets the command line replace its globals."""
        overridden = [None] if "." not in target and self._scan.overrides_globals else []
        return self._union([*values, *overridden], frozenset({target}))

    def _name_devices(self, name: cst.Name, seen: Seen) -> Devices:
        """The values of the bindings that reach ``name`` where it stands (flow-aware, see names.py).

        Anything for a name bound by a loop, a ``with``, an import, or bound
        nowhere here, and for a module-level name where the module lets the
        command line replace its globals.
        """
        bindings = [b for b in self._names.reaching(name) if b not in seen]
        if not bindings:
            return frozenset() if self._names.reaching(name) else ANY_DEVICE  # `device = torch.device(device)` in a loop
        return self._bound_devices_of(bindings, seen)

    def _bound_devices(self, expression: cst.BaseExpression, seen: Seen) -> Devices:
        """``self.device``: what the class, or a same-module base class, assigns to it (names.py)."""
        bindings = [b for b in self._names.reaching(expression) if b not in seen]
        return self._bound_devices_of(bindings, seen) if bindings else ANY_DEVICE

    def _bound_devices_of(self, bindings: List[Binding], seen: Seen) -> Devices:
        seen = seen | frozenset(bindings)
        found: Set[Device] = set()
        for binding in bindings:
            if binding.kind == PARAMETER:
                found |= self._parameter_devices(binding.node, seen)  # type: ignore[arg-type]
            elif binding.kind in (ASSIGN, ANNOTATED, WALRUS):
                found |= self._union([self._names.bound_value(binding)], seen)
            else:
                found |= ANY_DEVICE  # for/with targets, imports, a property: not a value known here
            if binding.scope is self._names.module and self._scan.overrides_globals:
                found |= ANY_DEVICE  # nanoGPT's configurator: `--device=mps` on the command line replaces `device = "cuda"`
        return frozenset(found)

    def parameter_devices(self, parameter: cst.Param) -> Devices:
        return self._parameter_devices(parameter, frozenset())

    def _parameter_devices(self, parameter: cst.Param, seen: Seen) -> Devices:
        """What the module's own calls pass (the default where they leave it out); anything when nothing here
        calls the function (reusable code) or a call's ``*args``/``**kwargs`` may pass it."""
        binding = self._names.binding_at(parameter)
        function = binding.statement if binding is not None else None
        if not isinstance(function, cst.FunctionDef):
            return ANY_DEVICE
        calls = self._names.calls_of(function)
        passed = [self._names.argument_for(call, function, parameter) for call in calls]
        if not calls or any(p is None for p in passed):
            return ANY_DEVICE
        return self._union(passed, seen)


def _option_destination(call: cst.Call) -> Optional[str]:
    """Where argparse stores an option: ``dest=``, else its first long name (``--train-device`` -> ``train_device``)."""
    for argument in call.args:
        if argument.keyword is not None and argument.keyword.value == "dest":
            return string_value(argument.value)
    names = [string_value(a.value) or "" for a in call.args if a.keyword is None]
    long_names = [n for n in names if n.startswith("--")]
    chosen = long_names[0][2:] if long_names else (names[0].lstrip("-") if names else "")
    return chosen.replace("-", "_") or None


def _field_defaults(names: Names, definition: cst.ClassDef) -> Iterator[Tuple[str, Optional[cst.BaseExpression]]]:
    """``device: str = "cuda"`` (or ``= field(default="cuda")``) in a class body."""
    for binding in names.bindings(definition):
        if _assigns(binding):
            value = names.bound_value(binding)
            if isinstance(value, cst.Call) and dotted(value.func) in ("field", "dataclasses.field"):
                value = next((a.value for a in value.args if a.keyword is not None and a.keyword.value == "default"), None)
            yield binding.name, value
