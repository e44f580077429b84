"""TL202 device-type-sniffing: a string test that sends MPS (and other accelerators) down the CPU path."""

from __future__ import annotations

from typing import Iterator, List, NamedTuple, Optional, Set, Tuple, Union

import libcst as cst

from trainlint.analysis import dotted, walk
from trainlint.analysis.devices import (
    NAMED_OTHER_ACCELERATORS,
    TORCH_DEVICE_MAKERS,
    CudaOnlyRegions,
    Device,
    DeviceInScope,
    DeviceKind,
    DeviceLattice,
    DeviceScopes,
    DevicesInUse,
)
from trainlint.analysis.names import PARAMETER, Names
from trainlint.analysis.values import string_value
from trainlint.diagnostics import Applicability
from trainlint.rule import CstFix, Import, Rule
from trainlint.rules.amp import torch_apis
from trainlint.amp_entry_points import AMP_APIS
from trainlint.rules.amp.amp_apis import bind_arguments
from trainlint.target_torch import ASSUMED_TORCH, TARGET_TORCH_OPTION, parse_torch_version

MESSAGE = 'This device-type test maps MPS (and every other non-CUDA device) to "cpu", so autocast never runs on MPS'
# Where the tested value may be a torch.device (a parameter a caller fills, or `torch.device(...)`), `==` with a string
# is False even on CUDA: `torch.device("cuda") == "cuda"` (fasterrcnn-pytorch-training-pipeline's engine.py, round 5
# of docs/precision-audit.md; tests/test_rule_TL202.py).
TORCH_DEVICE_EQUALITY = (
    "; and if `{name}` is a `torch.device` ({why}), `{name} {operator} \"{literal}\"` compares it with a string, which is never "
    "equal, so CUDA takes that path too"
)
CPU_AUTOCAST_MESSAGE = (
    "This device test sends MPS (and every other non-CUDA device) to CPU autocast, which leaves their tensors in float32"
)


class Sniff(NamedTuple):
    """One device-type sniff.

    ``test`` is the string test (reported); ``node`` what it decides: the
    ``a if test else b`` expression, or the ``if`` statement whose branches
    bind the type (``target``; with one branch, ``previous`` binds the other
    type just before it) or autocast on the CPU in the non-CUDA branch
    (``cpu_argument``, the ``"cpu"`` it passes).
    """

    test: cst.BaseExpression
    node: Union[cst.IfExp, cst.If]
    target: Optional[str] = None
    previous: Optional[cst.Assign] = None
    cpu_argument: Optional[cst.Arg] = None


