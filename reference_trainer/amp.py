"""Device-aware mixed precision through ``torch.amp``.

Why: ``torch.cuda.amp.autocast`` / ``torch.cuda.amp.GradScaler`` hard-code
CUDA. On MPS or CPU they warn and silently disable themselves (or are
deprecated outright), so "AMP" scripts run in fp32 while believing otherwise.
``torch.amp`` takes the device type from the actual device, and the loss
scaler is only useful (and only enabled) on CUDA, where fp16 gradients can
underflow.
"""

from __future__ import annotations

from typing import Optional

import torch

from .devices import DeviceLike


def autocast_dtype(device: DeviceLike) -> torch.dtype:
    """fp16 where autocast supports it well (CUDA, MPS); bf16 elsewhere (CPU)."""
    return torch.float16 if torch.device(device).type in ("cuda", "mps") else torch.bfloat16


class MixedPrecision:
    """An autocast context factory and a ``GradScaler``, both bound to one device.

    With ``enabled=False`` both are exact no-ops (the scaler returns the loss
    unchanged and ``step`` calls ``optimizer.step()``), so one training loop
    serves both modes and produces bit-identical fp32 results when disabled.
    """

    def __init__(self, device: DeviceLike, enabled: bool = False, dtype: Optional[torch.dtype] = None) -> None:
        self.device = torch.device(device)
        self.enabled = enabled
        self.dtype = dtype if dtype is not None else autocast_dtype(self.device)
        self.scaler = torch.amp.GradScaler(
            self.device.type, enabled=enabled and self.device.type == "cuda" and self.dtype == torch.float16
        )

    def autocast(self) -> torch.autocast:
        """A fresh autocast context for one forward pass (contexts are not reusable)."""
        return torch.autocast(device_type=self.device.type, dtype=self.dtype, enabled=self.enabled)
