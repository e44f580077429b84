"""The questions of the device rules (TL104, TL201, TL202), asked of the walk's facts: does the module
pin memory, call CUDA-only AMP, or sniff a device's type, where it may reach a device other than CUDA.
"""

from __future__ import annotations

import ast
import functools
from typing import Dict, Iterator, List, Optional, Set, Tuple

from trainlint.amp_entry_points import AMP_APIS, COMPAT_ERRORS
from trainlint.prescreen.nodes import _callable_names, _dotted, _is_false, _keyword_value, _string
from trainlint.prescreen.traversal import _children, _nodes_of
from trainlint.prescreen.values import last_name
from trainlint.prescreen.walk import _AMP_APIS, TreeFacts
from trainlint.step_words import (
    CUDA_CHECK_CALLS,
    CUDA_DEVICE,
    DEVICE_OPTION,
    DEVICE_VARIABLE,
    GPU_ONLY_DECORATOR,
    LAUNCHER_CLASSES,
    LAUNCHER_NAMES,
    NON_CUDA_DEVICE,
    SKIP_DECORATORS,
)

# Mirror trainlint.analysis.devices: the launchers that pick a device, the words of its sources of devices
# (DEVICE_VARIABLE, DEVICE_OPTION), and the accelerators other than CUDA (OTHER_ACCELERATOR_DEVICE).
_LAUNCHERS = frozenset(name.rsplit(".", 1)[-1] for name in LAUNCHER_CLASSES)
_LAUNCHER_WORDS = _LAUNCHERS | LAUNCHER_NAMES
_DEVICE_SOURCE_WORDS = ("device", "gpu_type", "accelerator")
_OTHER_ACCELERATORS = ("xpu", "npu", "hpu", "xla", "mlu", "musa")
# a module part of a `from` import that names a device, as the rule's qualified names read it (not `lightning.fabric`)
_ACCELERATOR_MODULES = frozenset({"mps", *_OTHER_ACCELERATORS})
# Calls whose keywords TL104 reads as a loader's: `partial(DataLoader, ...)`, and a `**` dict's content
# (placement's `_keyword_dict`: `dict(pin_memory=True)`, `kwargs.update(pin_memory=True)`).
_KEYWORD_DICTS = frozenset({"partial", "dict", "update"})
_UNSURE = "unsure"  # an arm of a device switch whose pick the screen cannot tell (`torch.device(...)`, an f-string)
_CONDITIONAL_CODE = (ast.If, ast.IfExp, ast.Try, ast.BoolOp, ast.Match, *([ast.TryStar] if hasattr(ast, "TryStar") else []))


