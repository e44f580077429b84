"""TL201 cuda-amp-on-other-device: CUDA-only AMP in code that can run on MPS or the CPU."""

from __future__ import annotations

import functools
from typing import Dict, FrozenSet, Iterator, List, Optional, Set, Tuple

import libcst as cst

from trainlint.analysis import dotted, walk
from trainlint.analysis.devices import (
    CUDA_DEVICE,
    CudaOnlyRegions,
    DeviceInScope,
    DeviceKind,
    DeviceScopes,
    DevicesInUse,
    is_false_constant,
)
from trainlint.analysis.names import Names
from trainlint.analysis.values import string_value
from trainlint.diagnostics import Applicability
from trainlint.rule import CstFix, Import, Option, Rule
from trainlint.rules.amp import torch_apis
from trainlint.amp_entry_points import AMP_APIS, COMPAT_ERRORS, AmpApi
from trainlint.rules.amp.amp_apis import Arguments, bind_arguments
from trainlint.target_torch import ASSUMED_TORCH, TARGET_TORCH_OPTION, parse_torch_version


# Where a name is bound: the field of its parent that holds it (the name in `def autocast`, `for autocast in`).
_BINDING_FIELDS = {
    cst.FunctionDef: "name",
    cst.ClassDef: "name",
    cst.Param: "name",
    cst.AsName: "name",
    cst.ImportAlias: "name",
    cst.NameItem: "name",
    cst.MatchAs: "name",
    cst.MatchStar: "name",
    cst.AssignTarget: "target",
    cst.AnnAssign: "target",
    cst.AugAssign: "target",
    cst.For: "target",
    cst.CompFor: "target",
    cst.NamedExpr: "target",
}
TARGET_OPTION = "target-torch"
EVERYWHERE_OPTION = "autocast-on-other-accelerators"
_NO_SPACE = cst.SimpleWhitespace("")
_KEYWORD_EQUAL = cst.AssignEqual(whitespace_before=_NO_SPACE, whitespace_after=_NO_SPACE)



