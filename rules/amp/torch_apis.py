"""When each API that an amp-family fix writes arrived in torch, so that a fix writes only what the target has.

``target-torch`` (see ``trainlint/target_torch.py``) says which torch a project
runs; below an API's version a fix falls back to a form that works there.
"""

from __future__ import annotations

from typing import Tuple

Version = Tuple[int, int]

# `torch.autocast(device_type, enabled=, dtype=, cache_enabled=)`: torch 1.10, which replaced
# `torch.cuda.amp.autocast` by the generic context manager (1.10 release notes; mmengine's `autocast`
# wrapper documents the same switch: "Pytorch 1.5.0 provide torch.cuda.amp.autocast ... and update it
# to torch.autocast in 1.10.0").
AUTOCAST: Version = (1, 10)
# `torch.amp.GradScaler("cuda", ...)`: torch 2.3, which generalised GradScaler to any device; 2.4 deprecated
# `torch.cuda.amp.GradScaler(args...)` for it (pytorch/pytorch "Deprecate device-specific GradScaler
# autocast API"; pytorch/ignite#3460 requires torch>=2.3.1 for `from torch.amp import GradScaler`).
AMP_GRAD_SCALER: Version = (2, 3)
# `torch.autocast(device_type="mps")`: torch 2.5 (pytorch/pytorch#99272 "[MPS] Add support for autocast in
# MPS", float16 only; bfloat16 on MPS came in 2.6 with pytorch/pytorch#139390). Older releases raise
# "User specified an unsupported autocast device_type 'mps'".
MPS_AUTOCAST: Version = (2, 5)
