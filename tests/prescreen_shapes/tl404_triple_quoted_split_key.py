# TL404 edge of trigger _HELD_OUT_LOADER: the loader is `loaders["""val"""]`, a triple-quoted key whose value is "val" (iterates_held_out_data reads `evaluated_value`), while `\[[\s(]*[rRuU]?["']val["']` meets the second quote of `"""`. Contrived
import torch
from torch import nn


def validate(model: nn.Module, loaders: dict, criterion: nn.Module) -> float:
    total = 0.0
    for inputs, targets in loaders["""val"""]:
        outputs = model(inputs)
        total += criterion(outputs, targets).item()
    return total / len(loaders["""val"""])


def main(model: nn.Module, loaders: dict) -> None:
    criterion = nn.CrossEntropyLoss()
    print(f"validation loss {validate(model, loaders, criterion):.4f}")
    torch.save(model.state_dict(), "model.pt")