class CudaAmpOnOtherDevice(Rule):
    """## What it does
    Finds CUDA-only mixed precision (`torch.cuda.amp`, or autocast/GradScaler
    hard-wired to "cuda") in code that an accelerator other than CUDA can run.

    It reports `torch.cuda.amp.autocast` / `torch.cuda.amp.GradScaler` (under
    any import spelling, `from torch.cuda.amp import *` too, unless the module
    binds the name otherwise), `torch.autocast("cuda")`,
    `torch.amp.autocast(device_type="cuda")`, `torch.amp.GradScaler("cuda")`
    (or with no device: it defaults to CUDA). Also a call through a name
    that holds the CUDA-only API (`autocast = torch.cuda.amp.autocast`, or
    open_clip's `autocast = get_autocast(precision)` whose same-module helper
    returns it), unless the name gets it only on CUDA (`... if device ==
    "cuda" else nullcontext`). A device type sniffed as
    `"cuda" if "cuda" in device else "cpu"` is TL202's.

    "Another accelerator can run it" is a query on the module's devices
    (`trainlint/analysis/devices.py`): the module names MPS, an XPU, NPU or HPU
    (`"mps"`, `torch.backends.mps`, a same-module auto-detection helper that
    can return one, a base class's `self.device`), or its device comes from
    somewhere that can be anything and nothing pins it to CUDA: a `device`
    parameter of a function the module never calls itself (reusable code),
    `accelerator.device` of Accelerate or Fabric, a `--device` option without
    `choices` (or whose choices offer MPS), a config dataclass built from the
    caller's `**overrides`, a helper imported from elsewhere. Code that can
    only be CUDA or the CPU (`"cuda" if torch.cuda.is_available() else "cpu"`,
    a helper returning `cuda:N` or `cpu`, `--device` with choices
    `["cuda:0", "cpu"]`) is not reported: on the CPU these calls warn and
    train in fp32, the fallback such scripts intend. (Their deprecation,
    `torch.cuda.amp.*` since torch 2.4, is not what this rule is about.)

    It stays silent where CUDA-only AMP is deliberate: a device-aware
    `torch.autocast(device_type=device.type)`; an `enabled=` that can only be
    true on CUDA, directly (`enabled=device.type == "cuda"`) or through a
    same-module variable (`use_amp = amp and torch.cuda.is_available()`, or
    set to False under `if device.type != "cuda":`) or helper that checks the
    device (`check_amp(model)` returning False on cpu/mps; an imported
    `check_amp` is trusted by its name), or to the switch that picks CUDA
    (`enabled=args.cuda` where `device = "cuda" if args.cuda else "cpu"`);
    code in an `if`/`else` branch after it sets the device to CUDA
    (`else: self.device = torch.device(f"cuda:{gpus[0]}")`); code under
    `if device.type == "cuda":`, `if torch.cuda.is_available():`,
    `if args.cuda:` (that same switch), `case "cuda":`, or in a test skipped
    without CUDA (`@RunIf(min_cuda_gpus=1)` too); code after a guard that
    leaves (`raise`, `sys.exit()`, `return`) off CUDA, earlier in the same or
    an enclosing block: `if not torch.cuda.is_available(): raise ...`,
    `if device != "cuda": sys.exit(...)`, `assert device == "cuda"`, or
    `if device == "cpu": raise SystemExit(...)` where `device` can only be
    `"cuda"` or `"cpu"` (a guard in another function, one that only warns,
    or one that rejects MPS but lets the CPU through does not count); code
    after a statement that raises without CUDA whenever it runs, placed the
    same way: `torch.cuda.synchronize()` (or another CUDA runtime call),
    `batch = batch.cuda()`, `model.cuda()` (one under an `if`, in a `try`, a
    loop, a conditional expression or a comprehension does not count);
    CUDA-only modules (`assert torch.cuda.is_available()`,
    `torch.cuda.set_device`, NCCL, `f"cuda:{rank}"`, an import of TensorRT,
    cuda-python, PyCUDA, CuPy or Apex, an unconditional
    `model.cuda()` or `torch.cuda.synchronize()` (or another call that
    raises without CUDA), never naming another device; `map_location="cpu"` and
    `x.to("cpu")` do not count as naming one); and version-gated fallbacks (`torch.amp.GradScaler(...) if
    TORCH_2_4 else torch.cuda.amp.GradScaler()`, `try: ... except
    (AttributeError, TypeError): ...`, `try: from torch.amp import GradScaler`
    / `except ImportError: from torch.cuda.amp import GradScaler`).

    ## Why is this bad
    On MPS or another accelerator these calls warn ("CUDA is not available ...
    Disabling autocast", "GradScaler is enabled, but CUDA is not available.
    Disabling.") and turn themselves off: the "mixed precision" run silently
    trains in fp32. And a `GradScaler` must never be
    enabled on MPS: its `unscale_` calls `.double()`, which MPS rejects
    (pytorch/pytorch#142397).

    ## Example
    ```python
    from torch.cuda.amp import GradScaler, autocast

    device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")
    scaler = GradScaler(enabled=config.mixed_precision)
    with autocast(enabled=config.mixed_precision):
        loss = loss_fn(model(x), y)
    ```

    ## Use instead
    ```python
    device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")
    scaler = torch.amp.GradScaler("cuda", enabled=config.mixed_precision and device.type == "cuda")
    with torch.autocast(device_type=device.type, enabled=config.mixed_precision and device.type != "cpu"):
        loss = loss_fn(model(x), y)
    ```

    ## Fix safety
    The fix is safe: it keeps mixed precision exactly where it ran before
    (on CUDA) and removes the warnings elsewhere, where the original turned
    itself off anyway. Autocast and the scaler get
    `enabled=<their enabled> and <device type> == "cuda"`, every other
    argument kept; with no device in scope (`device`, `self.device` set in the
    class or a same-module base class, `args.device`, a module-level `DEVICE`),
    `enabled=... and torch.cuda.is_available()`. The device type is
    `device.type` for a `torch.device` (`accelerator.device` is one), the
    string itself for a plain `"mps"`/`"cpu"`, and `torch.device(device).type`
    when it may be either. Where the target torch has them,
    `torch.cuda.amp.autocast` becomes `torch.autocast("cuda", ...)` (torch
    1.10) and `torch.cuda.amp.GradScaler` becomes `torch.amp.GradScaler("cuda", ...)`
    (torch 2.3); below that the call keeps its API and only gains the
    `enabled` gate. A `from torch.cuda.amp import ...` left unused (at module
    level or in a function) is dropped, keeping the blank line before it;
    `import torch` is added if needed; a star import stays. A call through
    a name keeps calling that name and only gains the `enabled` gate; where
    the name may also hold another context (`suppress`, which takes no
    `enabled`), the finding has no fix.

    Making AMP actually run on MPS or an XPU changes numerics (float16 on MPS,
    with no loss scaling: the GradScaler must stay CUDA-only), so it is a
    separate, unsafe fix, offered for autocast when the option
    `autocast-on-other-accelerators = true` is set and the target torch is
    2.5 or later (MPS autocast arrived in 2.5; older releases raise):
    `torch.autocast(device_type=<device type>, enabled=... and <device type> != "cpu")`.

    ## Options
    `target-torch` (usually set once for every rule as `[tool.trainlint]
    target-torch = "2.3"`, else read from the project's dependency on torch;
    1.10 when nothing says) decides which APIs the fixes write;
    `autocast-on-other-accelerators` (default false) picks the unsafe fix above.

    ## Evidence
    `fixtures/TL201_cuda_amp_on_other_device/` (bad cases with fixed
    snapshots, ok traps for each guard above); `tests/test_runtime_TL201.py`
    runs every bad case and its fix on the CPU: the bad one emits the
    "CUDA is not available" warnings, the fixed one emits no AMP warning and
    its per-step losses equal `reference_trainer.run(...)`'s.
    """

    fix = Applicability.SAFE
    options = {
        TARGET_OPTION: TARGET_TORCH_OPTION,
        EVERYWHERE_OPTION: Option(
            False,
            "Fix autocast to run on the device's own type (MPS, XPU), not on CUDA only: unsafe, since float16 "
            "on MPS without loss scaling changes results; needs target-torch 2.5 or later",
            kind=bool,
        ),
    }

    # -- torch.cuda.amp and hard-wired "cuda" ----------------------------------------

    def visit_Call(self, node: cst.Call) -> None:
        found = self._amp_call(node)
        if found is None:
            return
        api, arguments, alias, references = found
        device_argument = arguments.get(api.device_parameter)
        if not self._hard_wired(api, device_argument) or self._deliberately_cuda(node, api, arguments):
            return
        if references and all(self.facts.fact(CudaOnlyRegions).runs_only_on_cuda(r) for r in references):
            return  # `autocast = torch.cuda.amp.autocast if device == "cuda" else nullcontext`
        # through a name: gate the call where the name holds nothing else, else report only (`suppress()`
        # takes no `enabled`)
        fix = None if alias is None else self._amp_fix(node, api, arguments, keep_api=bool(alias))
        self.report(node, _message(api), fix=fix)

    def _amp_call(self, node: cst.Call) -> Optional[Tuple[AmpApi, Arguments, Optional[bool], List[cst.BaseExpression]]]:
        """The AMP API ``node`` calls, its arguments, how (False for the API itself, True through a name that
        holds only it, None through a name that may also hold something else), and where a name was given it."""
        api, alias, references = self._amp_api(node.func), False, []
        if api is None and isinstance(node.func, cst.Name):
            held = self._values_held(node.func, depth=0)
            apis = {self._amp_api(v) if isinstance(v, (cst.Name, cst.Attribute)) else None for v in held}
            cuda_only = [a for a in apis if a is not None and a.cuda_only]
            api, alias = (cuda_only[0], True if len(apis) == 1 else None) if len(cuda_only) == 1 else (None, False)
            references = [v for v in held if v is not None and v is not node.func and self._amp_api(v) is api]
        head = (dotted(node.func) or "").split(".")[0]
        if api is None or head in self._ambiguous_imports:
            return None
        arguments = bind_arguments(node, api.parameters)
        return None if arguments is None else (api, arguments, alias, references)

    def _values_held(self, expression: cst.BaseExpression, depth: int) -> List[Optional[cst.BaseExpression]]:
        """What a name may hold, followed through its bindings, conditional expressions and what same-module
        functions return (None where it cannot be told): open_clip's ``autocast = get_autocast(precision)``,
        whose ``get_autocast`` returns ``torch.cuda.amp.autocast`` or ``suppress``."""
        if depth > 3:
            return [None]
        if isinstance(expression, cst.IfExp):
            return self._values_held(expression.body, depth + 1) + self._values_held(expression.orelse, depth + 1)
        names = self.facts.fact(Names)
        if isinstance(expression, cst.Call):
            returned = [r for f in names.callees(expression) for r in names.returns(f)]
            return [v for r in returned for v in self._values_held(r, depth + 1)] or [None]
        if not isinstance(expression, cst.Name) or self._amp_api(expression) is not None:
            return [expression]
        bindings = names.reaching(expression)
        values = [names.bound_value(b) for b in bindings]
        if not values or None in values:
            return [expression]  # a parameter, an import, a loop target: held as it is named
        return [v for value in values for v in self._values_held(value, depth + 1)]  # type: ignore[arg-type]

    @staticmethod
    def _hard_wired(api: AmpApi, device_argument: Optional[cst.Arg]) -> bool:
        if api.cuda_only:
            return True
        if device_argument is None:
            return api.family == "GradScaler"  # torch.amp.GradScaler() defaults to "cuda"
        return bool(CUDA_DEVICE.match(string_value(device_argument.value) or ""))

    def _deliberately_cuda(self, node: cst.Call, api: AmpApi, arguments: Arguments) -> bool:
        """CUDA-only on purpose: the module or this code path only runs on CUDA, or it is a compat shim."""
        if not self.facts.fact(DevicesInUse).reaches_other_accelerator:
            return True
        regions = self.facts.fact(CudaOnlyRegions)
        enabled = arguments.get("enabled")
        if enabled is not None and (is_false_constant(enabled.value) or regions.ties_to_cuda(enabled.value)):
            return True
        return regions.runs_only_on_cuda(node) or self._is_compat_fallback(node, api)

    def _is_compat_fallback(self, node: cst.Call, api: AmpApi) -> bool:
        """One branch of an ``if``/``try`` offering the other AMP API: a shim for older or newer torch."""
        child = node
        for ancestor in self.facts.ancestors(node):
            if isinstance(ancestor, (cst.If, cst.IfExp)) and (child is ancestor.body or child is ancestor.orelse):
                other = ancestor.orelse if child is ancestor.body else ancestor.body
                if other is not None and self._uses_amp(other, cuda_only=not api.cuda_only):
                    return True
            if isinstance(ancestor, cst.Try) and _catches_compat_errors(ancestor):
                if self._uses_amp(ancestor, cuda_only=not api.cuda_only):
                    return True
            child = ancestor
        return False

    def _uses_amp(self, tree: cst.CSTNode, cuda_only: bool) -> bool:
        for call in _calls_in(tree):
            api = self._amp_api(call.func)
            if api is not None and api.cuda_only == cuda_only:
                return True
        return False

    def _amp_api(self, func: cst.BaseExpression) -> Optional[AmpApi]:
        """The AMP entry point ``func`` names, imported by name or by ``from torch.cuda.amp import *`` and the like."""
        name = self.facts.qualified_name(func)
        if name is None and isinstance(func, cst.Name):
            return self._star_imported.get(func.value)
        return AMP_APIS.get(name or "")

    @functools.cached_property
    def _star_imported(self) -> Dict[str, AmpApi]:
        """The AMP names star imports bring in: ``from torch.cuda.amp import *`` binds ``autocast`` and ``GradScaler``.

        The import table does not list them. A name counts only where one AMP
        entry point offers it and the module binds it nowhere else (a ``def
        autocast``, an ``autocast = ...``, an ``import ... as autocast``).
        """
        offered: Dict[str, Set[AmpApi]] = {}
        for statement in self.facts.nodes(cst.ImportFrom):
            if isinstance(statement.names, cst.ImportStar) and statement.module is not None and not statement.relative:
                for name, api in _star_exports(dotted(statement.module) or ""):
                    offered.setdefault(name, set()).add(api)
        return {name: api for name, (api, *others) in offered.items() if not others and not self._bound_here(name)}

    def _bound_here(self, name: str) -> bool:
        """Bound anywhere, in any scope: a local ``autocast`` may be what a call means, so it is not read as AMP."""
        return any(node.value == name and self._binds(node) for node in self.facts.nodes(cst.Name))

    def _binds(self, name: cst.Name) -> bool:
        """``name`` is bound where it stands: a ``def``/``class``/parameter name, a target, an import or ``as`` name."""
        node, parent = name, self.facts.parent(name)
        while isinstance(parent, (cst.Element, cst.StarredElement, cst.Tuple, cst.List)):  # `a, autocast = ...`
            node, parent = parent, self.facts.parent(parent)
        if isinstance(parent, cst.ImportAlias) and parent.asname is not None:
            return False  # `from x import autocast as ac` binds `ac`
        field = _BINDING_FIELDS.get(type(parent))
        return field is not None and getattr(parent, field) is node

    @functools.cached_property
    def _ambiguous_imports(self) -> FrozenSet[str]:
        """Names imported from two places: ``try: from torch.amp import GradScaler``,
        ``except ImportError: from torch.cuda.amp import GradScaler``."""
        sources: Dict[str, Set[str]] = {}
        for statement in self.facts.nodes(cst.ImportFrom):
            module = dotted(statement.module) if statement.module is not None else None
            if module is None or isinstance(statement.names, cst.ImportStar):
                continue
            for alias in statement.names:
                local = alias.asname.name if alias.asname is not None else alias.name
                if isinstance(local, cst.Name):
                    sources.setdefault(local.value, set()).add(f"{module}.{dotted(alias.name)}")
        return frozenset(name for name, found in sources.items() if len(found) > 1)

    # -- the fix ------------------------------------------------------------------

    def _amp_fix(self, node: cst.Call, api: AmpApi, arguments: Arguments, keep_api: bool = False) -> Optional[CstFix]:
        """The safe fix (AMP stays exactly where it ran: on CUDA), or, where the option asks for it and the
        target torch has MPS autocast, the unsafe one that runs autocast on the device's own type. A call
        through a name (``keep_api``) keeps calling that name and only gains the gate."""
        device = self.facts.fact(DeviceScopes).device_in_scope(node)
        everywhere = api.family == "autocast" and device is not None and self.option(EVERYWHERE_OPTION)
        if everywhere and not keep_api and self._target() >= torch_apis.MPS_AUTOCAST:
            return self._autocast_everywhere_fix(node, api, arguments, device)
        return self._cuda_only_fix(node, api, arguments, device, keep_api)

    def _cuda_only_fix(
        self, node: cst.Call, api: AmpApi, arguments: Arguments, device: Optional[DeviceInScope], keep_api: bool = False
    ) -> CstFix:
        """Enabled only on CUDA: identical there, and no warning (nor AMP) where it used to turn itself off.

        ``torch.cuda.amp`` becomes ``torch.autocast("cuda", ...)`` / ``torch.amp.GradScaler("cuda", ...)``
        where the target torch has them, and stays as it is below that.
        """
        torch = self.facts.torch_name()
        if device is None:
            gate: cst.BaseExpression = cst.parse_expression(f"{torch}.cuda.is_available()")
        else:
            gate = _compare(device.type_expression(torch), cst.Equal(), self._string("cuda"))
        enabled = _both(arguments["enabled"].value, gate) if "enabled" in arguments else gate
        since = torch_apis.AUTOCAST if api.family == "autocast" else torch_apis.AMP_GRAD_SCALER
        modernised = api.cuda_only and self._target() >= since and not keep_api
        new_api = f"{torch}.autocast" if api.family == "autocast" else f"{torch}.amp.GradScaler"
        new_call = node.with_changes(
            func=cst.parse_expression(new_api) if modernised else node.func,
            args=_rewritten_arguments(node, api, arguments, self._string("cuda") if modernised else None, enabled),
        )
        spelled = device is None or device.kind is DeviceKind.UNKNOWN or modernised
        where = "where CUDA is available" if device is None else "on a CUDA device"
        return CstFix(
            message=f"Enable {api.family} {where} only: AMP runs exactly where it ran, and nothing warns elsewhere",
            applicability=Applicability.SAFE,
            replacements={node: new_call},
            imports=self._torch_import(spelled),
            unused_imports=self._import_of(node.func) if modernised else (),
        )

    def _autocast_everywhere_fix(
        self, node: cst.Call, api: AmpApi, arguments: Arguments, device: DeviceInScope
    ) -> CstFix:
        """``torch.autocast(device_type=<the device's type>, enabled=... and <type> != "cpu")``: real mixed
        precision on MPS and XPU too, which changes their numerics (unsafe)."""
        torch = self.facts.torch_name()
        device_type = device.type_expression(torch)
        gate = _compare(device.type_expression(torch), cst.NotEqual(), self._string("cpu"))
        enabled = _both(arguments["enabled"].value, gate) if "enabled" in arguments else gate
        new_call = node.with_changes(
            func=cst.parse_expression(f"{torch}.autocast") if api.cuda_only else node.func,
            args=_rewritten_arguments(node, api, arguments, device_type, enabled, keyword_device=True),
        )
        return CstFix(
            message=(
                "Run autocast on the device's own type: on MPS it then computes in float16 with no loss scaling "
                "(the GradScaler stays CUDA-only), so results there change; CPU autocast stays off"
            ),
            applicability=Applicability.UNSAFE,
            replacements={node: new_call},
            imports=self._torch_import(api.cuda_only or device.kind is DeviceKind.UNKNOWN),
            unused_imports=self._import_of(node.func) if api.cuda_only else (),
        )

    def _target(self) -> torch_apis.Version:
        return parse_torch_version(self.option(TARGET_OPTION)) or ASSUMED_TORCH

    def _torch_import(self, needed: bool) -> Tuple[Import, ...]:
        """``import torch`` when the fix spells ``torch`` and the module has no alias for it."""
        return (Import("torch"),) if needed and self.facts.torch_name() == "torch" else ()

    def _import_of(self, func: cst.BaseExpression) -> Tuple[Import, ...]:
        """The ``from torch.cuda.amp import autocast`` (or ``from torch.cuda import amp``) behind ``func``."""
        head = (dotted(func) or "").split(".")[0]
        module, _, name = self.facts.imports.bindings.get(head, "").rpartition(".")
        return (Import(module, name),) if module else ()

    def _string(self, value: str) -> cst.SimpleString:
        """A string literal in the module's prevailing quote style."""
        quote = "'" if self.facts.text.count("'") > self.facts.text.count('"') else '"'
        return cst.SimpleString(f"{quote}{value}{quote}")

