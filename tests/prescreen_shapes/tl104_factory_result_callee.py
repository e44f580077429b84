# TL104 edge of pins (_may_take_pin_memory): the callee is a call, not a name (`get_builder()(ds, pin_memory=True)`): `last_name(func)` is "", so no forwarding wrapper is found; the rule's `Names.callees` follows the factory's return to `make_loader`'s `**kw`
import torch
from torch.utils.data import DataLoader, TensorDataset

device = "cuda" if torch.cuda.is_available() else "cpu"


def make_loader(ds, **kw):
    return DataLoader(ds, batch_size=4, **kw)


def get_builder():
    return make_loader


ds = TensorDataset(torch.randn(10, 2))
loader = get_builder()(ds, pin_memory=True)
for (xb,) in loader:
    xb = xb.to(device)
