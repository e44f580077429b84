# TL404 edge of evaluates (_surely_trains, _dispatched_method): `nonlocal train_batch` in a class body inside a function makes `def train_batch` rebind the function's name, no method; `self.train_batch(...)` resolves to nothing in CallGraph, so the loop after `model.eval()` does not train and EvalWithoutNoGrad reports, while the screen's `_the_method` dispatches to the def in the class scope and takes the loop for a training loop
import torch


def make_runner(model):
    train_batch = None

    class Runner:
        nonlocal train_batch

        def train_batch(self, batch):
            loss = model(batch).sum()
            loss.backward()

        def run(self, loader):
            model.eval()
            for batch in loader:
                out = model(batch)
                self.train_batch(batch)
            return out

    return Runner()