class DeviceTypeSniffing(Rule):
    """## What it does
    Finds an autocast device type decided by a string test that sends every
    device but CUDA to the CPU, in code that can be given another accelerator.

    The test is an expression, `"cuda" if "cuda" in device
    else "cpu"` (or `str(device).startswith("cuda")`, `"cpu" if "cuda" not in
    device else "cuda"`, or `"cuda" if torch.cuda.is_available() else "cpu"`),
    or the same test as a statement (`if "cuda" in device: device_type =
    "cuda"` / `else: device_type = "cpu"`, or `device_type = "cuda"` followed
    by `if "cuda" not in args.device: device_type = "cpu"`), that feeds
    `torch.autocast(device_type=...)`; or an `if device == "cuda":` whose
    CUDA branch autocasts on CUDA and whose other branch autocasts on the CPU
    (`torch.autocast("cpu", ...)`). The code can be given
    another accelerator when the device may be MPS, an XPU, or anything (a device
    parameter of reusable code, a `--device` option without `choices` or whose
    choices offer MPS, an auto-detection helper, a launcher's device; see
    `trainlint/analysis/devices.py`). For the `torch.cuda.is_available()` form,
    the module must name another accelerator.

    It stays silent where every device the code can be given is CUDA or the
    CPU (`--device` with choices `["cuda:0", "cuda:1", "cpu"]`), where the test
    reads a literal, and where the sniffed type feeds no autocast (a CUDA-or-not
    decision such as `pin_memory` is right for MPS too). An `if device ==
    "cuda":` that only does CUDA work (`cudnn.benchmark`, `DataParallel`, a
    message), or whose other branch simply runs without autocast, is a CUDA
    gate, not a sniff; so is a chain that names MPS (`elif "mps" in device:`).

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

    if device == "cuda":
        ctx = torch.autocast("cuda", dtype=torch.float16)
    else:
        ctx = torch.autocast("cpu", dtype=torch.bfloat16)
    ```

    ## Use instead
    ```python
    device_type = torch.device(device).type
    ctx = nullcontext() if device_type == "cpu" else torch.autocast(device_type=device_type, dtype=ptdtype)

    if device == "cuda":
        ctx = torch.autocast("cuda", dtype=torch.float16)
    else:
        ctx = torch.autocast(torch.device(device).type, dtype=torch.bfloat16)
    ```

    ## Fix safety
    Unsafe: the fix takes the type from the device (`device.type` where the
    test read `device.type`, else `torch.device(device).type`): it replaces
    the expression, the `if` statement (one assignment of the type), or the
    `"cpu"` of the other branch's autocast. On MPS autocast then runs, in
    float16 or bfloat16 with no loss scaling, and results there change. MPS
    autocast arrived in torch 2.5 (older releases raise), so the fix is
    offered only where `target-torch` is 2.5 or later.

    ## Evidence
    `fixtures/TL202_device_type_sniffing/`; `tests/test_runtime_TL202.py`
    shows, given "mps", the bad code choosing the CPU branch and the fixed code
    the MPS one, and that the fixed scripts train like `reference_trainer` on
    the CPU.
    """

    fix = Applicability.UNSAFE
    options = {"target-torch": TARGET_TORCH_OPTION}

    def visit_Module(self, node: cst.Module) -> None:
        self._sniffs: List[Sniff] = []
        self._autocast_device_names: Set[str] = set()
        self._autocast_device_arguments: Set[cst.Arg] = set()

    def visit_Call(self, node: cst.Call) -> None:
        """Note what autocast calls take as their device type: a sniff that feeds none is harmless."""
        device_type = self._autocast_device_type(node)
        if device_type is not None:
            self._autocast_device_arguments.add(device_type)
            name = dotted(device_type.value)
            if name is not None:
                self._autocast_device_names.add(name)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        """Collect ``"cuda" if <on CUDA> else "cpu"`` (and its mirror image)."""
        on_cuda_branch = _sniff_branches(node)
        if on_cuda_branch is not None and self._cuda_condition(node.test) is on_cuda_branch:
            self._sniffs.append(Sniff(node.test, node))

    def visit_If(self, node: cst.If) -> None:
        """Collect the statement forms: the type bound in the branches, or CPU autocast in the non-CUDA one."""
        condition = self._cuda_condition(node.test)
        if condition is None:
            return
        on_cuda, other = _arms(node, condition)
        bound = _type_bound_by_branches(on_cuda, other)
        if bound is not None:
            previous = self._previous_binding(node, bound, on_cuda, other)
            if previous is not None or (on_cuda is not None and other is not None):  # one branch needs the other type
                self._sniffs.append(Sniff(node.test, node, bound, previous))
        elif on_cuda is not None and other is not None and self._autocast_types(on_cuda) == {"cuda"}:
            cpu = [argument for argument in self._autocast_arguments(other) if string_value(argument.value) == "cpu"]
            if len(cpu) == 1:
                self._sniffs.append(Sniff(node.test, node, cpu_argument=cpu[0]))

    def leave_Module(self, original_node: cst.Module) -> None:
        """Report the sniffs that feed an autocast device type (known only once every call was seen)."""
        for sniff in self._sniffs:
            if self._feeds_autocast(sniff) and self._maps_other_devices_to_cpu(sniff):
                message = CPU_AUTOCAST_MESSAGE if sniff.cpu_argument is not None else MESSAGE
                message += self._torch_device_equality(sniff.test)
                self.report(sniff.test if isinstance(sniff.node, cst.If) else sniff.node, message, fix=self._fix(sniff))

    def _torch_device_equality(self, test: cst.BaseExpression) -> str:
        """What :data:`TORCH_DEVICE_EQUALITY` adds where ``test`` is ``device == "cuda"`` (or ``!=``) and ``device``
        is a parameter neither annotated as a string nor defaulting to one, or is bound to ``torch.device(...)``;
        else nothing."""
        if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
            return ""
        operator = test.comparisons[0].operator
        inspected, literal = test.left, string_value(test.comparisons[0].comparator)
        if not isinstance(operator, (cst.Equal, cst.NotEqual)) or not isinstance(inspected, cst.Name) or literal is None:
            return ""
        why = None
        for binding in self.facts.fact(Names).reaching(inspected):
            if binding.kind == PARAMETER and not _annotated_as_str(binding.node) and not _defaults_to_a_string(binding.node):
                why = "as a caller may pass"
            elif binding.kind != PARAMETER and self._makes_torch_device(self.facts.fact(Names).bound_value(binding)):
                why = "as it is bound here"
                break
        if why is None:
            return ""
        symbol = "==" if isinstance(operator, cst.Equal) else "!="
        return TORCH_DEVICE_EQUALITY.format(name=inspected.value, why=why, operator=symbol, literal=literal)

    def _makes_torch_device(self, value: Optional[cst.BaseExpression]) -> bool:
        return isinstance(value, cst.Call) and self.facts.qualified_name(value.func) in TORCH_DEVICE_MAKERS

    def _cuda_condition(self, test: cst.BaseExpression) -> Optional[bool]:
        return self.facts.fact(CudaOnlyRegions).cuda_condition(test)

    def _previous_binding(
        self, node: cst.If, target: str, on_cuda: Optional[cst.BaseSuite], other: Optional[cst.BaseSuite]
    ) -> Optional[cst.Assign]:
        """For one branch, the ``target = "cuda"``/``"cpu"`` statement just before the ``if`` that the branch overrides."""
        if on_cuda is not None and other is not None:
            return None
        block = self.facts.parent(node)
        statements = list(block.body) if isinstance(block, (cst.Module, cst.IndentedBlock)) else []
        index = next((i for i, s in enumerate(statements) if s is node), 0)
        before = statements[index - 1] if index > 0 else None
        assign = _single_assignment(before) if before is not None else None
        wanted = "cpu" if on_cuda is not None else "cuda"
        if assign is None or dotted(assign.targets[0].target) != target or string_value(assign.value) != wanted:
            return None
        return assign

    def _autocast_device_type(self, call: cst.Call) -> Optional[cst.Arg]:
        """The ``device_type`` argument of an autocast call, else None."""
        api = AMP_APIS.get(self.facts.qualified_name(call.func) or "")
        arguments = bind_arguments(call, api.parameters) if api is not None and api.family == "autocast" else None
        return arguments.get("device_type") if arguments else None

    def _autocast_arguments(self, suite: cst.BaseSuite) -> Iterator[cst.Arg]:
        """The ``device_type`` argument of each autocast call in ``suite``."""
        for node in walk.walk(suite):
            device_type = self._autocast_device_type(node) if isinstance(node, cst.Call) else None
            if device_type is not None:
                yield device_type

    def _autocast_types(self, suite: cst.BaseSuite) -> Set[Optional[str]]:
        return {string_value(argument.value) for argument in self._autocast_arguments(suite)}

    def _feeds_autocast(self, sniff: Sniff) -> bool:
        if sniff.cpu_argument is not None:
            return True
        if sniff.target is not None:
            return sniff.target in self._autocast_device_names
        parent = self.facts.parent(sniff.node)
        if isinstance(parent, cst.Arg):
            return parent in self._autocast_device_arguments
        if isinstance(parent, (cst.Assign, cst.AnnAssign)):
            targets = [t.target for t in parent.targets] if isinstance(parent, cst.Assign) else [parent.target]
            return any(dotted(t) in self._autocast_device_names for t in targets)
        return False

    def _maps_other_devices_to_cpu(self, sniff: Sniff) -> bool:
        """The sniffed device can be something other than CUDA or the CPU (MPS): it would become "cpu"."""
        inspected = _inspected_device(sniff.test)
        if inspected is None:  # torch.cuda.is_available(): wrong only where the module names another accelerator
            return bool(self.facts.fact(DevicesInUse).devices & NAMED_OTHER_ACCELERATORS)
        return bool(self.facts.fact(DeviceLattice).devices_of(inspected) - {Device.CUDA, Device.CPU})

    def _fix(self, sniff: Sniff) -> Optional[CstFix]:
        inspected = _inspected_device(sniff.test)
        if isinstance(inspected, cst.Attribute) and inspected.attr.value == "type":
            device: Optional[DeviceInScope] = DeviceInScope(inspected.value, DeviceKind.TORCH_DEVICE)
        elif inspected is not None:
            device = DeviceInScope(inspected, DeviceKind.UNKNOWN)
        else:
            device = self.facts.fact(DeviceScopes).device_in_scope(sniff.node)
        target = parse_torch_version(self.option("target-torch")) or ASSUMED_TORCH
        if device is None or target < torch_apis.MPS_AUTOCAST:  # older torch raises on autocast("mps")
            return None
        torch = self.facts.torch_name()
        device_type = device.type_expression(torch)
        replacements = _replacements(sniff, device_type)
        if not replacements:
            return None
        needs_torch = device.kind is DeviceKind.UNKNOWN and torch == "torch"
        return CstFix(
            message=(
                "Take the device type from the device itself: autocast then runs on MPS too, in float16 or bfloat16 "
                "with no loss scaling, so results there change"
            ),
            applicability=Applicability.UNSAFE,
            replacements=replacements,
            imports=(Import("torch"),) if needs_torch else (),
        )


