# TL402 (and TL401) missed by `grows_history_per_step`: the loop trains only through `self.update = sgd_update` dispatch (CallGraph.any_steps_once via resolve_callable), which the screen's last-name `_training_loops` misses, so `self.history.append(loss)` is not per-step -> UnboundedStepHistory reports.
import torch


def sgd_update(model, optimizer, x, y):
    optimizer.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.update = sgd_update
        self.history = []

    def fit(self, train_loader, epochs):
        for epoch in range(epochs):
            for x, y in train_loader:
                loss = self.update(self.model, self.optimizer, x, y)
                self.history.append(loss)
