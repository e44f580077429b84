# TL405 loop_may_miss_zero_grad misses: nodes._paired gives the targets of a starred unpacking (self.step_fn, *_rest = sgd_step, None, None) nothing, so walk._callable_values never binds step_fn to sgd_step and the loop reaches no backward/step in the screen; Names.bound_value takes sgd_step for self.step_fn (the element before the star), CallGraph._dispatched resolves self.step_fn(...) to it, and MissingZeroGrad reports
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
        self.step_fn, *_rest = sgd_step, None, None

    def fit(self, loader):
        for x, y in loader:
            self.step_fn(self.model, self.optimizer, x, y)

