# TL402 edge of trigger _PER_STEP_CODE (def pattern): `def _step(self, batch)` is a step hook to STEP_HOOK_NAME (`(^|_)step$`), but the trigger's `\w+_step` needs a character before `_step`; the update runs in a callback of another module
import torch
from torch import nn


class Learner:
    """Runs batches through a model; the update is done by a callback registered elsewhere."""

    def __init__(self, model: nn.Module, loss_fn: nn.Module) -> None:
        self.model = model
        self.loss_fn = loss_fn
        self.loss_history = []

    def _step(self, batch):
        inputs, targets = batch
        loss = self.loss_fn(self.model(inputs), targets)
        self.loss_history.append(loss.detach())
        return loss

    def fit(self, loader, callback) -> None:
        for batch in loader:
            loss = self._step(batch)
            callback(loss)

    def mean_loss(self) -> torch.Tensor:
        return torch.stack(self.loss_history).mean()
