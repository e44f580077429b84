# TL405 missed by `loop_may_miss_zero_grad`: the loop calls `self.update` and the screen closes calls by last name ("update" names no def), so the loop is no backward loop; CallGraph._dispatched -> Names.resolve_callable follows `self.update = sgd_update` -> MissingZeroGrad reports.


def sgd_update(model, optimizer, batch):
    loss = model(batch).sum()
    loss.backward()
    optimizer.step()


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.update = sgd_update

    def fit(self, loader):
        for batch in loader:
            self.update(self.model, self.optimizer, batch)
