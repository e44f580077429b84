# TL405 loop_may_miss_zero_grad misses: walk._runs_of follows 'make()' only through values.returns_of('make'), the returns of defs so named, not a lambda's body, so self.step_fn = make() with make = lambda: sgd_step never reaches sgd_step in the screen; Names._resolve_call_result resolves make to the lambda and its returns (the body) to sgd_step, CallGraph._dispatched resolves self.step_fn(...) to it, and MissingZeroGrad reports
import torch.nn.functional as F


def sgd_step(model, optimizer, x, y):
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()


class Trainer:
    def __init__(self, model, optimizer, step=None):
        self.model = model
        self.optimizer = optimizer
        make = lambda: sgd_step
        self.step_fn = make()

    def fit(self, loader):
        for x, y in loader:
            self.step_fn(self.model, self.optimizer, x, y)

