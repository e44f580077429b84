# TL405 edge of loop_may_miss_zero_grad (_surely_called, _the_method): `global reset` in the class body makes `def reset` bind a module global, no method; `Names.method`/`attribute_bindings` find no `reset` of the class, so `self.reset()` resolves to nothing and MissingZeroGrad reports, while the screen's `_the_method` takes the def in the class scope for the one `self.reset()` surely runs and its zero_grad for clearing
import torch


class Trainer:
    global reset

    def reset(self):
        self.optimizer.zero_grad()

    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def fit(self, loader):
        for x, y in loader:
            self.reset()
            loss = torch.nn.functional.mse_loss(self.model(x), y)
            loss.backward()
            self.optimizer.step()
