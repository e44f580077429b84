"""Pairs for the structural pre-screen (trainlint/prescreen/): a shape the screen leaves unparsed, and its twin
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
    # summed under `torch.no_grad()` (one `import torch` binds `torch`): GraphValues' kind is None there
    "tl401_sum_under_torch_no_grad": (
        "TL401",
        """
        import torch


        def train(model, loader, optimizer):
            total = 0
            for x, y in loader:
                loss = torch.nn.functional.mse_loss(model(x), y)
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
                with torch.no_grad():
                    total += model(x).sum()
            return total
        """,
        False,
    ),
    # the same under a `no_grad` of another library: not torch's, so the rule follows the graph
    "tl401_sum_under_another_librarys_no_grad": (
        "TL401",
        """
        import torch
        from mylib import no_grad


        def train(model, loader, optimizer):
            total = 0
            for x, y in loader:
                loss = torch.nn.functional.mse_loss(model(x), y)
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
                with no_grad():
                    total += model(x).sum()
            return total
        """,
        True,
    ),
    # stored by a method named like an evaluation step, which `runs_without_grad` takes for running without grad
    "tl401_stored_in_an_evaluation_step": (
        "TL401",
        """
        import torch


        class Trainer:
            def __init__(self):
                self.scores = []

            def validation_step(self, model, x):
                self.total = self.total + model(x).sum()

            def fit(self, model, loader, optimizer):
                for x in loader:
                    loss = model(x).sum()
                    loss.backward()
                    optimizer.step()
                    optimizer.zero_grad()
                    self.validation_step(model, x)
        """,
        False,
    ),
    # the same method under another name: per-step code that keeps the graph
    "tl401_stored_in_a_per_step_method": (
        "TL401",
        """
        import torch


        class Trainer:
            def __init__(self):
                self.scores = []

            def record(self, model, x):
                self.total = self.total + model(x).sum()

            def fit(self, model, loader, optimizer):
                for x in loader:
                    loss = model(x).sum()
                    loss.backward()
                    optimizer.step()
                    optimizer.zero_grad()
                    self.record(model, x)
        """,
        True,
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
    # a move made and used up in a Dataset's method (`t.sub(mean)`: a method's arguments are not its result), none
    # returned by `__getitem__` nor stored on the instance (Lightning's MNIST demo)
    "tl101_dataset_method_uses_up_its_move": (
        "TL101",
        """
        import torch
        from torch.utils.data import DataLoader, Dataset


        class Digits(Dataset):
            def __init__(self, data):
                self.data, self.targets = data, torch.zeros(len(data))

            def __getitem__(self, i):
                return self.normalize(self.data[i].float()), self.targets[i]

            @staticmethod
            def normalize(t):
                mean = torch.as_tensor(0.13, dtype=t.dtype, device=t.device)
                return t.sub(mean)


        loader = DataLoader(Digits(torch.rand(8, 4)), batch_size=4, pin_memory=True)
        """,
        False,
    ),
    # the moves stored on the instance by one tuple assignment, and returned by `__getitem__`
    "tl101_dataset_stores_its_moves_in_a_tuple": (
        "TL101",
        """
        import torch
        from torch.utils.data import DataLoader, Dataset


        class Digits(Dataset):
            def __init__(self, data, device):
                self.images, self.targets = data.to(device), torch.zeros(len(data))

            def __getitem__(self, i):
                return self.images[i], self.targets[i]


        loader = DataLoader(Digits(torch.rand(8, 4), "cuda"), batch_size=4, pin_memory=True)
        """,
        True,
    ),
    # moved tensors stored on the data set from outside its class: `self.videos` in `__getitem__` reads only the
    # class's own stores (diffusers' CogVideoX scripts, which encode the videos once after building the data set)
    "tl102_moved_values_stored_on_a_dataset_from_outside": (
        "TL102",
        """
        import torch
        from torch.utils.data import DataLoader, Dataset


        class Videos(Dataset):
            def __init__(self, videos):
                self.videos = videos

            def __getitem__(self, i):
                return self.videos[i]


        def main(device):
            dataset = Videos([torch.rand(3, 4) for _ in range(8)])
            dataset.videos = [v.to(device) for v in dataset.videos]
            return DataLoader(dataset, batch_size=2, num_workers=2)
        """,
        False,
    ),
    # the same tensors appended to the instance's own list by a method of the class
    "tl102_moved_values_appended_by_the_dataset": (
        "TL102",
        """
        import torch
        from torch.utils.data import DataLoader, Dataset


        class Videos(Dataset):
            def __init__(self, videos, device):
                self.videos = []
                for v in videos:
                    self.videos.append(v.to(device))

            def __getitem__(self, i):
                return self.videos[i]


        def main(device):
            dataset = Videos([torch.rand(3, 4) for _ in range(8)], device)
            return DataLoader(dataset, batch_size=2, num_workers=2)
        """,
        True,
    ),
    # a tensor made on the device with the read data's dtype: TL103 follows what the move moves (`1`), not `dtype=`
    "tl103_move_takes_only_the_dtype_of_the_read_data": (
        "TL103",
        """
        import numpy as np
        import torch
        from torch.utils.data import DataLoader, TensorDataset

        data = torch.from_numpy(np.load("x.npy"))
        scale = torch.ones(1, dtype=data.dtype, device="cuda")
        loader = DataLoader(TensorDataset(data * 2), batch_size=32)
        """,
        False,
    ),
    # the read data itself moved before the loader
    "tl103_read_data_moved_before_the_loader": (
        "TL103",
        """
        import numpy as np
        import torch
        from torch.utils.data import DataLoader, TensorDataset

        data = torch.from_numpy(np.load("x.npy")).to("cuda")
        loader = DataLoader(TensorDataset(data), batch_size=32)
        """,
        True,
    ),
    # a read moved whole (a checkpoint, a broadcast object) while the loop slices something else: TL103's `_batching`
    # finds no slice of the names the move is bound to (Lightning's XLA strategy, timm's checkpoint helpers)
    "tl103_moved_read_never_sliced": (
        "TL103",
        """
        import torch


        def restore(path, device, keys):
            state = torch.load(path).to(device)
            shapes = {}
            for key in keys:
                shapes[key] = sizes[key]
            return state, shapes
        """,
        False,
    ),
    # the moved read itself sliced in the loop
    "tl103_moved_read_sliced_in_a_loop": (
        "TL103",
        """
        import torch


        def restore(path, device, keys):
            state = torch.load(path).to(device)
            shapes = {}
            for key in keys:
                shapes[key] = state[key]
            return state, shapes
        """,
        True,
    ),
    # a loader's pinning where "cpu" is only a launcher's setting the device analysis does not read (a Lightning
    # test's `Trainer(accelerator="cpu", devices=2)`): no device variable, parameter, keyword, option or launcher
    "tl104_loader_pinning_with_no_device_choice": (
        "TL104",
        """
        from lightning.pytorch import Trainer
        from torch.utils.data import DataLoader


        def test_workers(dataset):
            loader = DataLoader(dataset, num_workers=1, pin_memory=True)
            trainer = Trainer(accelerator="cpu", devices=2)
            trainer.fit(model, loader)
        """,
        False,
    ),
    # the same pinning where a keyword named like a device picks the CPU
    "tl104_loader_pinning_with_a_device_keyword": (
        "TL104",
        """
        from lightning.pytorch import Trainer
        from torch.utils.data import DataLoader


        def test_workers(dataset):
            loader = DataLoader(dataset, num_workers=1, pin_memory=True)
            trainer = Trainer(train_device="cpu", devices=2)
            trainer.fit(model, loader)
        """,
        True,
    ),
    # a tensor pinned under the switch that picks CUDA (`"cuda" if args.cuda else "cpu"`, never assigned), or under
    # an opt-in `store_true` flag: CudaOnlyRegions and `_under_opt_in_flag` take both for CUDA-only code
    "tl104_pinning_under_the_cuda_switch_or_an_opt_in_flag": (
        "TL104",
        """
        import argparse

        import torch

        parser = argparse.ArgumentParser()
        parser.add_argument("--cuda", action="store_true")
        parser.add_argument("--offload_ema", action="store_true")
        args = parser.parse_args()
        device = torch.device("cuda" if args.cuda else "cpu")


        def share(batch, ema):
            if args.offload_ema:
                ema.pin_memory()
            if not args.share and args.cuda:
                for value in batch.values():
                    value.pin_memory()
        """,
        False,
    ),
    # the same pinning where the flag defaults to on
    "tl104_pinning_under_a_flag_on_by_default": (
        "TL104",
        """
        import argparse

        import torch

        parser = argparse.ArgumentParser()
        parser.add_argument("--cuda", action="store_true")
        parser.add_argument("--offload_ema", action="store_true", default=True)
        args = parser.parse_args()
        device = torch.device("cuda" if args.cuda else "cpu")


        def share(batch, ema):
            if args.offload_ema:
                ema.pin_memory()
            if not args.share and args.cuda:
                for value in batch.values():
                    value.pin_memory()
        """,
        True,
    ),
    # the same pinning where the switch also picks the CPU when it holds: it no longer says CUDA
    "tl104_pinning_under_a_switch_of_both_senses": (
        "TL104",
        """
        import argparse

        import torch

        parser = argparse.ArgumentParser()
        parser.add_argument("--cuda", action="store_true")
        parser.add_argument("--offload_ema", action="store_true")
        args = parser.parse_args()
        device = torch.device("cuda" if args.cuda else "cpu")
        eval_device = "cpu" if args.cuda else "cuda"


        def share(batch, ema):
            if args.offload_ema:
                ema.pin_memory()
            if not args.share and args.cuda:
                for value in batch.values():
                    value.pin_memory()
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
    # a GAN: each optimizer's gradients cleared through the model it is built over (DCGAN's `netD.zero_grad()`)
    "tl405_gan_models_cleared": (
        "TL405",
        """
        import torch.optim as optim

        optimizer_d = optim.Adam(discriminator.parameters(), lr=2e-4)
        optimizer_g = optim.Adam(generator.parameters(), lr=2e-4)
        for epoch in range(5):
            for real, _ in loader:
                discriminator.zero_grad()
                criterion(discriminator(real), ones).backward()
                optimizer_d.step()
                generator.zero_grad()
                criterion(discriminator(generator(noise)), ones).backward()
                optimizer_g.step()
        """,
        False,
    ),
    # the same GAN clearing the discriminator only: the generator's optimizer applies a running sum
    "tl405_gan_one_model_cleared": (
        "TL405",
        """
        import torch.optim as optim

        optimizer_d = optim.Adam(discriminator.parameters(), lr=2e-4)
        optimizer_g = optim.Adam(generator.parameters(), lr=2e-4)
        for epoch in range(5):
            for real, _ in loader:
                discriminator.zero_grad()
                criterion(discriminator(real), ones).backward()
                optimizer_d.step()
                criterion(discriminator(generator(noise)), ones).backward()
                optimizer_g.step()
        """,
        True,
    ),
    # a scheduler built by a library's `get_scheduler` is no optimizer: one optimizer, cleared in the loop
    "tl405_scheduler_from_another_library": (
        "TL405",
        """
        import torch
        from diffusers.optimization import get_scheduler

        optimizer = torch.optim.AdamW(model.parameters())
        lr_scheduler = get_scheduler("constant", optimizer=optimizer)
        for batch in loader:
            model(batch).mean().backward()
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad()
        """,
        False,
    ),
    # `torch.optim`'s own optimizer under a name that reads as none: stepped, never cleared
    "tl405_torch_optimizer_named_otherwise": (
        "TL405",
        """
        import torch

        optimizer = torch.optim.AdamW(model.parameters())
        solver = torch.optim.SGD(head.parameters())
        for batch in loader:
            model(batch).mean().backward()
            optimizer.step()
            solver.step()
            optimizer.zero_grad()
        """,
        True,
    ),
    # the loop calls a method of its own class, and that method clears (timm's benchmark, a Fabric trainer)
    "tl405_cleared_in_a_method_of_the_class": (
        "TL405",
        """
        class Trainer:
            def fit(self, loader):
                for batch in loader:
                    self.train_step(batch)

            def train_step(self, batch):
                self.optimizer.zero_grad()
                self.model(batch).mean().backward()
                self.optimizer.step()
        """,
        False,
    ),
    # the same trainer whose method steps without clearing
    "tl405_method_of_the_class_does_not_clear": (
        "TL405",
        """
        class Trainer:
            def fit(self, loader):
                for batch in loader:
                    self.train_step(batch)

            def train_step(self, batch):
                self.model(batch).mean().backward()
                self.optimizer.step()

            def reset(self):
                self.optimizer.zero_grad()
        """,
        True,
    ),
    # a nested helper that clears, called by its plain name, reached through a runner's method (timm's benchmark)
    "tl405_cleared_in_a_nested_function_reached": (
        "TL405",
        """
        class Runner:
            def run(self):
                def _step():
                    self.optimizer.zero_grad()
                    self.model(self.x).mean().backward()
                    self.optimizer.step()

                for _ in range(10):
                    _step()


        def bench(runner):
            for _ in range(3):
                runner.run()
        """,
        False,
    ),
    # the same, where the nested helper does not clear
    "tl405_nested_function_reached_does_not_clear": (
        "TL405",
        """
        class Runner:
            def run(self):
                def _step():
                    self.model(self.x).mean().backward()
                    self.optimizer.step()

                for _ in range(10):
                    _step()
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
    # `torch.set_grad_enabled(False)` as a statement of the loop's own function: GradMode runs all of it without grad
    "tl404_grad_switched_off_in_the_loop_function": (
        "TL404",
        """
        import torch


        def evaluate(model, loader):
            model.eval()
            torch.set_grad_enabled(False)
            correct = 0
            for x, y in loader:
                correct += (model(x).argmax(1) == y).sum().item()
            torch.set_grad_enabled(True)
            return correct
        """,
        False,
    ),
    # ... switched off in another function only: the loop records
    "tl404_grad_switched_off_in_another_function": (
        "TL404",
        """
        import torch


        def freeze():
            torch.set_grad_enabled(False)


        def evaluate(model, loader):
            model.eval()
            correct = 0
            for x, y in loader:
                correct += (model(x).argmax(1) == y).sum().item()
            return correct
        """,
        True,
    ),
    # a trainer's epoch loop that trains through `self.train_epoch(...)`: `Loops.trains`, through the method's dispatch
    "tl404_epoch_loop_trains_through_a_method": (
        "TL404",
        """
        import torch


        class Trainer:
            def __init__(self, model, optimizer):
                self.model = model
                self.optimizer = optimizer

            def fit(self, batches, epochs):
                for epoch in range(epochs):
                    self.train_epoch(batches)
                    self.validate(batches[0])

            def train_epoch(self, batches):
                for x in batches:
                    loss = self.model(x).mean()
                    loss.backward()
                    self.optimizer.step()
                    self.optimizer.zero_grad()

            def validate(self, x):
                self.model.eval()
                print(self.model(x).mean().item())
                self.model.train()
        """,
        False,
    ),
    # ... an epoch loop that only validates through the method: an evaluation loop
    "tl404_epoch_loop_validates_through_a_method": (
        "TL404",
        """
        import torch


        class Trainer:
            def __init__(self, model, optimizer):
                self.model = model
                self.optimizer = optimizer

            def fit(self, batches, epochs):
                for epoch in range(epochs):
                    self.validate(batches[epoch])

            def validate(self, x):
                self.model.eval()
                print(self.model(x).mean().item())
                self.model.train()
        """,
        True,
    ),
    # after `model.eval()`, a loop calling a helper that runs no model: its `df` is no parameter of `main`'s
    "tl404_loop_after_eval_calls_a_helper_without_a_model": (
        "TL404",
        """
        import torch


        def save(df, path):
            df.to_csv(path)


        def main():
            model = create_model()
            model.eval()
            with torch.no_grad():
                frame = predict(model)
            for path in ["a.csv", "b.csv", "c.csv"] * 8:
                save(frame, path)
        """,
        False,
    ),
    # ... a helper that runs the model put in eval mode (a global of the same name)
    "tl404_loop_after_eval_calls_a_helper_running_the_model": (
        "TL404",
        """
        import torch


        def save(df, path):
            print(model(df).sum().item(), path)


        def main():
            model = create_model()
            model.eval()
            with torch.no_grad():
                frame = predict(model)
            for path in ["a.csv", "b.csv", "c.csv"] * 8:
                save(frame, path)
        """,
        True,
    ),
    # a held-out comprehension that calls nothing: no forward pass
    "tl404_held_out_comprehension_without_a_call": (
        "TL404",
        """
        import torch

        pairs = [(example["image"], example["mask"]) for example in dataset.test_data]
        """,
        False,
    ),
    # ... one that runs a network
    "tl404_held_out_comprehension_running_a_net": (
        "TL404",
        """
        import torch

        preds = [net(example["image"]).argmax().item() for example in dataset.test_data]
        """,
        True,
    ),
    # a method called on an object whose attribute was put in eval mode: `self` is handed no mode
    "tl404_method_called_after_its_attribute_eval": (
        "TL404",
        """
        import torch


        class Recognizer:
            def __init__(self, predictor):
                self.predictor = predictor

            def predict(self, images):
                outputs = []
                for image in images:
                    outputs.append(self.predictor(image).argmax().item())
                return outputs


        def recognize(encoder, images):
            encoder.predictor.eval()
            return encoder.predict(images)
        """,
        False,
    ),
    # ... a function handed that attribute itself
    "tl404_function_handed_a_model_in_eval_mode": (
        "TL404",
        """
        import torch


        def predict(model, images):
            outputs = []
            for image in images:
                outputs.append(model(image).argmax().item())
            return outputs


        def recognize(encoder, images):
            encoder.predictor.eval()
            return predict(encoder.predictor, images)
        """,
        True,
    ),
    # a loop calling a function that builds, evaluates and runs its own model: that function's business
    "tl404_loop_calls_a_function_building_its_model": (
        "TL404",
        """
        import torch


        def validate(name, batch):
            model = create_model(name)
            model.eval()
            return model(batch).argmax(1)


        def main(names, batch):
            scores = []
            for name in names:
                scores.append(validate(name, batch))
            return scores
        """,
        False,
    ),
    # ... a function putting the model it is handed in eval mode: the caller's loop evaluates
    "tl404_loop_calls_a_function_evaluating_its_argument": (
        "TL404",
        """
        import torch


        def validate(model, batch):
            model.eval()
            return model(batch).argmax(1)


        def main(nets, batch):
            scores = []
            for net in nets:
                scores.append(validate(net, batch))
            return scores
        """,
        True,
    ),
    # a `for` target over `enumerate(loader)`, `loader` a parameter: TL302 follows an iterable's name only to an
    # assignment of it
    "tl302_loop_over_a_loader_parameter": (
        "TL302",
        """
        import torch
        from torch import nn

        embedding = nn.Embedding(100, 16)
        scale = torch.ones(1)


        def encode(loader):
            total = 0
            for step, (ids, mask) in enumerate(loader):
                total += (embedding(ids) * scale).sum().item()
            return total
        """,
        False,
    ),
    # ... over a list of float tensors the function builds
    "tl302_loop_over_a_list_of_float_tensors": (
        "TL302",
        """
        import torch
        from torch import nn

        embedding = nn.Embedding(100, 16)


        def encode(rows):
            total = 0
            batches = [(torch.ones(4, 8), rows)]
            for step, (ids, mask) in enumerate(batches):
                total += embedding(ids).sum().item()
            return total
        """,
        True,
    ),
    # `torch.LongTensor(rows)`: no float tensor type
    "tl302_long_tensor_embedded": (
        "TL302",
        """
        import torch
        from torch import nn

        embedding = nn.Embedding(100, 16)
        scale = torch.ones(1)


        def encode(rows):
            ids = torch.LongTensor(rows)
            return embedding(ids) * scale
        """,
        False,
    ),
    # ... `torch.FloatTensor(rows)`
    "tl302_float_tensor_embedded": (
        "TL302",
        """
        import torch
        from torch import nn

        embedding = nn.Embedding(100, 16)
        scale = torch.ones(1)


        def encode(rows):
            ids = torch.FloatTensor(rows)
            return embedding(ids) * scale
        """,
        True,
    ),
    # a `**` call of `super().__init__`, beside a data set and a model class: no dotted callee, no model
    "tl301_kwargs_into_super_init": (
        "TL301",
        """
        import torch
        from torch.utils.data import DataLoader, Dataset


        class Items(Dataset):
            def __init__(self, encodings):
                self.encodings = encodings

            def __len__(self):
                return len(self.encodings["input_ids"])

            def __getitem__(self, idx):
                item = {key: val[idx] for key, val in self.encodings.items()}
                item["idx"] = idx
                return item


        class Net(torch.nn.Module):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                self.linear = torch.nn.Linear(4, 2)

            def forward(self, input_ids):
                return self.linear(input_ids)


        def run(encodings):
            net = Net()
            for batch in DataLoader(Items(encodings), batch_size=8):
                print(net(batch["input_ids"]).sum().item())
        """,
        False,
    ),
    # ... the batch itself given to an instance of the model class (not named like a model)
    "tl301_batch_into_a_model_class_here": (
        "TL301",
        """
        import torch
        from torch.utils.data import DataLoader, Dataset


        class Items(Dataset):
            def __init__(self, encodings):
                self.encodings = encodings

            def __len__(self):
                return len(self.encodings["input_ids"])

            def __getitem__(self, idx):
                item = {key: val[idx] for key, val in self.encodings.items()}
                item["idx"] = idx
                return item


        class Classifier(torch.nn.Module):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                self.linear = torch.nn.Linear(4, 2)

            def forward(self, input_ids):
                return self.linear(input_ids)


        def run(encodings):
            clf = Classifier()
            for batch in DataLoader(Items(encodings), batch_size=8):
                print(clf(**batch).sum().item())
        """,
        True,
    ),
    # `model(**batch.data)`: an attribute no binding of which is in sight carries no keys the rule knows
    "tl301_model_given_an_attribute_of_the_batch": (
        "TL301",
        """
        import torch
        from torch.utils.data import DataLoader, Dataset


        class Items(Dataset):
            def __init__(self, encodings):
                self.encodings = encodings

            def __len__(self):
                return len(self.encodings["input_ids"])

            def __getitem__(self, idx):
                item = {key: val[idx] for key, val in self.encodings.items()}
                item["idx"] = idx
                return item


        def train(model, encodings, optimizer):
            for batch in DataLoader(Items(encodings), batch_size=8):
                loss = model(**batch.data).loss
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
        """,
        False,
    ),
    # ... `model(**batch)`: the data set's `idx` goes to forward()
    "tl301_model_given_the_batch": (
        "TL301",
        """
        import torch
        from torch.utils.data import DataLoader, Dataset


        class Items(Dataset):
            def __init__(self, encodings):
                self.encodings = encodings

            def __len__(self):
                return len(self.encodings["input_ids"])

            def __getitem__(self, idx):
                item = {key: val[idx] for key, val in self.encodings.items()}
                item["idx"] = idx
                return item


        def train(model, encodings, optimizer):
            for batch in DataLoader(Items(encodings), batch_size=8):
                loss = model(**batch).loss
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
        """,
        True,
    ),
    # a `**` call of a method of a non-model object, beside a model class: `progress_bar.set_postfix(**logs)`
    "tl301_kwargs_into_a_progress_bar": (
        "TL301",
        """
        import torch
        from torch.utils.data import DataLoader, Dataset
        from tqdm import tqdm


        class Items(Dataset):
            def __init__(self, encodings):
                self.encodings = encodings

            def __len__(self):
                return len(self.encodings["input_ids"])

            def __getitem__(self, idx):
                item = {key: val[idx] for key, val in self.encodings.items()}
                item["idx"] = idx
                return item


        class Net(torch.nn.Module):
            def forward(self, input_ids):
                return input_ids * 2


        def run(encodings):
            net = Net()
            progress = tqdm(range(8))
            for batch in DataLoader(Items(encodings), batch_size=8):
                logs = {"out": net(batch["input_ids"]).sum().item()}
                progress.set_postfix(**logs)
        """,
        False,
    ),
    # a method's `self` carries no graph unless a call passes one for it (`Throughput.update`'s `self.world_size`)
    "tl401_self_is_filled_by_its_callers_only": (
        "TL401",
        """
        class Meter:
            def training_step(self, batch):
                self.total += batch * self.world_size


        for x in loader:
            loss = model(x)
            loss.backward()
            Meter().training_step(3)
        """,
        False,
    ),
    "tl401_self_is_filled_by_an_unbound_call": (
        "TL401",
        """
        class Meter:
            def training_step(self, batch):
                self.total += self * 2


        for x in loader:
            loss = model(x)
            loss.backward()
            Meter.training_step(loss, x)
        """,
        True,
    ),
    # an engine given the loss (`fabric.backward(loss)`) is no tensor; given none by position, it is what is differentiated
    "tl401_engine_given_the_loss": (
        "TL401",
        """
        total = 0
        for x in loader:
            out = compute(x)
            fabric.backward(out)
            total += fabric.world_size
        fabric = make()
        """,
        False,
    ),
    "tl401_engine_given_the_loss_by_keyword": (
        "TL401",
        """
        fabric = make()
        total = 0
        for x in loader:
            out = compute(x)
            fabric.backward(loss=out)
            total += fabric
        """,
        True,
    ),
    # `envs.step(...)` and `torch.tensor(...)` on names no def, class or parameter binds run nothing of this module,
    # whatever variable is called `step`; `.step(x)` returns a graph only through a def of this module
    "tl401_library_calls_named_like_variables": (
        "TL401",
        """
        import gym
        import torch

        envs = gym.make("CartPole-v1")
        obs = torch.zeros(8, 4)
        next_obs = torch.tensor(envs.reset()[0])
        for step in range(8):
            obs[step] = next_obs
            with torch.no_grad():
                action = agent(next_obs)
            next_obs, reward, done, info = envs.step(action.cpu().numpy())
            next_obs = torch.tensor(next_obs)
            loss = agent(obs).mean()
            loss.backward()
        """,
        False,
    ),
    "tl401_a_step_of_an_instance_of_a_class_here": (
        "TL401",
        """
        class Runner:
            def step(self, x):
                return model(x)


        runner = Runner()
        total = 0
        for step, x in enumerate(loader):
            out = runner.step(x)
            out.backward()
            total += runner.step(x)
        """,
        True,
    ),
    # a dict filled from itself (`d[k] = torch.cat((d[k], v))`): followed once, not until Python's stack runs out
    "tl401_dict_filled_from_itself": (
        "TL401",
        """
        import torch

        for step, batch in enumerate(loader):
            loss = compute(batch)
            loss.backward()
            merged = gathered[0]
            for i in range(1, 4):
                for k in merged:
                    merged[k] = torch.cat((merged[k], gathered[i][k]))
        """,
        False,
    ),
    "tl401_dict_filled_from_itself_and_a_loss": (
        "TL401",
        """
        buf = {}
        for step, x in enumerate(loader):
            out = model(x)
            out.backward()
            buf[step] = buf[step - 1] + out
        """,
        True,
    ),
    # `self.lrs = {}` is no history (TL402's `_history_shape`); a dict of empty lists is
    "tl402_empty_dict_is_no_history": (
        "TL402",
        """
        class LearningRateMonitor:
            def __init__(self):
                self.lrs: dict = {}

            def on_train_batch_start(self, trainer, lr, name):
                self.lrs[name].append(lr)
        """,
        False,
    ),
    "tl402_dict_of_empty_lists": (
        "TL402",
        """
        class LearningRateMonitor:
            def __init__(self):
                self.lrs = {"lr": [], "momentum": []}

            def on_train_batch_start(self, trainer, lr, name):
                self.lrs[name].append(lr)
        """,
        True,
    ),
    # `self.p = []` appended by key (`self.p[i].append(x)`) is a list of lists, not a history of this shape
    "tl402_list_appended_by_key": (
        "TL402",
        """
        class PredictionLoop:
            def __init__(self):
                self.predictions = []

            def predict_step(self, batch, dataloader_idx):
                self.predictions[dataloader_idx].append(batch)
        """,
        False,
    ),
    # a callback that stores its own step budget (`self.num_training`) runs for that many steps
    "tl402_step_budget": (
        "TL402",
        """
        class LRCallback:
            def __init__(self, num_training):
                self.num_training = num_training
                self.losses = []

            def on_train_batch_end(self, trainer, outputs, batch, batch_idx):
                self.losses.append(outputs)
        """,
        False,
    ),
    "tl402_step_budget_annotated": (
        "TL402",
        """
        class LRCallback:
            def __init__(self, num_training):
                self.num_training: int = num_training
                self.losses = []

            def on_train_batch_end(self, trainer, outputs, batch, batch_idx):
                self.losses.append(outputs)
        """,
        True,
    ),
    # a local history of numbers is left to others (TL402's LEFT_TO_OTHERS); one of detached tensors is reported
    "tl402_local_history_of_numbers": (
        "TL402",
        """
        def main():
            losses = []
            for epoch in range(5):
                for i, data in enumerate(dataloader, 0):
                    err = model(data)
                    err.backward()
                    optimizer.step()
                    losses.append(err.item())
        """,
        False,
    ),
    "tl402_local_history_of_tensors": (
        "TL402",
        """
        def main():
            losses = []
            for epoch in range(5):
                for i, data in enumerate(dataloader, 0):
                    err = model(data)
                    err.backward()
                    optimizer.step()
                    losses.append(err.detach().cpu())
        """,
        True,
    ),
    # CUDA-only AMP in a test that `RunIf(min_cuda_gpus=1)` skips off CUDA (`CudaOnlyRegions._skips_off_cuda`)
    "tl201_autocast_in_a_test_skipped_off_cuda": (
        "TL201",
        """
        import torch


        @RunIf(min_cuda_gpus=1)
        def test_autocast(device):
            with torch.autocast("cuda", dtype=torch.float16):
                pass
        """,
        False,
    ),
    # its twin: asking for no GPU skips nothing
    "tl201_autocast_in_a_test_asking_for_no_gpu": (
        "TL201",
        """
        import torch


        @RunIf(min_cuda_gpus=0)
        def test_autocast(device):
            with torch.autocast("cuda", dtype=torch.float16):
                pass
        """,
        True,
    ),
    # a CPU autocast in no `if` (Lightning's test of the plugin): TL202 reads one only in the other branch of a sniff
    "tl202_cpu_autocast_outside_any_if": (
        "TL202",
        """
        import torch


        def test_cache(device):
            with torch.autocast("cpu", dtype=torch.bfloat16):
                pass
            if device == "cuda":
                print("cuda")
            else:
                print("cpu")
        """,
        False,
    ),
    # its twin: the CPU autocast in the branch off CUDA of an `if` whose other branch autocasts on CUDA
    "tl202_cpu_autocast_in_the_other_branch": (
        "TL202",
        """
        import torch


        def test_cache(device):
            if device == "cuda":
                ctx = torch.autocast("cuda", dtype=torch.float16)
            else:
                ctx = torch.autocast("cpu", dtype=torch.bfloat16)
            return ctx
        """,
        True,
    ),
    # a timer held in an attribute (`self.time_fn = timestamp`, or a `partial` of another def): `Names.resolve_callable`
    # follows the stores to the defs, whose returns are numbers; and `benchmark(...)`, whose last name only an attribute
    # store shares (`torch.backends.cudnn.benchmark`): a plain call resolves through plain names only (timm's
    # `benchmark.py`)
    "tl401_sum_of_a_timer_held_in_an_attribute": (
        "TL401",
        """
        import time
        from functools import partial

        import torch

        torch.backends.cudnn.benchmark = True


        def timestamp(sync=False):
            return time.perf_counter()


        def cuda_timestamp(sync=False, device=None):
            if sync:
                torch.cuda.synchronize(device=device)
            return time.perf_counter()


        def benchmark(steps):
            return {"steps": steps}


        class Runner:
            def __init__(self, model, optimizer, device):
                self.model, self.optimizer = model, optimizer
                if device == "cuda":
                    self.time_fn = partial(cuda_timestamp, device=device)
                else:
                    self.time_fn = timestamp

            def run(self, loader):
                total = 0.0
                results = []
                for x in loader:
                    start = self.time_fn()
                    loss = self.model(x).sum()
                    loss.backward()
                    self.optimizer.step()
                    self.optimizer.zero_grad()
                    total += self.time_fn(True) - start
                    results.append(benchmark(1))
                return total, results
        """,
        False,
    ),
    # its twin: the attribute holds a def that returns the loss
    "tl401_sum_of_a_loss_function_held_in_an_attribute": (
        "TL401",
        """
        import torch


        def compute_loss(model, x):
            return model(x).sum()


        class Runner:
            def __init__(self, model, optimizer):
                self.model, self.optimizer = model, optimizer
                self.loss_fn = compute_loss

            def run(self, loader):
                total = 0.0
                for x in loader:
                    loss = self.loss_fn(self.model, x)
                    loss.backward()
                    self.optimizer.step()
                    self.optimizer.zero_grad()
                    total += self.loss_fn(self.model, x)
                return total
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
