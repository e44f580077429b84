# TL405 loop_may_miss_zero_grad misses: `self.step_fn = step_fn` with `step_fn=sgd_step` a parameter default: walk._callable_names gives only the name step_fn, not what the parameter holds; Names._resolve_binding follows a PARAMETER binding to its default (and to arguments its callers pass), so CallGraph._dispatched reaches sgd_step; reported by MissingZeroGrad._uncleared
import torch.nn.functional as F


def sgd_step(model, optimizer, x, y):
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()


class Trainer:
    def __init__(self, model, optimizer, step_fn=sgd_step):
        self.model = model
        self.optimizer = optimizer
        self.step_fn = step_fn

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            for x, y in loader:
                self.step_fn(self.model, self.optimizer, x, y)
