# TL104 missed by `pins`: Features._may_take_pin_memory reads `pin_memory=` only on a callee whose *last name* forwards **kwargs (`_forwarding_functions`/`_class_names`); `make = BatchLoader; make(ds, pin_memory=True)` is called as `make`, which DevicePlacement.forwarded_loader_arguments resolves (Names.callees -> resolve_callable) -> PinMemoryWithoutCuda reports.
import torch
from torch.utils.data import DataLoader


class BatchLoader:
    def __init__(self, dataset, **kwargs):
        self.loader = DataLoader(dataset, shuffle=False, **kwargs)

    def __iter__(self):
        return iter(self.loader)


def main(dataset, device: str = "cpu"):
    device = torch.device(device)
    make = BatchLoader
    loader = make(dataset, batch_size=32, pin_memory=True)
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)


if __name__ == "__main__":
    main(None, "mps" if torch.backends.mps.is_available() else "cpu")
