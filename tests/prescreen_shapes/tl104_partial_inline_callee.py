# TL104 edge of pins (_may_take_pin_memory): the callee is a call, not a name (`functools.partial(make_loader, batch_size=4)(ds, pin_memory=True)`): `last_name(func)` is "" and `partial`'s own keywords hold no pin; the rule's `Names.callees` follows the partial to `make_loader`'s `**kw`
import functools
import torch
from torch.utils.data import DataLoader, TensorDataset

device = "cuda" if torch.cuda.is_available() else "cpu"


def make_loader(ds, batch_size, **kw):
    return DataLoader(ds, batch_size=batch_size, **kw)


ds = TensorDataset(torch.randn(10, 2))
loader = functools.partial(make_loader, batch_size=4)(ds, pin_memory=True)
for (xb,) in loader:
    xb = xb.to(device)
