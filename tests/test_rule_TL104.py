"""TL104 beyond the fixtures: one finding per loader with TL101, argument reading, and the fix's details.

Each silence test pairs a snippet with its reported twin, so it fails if the
reason for silence stops being recognised *or* if the snippet would have been
silent anyway.
"""

from __future__ import annotations

import textwrap
from typing import List, Tuple

import pytest

from trainlint.engine import RuleSettings, fix_source, lint_source

SETTINGS = RuleSettings(codes=frozenset({"TL101", "TL104"}))
CPU_OR_CUDA = 'import torch\nfrom torch.utils.data import DataLoader\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n'


def _source(text: str, header: str = CPU_OR_CUDA) -> str:
    return header + textwrap.dedent(text).lstrip("\n")


def findings(text: str, header: str = CPU_OR_CUDA) -> List[Tuple[int, str]]:
    result = lint_source(_source(text, header), "example.py", SETTINGS)
    assert not result.errors, result.errors
    return [(d.location.row, d.code) for d in result.diagnostics]


def fixed(text: str, header: str = CPU_OR_CUDA) -> str:
    result = fix_source(_source(text, header), "example.py", SETTINGS, unsafe_fixes=True)
    assert not result.errors, result.errors
    return result.text[len(header) :]


def test_a_loader_over_gpu_data_is_reported_once_by_tl101() -> None:
    gpu = "data = torch.randn(64, 8).to(device)\nloader = DataLoader(data, batch_size=8, pin_memory=True)\n"
    cpu = "data = torch.randn(64, 8)\nloader = DataLoader(data, batch_size=8, pin_memory=True)\n"
    assert findings(gpu) == [(5, "TL101")]
    assert findings(cpu) == [(5, "TL104")]


@pytest.mark.parametrize(
    "options",
    [
        'kwargs = {"batch_size": 8}\nkwargs.update(pin_memory=True)\n',
        'kwargs = dict(batch_size=8)\nkwargs["pin_memory"] = True\n',
        'pin = True\nkwargs = {"pin_memory": pin}\n',
    ],
)
def test_pinning_through_kwargs_and_names_is_read(options: str) -> None:
    assert [code for _, code in findings(options + "loader = DataLoader(range(64), **kwargs)\n")] == ["TL104"]


WRAPPER = """
class InfiniteDataLoader:
    def __init__(self, dataset, batch_size=4, **kwargs):
        self.loader = DataLoader(dataset, batch_size=batch_size, {inner})

loader = InfiniteDataLoader(range(64), batch_size=8, {outer})
"""


@pytest.mark.parametrize(
    "inner, outer, reported",
    [
        ("**kwargs", "pin_memory=True", True),  # karpathy/makemore: the wrapper hands its keywords to the DataLoader
        ("**kwargs", "num_workers=2", False),
        ("**kwargs", "pin_memory=torch.cuda.is_available()", False),
        ("pin_memory=False", "pin_memory=True", False),  # taken by **kwargs nowhere: the wrapper's own business
        ("**options", "pin_memory=True", False),  # not the wrapper's **kwargs
    ],
)
def test_pinning_handed_to_a_loader_through_a_wrapper_is_read(inner: str, outer: str, reported: bool) -> None:
    code = WRAPPER.format(inner=inner, outer=outer)
    assert findings(code) == ([(8, "TL104")] if reported else [])
    if reported:  # the fix edits the keyword where it is written, at the wrapper's call
        assert fixed(code).endswith('InfiniteDataLoader(range(64), batch_size=8, pin_memory=device == "cuda")\n')


def test_a_loader_is_reported_only_where_the_module_selects_the_cpu_or_mps() -> None:
    runtime_device_only = "import torch\nfrom torch.utils.data import DataLoader\n"
    code = "def make(device):\n    loader = DataLoader(range(8), pin_memory=True)\n    return torch.empty(8, pin_memory=True)\n"
    assert findings(code, runtime_device_only) == [(5, "TL104")]  # the tensor raises; the loader only warns


def test_a_pin_memory_helper_taking_data_is_not_a_tensor_method() -> None:
    assert findings("batch = utils.pin_memory(batch)\nbatch = batch.pin_memory()\n") == [(5, "TL104")]


def test_fix_uses_the_module_alias_of_torch_and_the_device_type() -> None:
    function = "def get_batch(x, device: th.device):\n    return x.pin_memory(), th.empty(4, pin_memory=True)\n"
    assert fixed(function, "import torch as th\n") == (
        "def get_batch(x, device: th.device):\n"
        '    return (x.pin_memory() if device.type not in ("cpu", "mps") else x), th.empty(4, pin_memory=device.type not in ("cpu", "mps"))\n'
    )


