# TL102 edge of loads_moved_data (the walk's scopes): a DataLoader built in a decorator's argument, which Python evaluates in the scope around the def; the walk records the decorator's calls in the def's own scope, where a parameter of the same name (`dataset`) hides the module's data set of moved tensors, while the rule's `Names` reads the decorator where it runs
import functools

import torch
from torch.utils.data import DataLoader, TensorDataset

dataset = TensorDataset(torch.randn(64, 8).cuda(), torch.randint(0, 2, (64,)).cuda())


def with_loader(loader):
    def decorate(step):
        @functools.wraps(step)
        def run(model, *args, **kwargs):
            return [step(model, xb, yb, *args, **kwargs) for xb, yb in loader]
        return run
    return decorate


@with_loader(DataLoader(dataset, batch_size=16, num_workers=2))
def train_step(model, xb, yb, dataset=None):
    return torch.nn.functional.cross_entropy(model(xb), yb)


losses = train_step(torch.nn.Linear(8, 2).cuda())
