# TL405 loop_may_miss_zero_grad misses: `self.step_fn = fn` with fn a parameter of set_step, filled by `trainer.set_step(sgd_step)`: walk._callable_names follows no parameter to the arguments its callers pass (Names._resolve_binding -> _calls_naming does), so the loop never reaches sgd_step's backward/step in the screen; reported by MissingZeroGrad._uncleared via CallGraph._dispatched
import torch
import torch.nn.functional as F


def sgd_step(model, optimizer, x, y):
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer

    def set_step(self, fn):
        self.step_fn = fn

    def fit(self, loader):
        for x, y in loader:
            self.step_fn(self.model, self.optimizer, x, y)


def main(model, loader):
    trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.1))
    trainer.set_step(sgd_step)
    trainer.fit(loader)
