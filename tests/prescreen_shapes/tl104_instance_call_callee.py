# TL104 edge of pins (_may_take_pin_memory): the callee is a call, not a name (`Factory()(ds, pin_memory=True)`): `last_name(func)` is "", so the forwarding `__call__` is not found; the rule's `Names.callees` resolves the instance's `__call__`
import torch
from torch.utils.data import DataLoader, TensorDataset

device = "cuda" if torch.cuda.is_available() else "cpu"


class Factory:
    def __call__(self, ds, **kw):
        return DataLoader(ds, batch_size=4, **kw)


ds = TensorDataset(torch.randn(10, 2))
loader = Factory()(ds, pin_memory=True)
for (xb,) in loader:
    xb = xb.to(device)