def _replacements(sniff: Sniff, device_type: cst.BaseExpression) -> dict:
    """The edits that take the type from the device: the expression, the CPU autocast's ``"cpu"``, or the
    ``if`` statement (rebinding the target once; with one branch, the binding before it takes the type)."""
    if isinstance(sniff.node, cst.IfExp):
        return {sniff.node: device_type}
    if sniff.cpu_argument is not None:
        return {sniff.cpu_argument.value: device_type}
    if sniff.previous is not None:
        return {sniff.previous.value: device_type, sniff.node: cst.RemovalSentinel.REMOVE}
    target = cst.parse_expression(sniff.target or "")
    header = sniff.node.body.header if isinstance(sniff.node.body, cst.IndentedBlock) else cst.TrailingWhitespace()
    statement = cst.SimpleStatementLine(
        body=[cst.Assign(targets=[cst.AssignTarget(target=target)], value=device_type)],
        leading_lines=sniff.node.leading_lines,
        trailing_whitespace=header,  # the comment on the `if` line stays
    )
    return {sniff.node: statement}


def _arms(node: cst.If, condition: bool) -> Tuple[Optional[cst.BaseSuite], Optional[cst.BaseSuite]]:
    """(the branch that runs on CUDA, the one that runs elsewhere) of ``if <test>: ... else: ...``; None where
    there is no such branch. An ``elif`` chain decides among more devices: (None, None)."""
    if isinstance(node.orelse, cst.If):
        return None, None
    orelse = node.orelse.body if isinstance(node.orelse, cst.Else) else None
    return (node.body, orelse) if condition else (orelse, node.body)


