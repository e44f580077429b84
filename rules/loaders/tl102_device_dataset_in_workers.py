"""TL102 device-dataset-in-workers."""

from __future__ import annotations

import libcst as cst

from trainlint.rules.loaders.placement import CpuDatasetFix, DevicePlacement
from trainlint.diagnostics import Applicability
from trainlint.rule import Rule


class DeviceDatasetInWorkers(Rule):
    """## What it does
    Finds a `DataLoader` whose worker processes would handle accelerator tensors.

    `num_workers` counts unless it is provably 0 (a positive literal, a variable,
    a `**kwargs` entry count). The batches are on an accelerator before the loop
    sees them when the data set holds `.to(device)`/`.cuda()` tensors (directly,
    in a `TensorDataset`, or stored by a Dataset class's `__init__`), when
    `__getitem__` returns accelerator tensors, or when the `collate_fn` moves the
    batch. Placement is read exactly as for TL101.

    Silent for `num_workers=0` or absent, workers that are not forked
    (`multiprocessing_context="spawn"`/`"forkserver"` or one not read
    statically, `set_start_method("spawn")` in the module), provably-CPU
    devices, `.to("cpu")`, tensors from `torch.load(...)`, and loaders over CPU
    data whose batches are moved in the loop.

    ## Why is this bad
    Workers are forked processes; a CUDA context cannot be used or created
    again in a forked child. Indexing a data set of CUDA tensors, or calling
    `.cuda()` in `__getitem__`/`collate_fn`, inside a worker fails with
    `RuntimeError: Cannot re-initialize CUDA in forked subprocess` (with the
    `spawn` start method the tensors go through CUDA IPC instead, which PyTorch
    advises against). The script works on a CPU machine and fails on the GPU box.

    ## Example
    ```python
    class WindowDataset(Dataset):
        def __getitem__(self, i):
            return self.X[i].to(self.device), self.y[i].to(self.device)

    loader = DataLoader(WindowDataset(X, y, device), batch_size=32, num_workers=4)
    for xb, yb in loader:
        ...
    ```

    ## Use instead
    Let the workers produce CPU batches and move them in the loop:
    ```python
    class WindowDataset(Dataset):
        def __getitem__(self, i):
            return self.X[i], self.y[i]

    loader = DataLoader(WindowDataset(X, y, device), batch_size=32, num_workers=4)
    for xb, yb in loader:
        xb = xb.to(device, non_blocking=True)
        yb = yb.to(device, non_blocking=True)
        ...
    ```

    ## Fix safety
    The same fix as TL101 (the two rules share it): remove the accelerator
    moves from the data set, `__getitem__` or collate function (dtype
    conversions stay), make an unconditional `pin_memory=True` conditional on a
    CUDA device, and move each batch part that was on the accelerator at the top
    of every loop over the loader. Safe when all uses of the loader are such
    loops in the same module; otherwise unsafe, with the message saying where
    the transfer must go; no fix when a moved tensor or the Dataset class also
    serves other code.

    ## Evidence
    `fixtures/TL102_device_dataset_in_workers/` and
    `tests/test_runtime_TL102.py`: the fixed fixtures, run with their workers,
    train exactly like `reference_trainer.run("lstm")`; the bad ones move data to
    the device inside the worker's fetch or before the loader; a `cuda`-marked
    test shows the forked-worker failure on a GPU and the fixed version training.
    """

    fix = Applicability.SAFE

    def visit_Call(self, node: cst.Call) -> None:
        placement = self.facts.fact(DevicePlacement)
        batches = placement.device_batches(node, switch="num_workers")
        if batches is not None and placement.forks_workers(batches.arguments):
            move = self.facts.code(batches.first_move).strip()
            message = (
                f"DataLoader workers would handle accelerator tensors (`{move}`): "
                "CUDA cannot be re-initialised in forked worker processes"
            )
            self.report(node, message, fix=self.facts.fact(CpuDatasetFix).fix(batches))
