"""Where a training script moves its data to the device, observed on any machine.

Pinning fails on CUDA tensors and forked DataLoader workers cannot use CUDA,
but on a CPU-only machine the scripts with those defects run fine: the device
*is* the CPU. What a CPU run still shows is *where* the script moves its data.
:class:`DeviceTransfers` counts every transfer to an explicit device that the
script itself makes (``Tensor.to(device)``, ``Tensor.cuda()``, factories
called with ``device=``; not ``model.to(device)`` or an optimizer creating its
state, which run inside torch), by when it happens:

* ``before_loop``: before the first batch is requested (the data set is
  staged on the device);
* ``in_fetch``: inside the loader's fetch (``__getitem__`` or ``collate_fn``);
* ``in_loop``: after the loader handed the batch over.

The first two put device tensors into the DataLoader on a GPU machine, which
is what pinning and forked workers cannot take; a correct script only moves
in the loop. Only the main process is observed, so run a fixture with
``num_workers=0`` when its transfers happen in ``__getitem__``/``collate_fn``.

The ``assert_*`` helpers are the runtime checks shared by TL101 and TL102.
Import this module only after ``pytest.importorskip("torch")``.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from pathlib import Path
from typing import Any, Callable, Optional
from unittest import mock

import pytest
import torch
from torch.overrides import TorchFunctionMode
from torch.utils.data import DataLoader

from tests.fixture_cases import snapshot_of
from tests.runtime_harness import assert_trains_like_reference, run_fixture

_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_FETCH_CODE = os.path.join(_TORCH_DIR, "utils", "data", "_utils", "fetch.py")

STEPS = 4
BATCH_PARTS = 2  # every lstm fixture's batch is (windows, labels)
# What CUDA says when the loader pins CUDA tensors (older releases: the second form).
PIN_ERROR = r"cannot pin 'torch\.cuda\.\w+' only dense CPU tensors can be pinned|Trying to pin GPU tensors"
# What a forked worker says when it touches CUDA: a worker that calls CUDA's Python API (a `.to("cuda")` in
# `__getitem__`) gets the first; one that indexes a CUDA tensor it inherited gets the second (torch 2.11, an H200).
WORKER_ERROR = r"Cannot re-initialize CUDA in forked subprocess|CUDA error: initialization error"


def _in_loader_fetch(frame) -> bool:
    while frame is not None:
        if frame.f_code.co_filename == _FETCH_CODE:
            return True
        frame = frame.f_back
    return False


def _is_transfer(func: Callable, args: tuple, kwargs: dict) -> bool:
    if func is torch.Tensor.to:
        return torch._C._nn._parse_to(*args[1:], **kwargs)[0] is not None
    if func is torch.Tensor.cuda:
        return True
    return kwargs.get("device") is not None


class DeviceTransfers(TorchFunctionMode):
    """A context manager counting the script's transfers to a device before the loop, in the fetch, in the loop."""

    def __init__(self) -> None:
        super().__init__()
        self.before_loop = 0
        self.in_fetch = 0
        self.in_loop = 0
        self._loop_started = False

    def __torch_function__(self, func: Callable, types: Any, args: tuple = (), kwargs: Optional[dict] = None) -> Any:
        kwargs = kwargs or {}
        caller = sys._getframe(1)
        if _is_transfer(func, args, kwargs) and not caller.f_code.co_filename.startswith(_TORCH_DIR):
            if not self._loop_started:
                self.before_loop += 1
            elif _in_loader_fetch(caller):
                self.in_fetch += 1
            else:
                self.in_loop += 1
        return func(*args, **kwargs)

    def __enter__(self) -> "DeviceTransfers":
        original = DataLoader.__iter__

        def iterate(loader: DataLoader):
            self._loop_started = True
            return original(loader)

        self._patch = mock.patch.object(DataLoader, "__iter__", iterate)
        self._patch.start()
        return super().__enter__()

    def __exit__(self, *exc_info: Any) -> None:
        super().__exit__(*exc_info)
        self._patch.stop()


def assert_moves_before_the_loop(bad: Path, where: str) -> None:
    """The bad script moves its data to the device where the DataLoader holds it, and never in the loop.

    ``where``: ``"staged"`` (the whole data set, one transfer per tensor,
    before the loop) or ``"fetch"`` (every batch, inside ``__getitem__`` or
    ``collate_fn``; run in-process so that the fetch is observed).
    """
    with DeviceTransfers() as transfers:
        run_fixture(bad, max_steps=STEPS, num_workers=0)
    if where == "staged":
        assert (transfers.before_loop, transfers.in_fetch) == (BATCH_PARTS, 0)
    else:
        assert where == "fetch" and transfers.before_loop == 0 and transfers.in_fetch >= STEPS * BATCH_PARTS
    assert transfers.in_loop == 0


def assert_fixed_trains_like_reference(bad: Path) -> None:
    """The fixed script moves each batch in the loop, nothing before, and trains exactly like the reference."""
    with DeviceTransfers() as transfers:
        fixed = run_fixture(snapshot_of(bad), max_steps=STEPS)
    assert_trains_like_reference(fixed.losses, "lstm", max_steps=STEPS)
    assert (transfers.before_loop, transfers.in_fetch, transfers.in_loop) == (0, 0, STEPS * BATCH_PARTS)
    assert not fixed.warnings_of(UserWarning), "pin_memory must be on only for a CUDA target"


def assert_fails_on_cuda_and_fixed_trains(bad: Path, error: str) -> None:
    """On a GPU: the bad script raises ``error``; its fixed version trains like the reference on CUDA."""
    if error == WORKER_ERROR and multiprocessing.get_start_method() != "fork":
        pytest.skip("the forked-worker failure needs the fork start method")
    with pytest.raises(RuntimeError, match=error):
        run_fixture(bad, device="cuda", max_steps=STEPS)
    fixed = run_fixture(snapshot_of(bad), device="cuda", max_steps=STEPS)
    assert_trains_like_reference(fixed.losses, "lstm", device="cuda", max_steps=STEPS, rtol=1e-4, atol=1e-5)
