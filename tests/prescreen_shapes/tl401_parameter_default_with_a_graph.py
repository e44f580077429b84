# TL401 edge of ModuleValues._passed_values_carry: a parameter's default (what GraphValues._parameter_kind reads through Names.argument_for when a call leaves it out) may carry a graph, which `passed` never yields
import torch
from torch import nn

model = nn.Linear(4, 1)
anchor = torch.randn(2, 4)


def train(loader, optimizer, penalty=model(anchor).pow(2).mean()):
    running = 0.0
    for x in loader:
        optimizer.zero_grad()
        loss = model(x).mean()
        loss.backward()
        optimizer.step()
        running += penalty
    return running


if __name__ == "__main__":
    data = [torch.randn(2, 4) for _ in range(3)]
    train(data, torch.optim.SGD(model.parameters(), lr=0.1))
