# TL401 edge of trigger ("backward", "training_step"): a `train_step` hook (STEP_HOOK_NAME) sums the loss; the backward runs in the base trainer of another module, so neither word is in the text
import torch
from torch import nn

from mylib.engine import BaseTrainer


class ClassifierTrainer(BaseTrainer):
    def __init__(self, model: nn.Module, lr: float = 1e-3):
        super().__init__()
        self.model = model
        self.criterion = nn.CrossEntropyLoss()
        self.epoch_loss = 0.0

    def train_step(self, batch):
        images, labels = batch
        logits = self.model(images)
        loss = self.criterion(logits, labels)
        self.epoch_loss += loss
        return loss

    def on_epoch_end(self, epoch):
        print(f"epoch {epoch}: loss {float(self.epoch_loss):.4f}")
        self.epoch_loss = 0.0
