# TL405 edge of loop_may_miss_zero_grad (_surely_called, _the_method): `nonlocal reset` in a class body inside a function makes `def reset` rebind the function's `reset`, no method; `Names` moves that binding out of the class, so `self.reset()` resolves to nothing and MissingZeroGrad reports, while the screen's `_the_method` takes the def in the class scope and its zero_grad for clearing
import torch


def make_trainer(model):
    reset = None

    class Trainer:
        nonlocal reset

        def reset(self):
            self.optimizer.zero_grad()

        def __init__(self):
            self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

        def fit(self, loader):
            for x, y in loader:
                self.reset()
                loss = torch.nn.functional.mse_loss(model(x), y)
                loss.backward()
                self.optimizer.step()

    return Trainer()
