# TL401 edge of _training_loops: the loop trains through `self.step_fn = bind(apply_update, opt)`, `bind` being functools.partial imported under another name (Names._is_partial reads the qualified name; walk's _callable_names only the last name `partial`)
from functools import partial as bind


def apply_update(optimizer, loss):
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.step_fn = bind(apply_update, optimizer)

    def fit(self, loader):
        total = 0.0
        for x, y in loader:
            loss = ((self.model(x) - y) ** 2).mean()
            self.step_fn(loss)
            total += loss
        return total
