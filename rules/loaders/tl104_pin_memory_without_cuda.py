"""TL104 pin-memory-without-cuda: unconditional pinning in code that can run without CUDA."""

from __future__ import annotations

import re
from typing import Optional, Tuple

import libcst as cst

from trainlint.analysis import dotted
from trainlint.analysis.devices import CudaOnlyRegions, Device, DeviceKind, DeviceScopes, DevicesInUse
from trainlint.analysis.names import PARAMETER, Names
from trainlint.analysis.values import Values
from trainlint.analysis.walk import walk
from trainlint.diagnostics import Applicability
from trainlint.rule import CstFix, Import, Rule
from trainlint.rules.loaders.placement import DevicePlacement, LoaderArguments

# A torch function taking `pin_memory=` (`torch.tensor`, `torch.empty`, `torch.zeros`, ...): `torch.<name>`.
TORCH_FUNCTION = re.compile(r"^torch\.[a-z_]+$")
# A function implementing the DataLoader's pinning protocol (a custom batch's `def pin_memory(self)`, a
# re-implemented `pin_memory(data)` helper): the loader calls it only where it pins, i.e. on an accelerator
# (fixtures/TL104_pin_memory_without_cuda/ok_custom_batch_pin_method.py).
PIN_PROTOCOL_FUNCTION = re.compile(r"pin_memory")
# Pinning guarded by a `torch.accelerator` check is meant for whatever accelerator torch finds, and the
# DataLoader decides per backend whether it can pin (pytorch/examples' mnist, siamese_network:
# fixtures/TL104_pin_memory_without_cuda/ok_loader_pinning_on_any_accelerator.py).
ACCELERATOR_CHECK = "torch.accelerator."
MAX_DEPTH = 8
# A stream of an accelerator (`torch.cuda.Stream`, `torch.Stream`, `torch.xpu.Stream`): only CUDA and the
# accelerators that can pin have one (diffusers' group offloading pins only when it copies on a stream:
# fixtures/TL104_pin_memory_without_cuda/ok_pinning_for_stream_copies.py).
STREAM_TYPE = re.compile(r"(^|\.)Stream$")
# Calls followed up to a function's callers when deciding that pinning code runs only with a stream.
MAX_CALLER_DEPTH = 2
# Expressions a guarded `.pin_memory()` may evaluate twice, `x.pin_memory() if <on CUDA> else x`: no side effects.
_PLAIN_REFERENCE = (cst.Name, cst.Attribute)
# Parents under which a conditional expression needs no parentheses.
_LOOSE_PARENTS = (cst.Assign, cst.AnnAssign, cst.Return, cst.Arg)

TENSOR_MESSAGE = (
    "`pin_memory=True` raises where there is no CUDA (\"pin_memory=True requires a CUDA or other accelerator "
    "backend\" on a CPU-only machine; MPS cannot pin either), and this code can run on the CPU or MPS"
)
METHOD_MESSAGE = (
    "`{code}` raises where there is no CUDA (\"Cannot access accelerator device when none is available\" on a "
    "CPU-only machine; MPS cannot pin either), and this code can run on the CPU or MPS"
)
# What a fix with no device in scope changes where the module may also run on an accelerator other than CUDA.
STOPS_PINNING_ELSEWHERE = "; this also stops pinning on accelerators other than CUDA (XPU, HPU), which copy more slowly there"
# Devices where `<device type> == "cuda"` pins wherever pinning worked before.
CUDA_CPU_OR_MPS = frozenset({Device.CUDA, Device.CPU, Device.MPS})

LOADER_MESSAGE = (
    "`pin_memory=True` in code that selects the CPU or MPS: there the DataLoader warns "
    "(\"no accelerator is found\" / \"not supported on MPS\") and pins nothing"
)


