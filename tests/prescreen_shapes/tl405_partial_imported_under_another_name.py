# TL405 edge of loop_may_miss_zero_grad: `from functools import partial as bind`; nodes._callable_names recognises a partial by the last name 'partial' only, so `self.update = bind(sgd_update, ...)` gives {'__call__', 'bind()'}; Names._is_partial reads the qualified name functools.partial, resolve_callable follows it to sgd_update, and MissingZeroGrad reports
from functools import partial as bind


def sgd_update(model, optimizer, batch):
    loss = model(batch).sum()
    loss.backward()
    optimizer.step()


class Trainer:
    def __init__(self, model, optimizer):
        self.update = bind(sgd_update, model, optimizer)

    def fit(self, loader):
        for batch in loader:
            self.update(batch)
