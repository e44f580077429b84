# TL104 missed by `pins`: `pin_memory=` is given to `make(...)` where `make = functools.partial(BatchLoader, ...)`; the screen reads a call's pin_memory only for a callee whose last name forwards **kwargs ("make" is none; `partial` counts only for keywords given to partial itself), while forwarded_loader_arguments follows partial to BatchLoader.__init__ -> PinMemoryWithoutCuda reports.
import functools

import torch
from torch.utils.data import DataLoader


class BatchLoader:
    def __init__(self, dataset, **kwargs):
        self.loader = DataLoader(dataset, shuffle=False, **kwargs)

    def __iter__(self):
        return iter(self.loader)


def main(dataset, device: str = "cpu"):
    device = torch.device(device)
    make = functools.partial(BatchLoader, batch_size=32)
    loader = make(dataset, pin_memory=True)
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)


if __name__ == "__main__":
    main(None, "mps" if torch.backends.mps.is_available() else "cpu")
