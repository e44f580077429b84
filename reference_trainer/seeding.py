"""Global seeding, so that a fixture and the reference start from the same state.

The data and model factories in this package use their own generators and do
not depend on global RNG state; ``seed_everything`` covers whatever else a
user-like script draws from the global generators (dropout, shuffling,
``torch.rand``) and pins down kernel selection.
"""

from __future__ import annotations

import random

import numpy as np
import torch


def seed_everything(seed: int) -> None:
    """Seed ``random``, NumPy and torch (CPU and every accelerator), and fix kernels.

    On a machine without CUDA this also makes torch require deterministic
    algorithms, so an op without a deterministic CPU implementation raises
    instead of varying between runs. It is left off where CUDA exists because
    the switch is process-wide and common CUDA kernels (``nll_loss``, hence
    ``cross_entropy``) have no deterministic version and would raise; there
    cuDNN is made deterministic instead, which covers the LSTM.

    The switch is ``torch.set_deterministic_debug_mode("error")``, the same
    setting as ``torch.use_deterministic_algorithms(True)`` minus the latter's
    Inductor config import, which costs about 1.5 s per process.
    """
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
    if not torch.cuda.is_available():
        torch.set_deterministic_debug_mode("error")
