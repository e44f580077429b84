# TL404 evaluates misses: _evaluation_shaped's _put_in_eval_by_callees mirror closes over _loop_calls by name, and walk._callable_names follows `self.val_step_fn = make_val_step_fn(...)` to __call__ only, not the returned closure that runs model.eval() then model(x) (Names._resolve_call_result); reported by TL404 via EvaluationLoops._put_in_eval_by_callees
import numpy as np


def make_val_step_fn(model, loss_fn):
    def perform_val_step_fn(x, y):
        model.eval()
        yhat = model(x)
        loss = loss_fn(yhat, y)
        return loss.item()

    return perform_val_step_fn


class StepByStep:
    def __init__(self, model, loss_fn):
        self.model = model
        self.val_step_fn = make_val_step_fn(model, loss_fn)

    def _mini_batch(self, data_loader):
        mini_batch_losses = []
        for x_batch, y_batch in data_loader:
            mini_batch_loss = self.val_step_fn(x_batch, y_batch)
            mini_batch_losses.append(mini_batch_loss)
        return np.mean(mini_batch_losses)