class DeviceQuestions(TreeFacts):
    """What TL104, TL201 and TL202 ask of a module's facts."""

    @functools.cached_property
    def pins(self) -> bool:
        """TL104's two kinds: a tensor pinned (reported wherever CUDA is not certain), or a loader's pinning
        (reported only where the module selects the CPU or MPS, ``DevicesInUse.selects_cpu_or_mps``)."""
        tensors: List[ast.AST] = []
        loaders = list(self._pin_values)
        for func, value, positional in self._pin_arguments:
            if self._may_take_pin_memory(func, positional):
                (tensors if self._may_pin_a_tensor(func) else loaders).append(value)
        if any(map(self.values.may_be_true, tensors)) or not all(map(self._surely_cuda_certain, self._pinned_tensors)):
            return True
        return any(map(self.values.may_be_true, loaders)) and self._may_select_cpu_or_mps

    def _surely_cuda_certain(self, call: ast.Call) -> bool:
        """Mirror TL104's ``_cuda_certain``, narrower: ``x.pin_memory()`` in the body of an ``if`` (or the chosen arm of
        a conditional expression) whose test surely holds only on CUDA (``CudaOnlyRegions.runs_only_on_cuda``), or
        of an ``if args.flag:`` in its own function whose every option is off unless given (``_under_opt_in_flag``)."""
        own_function = True
        for child, ancestor in self._ancestry(call):
            if isinstance(ancestor, ast.If) and any(statement is child for statement in ancestor.body):
                if self._surely_on_cuda(ancestor.test) or (own_function and self._surely_opt_in_flag(ancestor.test)):
                    return True
            elif isinstance(ancestor, ast.IfExp) and child is ancestor.body and self._surely_on_cuda(ancestor.test):
                return True
            own_function = own_function and not isinstance(ancestor, (ast.FunctionDef, ast.AsyncFunctionDef))
        return False

    def _surely_on_cuda(self, test: ast.AST) -> bool:
        """Mirror ``CudaOnlyRegions.cuda_condition``, narrower: where it surely answers True. ``a and b`` with either
        side so, ``a or b`` with every side so; ``torch.cuda.is_available()`` (``device_count``, ``is_bf16_supported``)
        spelled from ``import torch``; ``x.is_cuda``; ``x == "cuda"``; ``"cuda" in x``; ``x.startswith("cuda")``; or a
        switch (:meth:`_surely_a_cuda_switch`)."""
        if isinstance(test, ast.BoolOp):
            sides = [self._surely_on_cuda(value) for value in test.values]
            return any(sides) if isinstance(test.op, ast.And) else all(sides)
        if isinstance(test, ast.Call):
            if self._calls_a_cuda_check(test):
                return True
            method = test.func.attr if isinstance(test.func, ast.Attribute) else None
            return method == "startswith" and bool(test.args) and _is_cuda_literal(test.args[0])
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            left, operator, right = test.left, test.ops[0], test.comparators[0]
            if isinstance(operator, ast.Eq):  # the rule reads the literal on the right, swapping a literal on the left
                return _is_cuda_literal(left if _string(left) is not None else right)
            return isinstance(operator, ast.In) and _is_cuda_literal(left)
        if isinstance(test, ast.Attribute) and test.attr == "is_cuda":
            return True
        return isinstance(test, (ast.Name, ast.Attribute)) and self._surely_a_cuda_switch(_dotted(test))

    def _surely_a_cuda_switch(self, spelled: str) -> bool:
        """Mirror ``CudaOnlyRegions._variable_condition``, narrower: ``args.cuda`` that no statement of the module
        assigns (no binding of the name, no store to the attribute: the rule then reads no value of it), and that the
        module's conditional expressions testing it pick only CUDA when it holds (``"cuda" if args.cuda else "cpu"``,
        the scan's ``device_choices``), each arm a literal whose pick is certain."""
        last = spelled.rsplit(".", 1)[-1]
        if not spelled or last in self._bindings or last in self._stored_attributes:
            return False
        senses: Set[bool] = set()
        for choice in self._switches.get(spelled, ()):
            picks = (_picks_cuda(choice.body), _picks_cuda(choice.orelse))
            if _UNSURE in picks:
                return False
            if picks in ((True, False), (False, True)):
                senses.add(picks[0])  # type: ignore[arg-type]
        return senses == {True}

    @functools.cached_property
    def _switches(self) -> Dict[str, List[ast.IfExp]]:
        """The conditional expressions testing a name or attribute, by its spelling: walked again on demand, for a
        module that pins a tensor."""
        found: Dict[str, List[ast.IfExp]] = {}
        for node in self._all_nodes:
            if isinstance(node, ast.IfExp) and _dotted(node.test):
                found.setdefault(_dotted(node.test), []).append(node)
        return found

    def _surely_opt_in_flag(self, test: ast.AST) -> bool:
        """Mirror ``Values.is_opt_in_flag``: ``args.flag`` where every ``add_argument`` storing to ``flag`` (and there
        is one) is ``action="store_true"`` without a true default."""
        if not isinstance(test, ast.Attribute):
            return False
        options = [c for c in self.values.calls_named("add_argument") if _option_destination(c) == test.attr]
        return bool(options) and all(map(_off_unless_given, options))

    def _may_take_pin_memory(self, func: ast.AST, positional: bool) -> bool:
        """Mirror TL104's calls, wider: a DataLoader's ``pin_memory`` (the eighth positional argument too), a
        ``torch.<factory>(..., pin_memory=)``, ``partial``'s, a dict's ``update``, or a keyword handed to a function or class of this
        module that may forward ``**kwargs`` to a DataLoader (``placement.forwarded_loader_arguments``: one with a
        ``**`` parameter, or a class without an ``__init__`` of its own). A method of anything else
        (``wds.WebLoader(..., pin_memory=True)``) pins nothing the rule reads."""
        # through an alias or a `partial` too (`make = BatchLoader`); a callee that is a call itself by what it may
        # run (`get_builder()(ds, ...)`, `Factory()(...)`, `partial(make_loader)(...)`), as `Names.callees` resolves it
        names = self._may_call(_callable_names(func) or {last_name(func)})
        if "DataLoader" in names:
            return True
        if positional:
            return False
        if self._may_pin_a_tensor(func) or not names.isdisjoint(_KEYWORD_DICTS):  # the rule reads a `**` dict's keywords
            return True
        if not names.isdisjoint(self._forwarding_functions):
            return True
        return any(n in self._class_names and n not in self._classes_with_init for n in names)

    def _may_pin_a_tensor(self, func: ast.AST) -> bool:
        """A callee whose ``pin_memory=`` TL104 reads as a tensor factory's, ``torch.<name>`` by its qualified name:
        ``torch.empty``, ``th.empty``, or a name ``from torch import empty`` binds. Not a name another import binds
        (``unittest.mock.call``), nor one a star import may (the rule's qualified names do not resolve those),
        nor a DataLoader, whose pinning is the loader kind."""
        if self._aliases.get(last_name(func), last_name(func)) == "DataLoader":
            return False
        return self._is_torch_function(func) or (isinstance(func, ast.Name) and func.id in self._from_torch)

    @functools.cached_property
    def _may_select_cpu_or_mps(self) -> bool:
        """Mirror ``DevicesInUse.selects_cpu_or_mps``, wider. The device lattice finds the CPU or MPS only in a
        literal (``"cpu"``, ``"mps:0"``, ``f"cpu:{i}"``, an option's ``"cuda or mps"``, a launcher's
        ``accelerator="gpu"``), a reference to ``torch.mps``/``torch.backends.mps``, ``torch._C._get_accelerator``,
        or a launcher's ``.device`` (``fabric.device``, ``Accelerator().device``)."""
        identifiers, strings = self._device_words
        if self._may_name_mps or "_get_accelerator" in identifiers:
            return True
        if not self._may_choose_a_device:
            return False
        if "device" in identifiers and not identifiers.isdisjoint(_LAUNCHER_WORDS):
            return True
        return any(text.startswith("cpu") for text in strings)

    @functools.cached_property
    def _may_choose_a_device(self) -> bool:
        """Mirror where ``DevicesInUse.devices`` starts, wider: beside what names MPS or another accelerator, only a
        device variable, parameter, field or keyword (``DEVICE_VARIABLE``: ``device``, ``train_device``, not
        ``devices``, which also covers ``torch.device(...)``), a function named with "device", a launcher
        (``Fabric(accelerator="cpu")``) or a device option (``add_argument("--device", ...)``) chooses a device. A
        Lightning test's ``Trainer(accelerator="cpu", devices=2)`` chooses none the rule sees."""
        identifiers, _ = self._device_words
        if any(DEVICE_VARIABLE.match(name) for name in identifiers) or not identifiers.isdisjoint(_LAUNCHERS):
            return True
        if any("device" in name.lower() for name in self._names):
            return True
        options = self.values.calls_named("add_argument")
        return any(_names_a_device_option(argument) for call in options for argument in (*call.args, *(k.value for k in call.keywords)))

    @functools.cached_property
    def _may_name_mps(self) -> bool:
        """MPS named: ``torch.mps``/``torch.backends.mps``, an ``"mps"`` literal or an option's words with it, or a
        launcher's ``accelerator="gpu"`` (CUDA or MPS), in the device lattice's terms, wider."""
        identifiers, strings = self._device_words
        return "mps" in identifiers or any("mps" in text or text == "gpu" for text in strings)

    @functools.cached_property
    def _may_reach_another_accelerator(self) -> bool:
        """Mirror ``DevicesInUse.reaches_other_accelerator``, wider: the lattice has a device other than CUDA and
        the CPU only from what names one (an ``"mps"``/``"xpu"`` literal, ``torch.mps``) or from a source of devices:
        a variable, parameter, field, keyword or helper spelled like a device (``device``, ``gpu_type``), an option
        naming a device or an accelerator, ``torch.device(...)``, a launcher; the sources count only where nothing
        surely pins the module to CUDA. A module with none of these words (Lightning's FSDP precision plugin,
        ``torch.autocast("cuda")`` and no device anywhere) reaches none, nor does one that imports TensorRT."""
        identifiers, strings = self._device_words
        if self._may_name_mps or any(text.startswith(_OTHER_ACCELERATORS) for text in strings):
            return True  # MPS or another accelerator named
        if self._surely_pinned_to_cuda:
            return False
        if not identifiers.isdisjoint(_LAUNCHERS) or "_get_accelerator" in identifiers:
            return True
        words = [name.lower() for name in identifiers] + strings
        return any(source in word for word in words for source in _DEVICE_SOURCE_WORDS)

    @functools.cached_property
    def _surely_pinned_to_cuda(self) -> bool:
        """Mirror ``DevicesInUse.pinned_to_cuda``, narrower: an import of a library that loads only where CUDA is
        (``import tensorrt as trt``, ``from cuda import cudart``, Transformer Engine in the method that uses it),
        under no ``if``, ``try``, conditional expression, boolean operation or ``match``. The rule reads a device
        from a caller or a launcher as another accelerator only where nothing pins the module to CUDA; one it
        names, never so."""
        return not all(map(self._under_a_condition, self._cuda_only_imports))

    def _under_a_condition(self, node: ast.AST) -> bool:
        """Mirror the device analysis' ``_CONDITIONAL_CODE``: some ancestor may not run it."""
        return any(isinstance(ancestor, _CONDITIONAL_CODE) for _, ancestor in self._ancestry(node))

    @functools.cached_property
    def _device_words(self) -> Tuple[Set[str], List[str]]:
        """Every identifier of the module (names, attributes, parameters, keywords, definitions, imports) and every
        string literal, lowered: where the device analysis finds its devices. Walked again on demand, so that the
        walk stays as fast for the modules that never ask."""
        identifiers: Set[str] = set()
        strings: List[str] = []
        for node in self._all_nodes:
            kind = type(node)
            if kind is ast.Constant:
                value = node.value  # type: ignore[attr-defined]
                if isinstance(value, (str, bytes)):
                    strings.append((value.decode("latin-1") if isinstance(value, bytes) else value).lower())
            elif kind is ast.Name:
                identifiers.add(node.id)  # type: ignore[attr-defined]
            elif kind is ast.Attribute:
                identifiers.add(node.attr)  # type: ignore[attr-defined]
            elif kind is ast.alias:
                identifiers.update(node.name.split("."))  # type: ignore[attr-defined]
                identifiers.add(node.asname or "")  # type: ignore[attr-defined]
            elif kind is ast.ImportFrom:  # `from torch.backends.mps import is_available`: a qualified name's device
                identifiers.update(part for part in (node.module or "").split(".") if part in _ACCELERATOR_MODULES)  # type: ignore[attr-defined]
            elif kind is ast.arg or kind is ast.keyword:
                identifiers.add(node.arg or "")  # type: ignore[attr-defined]
            elif kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
                identifiers.add(node.name)  # type: ignore[attr-defined]
        return identifiers, strings

    @functools.cached_property
    def calls_amp(self) -> bool:
        return not self._called_names.isdisjoint(_AMP_APIS)

    @functools.cached_property
    def amp_may_be_cuda_only(self) -> bool:
        return self.calls_amp and self._amp_may_be_cuda_only() and self._may_reach_another_accelerator

    @functools.cached_property
    def sniffs_device_type(self) -> bool:
        return self.calls_amp and self._may_sniff_device_type()

    def _amp_may_be_cuda_only(self) -> bool:
        """Mirror TL201's ``_hard_wired``, wider: a ``torch.cuda.amp`` API called (not with ``enabled=False``),
        ``autocast("cuda")``, a ``GradScaler()`` without a device (it defaults to CUDA), or a CUDA-only API held by a
        name (``ctx = torch.cuda.amp.autocast if ... else nullcontext``), which the rule follows to its calls."""
        if any(self._may_name_cuda_amp(r) for r in self._amp_references):
            return True
        if any(alias in self._cuda_imports and original in _AMP_APIS for alias, original in self._aliases.items()):
            return True  # `from torch.cuda.amp import autocast as ac`: followed through any name
        calls = [call for api in _AMP_APIS for call in self._amp_calls(api)]
        return any(
            self._amp_call_may_be_cuda_only(call)
            and not self._surely_a_compat_fallback(call)
            and not self._surely_in_a_cuda_only_definition(call)
            for call in calls
        )

    def _surely_in_a_cuda_only_definition(self, call: ast.Call) -> bool:
        """Mirror the decorated definitions of ``CudaOnlyRegions.runs_only_on_cuda`` (TL201's
        ``_deliberately_cuda`` asks it of every call it would report), narrower: the call is in the body of a
        ``def`` or ``class`` (or of one inside it) whose decorator ``_skips_off_cuda`` surely: ``@RunIf(min_cuda_gpus=1)``,
        ``@require_torch_gpu``, ``@pytest.mark.skipif(not torch.cuda.is_available(), ...)``."""
        return any(
            isinstance(ancestor, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and any(child is statement for statement in ancestor.body)
            and any(map(self._surely_skips_off_cuda, ancestor.decorator_list))
            for child, ancestor in self._ancestry(call)
        )

    def _surely_skips_off_cuda(self, decorator: ast.expr) -> bool:
        """Mirror ``CudaOnlyRegions._skips_off_cuda``: a decorator named like a CUDA or GPU requirement, or one
        asking for a positive number of GPUs; a ``skipif``/``skipUnless`` whose first argument (in source order, as
        LibCST lists a call's arguments) is surely a CUDA check of the sense that skips off CUDA."""
        func = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = _dotted(func).rsplit(".", 1)[-1]
        runs_when = SKIP_DECORATORS.get(name)
        if runs_when is None:
            return bool(GPU_ONLY_DECORATOR.search(name)) or _asks_for_gpus(decorator)
        first = _first_argument(decorator) if isinstance(decorator, ast.Call) else None
        return first is not None and self._surely_cuda_condition(first) is runs_when

    def _surely_cuda_condition(self, test: ast.expr) -> Optional[bool]:
        """Mirror ``CudaOnlyRegions.cuda_condition``, narrower: True for a call of one of ``CUDA_CHECK_CALLS``
        spelled from ``import torch`` (``torch.cuda.is_available()``), False for its ``not``; None elsewhere."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self._surely_cuda_condition(test.operand)
            return None if inner is None else not inner
        return True if isinstance(test, ast.Call) and self._calls_a_cuda_check(test) else None

    def _calls_a_cuda_check(self, call: ast.Call) -> bool:
        """``torch.cuda.is_available()`` or another of ``CUDA_CHECK_CALLS``, spelled from ``import torch``."""
        rest = self._under_torch(call.func)
        return rest is not None and f"torch.{rest}" in CUDA_CHECK_CALLS

    def _surely_a_compat_fallback(self, call: ast.Call) -> bool:
        """Mirror TL201's ``_is_compat_fallback``, narrower: a call of one AMP API (``torch.cuda.amp.GradScaler()``)
        in one branch of an ``if``/conditional expression whose other branch calls the other API
        (``torch.amp.GradScaler(device=device) if TORCH_2_4 else torch.cuda.amp.GradScaler()``, Lightning's
        precision plugins), or in a ``try`` that calls it and catches what its absence raises. Only APIs spelled
        from ``import torch`` count, so that the API is the one the rule resolves."""
        cuda_only = self._surely_amp_api(call.func)
        if cuda_only is None:
            return False
        for child, ancestor in self._ancestry(call):
            if isinstance(ancestor, (ast.If, ast.IfExp)):
                body, orelse = ancestor.body, ancestor.orelse
                in_body = child is body or (isinstance(body, list) and child in body)
                in_orelse = child is orelse or (isinstance(orelse, list) and child in orelse)
                other = orelse if in_body else body if in_orelse else None
                if other is not None and self._calls_amp(other, not cuda_only):
                    return True
            elif isinstance(ancestor, ast.Try) and _catches_compat_errors(ancestor) and self._calls_amp(ancestor, not cuda_only):
                return True
        return False

    def _calls_amp(self, code: "ast.AST | List[ast.stmt]", cuda_only: bool) -> bool:
        nodes = [n for part in (code if isinstance(code, list) else [code]) for n in _nodes_of(part)]
        return any(isinstance(n, ast.Call) and self._surely_amp_api(n.func) is cuda_only for n in nodes)

    def _surely_amp_api(self, func: ast.AST) -> Optional[bool]:
        """Whether ``func`` is a CUDA-only AMP API (True) or the device-taking one (False), where its spelling from a
        single ``import torch`` (or ``import torch as th``) makes that certain; None elsewhere."""
        rest = self._under_torch(func)
        api = None if rest is None else AMP_APIS.get(f"torch.{rest}")
        return None if api is None else api.cuda_only

    @functools.cached_property
    def _parents(self) -> Dict[int, ast.AST]:
        """Each node's parent, by id: built only for a module whose AMP calls or pinned tensors a rule may report."""
        return {id(child): node for node in self._all_nodes for child in _children(node)}

    def _ancestry(self, node: ast.AST) -> Iterator[Tuple[ast.AST, ast.AST]]:
        """Each ancestor of ``node``, innermost first, with its child that ``node`` lies in (``node`` itself first)."""
        child, ancestor = node, self._parents.get(id(node))
        while ancestor is not None:
            yield child, ancestor
            child, ancestor = ancestor, self._parents.get(id(ancestor))

    def _amp_calls(self, api: str) -> List[ast.Call]:
        """Calls of ``autocast``/``GradScaler`` by that name or an import alias, whose arguments the rules bind."""
        names = {api, *(alias for alias, original in self._aliases.items() if original == api)}
        return [call for name in names for call in self.values.calls_named(name) if _binds_arguments(call)]

    def _may_sniff_device_type(self) -> bool:
        """Mirror TL202: a sniff (``"cuda" if c else "cpu"``, or ``if`` branches binding those types), or a CPU
        autocast in the other branch of one; and an autocast given a device type, which a sniff must feed."""
        given = [
            (call, device)
            for call in self._amp_calls("autocast")
            for device in [call.args[0] if call.args else _keyword_value(call, "device_type")]
            if device is not None
        ]
        if not given:
            return False
        autocasts = {id(call) for call, _ in given}
        return self._sniff_shaped or any(
            _string(device) == "cpu" and self._may_face_an_autocast(call, autocasts) for call, device in given
        )

    def _may_face_an_autocast(self, call: ast.Call, autocasts: Set[int]) -> bool:
        """Mirror TL202's ``visit_If`` for a CPU autocast, wider: the autocast is in one branch of an ``if`` with
        an ``else`` (``_arms``: both branches), and the other branch calls an autocast given a device type
        (``_autocast_types(on_cuda) == {"cuda"}`` needs one there). An autocast outside such an ``if``
        (``with torch.autocast("cpu"):`` in a test) sniffs nothing."""
        for child, ancestor in self._ancestry(call):
            if isinstance(ancestor, ast.If) and ancestor.orelse:
                in_body = any(child is statement for statement in ancestor.body)
                in_orelse = any(child is statement for statement in ancestor.orelse)
                other = ancestor.orelse if in_body else ancestor.body if in_orelse else []
                if any(id(node) in autocasts for statement in other for node in _nodes_of(statement)):
                    return True
        return False

    def _may_name_cuda_amp(self, func: ast.AST) -> bool:
        """``torch.cuda.amp.autocast``, ``amp.autocast`` after ``from torch.cuda import amp``, ``autocast`` imported
        from ``torch.cuda.amp`` (or by a star import from it)."""
        root = _dotted(func).split(".")[0] or last_name(func)
        return "cuda" in _dotted(func) or root in self._cuda_imports or "*" in self._cuda_imports

    def _amp_call_may_be_cuda_only(self, call: ast.Call) -> bool:
        keywords = {k.arg: k.value for k in call.keywords}
        if _is_false(keywords.get("enabled")):
            return False  # `_deliberately_cuda`: turned off
        autocast = self._aliases.get(last_name(call.func), last_name(call.func)) == "autocast"
        if self._may_name_cuda_amp(call.func):
            return not (autocast and call.args and _is_false(call.args[0]))  # `torch.cuda.amp.autocast(False)`
        device = call.args[0] if call.args else keywords.get("device_type" if autocast else "device")
        if device is None:
            return not autocast  # `torch.amp.GradScaler()` defaults to "cuda"
        return isinstance(device, ast.Constant) and isinstance(device.value, str) and CUDA_DEVICE.match(device.value) is not None


def _binds_arguments(call: ast.Call) -> bool:
    """``amp_apis.bind_arguments`` gives up on ``*args`` and ``**kwargs``: the rule reports no such call."""
    return not any(isinstance(a, ast.Starred) for a in call.args) and all(k.arg is not None for k in call.keywords)


def _asks_for_gpus(decorator: ast.expr) -> bool:
    """Mirror trainlint.analysis.devices' ``_asks_for_gpus``: a keyword naming CUDA or GPUs set to a positive integer
    or True (``@RunIf(min_cuda_gpus=1)``)."""
    keywords = decorator.keywords if isinstance(decorator, ast.Call) else []
    return any(
        k.arg is not None
        and GPU_ONLY_DECORATOR.search(k.arg) is not None
        and isinstance(k.value, ast.Constant)
        and (k.value.value is True or (type(k.value.value) is int and k.value.value > 0))
        for k in keywords
    )


def _first_argument(call: ast.Call) -> Optional[ast.expr]:
    """The value of a call's first argument in source order, positional or keyword (LibCST's ``call.args[0]``);
    None where there is none or it is unpacked (``*conditions``, ``**options``)."""
    arguments: List[Tuple[Tuple[int, int], Optional[ast.expr]]] = [
        ((a.lineno, a.col_offset), None if isinstance(a, ast.Starred) else a) for a in call.args
    ]
    arguments += [((k.lineno, k.col_offset), None if k.arg is None else k.value) for k in call.keywords]
    return min(arguments, key=lambda argument: argument[0])[1] if arguments else None


def _catches_compat_errors(statement: ast.Try) -> bool:
    """Mirror TL201's: an ``except`` naming what a missing API raises (``AttributeError``, ``ImportError``...)."""
    kinds = [k for h in statement.handlers if h.type is not None for k in (h.type.elts if isinstance(h.type, ast.Tuple) else [h.type])]
    return not COMPAT_ERRORS.isdisjoint(_dotted(kind) for kind in kinds)


def _names_a_device_option(argument: ast.AST) -> bool:
    """Mirror ``_is_device_option``, wider: any string of an ``add_argument`` call naming a device option."""
    text = _string(argument)
    return text is not None and DEVICE_OPTION.search(text) is not None


def _is_cuda_literal(node: ast.AST) -> bool:
    text = _string(node)
    return text is not None and CUDA_DEVICE.match(text) is not None


def _picks_cuda(arm: ast.AST) -> "Optional[bool] | str":
    """Mirror the scan's ``_picks_cuda``: True for a CUDA literal, False for another device's, None for what names no
    device (``None``, a name); :data:`_UNSURE` for a call or an f-string, which the rule may read as either."""
    if isinstance(arm, (ast.Call, ast.JoinedStr)):
        return _UNSURE
    text = _string(arm)
    if text is None:
        return None
    if CUDA_DEVICE.match(text):
        return True
    return False if NON_CUDA_DEVICE.match(text) else None


def _option_destination(call: ast.Call) -> Optional[str]:
    """Mirror ``_destination``: the attribute ``add_argument(...)`` stores to: ``dest=``, else the first long option,
    else the first name."""
    for keyword in call.keywords:
        if keyword.arg == "dest":
            return _string(keyword.value)
    names = [text for text in map(_string, call.args) if text is not None]
    long = [name for name in names if name.startswith("--")]
    chosen = long[0] if long else names[0] if names else None
    return chosen.lstrip("-").replace("-", "_") if chosen else None


def _off_unless_given(option: ast.Call) -> bool:
    """Mirror ``_off_unless_given``: ``action="store_true"`` and no ``default=`` other than ``False`` or ``None``."""
    keywords = {k.arg: k.value for k in option.keywords if k.arg is not None}
    default = keywords.get("default")
    off_by_default = default is None or (isinstance(default, ast.Constant) and (default.value is False or default.value is None))
    action = keywords.get("action")
    return action is not None and _string(action) == "store_true" and off_by_default
