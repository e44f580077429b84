# TL405 edge of loop_may_miss_zero_grad: `self.step_fn = StepFactory()()`: nodes._callable_names gives a call whose callee is a call {'__call__', '()'}, and '()' names no function, so the loop reaches no backward/step in the screen; Names._resolve_call_result resolves the callee `StepFactory()` to __call__ and takes its return (sgd_step); MissingZeroGrad reports
def sgd_step(model, batch, optimizer):
    loss = model(batch).sum()
    loss.backward()
    optimizer.step()


class StepFactory:
    def __call__(self):
        return sgd_step


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.step_fn = StepFactory()()

    def fit(self, loader):
        for batch in loader:
            self.step_fn(self.model, batch, self.optimizer)
