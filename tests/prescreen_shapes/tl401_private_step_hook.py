# TL401 edge of trigger _PER_STEP_CODE (def pattern): `def _step(self, batch)` is a step hook to STEP_HOOK_NAME (`(^|_)step$`), but the trigger's `\w+_step` needs a character before `_step`; the backward runs in the base trainer of another module
from torch import nn

from engine.base import BaseTrainer


class RegressionTrainer(BaseTrainer):
    """Fits a regressor; the base class runs the backward and the optimizer."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__(model)
        self.criterion = nn.MSELoss()
        self.epoch_loss = 0.0

    def _step(self, batch):
        inputs, targets = batch
        outputs = self.model(inputs)
        loss = self.criterion(outputs, targets)
        self.epoch_loss += loss
        return loss

    def on_epoch_start(self) -> None:
        self.epoch_loss = 0.0
