# TL405 edge of loop_may_miss_zero_grad: `self.step_fn = make_step()` with `make_step = StepFactory()`: walk._runs_of reads `make_step()` only as returns_of('make_step'), not what StepFactory.__call__ returns; Names._resolve_call_result resolves make_step to the class and returns __call__'s return (sgd_step), CallGraph._dispatched resolves self.step_fn(...) to it, and MissingZeroGrad reports
def sgd_step(model, batch, optimizer):
    loss = model(batch).sum()
    loss.backward()
    optimizer.step()


class StepFactory:
    def __call__(self):
        return sgd_step


make_step = StepFactory()


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.step_fn = make_step()

    def fit(self, loader):
        for batch in loader:
            self.step_fn(self.model, batch, self.optimizer)
