# TL101 edge of loads_moved_data (the walk's scopes): a DataLoader built in a parameter's default, which Python evaluates in the scope around the def; the walk records the default's calls in the def's own scope, where a parameter of the same name (`dataset`) hides the module's data set of moved tensors, while the rule's `Names` reads the default where it runs
import torch
from torch.utils.data import DataLoader, TensorDataset

dataset = TensorDataset(torch.randn(64, 8).cuda(), torch.randint(0, 2, (64,)).cuda())


def train(model, dataset=None, loader=DataLoader(dataset, batch_size=16, pin_memory=True)):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for xb, yb in loader:
        loss = torch.nn.functional.cross_entropy(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


train(torch.nn.Linear(8, 2).cuda())
