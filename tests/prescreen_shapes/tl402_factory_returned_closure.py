# TL402 grows_history_per_step (and TL401) misses: same factory-closure hole as tl401_factory_returned_closure.py: _training_loops/_in_step never see the loop calling the stepping closure (walk._callable_names -> __call__ only); TL402 reports self.losses.append(loss)


def make_train_step_fn(model, loss_fn, optimizer):
    def perform_train_step_fn(x, y):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    return perform_train_step_fn


class StepByStep:
    def __init__(self, model, loss_fn, optimizer):
        self.losses = []
        self.train_step_fn = make_train_step_fn(model, loss_fn, optimizer)

    def train(self, loader, n_epochs):
        for epoch in range(n_epochs):
            for x, y in loader:
                loss = self.train_step_fn(x, y)
                self.losses.append(loss)
