# TL405 loop_may_miss_zero_grad misses: nodes._callable_names of (lambda: sgd_step)() gives __call__ and '()' (a lambda has no last name), so walk._runs_of never reaches sgd_step; Names._resolve_call_result resolves the called lambda's body to sgd_step (also (lambda f=sgd_step: f)() through the lambda parameter's default), CallGraph._dispatched resolves self.step_fn(...) to it, and MissingZeroGrad reports
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
        self.step_fn = (lambda: sgd_step)()

    def fit(self, loader):
        for x, y in loader:
            self.step_fn(self.model, self.optimizer, x, y)

