# TL405 loop_may_miss_zero_grad misses: walk._callable_names takes `self.train_step_fn = make_train_step_fn(...)` for an instance (__call__) only, not the closure the factory returns (Names._resolve_call_result), so _loop_calls/_backward_functions never meet perform_train_step_fn; reported by MissingZeroGrad._uncleared via CallGraph._dispatched


def make_train_step_fn(model, loss_fn, optimizer):
    def perform_train_step_fn(x, y):
        model.train()
        yhat = model(x)
        loss = loss_fn(yhat, y)
        loss.backward()
        optimizer.step()
        return loss.item()

    return perform_train_step_fn


class StepByStep:
    def __init__(self, model, loss_fn, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.train_step_fn = make_train_step_fn(model, loss_fn, optimizer)

    def train(self, loader, n_epochs):
        for epoch in range(n_epochs):
            for x, y in loader:
                self.train_step_fn(x, y)
