"""Pairs for the structural pre-screen (trainlint/prescreen.py): a shape the screen leaves unparsed, and its twin
that the rule reports, which the screen must keep.

Each screened-out case is checked against the rule itself (no finding without the screen either), and each twin
shows that the comparison can fail: the rule reports it, with and without the screen. The shapes come from files
that issue 19's corpora had parsed for nothing (diffusers' training scripts, webdataset loaders, tokenizing helpers).
"""

from __future__ import annotations

import ast
import textwrap
from typing import Dict, Tuple

import pytest

from trainlint.engine import RuleSettings, lint_source
from trainlint.prescreen import screened_codes

# name -> (the rule, the module, whether the rule reports it)
CASES: Dict[str, Tuple[str, str, bool]] = {
    # `latents = []` in the step loop, filled by a `range` loop inside it: bound afresh every step
    "tl401_list_filled_by_a_range_loop": (
        "TL401",
        """
        import torch


        def main():
            for epoch in range(3):
                for step, batch in enumerate(train_dataloader):
                    latents = []
                    for i in range(0, batch.shape[0], 2):
                        latents.append(encoder(batch[i : i + 2]))
                    latents = torch.cat(latents)
                    loss = model(latents).mean()
                    loss.backward()
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        False,
    ),
    # reset in the epoch loop, summed in the loader loop: the rule's step is the loader loop
    "tl401_sum_reset_per_epoch_only": (
        "TL401",
        """
        import torch

        for epoch in range(3):
            total = 0
            for x, y in train_loader:
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
                total += loss
            print(total)
        """,
        True,
    ),
    # `parts = torch.cat(parts)` binds the list a second time: no history
    "tl402_list_rebound_after_its_loop": (
        "TL402",
        """
        import torch

        for epoch in range(3):
            for batch in train_loader:
                parts = []
                for i in range(0, len(batch), 2):
                    parts.append(encoder(batch[i : i + 2]).detach())
                parts = torch.cat(parts)
                loss = model(parts).mean()
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
        """,
        False,
    ),
    # `seen, losses = [], []`: one binding, to a list
    "tl402_lists_made_by_one_unpacking": (
        "TL402",
        """
        import torch

        seen, losses = [], []
        for epoch in range(3):
            for x, y in train_loader:
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
                losses.append(loss.detach())
        """,
        True,
    ),
    # an `except` for another error; "out of memory" is only printed
    "tl403_handler_for_another_error": (
        "TL403",
        """
        import torch

        for x, y in train_loader:
            try:
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            except ValueError:
                print("skipped: not an out of memory error")
                continue
        """,
        False,
    ),
    # the out-of-memory error under an alias
    "tl403_error_type_under_an_alias": (
        "TL403",
        """
        import torch
        from torch.cuda import OutOfMemoryError as OOM

        for x, y in train_loader:
            try:
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            except OOM:
                continue
        """,
        True,
    ),
    # webdataset's `WebLoader(pin_memory=True)`: not a call the rule reads
    "tl104_pinned_by_another_loader": (
        "TL104",
        """
        import torch
        import webdataset as wds

        device = "cuda" if torch.cuda.is_available() else "cpu"
        loader = wds.WebLoader(dataset, batch_size=None, pin_memory=True)
        for x in loader:
            x = x.to(device)
        """,
        False,
    ),
    # `th.empty(..., pin_memory=True)` with `import torch as th`
    "tl104_factory_under_an_alias": (
        "TL104",
        """
        import torch as th

        device = "cuda" if th.cuda.is_available() else "cpu"
        staging = th.empty(4, 3, pin_memory=True)
        staging.to(device)
        """,
        True,
    ),
    # `torch.empty(..., pin_memory=True)` where only `import torch.nn` binds `torch`
    "tl104_factory_of_a_submodule_import": (
        "TL104",
        """
        import torch.nn

        device = "cuda" if torch.cuda.is_available() else "cpu"
        staging = torch.empty(4, 3, pin_memory=True)
        staging.to(device)
        """,
        True,
    ),
    # a DataLoader pinning where nothing selects the CPU or MPS (Lightning's data modules): off CUDA it only warns,
    # and the rule reports that only where the module may run there
    "tl104_loader_pinning_with_no_device_chosen": (
        "TL104",
        """
        import torch
        from torch.utils.data import DataLoader


        def train_dataloader(dataset):
            return DataLoader(dataset, batch_size=32, shuffle=True, pin_memory=True)
        """,
        False,
    ),
    # a loader's keywords built by `dict(...)` and passed as `**kwargs`, in a module that selects the CPU
    "tl104_loader_keywords_from_dict": (
        "TL104",
        """
        import torch
        from torch.utils.data import DataLoader

        device = "cuda" if torch.cuda.is_available() else "cpu"
        kwargs = dict(batch_size=4, pin_memory=True)
        loader = DataLoader(dataset, **kwargs)
        """,
        True,
    ),
    # torch's own pinning protocol: `.pin_memory()` in a `def pin_memory`, and "pin_memory" asked of `hasattr`
    "tl104_pinning_protocol_itself": (
        "TL104",
        """
        import torch


        CPU = torch.device("cpu")


        def pin_memory(data, device=None):
            if isinstance(data, torch.Tensor):
                return data.pin_memory()
            if hasattr(data, "pin_memory"):
                return data.pin_memory()
            return data
        """,
        False,
    ),
    # the same, in a module whose launcher may have picked the CPU (`fabric.device`)
    "tl104_loader_pinning_beside_a_launcher_device": (
        "TL104",
        """
        import torch
        from torch.utils.data import DataLoader


        def train(fabric, dataset, model):
            device = fabric.device
            loader = DataLoader(dataset, batch_size=32, shuffle=True, pin_memory=True)
            for x in loader:
                model(x.to(device))
        """,
        True,
    ),
    # `torch.autocast("cuda")` in a module that names no other device and takes none from anywhere (Lightning's
    # FSDP precision plugin): CUDA is all it can run on
    "tl201_cuda_autocast_with_no_device_source": (
        "TL201",
        """
        import torch


        class Precision:
            def forward_context(self):
                return torch.autocast("cuda", dtype=torch.float16)
        """,
        False,
    ),
    # the same, where the device comes from the caller
    "tl201_cuda_autocast_beside_a_device_parameter": (
        "TL201",
        """
        import torch


        def train_step(model, batch, device):
            with torch.autocast("cuda", dtype=torch.float16):
                loss = model(batch.to(device)).mean()
            loss.backward()
        """,
        True,
    ),
    # a module that loads only where CUDA is (TensorRT imported): a device from the caller is a CUDA device
    "tl201_cuda_autocast_in_a_tensorrt_module": (
        "TL201",
        """
        import tensorrt as trt
        import torch


        def run(model, x, device):
            with torch.autocast("cuda"):
                return model(x.to(device))
        """,
        False,
    ),
    # the same module naming MPS: the rule reports whatever pins the rest
    "tl201_cuda_autocast_in_a_tensorrt_module_naming_mps": (
        "TL201",
        """
        import tensorrt as trt
        import torch

        ON_MAC = torch.backends.mps.is_available()


        def run(model, x, device):
            with torch.autocast("cuda"):
                return model(x.to(device))
        """,
        True,
    ),
    # a version shim: the CUDA-only scaler where the device-taking one is missing (Lightning's precision plugins)
    "tl201_scaler_in_a_version_shim": (
        "TL201",
        """
        import torch

        TORCH_2_4 = hasattr(torch.amp, "GradScaler")


        class MixedPrecision:
            def __init__(self, device):
                self.device = device
                self.scaler = torch.amp.GradScaler(device=device) if TORCH_2_4 else torch.cuda.amp.GradScaler()
        """,
        False,
    ),
    # the same conditional choosing between the CUDA-only scaler and none: no shim
    "tl201_scaler_or_none": (
        "TL201",
        """
        import torch


        class MixedPrecision:
            def __init__(self, device, enabled):
                self.device = device
                self.scaler = torch.cuda.amp.GradScaler() if enabled else None
        """,
        True,
    ),
    # targets unpacked from a hook's batch (Lightning's `x, y = batch`): a parameter of a hook the module never calls
    "tl302_targets_unpacked_from_a_hook_batch": (
        "TL302",
        """
        import torch
        import torch.nn.functional as F


        class Classifier:
            def __init__(self):
                self.example_input_array = torch.zeros(2, 1, 28, 28)

            def training_step(self, batch, batch_idx):
                x, y = batch
                return F.cross_entropy(self.forward(x), y)
        """,
        False,
    ),
    # a hook called only through `*args`/`**kwargs` (a subclass's `super().training_step(*args, **kwargs)`): the rule's
    # argument binding tells nothing there
    "tl302_hook_called_through_star_arguments": (
        "TL302",
        """
        import torch
        import torch.nn.functional as F


        class Classifier:
            def __init__(self):
                self.example_input_array = torch.zeros(2, 1, 28, 28)

            def training_step(self, batch, batch_idx):
                x, y = batch
                return F.cross_entropy(self.forward(x), y)


        class Logged(Classifier):
            def training_step(self, *args, **kwargs):
                return super().training_step(*args, **kwargs)
        """,
        False,
    ),
    # the same unpacking, where the module itself passes the batch, its labels made as floats
    "tl302_targets_unpacked_from_a_float_batch": (
        "TL302",
        """
        import torch
        import torch.nn.functional as F


        def step(model, batch):
            x, y = batch
            return F.cross_entropy(model(x), y)


        step(model, (torch.rand(8, 4), torch.FloatTensor([0, 1, 2, 1, 0, 1, 2, 0])))
        """,
        True,
    ),
    # a name bound in the function that reads it, by assignment only: another function's parameter of that name,
    # passed a float tensor, is not what it holds (diffusers' amused trainer: `input_ids` of `encode_prompt`)
    "tl302_local_name_beside_a_float_parameter_elsewhere": (
        "TL302",
        """
        import torch
        import torch.nn as nn

        emb = nn.Embedding(10, 4)


        def encode(input_ids):
            return input_ids * 2


        def main(batch):
            input_ids = torch.where(batch > 0, 0, batch.long())
            input_ids = input_ids.reshape(2, -1)
            return emb(input_ids)


        encode(torch.zeros(3))
        """,
        False,
    ),
    # the same, where the function's own assignment makes the float
    "tl302_local_name_made_float": (
        "TL302",
        """
        import torch
        import torch.nn as nn

        emb = nn.Embedding(10, 4)


        def encode(input_ids):
            return input_ids * 2


        def main(batch):
            input_ids = torch.where(batch > 0, 0, batch.long())
            input_ids = input_ids.float().reshape(2, -1)
            return emb(input_ids)


        encode(torch.zeros(3))
        """,
        True,
    ),
    # two optimizers, each cleared by its own `zero_grad()` in the loop (diffusers' VQGAN trainer)
    "tl405_two_optimizers_each_cleared": (
        "TL405",
        """
        import torch

        for batch in loader:
            optimizer.zero_grad(set_to_none=True)
            discr_optimizer.zero_grad(set_to_none=True)
            loss = model(batch).mean()
            loss.backward()
            optimizer.step()
            lr_scheduler.step()
            discr_loss = discriminator(batch).mean()
            discr_loss.backward()
            discr_optimizer.step()
        """,
        False,
    ),
    # the same loop clearing one of them: the other's gradients add up
    "tl405_two_optimizers_one_cleared": (
        "TL405",
        """
        import torch

        for batch in loader:
            optimizer.zero_grad(set_to_none=True)
            loss = model(batch).mean()
            loss.backward()
            optimizer.step()
            discr_loss = discriminator(batch).mean()
            discr_loss.backward()
            discr_optimizer.step()
        """,
        True,
    ),
    # a helper that returns a tokenizer's ids, passed on as `f(ids=ids)`
    "tl302_helper_returns_token_ids": (
        "TL302",
        """
        import torch
        import torch.nn as nn

        emb = nn.Embedding(10, 4)
        weights = torch.zeros(4)


        def tokenize(text):
            tokens = tokenizer(text, return_tensors="pt")
            return tokens["input_ids"].to("cpu")


        def encode(ids):
            return emb(ids)


        def run(ids):
            return encode(ids=ids)


        ids = tokenize("hello")
        run(ids)
        """,
        False,
    ),
    # the same helper returning a float tensor
    "tl302_helper_returns_float_ids": (
        "TL302",
        """
        import torch
        import torch.nn as nn

        emb = nn.Embedding(10, 4)


        def tokenize(text):
            return torch.FloatTensor([1, 2])


        def encode(ids):
            return emb(ids)


        def run(ids):
            return encode(ids=ids)


        ids = tokenize("hello")
        run(ids)
        """,
        True,
    ),
    # `self.embedding(sample)` is a module attribute's call, not `F.embedding`
    "tl302_embedding_attribute_of_self": (
        "TL302",
        """
        import torch
        import torch.nn as nn


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.embedding = nn.Conv2d(3, 8, 1)

            def encode(self, sample):
                return self.embedding(sample)


        Net().encode(torch.zeros(1, 3, 4, 4))
        """,
        False,
    ),
    # `F.embedding` given a float tensor
    "tl302_functional_embedding_of_floats": (
        "TL302",
        """
        import torch
        import torch.nn.functional as F

        weight = torch.randn(10, 4)
        ids = torch.zeros(3)
        F.embedding(ids, weight)
        """,
        True,
    ),
    # a list indexed by `reversed(range(...))`'s count
    "tl302_list_indexed_by_a_reversed_range": (
        "TL302",
        """
        import torch
        import torch.nn as nn

        emb = nn.Embedding(10, 4)
        scale = torch.ones(1)
        outputs = []
        for i in range(3):
            outputs.append(emb(torch.tensor([i])) * scale)
        for i in reversed(range(3)):
            print(outputs[i])
        """,
        False,
    ),
    # the same list indexed by a float tensor
    "tl302_list_indexed_by_a_float_tensor": (
        "TL302",
        """
        import torch
        import torch.nn as nn

        emb = nn.Embedding(10, 4)
        scale = torch.ones(1)
        outputs = []
        for i in range(3):
            outputs.append(emb(torch.tensor([i])) * scale)
        print(outputs[torch.zeros(())])
        """,
        True,
    ),
    # a helper returning its own `ret`, bound only to numbers there (the module's other `ret` is a float tensor)
    "tl302_helper_returns_its_own_local": (
        "TL302",
        """
        import torch
        import torch.nn as nn

        emb = nn.Embedding(10, 4)
        outputs = [emb(torch.tensor([i])) for i in range(3)]


        def pick(last):
            if last:
                ret = 2
            else:
                ret = 0
            return ret


        def scale():
            ret = torch.ones(1)
            return ret


        print(outputs[pick(True)] * scale())
        """,
        False,
    ),
    # the helper's own `ret` is a float tensor
    "tl302_helper_returns_a_local_float": (
        "TL302",
        """
        import torch
        import torch.nn as nn

        emb = nn.Embedding(10, 4)
        outputs = [emb(torch.tensor([i])) for i in range(3)]


        def pick(last):
            ret = torch.zeros(())
            return ret


        print(outputs[pick(True)])
        """,
        True,
    ),
    # loops after `.eval()` that run no model: bookkeeping methods, builtins, arithmetic
    "tl404_loops_after_eval_that_run_no_model": (
        "TL404",
        """
        import torch


        def setup(model, sizes, patches):
            model.eval()
            for p in model.parameters():
                p.requires_grad_(False)
            return [s // p for s, p in zip(sizes, patches)]
        """,
        False,
    ),
    # a loop after `.eval()` that runs the model over a loader
    "tl404_loop_after_eval_that_runs_the_model": (
        "TL404",
        """
        import torch


        def evaluate(model, loader):
            model.eval()
            correct = 0
            for x, y in loader:
                correct += (model(x).argmax(1) == y).sum().item()
            return correct
        """,
        True,
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_screen_leaves_out_only_what_its_rule_does_not_report(name: str) -> None:
    rule, code, reported = CASES[name]
    text = textwrap.dedent(code)
    settings = RuleSettings(frozenset({rule}))
    found = [d.code for d in lint_source(text, f"{name}.py", settings, screen=False).diagnostics]
    assert found == ([rule] if reported else [])
    assert screened_codes(ast.parse(text), [rule], f"{name}.py") == ([rule] if reported else [])
    assert [d.code for d in lint_source(text, f"{name}.py", settings).diagnostics] == found