class PinMemoryWithoutCuda(Rule):
    """## What it does
    Finds memory pinning that is unconditional in code that can run without
    CUDA.

    Two kinds are reported. Pinning a tensor (`torch.tensor(...,
    pin_memory=True)`, `torch.empty(..., pin_memory=True)` and every other
    `torch.<factory>(..., pin_memory=True)`, or `x.pin_memory()`) raises
    without CUDA: it is reported wherever CUDA is not certain, that is where
    the module names a non-CUDA device, takes its device at run time, or
    runs some code only where CUDA is (`if use_cuda: x = x.cuda()`) and goes
    on without it, all without pinning itself to CUDA (as
    `trainlint.analysis.devices` decides for every rule). A `DataLoader(pin_memory=True)` (also through a
    `**kwargs` dict, or given to a same-module wrapper that hands its
    `**kwargs` to a DataLoader, `InfiniteDataLoader(ds, pin_memory=True)`) only warns off CUDA: it is reported only where the
    module selects MPS or the CPU (`"cuda" if torch.cuda.is_available() else
    "cpu"`, `"mps"`, `def main(device="cpu")`, a `--device` option naming
    them). `pin_memory=` counts when it is `True`, directly or through a name.

    Silent for: a switch that is not always on (`pin_memory=torch.cuda.is_available()`,
    `pin_memory=(device.type == "cuda")`, `pin_memory=args.pin_memory`);
    pinning under `if device.type == "cuda":`, `if torch.cuda.is_available():`,
    `if args.cuda:` where `args.cuda` picks the device, under an opt-in
    flag (`if args.offload_ema:`, a `store_true` option off by default), in
    `x.pin_memory() if torch.cuda.is_available() else x`, after
    `if not torch.cuda.is_available(): raise ...`; CUDA-only modules (an
    unconditional `model.cuda()`, `torch.cuda.set_device`, NCCL, ...); code
    inside a function named like `pin_memory` (a custom batch's
    `def pin_memory(self)`, which the DataLoader calls only where it pins);
    a DataLoader pinning under a `torch.accelerator` check (`if use_accel:`
    with `use_accel = torch.accelerator.is_available()`), which is meant for
    any accelerator and leaves the choice to the DataLoader; pinning that
    runs only where an accelerator stream exists (`if self.stream is not
    None:`, after `if self.stream is None: return`, or in a helper every
    same-module call of which is placed so; the stream made by
    `torch.cuda.Stream()` or a parameter annotated `torch.Stream`), which a
    machine without an accelerator never reaches; and a DataLoader whose batches are already on the accelerator, which
    TL101 pin-memory-device-tensors reports (one finding per loader: its fix
    makes the pinning conditional too).

    ## Why is this bad
    Pinning page-locks host memory for fast copies to an accelerator. On a
    machine without CUDA `torch.empty(n, pin_memory=True)` raises
    `RuntimeError: pin_memory=True requires a CUDA or other accelerator
    backend` and `x.pin_memory()` raises `RuntimeError: Cannot access
    accelerator device when none is available` (MPS cannot pin either): the
    script that picked `"cpu"` when CUDA was missing crashes at its first
    batch. A `DataLoader(pin_memory=True)` on the CPU or MPS warns every time
    it is iterated ("'pin_memory' argument is set as true but no accelerator
    is found" / "... not supported on MPS now") and pins nothing.

    ## Example
    ```python
    device = "cuda" if torch.cuda.is_available() else "cpu"

    def get_batch(step):
        x = torch.tensor(inputs[step], pin_memory=True)
        y = targets[step].pin_memory()
        return x.to(device, non_blocking=True), y.to(device, non_blocking=True)
    ```

    ## Use instead
    ```python
    device = "cuda" if torch.cuda.is_available() else "cpu"

    def get_batch(step):
        x = torch.tensor(inputs[step], pin_memory=device == "cuda")
        y = targets[step]
        if device == "cuda":
            y = y.pin_memory()
        return x.to(device, non_blocking=True), y.to(device, non_blocking=True)
    ```

    ## Fix safety
    The fix makes the pinning conditional on the device in scope being one
    that can pin. Where the module runs only on CUDA, the CPU or MPS, that is
    `pin_memory=<device type> == "cuda"`; where the device can also be another
    accelerator (a caller's device, `torch.accelerator.current_accelerator()`,
    `"xpu"`), for which the DataLoader pins since torch 2.6, it is
    `<device type> not in ("cpu", "mps")`. The condition goes in the call or in
    the `**kwargs` dict that sets it, and `x.pin_memory()` becomes
    `(x.pin_memory() if <condition> else x)`. The device type is
    `device.type` for a `torch.device`, the string itself for `"cuda"`/`"cpu"`,
    and `torch.device(device).type` when it may be either
    (`trainlint.analysis.devices.DeviceScopes`). It is safe: the code pins
    wherever it pinned before and stops raising or warning on the CPU and MPS;
    pinning never changes a tensor's values. With no device in scope the
    condition is `torch.cuda.is_available()`, which is unsafe where the module
    may also run on another accelerator: it stops pinning there, and copies
    run slower (the fix's message says so). No fix is offered for `.pin_memory()`
    on an expression other than a name or attribute, which the conditional
    would evaluate twice.

    ## Evidence
    `fixtures/TL104_pin_memory_without_cuda/` (a minimal chat-model
    trainer's `get_batch`, a pinned staging buffer, a pinning collate, a
    DataLoader kwargs dict, and traps for each guard above);
    `tests/test_runtime_TL104.py` shows on this CPU-only machine that the
    tensor-pinning bad fixtures raise the pin error, the DataLoader one
    warns, and every fixed fixture runs without either and trains exactly
    like `reference_trainer.run("lstm")`.
    """

    fix = Applicability.SAFE

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "pin_memory" and not node.args:
            self._check_pin_method(node)
            return
        loader = self._placement.loader_arguments(node) or self._placement.forwarded_loader_arguments(node)
        if loader is not None:
            self._check_loader(loader)
            return
        pin = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "pin_memory"), None)
        if pin is not None and TORCH_FUNCTION.match(self.facts.qualified_name(func) or ""):
            self._check_tensor_factory(node, pin)

    @property
    def _placement(self) -> DevicePlacement:
        return self.facts.fact(DevicePlacement)

    # -- what is reported ------------------------------------------------------------

    def _check_tensor_factory(self, node: cst.Call, pin: cst.BaseExpression) -> None:
        """``torch.empty(n, pin_memory=True)``: raises without CUDA."""
        if not self._placement.is_provably_on(pin) or self._cuda_certain(node) or self._runs_only_with_stream(node):
            return
        self.report(node, TENSOR_MESSAGE, fix=self._switch_fix(pin))

    def _check_pin_method(self, node: cst.Call) -> None:
        """``x.pin_memory()``: raises without CUDA."""
        if self.facts.qualified_name(node.func) is not None or self._implements_pinning(node):
            return
        if self._cuda_certain(node) or self._runs_only_with_stream(node):
            return
        self.report(node, METHOD_MESSAGE.format(code=self.facts.code(node).strip()), fix=self._method_fix(node))

    def _check_loader(self, loader: LoaderArguments) -> None:
        """``DataLoader(pin_memory=True)`` in code that selects the CPU or MPS: warns there and pins nothing."""
        pin = loader.get("pin_memory")
        if pin is None or not self._placement.is_provably_on(pin):
            return
        if not self.facts.fact(DevicesInUse).selects_cpu_or_mps:
            return
        regions = self.facts.fact(CudaOnlyRegions)
        if any(regions.runs_only_on_cuda(n) or self._under_accelerator_check(n) or self._under_opt_in_flag(n) for n in (loader.call, pin)):
            return
        if self._placement.device_batches(loader.call, switch="pin_memory") is not None:
            return  # TL101's finding: pinning batches already on the accelerator
        self.report(loader.call, LOADER_MESSAGE, fix=self._switch_fix(pin))

    def _cuda_certain(self, node: cst.CSTNode) -> bool:
        """The module cannot run off CUDA, ``node`` runs only on CUDA, or only when the user asks for it."""
        if not self.facts.fact(DevicesInUse).can_run_off_cuda:
            return True
        return self.facts.fact(CudaOnlyRegions).runs_only_on_cuda(node) or self._under_opt_in_flag(node)

    def _under_opt_in_flag(self, node: cst.CSTNode) -> bool:
        """In the body of ``if args.offload_ema:`` (``--offload_ema`` a ``store_true`` flag): a switch that is off
        unless the user turns it on, like ``pin_memory=args.pin_memory``
        (fixtures/TL104_pin_memory_without_cuda/ok_pinning_under_opt_in_flag.py)."""
        values = self.facts.fact(Values)
        child = node
        for ancestor in self.facts.ancestors(node):
            if isinstance(ancestor, cst.If) and child is ancestor.body and values.is_opt_in_flag(ancestor.test):
                return True
            if isinstance(ancestor, cst.FunctionDef):
                return False
            child = ancestor
        return False

    def _under_accelerator_check(self, node: cst.CSTNode) -> bool:
        """In the body of ``if use_accel:`` (``use_accel = torch.accelerator.is_available()``) or ``... if <that> else``."""
        child = node
        for ancestor in self.facts.ancestors(node):
            if isinstance(ancestor, (cst.If, cst.IfExp)) and child is ancestor.body and self._checks_accelerator(ancestor.test):
                return True
            child = ancestor
        return False

    def _checks_accelerator(self, test: cst.BaseExpression, depth: int = 0) -> bool:
        """``test`` calls ``torch.accelerator.*``, directly or through the names it reads."""
        for node in walk(test):
            if isinstance(node, cst.Call) and (self.facts.qualified_name(node.func) or "").startswith(ACCELERATOR_CHECK):
                return True
            if isinstance(node, cst.Name) and depth < MAX_DEPTH:
                names = self.facts.fact(Names)
                values = [names.bound_value(b) for b in names.reaching(node)]
                if any(v is not None and self._checks_accelerator(v, depth + 1) for v in values):
                    return True
        return False

    def _runs_only_with_stream(self, node: cst.CSTNode, depth: int = 0) -> bool:
        """``node`` runs only where an accelerator stream exists, which no machine without one has.

        That is: under ``if stream is not None:`` (or ``if stream:``), in the ``else`` of
        ``if stream is None:``, after ``if stream is None: return`` in an enclosing block, or in a
        function every same-module call of which is placed so. A stream is a value made by a
        ``*.Stream(...)`` call or a parameter annotated with a ``Stream`` type, read directly or
        through ``self.stream``.
        """
        child = node
        for ancestor in self.facts.ancestors(node):
            if isinstance(ancestor, (cst.If, cst.IfExp)):
                tested = self._stream_test(ancestor.test)
                if (tested is True and child is ancestor.body) or (tested is False and child is ancestor.orelse):
                    return True
            if isinstance(ancestor, (cst.IndentedBlock, cst.Module)) and child in ancestor.body:
                if any(self._leaves_without_stream(s) for s in ancestor.body[: ancestor.body.index(child)]):
                    return True
            if isinstance(ancestor, cst.FunctionDef):
                return depth < MAX_CALLER_DEPTH and self._every_caller_has_stream(ancestor, depth)
            child = ancestor
        return False

    def _every_caller_has_stream(self, function: cst.FunctionDef, depth: int) -> bool:
        names = self.facts.fact(Names)
        callers = [c for c in self.facts.nodes(cst.Call) if function in names.callees(c)]
        return bool(callers) and all(self._runs_only_with_stream(c, depth + 1) for c in callers)

    def _leaves_without_stream(self, statement: cst.CSTNode) -> bool:
        """``if stream is None: return ...`` (or ``raise``)."""
        if not isinstance(statement, cst.If) or statement.orelse is not None or self._stream_test(statement.test) is not False:
            return False
        last = statement.body.body[-1] if statement.body.body else None
        if isinstance(last, cst.SimpleStatementLine):
            last = last.body[-1] if last.body else None
        return isinstance(last, (cst.Return, cst.Raise))

    def _stream_test(self, test: cst.BaseExpression) -> Optional[bool]:
        """True for ``stream is not None`` / ``stream``, False for ``stream is None`` / ``not stream``, else None."""
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            inner = self._stream_test(test.expression)
            return None if inner is None else not inner
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            target = test.comparisons[0]
            if isinstance(target.comparator, cst.Name) and target.comparator.value == "None":
                if isinstance(target.operator, (cst.IsNot, cst.Is)) and self._is_stream(test.left):
                    return isinstance(target.operator, cst.IsNot)
            return None
        return True if self._is_stream(test) else None

    def _is_stream(self, expression: cst.BaseExpression, depth: int = 0) -> bool:
        if not isinstance(expression, (cst.Name, cst.Attribute)) or depth > MAX_DEPTH:
            return False
        names = self.facts.fact(Names)
        for binding in names.reaching(expression):
            if binding.kind == PARAMETER and isinstance(binding.node, cst.Param):
                annotation = binding.node.annotation
                if annotation is not None and any(
                    STREAM_TYPE.search(dotted(n) or "") for n in walk(annotation.annotation) if isinstance(n, cst.Attribute)
                ):
                    return True
            if self._makes_stream(names.bound_value(binding), depth):
                return True
        return False

    def _makes_stream(self, value: Optional[cst.BaseExpression], depth: int) -> bool:
        """``torch.cuda.Stream()``, ``<that> if <test> else None``, or a name holding a stream."""
        if isinstance(value, cst.IfExp):
            branches = (value.body, value.orelse)
            none = [b for b in branches if isinstance(b, cst.Name) and b.value == "None"]
            return len(none) == 1 and all(self._makes_stream(b, depth) for b in branches if b not in none)
        if isinstance(value, cst.Call):
            return bool(STREAM_TYPE.search(dotted(value.func) or ""))
        return isinstance(value, (cst.Name, cst.Attribute)) and self._is_stream(value, depth + 1)

    def _implements_pinning(self, node: cst.CSTNode) -> bool:
        """Inside a function named like ``pin_memory``: the DataLoader's pinning protocol, called only where it pins."""
        return any(
            isinstance(a, cst.FunctionDef) and PIN_PROTOCOL_FUNCTION.search(a.name.value)
            for a in self.facts.ancestors(node)
        )

    # -- the fix -------------------------------------------------------------------------

    def _pinning_condition(self, anchor: cst.CSTNode) -> Tuple[cst.BaseExpression, bool, bool]:
        """Where the device in scope at ``anchor`` can pin; whether the expression names ``torch``; and whether it
        keeps pinning on every device that pinned before (a safe fix).

        In a module that runs only on CUDA, the CPU or MPS that is ``<device type> == "cuda"``. Where the device can
        also be another accelerator (a caller's device, ``torch.accelerator.current_accelerator()``, ``"xpu"``),
        which the DataLoader pins for since torch 2.6, it is ``<device type> not in ("cpu", "mps")``
        (fixtures/TL104_pin_memory_without_cuda/bad_loader_on_accelerator_or_cpu.py). With no device in scope it is
        ``torch.cuda.is_available()``, which stops pinning on such an accelerator: then the fix is unsafe.
        """
        torch = self.facts.torch_name()
        device = self.facts.fact(DeviceScopes).device_in_scope(anchor)
        other_accelerator = bool(self.facts.fact(DevicesInUse).devices - CUDA_CPU_OR_MPS)
        if device is None:
            return cst.parse_expression(f"{torch}.cuda.is_available()"), True, not other_accelerator
        device_type = self.facts.module.code_for_node(device.type_expression(torch))
        condition = f'{device_type} not in ("cpu", "mps")' if other_accelerator else f'{device_type} == "cuda"'
        return cst.parse_expression(condition), device.kind is DeviceKind.UNKNOWN, True  # torch.device(device).type

    def _switch_fix(self, pin: cst.BaseExpression) -> CstFix:
        condition, uses_torch, safe = self._pinning_condition(pin)
        return CstFix(
            message=f"Pin only where the device can pin: `pin_memory={self.facts.module.code_for_node(condition)}`"
            + ("" if safe else STOPS_PINNING_ELSEWHERE),
            applicability=Applicability.SAFE if safe else Applicability.UNSAFE,
            replacements={pin: condition},
            imports=self._torch_import(uses_torch),
        )

    def _method_fix(self, node: cst.Call) -> Optional[CstFix]:
        receiver = node.func.value if isinstance(node.func, cst.Attribute) else None
        if not isinstance(receiver, _PLAIN_REFERENCE) or dotted(receiver) is None:
            return None
        condition, uses_torch, safe = self._pinning_condition(node)
        guarded: cst.BaseExpression = cst.IfExp(test=condition, body=node, orelse=receiver.deep_clone())
        if not isinstance(self.facts.parent(node), _LOOSE_PARENTS):
            guarded = guarded.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        code = self.facts.module.code_for_node(condition)
        return CstFix(
            message=f"Pin only where the device can pin: `... if {code} else {dotted(receiver)}`"
            + ("" if safe else STOPS_PINNING_ELSEWHERE),
            applicability=Applicability.SAFE if safe else Applicability.UNSAFE,
            replacements={node: guarded},
            imports=self._torch_import(uses_torch),
        )

    def _torch_import(self, needed: bool) -> Tuple[Import, ...]:
        """``import torch`` when the fix spells ``torch`` and the module has no alias for it."""
        return (Import("torch"),) if needed and self.facts.torch_name() == "torch" else ()

