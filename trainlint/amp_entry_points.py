"""The AMP entry points of torch by qualified name: the amp rules' vocabulary, and the pre-screen's (which must not
import LibCST, so the table lives here, apart from the argument binding in rules/amp/amp_apis.py)."""

from __future__ import annotations

from typing import Dict, NamedTuple, Tuple


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
# Errors a compatibility shim catches when the newer torch.amp API is missing.
COMPAT_ERRORS = frozenset({"AttributeError", "TypeError", "ImportError", "ModuleNotFoundError", "NameError"})
