"""DeviceScopes: which expression holds the device where a fix writes code, read through names.py's bindings."""

from __future__ import annotations

import textwrap
from typing import Optional

import libcst as cst

from trainlint.analysis import ModuleFacts
from trainlint.analysis.devices import DeviceKind, DeviceScopes


def device_at(source: str, marker: str = "here") -> Optional[tuple]:
    """The device in scope at the call ``here()`` of ``source``: (its code, its kind), or None."""
    source = textwrap.dedent(source)
    facts = ModuleFacts(cst.parse_module(source), source)
    call = next(c for c in facts.nodes(cst.Call) if facts.code(c.func) == marker)
    found = facts.fact(DeviceScopes).device_in_scope(call)
    return None if found is None else (facts.code(found.expression), found.kind)


def test_a_branch_that_returns_leaves_the_other_branch_binding_the_device():
    assert device_at("""
        def train(gpu):
            if gpu:
                device = "cuda"
            else:
                return
            here()
    """) == ("device", DeviceKind.TYPE_STRING)


def test_a_path_that_leaves_the_device_unbound_gives_none():
    assert device_at("""
        def train(gpu):
            if gpu:
                device = "cuda"
            here()
    """) is None


def test_a_parameter_that_may_be_none_is_not_the_device_until_resolved():
    assert device_at("def train(device=None):\n    here()\n") is None
    assert device_at("def train(device=None):\n    device = device or 'cpu'\n    here()\n") == ("device", DeviceKind.UNKNOWN)
    assert device_at("import torch\ndef train(device: torch.device):\n    here()\n") == ("device", DeviceKind.TORCH_DEVICE)


def test_an_imported_name_is_not_a_device_value():
    assert device_at("from torch import device\ndef train():\n    here()\n") is None
    assert device_at("device = 'cuda'\ndef train():\n    here()\n") == ("device", DeviceKind.TYPE_STRING)


def test_a_local_binding_hides_the_module_device():
    assert device_at("""
        device = "cuda"
        def train(flag):
            if flag:
                device = "cpu"
            here()
    """) is None


def test_self_device_from_a_same_module_base_class():
    assert device_at("""
        import torch
        class Base:
            def __init__(self):
                self.device = torch.device("cuda")
        class Trainer(Base):
            def step(self):
                here()
    """) == ("self.device", DeviceKind.TORCH_DEVICE)


def test_self_device_must_be_set_before_the_node_in_the_method_that_sets_it():
    source = """
        class Trainer:
            def __init__(self, gpu):
                {before}
                self._device = "cuda" if gpu else "cpu"
                {after}
    """
    assert device_at(textwrap.dedent(source).format(before="here()", after="pass")) is None
    assert device_at(textwrap.dedent(source).format(before="pass", after="here()")) == ("self._device", DeviceKind.TYPE_STRING)


def test_the_kind_of_what_a_same_module_helper_returns():
    helper = """
        import torch
        def pick():
            if torch.cuda.is_available():
                return torch.device("cuda")
            {other}
        device = pick()
        here()
    """
    assert device_at(textwrap.dedent(helper).format(other='return torch.device("cpu")')) == ("device", DeviceKind.TORCH_DEVICE)
    assert device_at(textwrap.dedent(helper).format(other="return")) == ("device", DeviceKind.UNKNOWN)  # a bare return


def test_a_device_unpacked_from_a_tuple_display_or_bound_by_a_walrus():
    """yolov5's val.py and accelerate's tests: both hold a torch.device, so a fix spells ``device.type``."""
    unpacked = "def evaluate(model):\n    device, half = next(model.parameters()).device, True\n    here()\n"
    assert device_at(unpacked) == ("device", DeviceKind.TORCH_DEVICE)
    walrus = "import torch\ndef run(rank):\n    set_device(device := torch.device(rank))\n    return lambda t: here(t)\n"
    assert device_at(walrus) == ("device", DeviceKind.TORCH_DEVICE)  # the lambda runs later: every binding of run's
