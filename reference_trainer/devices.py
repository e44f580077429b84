"""Device selection and host-to-device transfer.

Why this module exists: the classic late failure is a script that moves its
whole data set to the GPU up front and then asks the DataLoader to pin it
(``pin_memory=True`` on CUDA tensors raises once the first batch is fetched).
The reference keeps data on the CPU, moves one batch at a time, and pins only
when pinning can help: CPU-resident data feeding a CUDA device.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Union

import torch

DeviceLike = Union[str, torch.device]

_AUTO_ORDER = ("cuda", "mps", "cpu")


class DeviceUnavailableError(RuntimeError):
    """A device type was requested explicitly but this machine cannot provide it."""


def _is_available(device_type: str) -> bool:
    if device_type == "cuda":
        return torch.cuda.is_available()
    if device_type == "mps":
        return torch.backends.mps.is_available()
    return device_type == "cpu"


def pick_device(requested: DeviceLike = "auto") -> torch.device:
    """Return the device to train on: ``"auto"`` prefers cuda, then mps, then cpu.

    An explicit request (``"cuda"``, ``"cuda:1"``, ``"mps"``, ``"cpu"``) is
    honoured or refused with :class:`DeviceUnavailableError`; silently falling
    back to the CPU would hide a broken driver behind a 50x slower run.
    """
    if isinstance(requested, str) and requested == "auto":
        return torch.device(next(kind for kind in _AUTO_ORDER if _is_available(kind)))
    try:
        device = torch.device(requested)
    except RuntimeError as error:  # torch reports unknown device strings as RuntimeError
        raise ValueError(f"unknown device {requested!r}: {error}") from None
    if not _is_available(device.type):
        raise DeviceUnavailableError(
            f"device {str(device)!r} was requested but is not available "
            f"(torch {torch.__version__}); use 'auto' or 'cpu'"
        )
    if device.type == "cuda" and device.index is not None and device.index >= torch.cuda.device_count():
        raise DeviceUnavailableError(
            f"device {str(device)!r} was requested but only {torch.cuda.device_count()} CUDA device(s) exist"
        )
    return device


def move_batch(batch: Any, device: DeviceLike) -> Any:
    """Move every tensor in a (nested) tensor/tuple/list/dict batch to ``device``.

    Non-tensor leaves (strings, ints, ``None``) pass through unchanged so that
    a batch carrying e.g. raw sentences can still be moved as a whole.
    ``non_blocking=True`` overlaps the copy with compute when the source is
    pinned; for unpinned or CPU-to-CPU copies it is a harmless no-op.
    """
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=True)
    if isinstance(batch, Mapping):
        return {key: move_batch(value, device) for key, value in batch.items()}
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):  # namedtuple: keep its type
        return type(batch)(*(move_batch(value, device) for value in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(move_batch(value, device) for value in batch)
    return batch


def should_pin_memory(dataset_on_cpu: bool, device: DeviceLike) -> bool:
    """Pin only CPU-resident data that will be copied to a CUDA device.

    Pinning tensors that already live on the GPU raises; pinning for a CPU or
    MPS target costs page-locked host memory for no speed-up.
    """
    return dataset_on_cpu and torch.device(device).type == "cuda"
