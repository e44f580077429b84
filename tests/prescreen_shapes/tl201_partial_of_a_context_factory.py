# TL201 edge of amp_may_be_cuda_only: `amp_ctx = get_context()` with `get_context = functools.partial(pick_context, ...)`; walk._runs_of reads `get_context()` only as returns_of('get_context') (defs so named), not the returns of the function the partial wraps, so no `autocast` is ever called (calls_amp False); Names.callees follows the partial to pick_context, whose return is torch.cuda.amp.autocast
import functools

import torch


def pick_context(dtype):
    return torch.cuda.amp.autocast


get_context = functools.partial(pick_context, torch.float16)


def train(model, loader, optimizer, device):
    amp_ctx = get_context()
    for x, y in loader:
        with amp_ctx():
            loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
