"""TL101 pin-memory-device-tensors."""

from __future__ import annotations

import libcst as cst

from trainlint.rules.loaders.placement import CpuDatasetFix, DevicePlacement
from trainlint.diagnostics import Applicability
from trainlint.rule import Rule


class PinMemoryDeviceTensors(Rule):
    """## What it does
    Finds a `DataLoader` that pins memory for batches already on an accelerator.

    `pin_memory` counts as on unless it is provably false: `True`,
    `torch.cuda.is_available()` and variables count, also when passed through a
    `**kwargs` dict (`{...}`, `dict(...)`, `.update(...)`). The batches are on an
    accelerator when the data set was moved with `.to(device)`/`.cuda()` or built
    with `device=` (directly, in a `TensorDataset`, in a `Subset`/`random_split`/
    `ConcatDataset` of one, or in a Dataset class's `__init__`/`__getitem__` in
    the same module), or when its `collate_fn` moves the batch (directly,
    through a `make_collate(device)` factory or `functools.partial`, as a bound
    method `self._collate`, or as an instance of a class here whose `__call__`
    moves it, `collate_fn=Collator(device)`; also when the moved tensors are
    appended to the lists it returns).

    Silent for: a device that is provably the CPU (`"cpu"`, `torch.device("cpu")`),
    `.to("cpu")`, tensors made on another tensor's device (`device=x.device`,
    which is the CPU for CPU items), tensors from `torch.load(...)` (their device
    is unknown), moves made after the loader was built, models moved with
    `.to(device)`, `pin_memory=False`, and loaders over CPU data whose batches
    are moved in the loop.

    ## Why is this bad
    Pinning page-locks *host* memory so that the copy to the GPU can run
    asynchronously; only dense CPU tensors can be pinned. On a CUDA machine the
    loader fails at the first batch, after the whole data set was prepared:
    `RuntimeError: cannot pin 'torch.cuda.FloatTensor' only dense CPU tensors can
    be pinned` (older releases: "Trying to pin GPU tensors that are already on
    GPU"). On a machine without CUDA the script runs, so the bug ships.

    ## Example
    ```python
    X_t = torch.FloatTensor(X).to(device)
    y_t = torch.LongTensor(y).to(device)
    loader = DataLoader(TensorDataset(X_t, y_t), batch_size=32, pin_memory=True)
    for xb, yb in loader:
        loss = loss_fn(model(xb), yb)
    ```

    ## Use instead
    Keep the data set on the CPU, pin only for a CUDA target, and move each batch
    in the loop with `non_blocking=True` (the copy then overlaps compute):
    ```python
    X_t = torch.FloatTensor(X)
    y_t = torch.LongTensor(y)
    loader = DataLoader(TensorDataset(X_t, y_t), batch_size=32,
                        pin_memory=torch.device(device).type == "cuda")
    for xb, yb in loader:
        xb = xb.to(device, non_blocking=True)
        yb = yb.to(device, non_blocking=True)
        loss = loss_fn(model(xb), yb)
    ```

    ## Fix safety
    The fix removes the accelerator move from the data set (or its
    `__getitem__`/collate function), keeping dtype conversions; makes an
    unconditional `pin_memory=True` conditional on the device being CUDA; and
    inserts `x = x.to(device, non_blocking=True)` for each batch part that was on
    the accelerator (tuple targets, `a, b = batch` unpacking, dict batches) at the
    top of every loop over the loader that does not already move it. Other
    loaders here built from the same moves (a prediction loader sharing the
    collate method, pinned or not) get the same transfer in their loops. It is
    safe when every use of those loaders is such a loop in the same module (also
    through one function call, `train_epoch(model, loader, device)`), so the
    batches reach the same device as before. The loop only calls `.to` on a
    batch part shown to be a tensor; where a moved part is something else (a
    list of moved tensors, which collates to a list), or a loop is not in
    sight, the fix is unsafe and its message says where the transfer must go.
    The pinning condition reads `device.type` where `device` is known to be a
    `torch.device`, else `torch.device(device).type`. No fix is offered when a moved
    tensor, the Dataset class, or another split of the same data
    (`train, val = random_split(...)`) also serves other code, which would
    then receive CPU tensors.

    ## Evidence
    `fixtures/TL101_pin_memory_device_tensors/` (seed trainers, Dataset class,
    kwargs dict, dict batches, device-moving collates, and the false-positive
    traps); `tests/test_runtime_TL101.py` runs each fixed fixture and requires the
    per-step losses of `reference_trainer.run("lstm")`, checks on the CPU that the
    bad scripts move data to the device before the loader hands batches over,
    and (marked `cuda`) that a bad fixture raises the pin error on a GPU while
    its fixed version trains.
    """

    fix = Applicability.SAFE

    def visit_Call(self, node: cst.Call) -> None:
        batches = self.facts.fact(DevicePlacement).device_batches(node, switch="pin_memory")
        if batches is not None:
            move = self.facts.code(batches.first_move).strip()
            message = (
                f"`pin_memory` on batches that are already on the accelerator (`{move}`): "
                "only CPU tensors can be pinned, so this fails on CUDA"
            )
            self.report(node, message, fix=self.facts.fact(CpuDatasetFix).fix(batches))