def _message(api: AmpApi) -> str:
    off = "warns and turns itself off" if api.family == "autocast" else "warns and disables itself"
    if api.cuda_only:
        where = "where this code runs on MPS or another accelerator that is not CUDA"
        return f"`torch.cuda.amp.{api.family}` is CUDA-only: {where} it {off}, so AMP silently does nothing"
    return f'{api.family} is hard-wired to "cuda" in code that MPS or another non-CUDA accelerator can run, where it {off}'


def _star_exports(module: str) -> Iterator[Tuple[str, AmpApi]]:
    """The AMP entry points ``from <module> import *`` binds: every module in AMP_APIS lists them in ``__all__``."""
    for qualified, api in AMP_APIS.items():
        owner, _, name = qualified.rpartition(".")
        if owner == module:
            yield name, api


def _rewritten_arguments(
    call: cst.Call,
    api: AmpApi,
    arguments: Arguments,
    device_type: Optional[cst.BaseExpression],
    enabled: cst.BaseExpression,
    keyword_device: bool = False,
) -> List[cst.Arg]:
    """The call's arguments with ``enabled`` set, and the device type where one is given; every other argument
    kept. Leaving ``torch.cuda.amp`` (a ``device_type``), positional arguments become keywords: ``torch.amp``
    orders its parameters differently.
    """
    new: List[cst.Arg] = []
    for name, arg in arguments.items():
        if name == api.device_parameter and device_type is not None:
            arg = arg.with_changes(value=device_type)
        elif name == "enabled":
            arg = arg.with_changes(value=enabled)
        if api.cuda_only and device_type is not None and arg.keyword is None:
            arg = arg.with_changes(keyword=cst.Name(name), equal=_KEYWORD_EQUAL)
        new.append(arg)
    if device_type is not None and api.device_parameter not in arguments:
        keyword = cst.Name(api.device_parameter) if keyword_device else None
        equal = _KEYWORD_EQUAL if keyword else cst.MaybeSentinel.DEFAULT
        first = cst.Arg(value=device_type, keyword=keyword, equal=equal)
        if new and isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace):  # one argument per line
            first = first.with_changes(comma=cst.Comma(whitespace_after=call.whitespace_before_args))
        new.insert(0, first)
    if "enabled" not in arguments:
        enabled_argument = cst.Arg(value=enabled, keyword=cst.Name("enabled"), equal=_KEYWORD_EQUAL)
        if new:
            _append_argument(call, new, enabled_argument)
        else:
            new.append(enabled_argument)
    return new


