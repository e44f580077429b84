# TL405 edge of trigger ("backward", _OPTIMIZER_STEP) / ("backward", "optim", ".step("): `opts[i].step()` is a named optimizer step (indexed `opts` less its s), the regex stops at `[`, and no "optim" is in the text
from torch import nn
from torch.utils.data import DataLoader


def train_ensemble(models: list, opts: list, loader: DataLoader, loss_fn: nn.Module) -> None:
    for x, y in loader:
        for i, model in enumerate(models):
            loss = loss_fn(model(x), y)
            loss.backward()
            opts[i].step()
