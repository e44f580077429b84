# TL401 edge of accumulates_per_step (_binding_carries): a `*losses` parameter holds no value the rule follows, but a backward of `losses[0]` marks it (`_backward_marks`), which the screen reads as `_backpropagated`
import torch


class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.total = 0.0

    def train(self, *losses):
        for x, y in self.loader:
            losses[0].backward()
            self.total += losses[0]


trainer = Trainer(model, loader)
trainer.train(torch.nn.functional.mse_loss(model(x), y))
