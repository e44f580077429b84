# TL404 edge of trigger _EVAL_MODE: `model.train(mode=( False ))`, a keyword whose value is a parenthesised False with spaces inside (`_mode_set` reads the Name through its parentheses), while the pattern allows `[(]*` after `=` but no space after the parenthesis. Contrived
import torch
from torch import nn


def evaluate(model: nn.Module, loader, criterion: nn.Module) -> float:
    model.train(mode=( False ))
    total = 0.0
    for inputs, targets in loader:
        outputs = model(inputs)
        total += criterion(outputs, targets).item()
    return total / max(len(loader), 1)


if __name__ == "__main__":
    net = nn.Linear(8, 2)
    batches = [(torch.randn(4, 8), torch.randint(0, 2, (4,))) for _ in range(3)]
    print(evaluate(net, batches, nn.CrossEntropyLoss()))
