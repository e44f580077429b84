"""TL202 device-type-sniffing: a string test that sends MPS (and other accelerators) down the CPU path."""

from __future__ import annotations

from typing import List, Optional, Set

import libcst as cst

from trainlint.analysis import dotted
from trainlint.analysis.devices import (
    NAMED_OTHER_ACCELERATORS,
    CudaOnlyRegions,
    Device,
    DeviceInScope,
    DeviceKind,
    DeviceLattice,
    DeviceScopes,
    DevicesInUse,
    string_value,
)
from trainlint.diagnostics import Applicability
from trainlint.rule import CstFix, Import, Rule
from trainlint.rules.amp import torch_apis
from trainlint.rules.amp.amp_apis import AMP_APIS, bind_arguments
from trainlint.target_torch import ASSUMED_TORCH, TARGET_TORCH_OPTION, parse_torch_version

MESSAGE = 'This device-type test maps MPS (and every other non-CUDA device) to "cpu", so autocast never runs on MPS'


class DeviceTypeSniffing(Rule):
    """## What it does
    Finds a device type decided by a string test, `"cuda" if "cuda" in device
    else "cpu"` (or `str(device).startswith("cuda")`, `"cpu" if "cuda" not in
    device else "cuda"`, or `"cuda" if torch.cuda.is_available() else "cpu"`),
    that feeds `torch.autocast(device_type=...)`, in code that can be given
    another accelerator: the device may be MPS, an XPU, or anything (a device
    parameter of reusable code, a `--device` option without `choices` or whose
    choices offer MPS, an auto-detection helper, a launcher's device; see
    `trainlint/analysis/devices.py`). For the `torch.cuda.is_available()` form,
    the module must name another accelerator.

    It stays silent where every device the code can be given is CUDA or the
    CPU (`--device` with choices `["cuda:0", "cuda:1", "cpu"]`), where the test
    reads a literal, and where the sniffed type feeds no autocast (a CUDA-or-not
    decision such as `pin_memory` is right for MPS too).

    ## Why is this bad
    Every device that is not CUDA becomes "cpu": on a Mac the script's mixed
    precision silently never runs (`nullcontext()` for "cpu", or CPU autocast
    that does nothing for MPS tensors), without even a warning. A widely copied
    GPT training script does this; switching to the real device type made a
    project's trainers 31% faster on MPS.

    ## Example
    ```python
    device_type = "cuda" if "cuda" in device else "cpu"
    ctx = nullcontext() if device_type == "cpu" else torch.autocast(device_type=device_type, dtype=ptdtype)
    ```

    ## Use instead
    ```python
    device_type = torch.device(device).type
    ctx = nullcontext() if device_type == "cpu" else torch.autocast(device_type=device_type, dtype=ptdtype)
    ```

    ## Fix safety
    Unsafe: the fix takes the type from the device (`device.type` where the
    test read `device.type`, else `torch.device(device).type`), so on MPS
    autocast then runs, in float16 with no loss scaling, and results there
    change. MPS autocast arrived in torch 2.5 (older releases raise), so the
    fix is offered only where `target-torch` is 2.5 or later.

    ## Evidence
    `fixtures/TL202_device_type_sniffing/`; `tests/test_runtime_TL202.py`
    shows, given "mps", the bad code choosing the CPU branch and the fixed code
    the MPS one, and that the fixed scripts train like `reference_trainer` on
    the CPU.
    """

    fix = Applicability.UNSAFE
    options = {"target-torch": TARGET_TORCH_OPTION}

    def visit_Module(self, node: cst.Module) -> None:
        self._sniffs: List[cst.IfExp] = []
        self._autocast_device_names: Set[str] = set()
        self._autocast_device_arguments: Set[cst.Arg] = set()

    def visit_Call(self, node: cst.Call) -> None:
        """Note what autocast calls take as their device type: a sniff that feeds none is harmless."""
        api = AMP_APIS.get(self.facts.qualified_name(node.func) or "")
        arguments = bind_arguments(node, api.parameters) if api is not None and api.family == "autocast" else None
        device_type = arguments.get("device_type") if arguments else None
        if device_type is not None:
            self._autocast_device_arguments.add(device_type)
            name = dotted(device_type.value)
            if name is not None:
                self._autocast_device_names.add(name)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        """Collect ``"cuda" if <on CUDA> else "cpu"`` (and its mirror image)."""
        on_cuda_branch = _sniff_branches(node)
        if on_cuda_branch is not None and self.facts.fact(CudaOnlyRegions).cuda_condition(node.test) is on_cuda_branch:
            self._sniffs.append(node)

    def leave_Module(self, original_node: cst.Module) -> None:
        """Report the sniffs that feed an autocast device type (known only once every call was seen)."""
        for sniff in self._sniffs:
            if self._feeds_autocast(sniff) and self._maps_other_devices_to_cpu(sniff):
                self.report(sniff, MESSAGE, fix=self._fix(sniff))

    def _feeds_autocast(self, sniff: cst.IfExp) -> bool:
        parent = self.facts.parent(sniff)
        if isinstance(parent, cst.Arg):
            return parent in self._autocast_device_arguments
        if isinstance(parent, (cst.Assign, cst.AnnAssign)):
            targets = [t.target for t in parent.targets] if isinstance(parent, cst.Assign) else [parent.target]
            return any(dotted(t) in self._autocast_device_names for t in targets)
        return False

    def _maps_other_devices_to_cpu(self, sniff: cst.IfExp) -> bool:
        """The sniffed device can be something other than CUDA or the CPU (MPS): it would become "cpu"."""
        inspected = _inspected_device(sniff)
        if inspected is None:  # torch.cuda.is_available(): wrong only where the module names another accelerator
            return bool(self.facts.fact(DevicesInUse).devices & NAMED_OTHER_ACCELERATORS)
        return bool(self.facts.fact(DeviceLattice).devices_of(inspected) - {Device.CUDA, Device.CPU})

    def _fix(self, sniff: cst.IfExp) -> Optional[CstFix]:
        inspected = _inspected_device(sniff)
        if isinstance(inspected, cst.Attribute) and inspected.attr.value == "type":
            device: Optional[DeviceInScope] = DeviceInScope(inspected.value, DeviceKind.TORCH_DEVICE)
        elif inspected is not None:
            device = DeviceInScope(inspected, DeviceKind.UNKNOWN)
        else:
            device = self.facts.fact(DeviceScopes).device_in_scope(sniff)
        target = parse_torch_version(self.option("target-torch")) or ASSUMED_TORCH
        if device is None or target < torch_apis.MPS_AUTOCAST:  # older torch raises on autocast("mps")
            return None
        torch = self.facts.torch_name()
        needs_torch = device.kind is DeviceKind.UNKNOWN and torch == "torch"
        return CstFix(
            message=(
                "Take the device type from the device itself: autocast then runs on MPS too, in float16 with no "
                "loss scaling, so results there change"
            ),
            applicability=Applicability.UNSAFE,
            replacements={sniff: device.type_expression(torch)},
            imports=(Import("torch"),) if needs_torch else (),
        )


def _sniff_branches(node: cst.IfExp) -> Optional[bool]:
    """For ``"cuda" if <test> else "cpu"``: True; for ``"cpu" if <test> else "cuda"``: False; else None."""
    branches = (string_value(node.body), string_value(node.orelse))
    if branches == ("cuda", "cpu"):
        return True
    return False if branches == ("cpu", "cuda") else None


def _inspected_device(sniff: cst.IfExp) -> Optional[cst.BaseExpression]:
    """The device value a sniff inspects (``device`` in ``"cuda" in device``); None for a global check."""
    test = sniff.test
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test = test.expression
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        right = test.comparisons[0].comparator
        inspected = right if string_value(test.left) is not None else test.left
    elif isinstance(test, cst.Call) and isinstance(test.func, cst.Attribute) and test.func.attr.value == "startswith":
        inspected = test.func.value
    else:
        return None
    if isinstance(inspected, cst.Call) and dotted(inspected.func) == "str" and len(inspected.args) == 1:
        inspected = inspected.args[0].value  # "cuda" in str(device)
    return None if string_value(inspected) is not None else inspected
