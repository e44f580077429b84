# TL403 edge of trigger _PER_STEP_CODE (_OPTIMIZER_STEP): the loop trains by `opts["main"].step()` (optimizer_name_match: indexed `opts` less its s), which the regex misses at `[`; gradients from torch.autograd.grad, no `backward`
import torch
from torch import nn
from torch.utils.data import DataLoader


def train(model: nn.Module, loader: DataLoader, opts: dict, criterion: nn.Module) -> None:
    params = [p for p in model.parameters() if p.requires_grad]
    for x, y in loader:
        try:
            loss = criterion(model(x), y)
            grads = torch.autograd.grad(loss, params)
            for p, g in zip(params, grads):
                p.grad = g
            opts["main"].step()
        except RuntimeError as e:
            if "out of memory" in str(e):
                print("OOM, skipping batch")
                torch.cuda.empty_cache()
                continue
            raise
