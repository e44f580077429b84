# TL201 edge of amp_may_be_cuda_only: `amp_ctx` from a relative import (no binding to ImportTable) and later from torch.cuda.amp; the walk's `_aliases` keeps the earlier original
import torch


def evaluate(model, loader):
    from . import eval_context as amp_ctx

    with amp_ctx():
        return [model(x) for x in loader]


def train(model, loader, optimizer, device):
    from torch.cuda.amp import autocast as amp_ctx

    for x, y in loader:
        with amp_ctx():
            loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
