# TL401 missed by `accumulates_per_step`: Features._training_loops knows a loop trains only by last-name callees; `self.update(...)` with `self.update = sgd_update` trains through CallGraph.any_steps_once (resolve_callable on self.update), so TrainingLoops marks it a step loop -> UndetachedLossAccumulation reports `total += loss`.
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

    def fit(self, loader):
        total = 0.0
        for x, y in loader:
            loss = self.update(self.model, self.optimizer, x, y)
            total += loss
        return total
