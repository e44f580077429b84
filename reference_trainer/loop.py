"""The reference training and evaluation loops.

``train_epoch`` is the loop a fixed fixture must be equivalent to: one step
per batch, the per-step loss recorded as a Python float, gradients optionally
accumulated over ``accumulation_steps`` batches and clipped, and a CUDA
out-of-memory error on one batch handled by releasing that step's tensors and
gradients before moving on (a ``try/except: continue`` that keeps them alive
just fails again on the next batch).
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Optional

import torch
from torch import nn

from .amp import MixedPrecision
from .batches import filter_batch
from .devices import DeviceLike, move_batch
from .metrics import RunningLoss

LossFn = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]

logger = logging.getLogger(__name__)


def _batch_loss(
    model: nn.Module,
    batch: Any,
    device: torch.device,
    loss_fn: Optional[LossFn],
    label_aliases: Optional[Mapping[str, str]],
) -> tuple[torch.Tensor, int]:
    """Forward one batch and return ``(loss, batch size)``.

    ``loss_fn=None``: the batch is a dict and the model computes its own
    ``.loss``; only the keys ``forward`` accepts are moved and passed.
    Otherwise the batch is ``(inputs, targets)`` and the loss is
    ``loss_fn(model(inputs), targets)``.
    """
    if loss_fn is None:
        inputs = move_batch(filter_batch(model, batch, label_aliases=label_aliases), device)
        loss = model(**inputs).loss
        if loss is None:
            raise ValueError("model returned no .loss: pass labels (see label_aliases) or a loss_fn")
        return loss, len(next(iter(inputs.values())))
    inputs, targets = move_batch(batch, device)
    return loss_fn(model(inputs), targets), len(targets)


def _forward_backward(
    model: nn.Module,
    batch: Any,
    device: torch.device,
    loss_fn: Optional[LossFn],
    label_aliases: Optional[Mapping[str, str]],
    precision: MixedPrecision,
    accumulation_steps: int,
) -> float:
    """Forward and backward one batch; return its (undivided) loss as a float.

    A separate function so that every tensor of the step is a local here: once
    it returns, or once an exception raised in it has been handled, they are gone.
    """
    with precision.autocast():
        loss, _ = _batch_loss(model, batch, device, loss_fn, label_aliases)
    precision.scaler.scale(loss / accumulation_steps).backward()
    return loss.item()


def _optimizer_step(
    model: nn.Module, optimizer: torch.optim.Optimizer, precision: MixedPrecision, clip_norm: Optional[float]
) -> None:
    if clip_norm is not None:
        precision.scaler.unscale_(optimizer)  # clip the true gradients, not the loss-scaled ones
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)
    precision.scaler.step(optimizer)
    precision.scaler.update()
    optimizer.zero_grad(set_to_none=True)


def train_epoch(
    model: nn.Module,
    loader: Iterable[Any],
    optimizer: torch.optim.Optimizer,
    device: DeviceLike,
    *,
    loss_fn: Optional[LossFn] = None,
    amp: Optional[MixedPrecision] = None,
    accumulation_steps: int = 1,
    clip_norm: Optional[float] = None,
    max_steps: Optional[int] = None,
    label_aliases: Optional[Mapping[str, str]] = None,
) -> list[float]:
    """Train for one pass over ``loader`` (or its first ``max_steps`` batches); return the per-batch losses.

    A step is one batch. With ``accumulation_steps=k`` each batch's loss is
    divided by ``k`` before ``backward`` and the optimiser steps every ``k``
    batches, plus once for a trailing partial window; the recorded loss is
    the undivided one. ``clip_norm`` clips the total gradient norm before each
    optimiser step. A batch that raises ``torch.OutOfMemoryError`` is skipped
    (no loss recorded) after its tensors and all pending gradients are freed.
    """
    if accumulation_steps < 1:
        raise ValueError(f"accumulation_steps must be >= 1, got {accumulation_steps}")
    device = torch.device(device)
    precision = amp if amp is not None else MixedPrecision(device, enabled=False)
    model.train()
    optimizer.zero_grad(set_to_none=True)
    losses: list[float] = []
    pending = 0  # batches whose gradients are accumulated but not yet applied
    batches = loader if max_steps is None else itertools.islice(loader, max_steps)
    for index, batch in enumerate(batches):
        out_of_memory = False
        try:
            losses.append(
                _forward_backward(model, batch, device, loss_fn, label_aliases, precision, accumulation_steps)
            )
            pending += 1
            if pending == accumulation_steps:
                _optimizer_step(model, optimizer, precision, clip_norm)
                pending = 0
        except torch.OutOfMemoryError:
            out_of_memory = True
        # Clean up only here, after the except block: while it runs, the
        # exception's traceback still references the frame holding this
        # step's activations and loss, so nothing could be freed yet.
        if out_of_memory:
            logger.warning(
                "out of memory on batch %d: skipped it and dropped the gradients of %d earlier batch(es)",
                index,
                pending,
            )
            del batch  # the last reference to the step's inputs
            optimizer.zero_grad(set_to_none=True)
            pending = 0
            if device.type == "cuda":
                torch.cuda.empty_cache()
    if pending:
        _optimizer_step(model, optimizer, precision, clip_norm)
    return losses


def evaluate(
    model: nn.Module,
    loader: Iterable[Any],
    device: DeviceLike,
    loss_fn: Optional[LossFn] = None,
    *,
    label_aliases: Optional[Mapping[str, str]] = None,
) -> float:
    """Mean loss per sample over ``loader``, in eval mode and without building any graph.

    The model's previous train/eval mode is restored afterwards.
    """
    device = torch.device(device)
    was_training = model.training
    model.eval()
    running = RunningLoss()
    try:
        with torch.no_grad():
            for batch in loader:
                loss, size = _batch_loss(model, batch, device, loss_fn, label_aliases)
                running.update(loss, size)
    finally:
        model.train(was_training)
    return running.mean