def _compare(left: cst.BaseExpression, operator: cst.BaseCompOp, right: cst.BaseExpression) -> cst.Comparison:
    return cst.Comparison(left=left, comparisons=[cst.ComparisonTarget(operator=operator, comparator=right)])


def _append_argument(call: cst.Call, arguments: List[cst.Arg], new: cst.Arg) -> None:
    """Append ``new``, moving a trailing comma (and the line break after it) to the new last argument."""
    last = arguments[-1]
    if isinstance(last.comma, cst.Comma) and isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace):
        separator = last.comma.with_changes(whitespace_after=call.whitespace_before_args)
        arguments[-1] = last.with_changes(comma=separator)
        new = new.with_changes(comma=last.comma)
    elif isinstance(last.comma, cst.Comma):
        arguments[-1] = last.with_changes(comma=cst.MaybeSentinel.DEFAULT)
    arguments.append(new)


def _both(existing: cst.BaseExpression, gate: cst.BaseExpression) -> cst.BaseExpression:
    """``existing and gate``; just ``gate`` when ``existing`` is ``True``."""
    if isinstance(existing, cst.Name) and existing.value == "True":
        return gate
    binds_looser = isinstance(existing, (cst.IfExp, cst.Lambda, cst.NamedExpr)) or (
        isinstance(existing, cst.BooleanOperation) and isinstance(existing.operator, cst.Or)
    )
    if binds_looser and not existing.lpar:
        existing = existing.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.BooleanOperation(left=existing, operator=cst.And(), right=gate)


def _catches_compat_errors(statement: cst.Try) -> bool:
    for handler in statement.handlers:
        kinds = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
        names = {dotted(k.value if isinstance(k, cst.Element) else k) for k in kinds if k is not None}
        if names & COMPAT_ERRORS:
            return True
    return False


def _calls_in(tree: cst.CSTNode) -> Iterator[cst.Call]:
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call):
            yield node
        stack.extend(walk.children(node))
