# TL405 edge of loop_may_miss_zero_grad: `self.step_fn = get_step()` with `get_step = functools.partial(pick_step, ...)`; walk._runs_of reads `get_step()` only as returns_of('get_step'), not the returns of pick_step that the partial wraps, so the loop reaches no backward/step in the screen; Names._resolve_call_result follows the partial to pick_step's return sgd_step, CallGraph._dispatched resolves self.step_fn(...) to it, and MissingZeroGrad reports
import functools


def sgd_step(model, batch, optimizer):
    loss = model(batch).sum()
    loss.backward()
    optimizer.step()


def pick_step(kind):
    return sgd_step


get_step = functools.partial(pick_step, "sgd")


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.step_fn = get_step()

    def fit(self, loader):
        for batch in loader:
            self.step_fn(self.model, batch, self.optimizer)
