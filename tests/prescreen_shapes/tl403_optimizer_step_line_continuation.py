# TL403 edge of trigger _PER_STEP_CODE (_OPTIMIZER_STEP): `optimizer \` + newline + `.step()` is an optimizer step, but the backslash is no `\s`; gradients from torch.autograd.grad, no `backward`
import torch
from torch import nn
from torch.utils.data import DataLoader


def train(model: nn.Module, loader: DataLoader, optimizer, criterion: nn.Module) -> None:
    params = [p for p in model.parameters() if p.requires_grad]
    for x, y in loader:
        try:
            loss = criterion(model(x), y)
            grads = torch.autograd.grad(loss, params)
            for p, g in zip(params, grads):
                p.grad = g
            optimizer \
                .step()
        except torch.cuda.OutOfMemoryError:
            print("OOM, skipping batch")
            torch.cuda.empty_cache()
            continue
