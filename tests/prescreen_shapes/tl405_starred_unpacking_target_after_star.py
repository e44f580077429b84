# TL405 loop_may_miss_zero_grad misses: nodes._paired gives no target of a starred unpacking anything, here *_rest, self.step_fn = None, None, sgd_step (the target after the star), so walk._callable_values never binds step_fn and the loop reaches no backward/step in the screen; Names.bound_value takes sgd_step, CallGraph._dispatched resolves self.step_fn(...) to it, and MissingZeroGrad reports (also [self.step_fn, *rest] = [...] and (self.step_fn, *a), b = (...), 3)
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
        *_rest, self.step_fn = None, None, sgd_step

    def fit(self, loader):
        for x, y in loader:
            self.step_fn(self.model, self.optimizer, x, y)