def _type_bound_by_branches(on_cuda: Optional[cst.BaseSuite], other: Optional[cst.BaseSuite]) -> Optional[str]:
    """The target each branch there is binds to its device type, ``"cuda"`` on CUDA and ``"cpu"`` elsewhere, and
    nothing else; None without branches."""
    found: Set[Optional[str]] = set()
    for suite, device_type in ((on_cuda, "cuda"), (other, "cpu")):
        if suite is None:
            continue
        statements = list(suite.body) if isinstance(suite, cst.IndentedBlock) else [suite]
        assign = _single_assignment(statements[0]) if len(statements) == 1 else None
        if assign is None or string_value(assign.value) != device_type:
            return None
        found.add(dotted(assign.targets[0].target))
    return found.pop() if len(found) == 1 and None not in found else None


def _single_assignment(statement: cst.CSTNode) -> Optional[cst.Assign]:
    """``target = value`` alone on its line (one target), else None."""
    body = statement.body if isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else ()
    if len(body) == 1 and isinstance(body[0], cst.Assign) and len(body[0].targets) == 1:
        return body[0]
    return None


def _sniff_branches(node: cst.IfExp) -> Optional[bool]:
    """For ``"cuda" if <test> else "cpu"``: True; for ``"cpu" if <test> else "cuda"``: False; else None."""
    branches = (string_value(node.body), string_value(node.orelse))
    if branches == ("cuda", "cpu"):
        return True
    return False if branches == ("cpu", "cuda") else None


def _defaults_to_a_string(parameter: cst.CSTNode) -> bool:
    """``device="cuda"``: the parameter is meant to hold a string."""
    default = getattr(parameter, "default", None)
    return default is not None and string_value(default) is not None


def _annotated_as_str(parameter: cst.CSTNode) -> bool:
    annotation = getattr(parameter, "annotation", None)
    return annotation is not None and isinstance(annotation.annotation, cst.Name) and annotation.annotation.value == "str"


def _inspected_device(test: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """The device value a sniff's test inspects (``device`` in ``"cuda" in device``); None for a global check."""
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
