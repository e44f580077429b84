# TL405 missed by `loop_may_miss_zero_grad`: `self.step_fn(batch)` with `self.step_fn = Step(...)` runs Step.__call__ (resolve_callable: an instance's __call__); the screen's last-name closure ("step_fn") never reaches __call__, so no backward loop; MissingZeroGrad reports.


class Step:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer

    def __call__(self, batch):
        loss = self.model(batch).sum()
        loss.backward()
        self.optimizer.step()


class Trainer:
    def __init__(self, model, optimizer):
        self.step_fn = Step(model, optimizer)

    def fit(self, loader):
        for batch in loader:
            self.step_fn(batch)
