"""The AMP entry points of torch, and how a call's arguments bind to their parameters: the amp family's vocabulary."""

from __future__ import annotations

from typing import Dict, NamedTuple, Optional, Tuple

import libcst as cst

Arguments = Dict[str, cst.Arg]  # parameter name -> the argument passing it, in call order


class AmpApi(NamedTuple):
    """One AMP entry point: which family, whether it is the CUDA-only ``torch.cuda.amp`` one, its parameters."""

    family: str  # "autocast" or "GradScaler"
    cuda_only: bool  # torch.cuda.amp.*: no device parameter, CUDA or nothing
    parameters: Tuple[str, ...]  # in positional order

    @property
    def device_parameter(self) -> str:
        return "device_type" if self.family == "autocast" else "device"


_SCALER_OPTIONS = ("init_scale", "growth_factor", "backoff_factor", "growth_interval", "enabled")
_CUDA_AUTOCAST = AmpApi("autocast", True, ("enabled", "dtype", "cache_enabled"))
_CUDA_SCALER = AmpApi("GradScaler", True, _SCALER_OPTIONS)
_AUTOCAST = AmpApi("autocast", False, ("device_type", "dtype", "enabled", "cache_enabled"))
_SCALER = AmpApi("GradScaler", False, ("device", *_SCALER_OPTIONS))
AMP_APIS: Dict[str, AmpApi] = {
    "torch.cuda.amp.autocast": _CUDA_AUTOCAST,
    "torch.cuda.amp.autocast_mode.autocast": _CUDA_AUTOCAST,
    "torch.cuda.amp.GradScaler": _CUDA_SCALER,
    "torch.cuda.amp.grad_scaler.GradScaler": _CUDA_SCALER,
    "torch.autocast": _AUTOCAST,
    "torch.amp.autocast": _AUTOCAST,
    "torch.amp.autocast_mode.autocast": _AUTOCAST,
    "torch.GradScaler": _SCALER,
    "torch.amp.GradScaler": _SCALER,
    "torch.amp.grad_scaler.GradScaler": _SCALER,
}


def bind_arguments(call: cst.Call, parameters: Tuple[str, ...]) -> Optional[Arguments]:
    """Map each argument to its parameter; None for ``*args``/``**kwargs`` or arguments the API lacks."""
    bound: Arguments = {}
    positional = iter(parameters)
    for arg in call.args:
        if arg.star:
            return None
        name = arg.keyword.value if arg.keyword is not None else next(positional, None)
        if name is None or name not in parameters or name in bound:
            return None
        bound[name] = arg
    return bound
