"""``run``: one call that trains a reference task end to end.

This is the ground truth a fixed fixture is compared with: the same seed,
task and step budget must give the same per-step losses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .amp import MixedPrecision
from .data import make_loader
from .devices import DeviceLike, pick_device
from .loop import evaluate as evaluate_loss
from .loop import train_epoch
from .metrics import RunningLoss
from .seeding import seed_everything
from .tasks import build


@dataclass
class RunResult:
    """Per-step training losses, their mean per epoch, and the evaluation loss after training (if asked for)."""

    task: str
    seed: int
    device: str
    step_losses: list[float]
    epoch_losses: list[float]
    eval_loss: Optional[float] = None


def run(
    task: str,
    *,
    seed: int = 0,
    epochs: int = 1,
    device: DeviceLike = "cpu",
    max_steps: Optional[int] = None,
    amp: bool = False,
    accumulation_steps: int = 1,
    clip_norm: Optional[float] = None,
    evaluate: bool = False,
) -> RunResult:
    """Seed everything, build ``task`` from ``seed`` and train it for ``epochs`` epochs.

    ``max_steps`` caps the batches of *each* epoch (a fixture's
    ``main(max_steps=n)`` runs one epoch of at most ``n`` batches).
    ``device`` may be ``"auto"``. Data stay on the CPU and batches are moved
    one at a time, in order (no shuffling). ``evaluate=True`` then evaluates
    the trained model over the whole loader (``loop.evaluate``: eval mode, no
    graph): the mean loss per sample, in ``eval_loss``.
    """
    if epochs < 1:
        raise ValueError(f"epochs must be >= 1, got {epochs}")
    if max_steps is not None and max_steps < 1:
        raise ValueError(f"max_steps must be None or >= 1, got {max_steps}")
    target = pick_device(device)
    seed_everything(seed)
    built = build(task, seed)
    model = built.model.to(target)
    optimizer = built.spec.make_optimizer(model.parameters())
    loader = make_loader(built.dataset, built.spec.batch_size, target, collate_fn=built.collate_fn)
    precision = MixedPrecision(target, enabled=amp)
    step_losses: list[float] = []
    epoch_losses: list[float] = []
    for _ in range(epochs):
        losses = train_epoch(
            model,
            loader,
            optimizer,
            target,
            loss_fn=built.loss_fn,
            amp=precision,
            accumulation_steps=accumulation_steps,
            clip_norm=clip_norm,
            max_steps=max_steps,
            label_aliases=dict(built.spec.label_aliases),
        )
        epoch = RunningLoss()
        for loss in losses:
            epoch.update(loss)
        step_losses.extend(losses)
        epoch_losses.append(epoch.mean)
    eval_loss = None
    if evaluate:
        eval_loss = evaluate_loss(model, loader, target, built.loss_fn, label_aliases=dict(built.spec.label_aliases))
    return RunResult(task, seed, str(target), step_losses, epoch_losses, eval_loss)