@pytest.mark.parametrize(
    ("choice", "condition"),
    [
        ('device = "cuda" if torch.cuda.is_available() else "cpu"', 'device == "cuda"'),
        ('device = "mps" if torch.backends.mps.is_available() else "cpu"', 'device == "cuda"'),
        ('device = "xpu" if torch.xpu.is_available() else "cpu"', 'device not in ("cpu", "mps")'),
        ('device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else torch.device("cpu")', 'device.type not in ("cpu", "mps")'),
    ],
)
def test_fix_keeps_pinning_on_every_device_that_pinned_before(choice: str, condition: str) -> None:
    """``== "cuda"`` only where the module runs on CUDA, the CPU or MPS; where it may run on another accelerator
    (which the DataLoader pins for since torch 2.6), the condition keeps pinning there too."""
    header = f"import torch\nfrom torch.utils.data import DataLoader\n{choice}\n"
    assert fixed("loader = DataLoader(range(8), pin_memory=True)\n", header) == f"loader = DataLoader(range(8), pin_memory={condition})\n"
    pins = {kind: eval(condition, {"device": torch_device(kind) if ".type" in condition else kind}) for kind in ("cuda", "xpu", "cpu", "mps")}
    assert pins == {"cuda": True, "xpu": "xpu" in choice or "accelerator" in choice, "cpu": False, "mps": False}


def torch_device(kind: str):
    torch = pytest.importorskip("torch")
    return torch.device(kind)


@pytest.mark.parametrize(("option", "applicability"), [('choices=["cpu", "cuda"], default="cpu"', "safe"), ('default="cpu"', "unsafe")])
def test_fix_falls_back_to_cuda_availability_without_a_device_in_scope(option: str, applicability: str) -> None:
    """With no device in scope the fix asks for CUDA: unsafe where a free-form option may name another accelerator."""
    header = f'import argparse\nimport torch\nparser = argparse.ArgumentParser()\nparser.add_argument("--device", {option})\n'
    assert fixed("def pinned(x):\n    return x.pin_memory()\n", header) == (
        "def pinned(x):\n    return x.pin_memory() if torch.cuda.is_available() else x\n"
    )
    (diagnostic,) = lint_source(_source("def pinned(x):\n    return x.pin_memory()\n", header), "example.py", SETTINGS).diagnostics
    assert diagnostic.fix is not None and diagnostic.fix.applicability.value == applicability
    assert ("stops pinning on accelerators other than CUDA" in diagnostic.fix.message) is (applicability == "unsafe")


def test_pinning_a_computed_tensor_is_reported_without_a_fix() -> None:
    source = _source("x = torch.stack(rows).pin_memory()\n")
    (diagnostic,) = lint_source(source, "example.py", SETTINGS).diagnostics
    assert diagnostic.fix is None


@pytest.mark.parametrize(("accelerator", "reported"), [('"cuda"', False), ('"auto"', True), ('"gpu"', True), ("choice", True)])
def test_a_fabric_launched_on_cuda_pins_to_cuda(accelerator: str, reported: bool) -> None:
    header = "import lightning as L\nimport torch\n"
    code = f"""
        def run(data, choice):
            fabric = L.Fabric(accelerator={accelerator}, devices=1)
            return fabric.to_device(data.pin_memory())
    """
    assert [code for _, code in findings(code, header)] == (["TL104"] if reported else [])


@pytest.mark.parametrize(("device", "reported"), [("model.device", False), ("self.device", True), ("chosen", True)])
def test_a_device_keyword_handing_on_a_placement_chooses_nothing(device: str, reported: bool) -> None:
    header = "import lightning as L\nimport torch\n"
    code = f"""
        class Runner:
            def run(self, data, model, tokenizer, chosen):
                fabric = L.Fabric(accelerator="cuda", devices=1)
                prompt = tokenizer.encode("hi", device={device})
                return fabric.to_device(data.pin_memory()), prompt
    """
    assert [code for _, code in findings(code, header)] == (["TL104"] if reported else [])


@pytest.mark.parametrize(
    ("option", "reported"),
    [
        ('action="store_true"', False),
        ('action="store_true", default=False', False),
        ('action="store_true", default=True', True),
        ('action="store_false"', True),
        ("type=int, default=1", True),
    ],
)
def test_pinning_under_an_opt_in_flag_is_the_users_choice(option: str, reported: bool) -> None:
    code = f"""
        import argparse
        parser = argparse.ArgumentParser()
        parser.add_argument("--offload", {option})
        args = parser.parse_args()
        buffer = torch.zeros(1024)
        if args.offload:
            buffer = buffer.pin_memory()
    """
    assert [code for _, code in findings(code)] == (["TL104"] if reported else [])
