# TL405 edge of trigger ("backward", _OPTIMIZER_STEP): the optimizer stepped is `opts[names[order[i]]]`, an item of a container named like optimizers (optimizer_name_match, indexed) whose subscript nests two levels of brackets, while `_BRACKETS` allows one; no "optim" is in the text for the second trigger
import torch
from torch import nn

from project.training import build_opts


def train(models: list, loader, names: list, order: list) -> None:
    opts = {name: build_opts(model) for name, model in zip(names, models)}
    criterion = nn.MSELoss()
    for inputs, targets in loader:
        for i, model in enumerate(models):
            loss = criterion(model(inputs), targets)
            loss.backward()
            opts[names[order[i]]].step()
    torch.save([m.state_dict() for m in models], "models.pt")
