# TL405 loop_may_miss_zero_grad misses: walk._assigned records _callable_values only for a Name/Attribute target, so `self.train_fn, self.eval_fn = sgd_step, eval_step` (a tuple target; _callable_names(Tuple) is empty too) never ties train_fn to sgd_step; the rule's CallGraph._dispatched -> Names.resolve_callable follows the attribute binding's element (bound_value) to the def; reported by MissingZeroGrad._uncleared
import torch.nn.functional as F


def sgd_step(model, optimizer, x, y):
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()


def eval_step(model, x, y):
    return F.cross_entropy(model(x), y).item()


class Trainer:
    def __init__(self, model, optimizer):
        self.model, self.optimizer = model, optimizer
        self.train_fn, self.eval_fn = sgd_step, eval_step

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            for x, y in loader:
                self.train_fn(self.model, self.optimizer, x, y)
