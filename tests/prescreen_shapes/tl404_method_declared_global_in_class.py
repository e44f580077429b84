# TL404 edge of evaluates (_surely_trains, _dispatched_method): `global train_batch` in the class body makes `def train_batch` a module global, no method; `self.train_batch(...)` resolves to nothing in CallGraph, so the loop after `model.eval()` does not train and EvalWithoutNoGrad reports, while the screen's `_the_method` dispatches to the def in the class scope, finds its backward, and takes the loop for a training loop
import torch


class Runner:
    global train_batch

    def train_batch(self, batch):
        loss = self.model(batch).sum()
        loss.backward()

    def __init__(self, model):
        self.model = model

    def run(self, loader):
        self.model.eval()
        for batch in loader:
            out = self.model(batch)
            self.train_batch(batch)
        return out
