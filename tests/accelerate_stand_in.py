"""A stand-in for the part of Accelerate that TL405's accumulate fixture uses: one process, full precision.

Accelerate is not installed here, and its behaviour on one process is small
enough to state. What each piece does is what Accelerate's own source does
on that path (``src/accelerate/accelerator.py`` and ``optimizer.py``):

* ``Accelerator(gradient_accumulation_steps=n).prepare(...)`` returns the
  model and the loader as they are and wraps the optimizer;
* ``accumulate(model)`` counts one batch on entering and synchronises when
  the count is a multiple of ``n`` (``Accelerator._do_sync``); it clears no
  gradient;
* ``backward(loss)`` runs ``(loss / n).backward()``;
* the prepared optimizer's ``step()`` and ``zero_grad()`` run only on a
  synchronising batch (``AcceleratedOptimizer.step``/``zero_grad``), and
  ``zero_grad``'s ``set_to_none`` defaults to True.

Left out: the synchronisation Accelerate forces on a prepared loader's last
batch (the proofs stop after a whole number of windows, before the end) and
everything distributed or mixed-precision.
"""

from __future__ import annotations

import contextlib
import sys
import types
from typing import Any, Iterator, Optional

import torch


class AcceleratedOptimizer:
    """Steps and clears the wrapped optimizer only on synchronising batches."""

    def __init__(self, optimizer: torch.optim.Optimizer, accelerator: "Accelerator") -> None:
        self.optimizer = optimizer
        self.accelerator = accelerator

    def step(self, closure: Any = None) -> None:
        if self.accelerator.sync_gradients:
            self.optimizer.step(closure)

    def zero_grad(self, set_to_none: Optional[bool] = None) -> None:
        if self.accelerator.sync_gradients:
            self.optimizer.zero_grad(set_to_none=True if set_to_none is None else set_to_none)


class Accelerator:
    def __init__(self, gradient_accumulation_steps: int = 1) -> None:
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.step = 0
        self.sync_gradients = True

    def prepare(self, *objects: Any) -> Any:
        prepared = tuple(AcceleratedOptimizer(o, self) if isinstance(o, torch.optim.Optimizer) else o for o in objects)
        return prepared if len(prepared) != 1 else prepared[0]

    @contextlib.contextmanager
    def accumulate(self, *models: torch.nn.Module) -> Iterator[None]:
        self.step += 1
        self.sync_gradients = self.step % self.gradient_accumulation_steps == 0
        yield

    def backward(self, loss: torch.Tensor) -> None:
        (loss / self.gradient_accumulation_steps).backward()


@contextlib.contextmanager
def accelerate_stand_in() -> Iterator[None]:
    """``from accelerate import Accelerator`` gives the stand-in while the context lasts.

    Only that one entry of ``sys.modules`` is replaced and restored: restoring
    the whole dictionary (``mock.patch.dict``) would drop the modules torch
    imports lazily during the run, and their second import fails.
    """
    accelerate = types.ModuleType("accelerate")
    accelerate.Accelerator = Accelerator  # type: ignore[attr-defined]
    previous = sys.modules.get("accelerate")
    sys.modules["accelerate"] = accelerate
    try:
        yield
    finally:
        if previous is None:
            del sys.modules["accelerate"]
        else:
            sys.modules["accelerate"] = previous
