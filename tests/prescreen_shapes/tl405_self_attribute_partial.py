# TL405 missed by `loop_may_miss_zero_grad`: `self.update = functools.partial(sgd_update, ...)` then `self.update(batch)`: resolve_callable follows partial to sgd_update (backward + step); the screen's last-name callee closure does not, so no backward loop; MissingZeroGrad reports.
import functools


def sgd_update(model, optimizer, batch):
    loss = model(batch).sum()
    loss.backward()
    optimizer.step()


class Trainer:
    def __init__(self, model, optimizer):
        self.update = functools.partial(sgd_update, model, optimizer)

    def fit(self, loader):
        for batch in loader:
            self.update(batch)
