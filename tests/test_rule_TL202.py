"""TL202 beyond the fixtures: which sniffs can hide MPS, which feed autocast, and the fix per target torch."""

from __future__ import annotations

import textwrap
from typing import List, Optional

import pytest

from trainlint.diagnostics import Applicability
from trainlint.engine import RuleSettings, fix_source, lint_source


def _source(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _settings(options: Optional[dict]) -> RuleSettings:
    return RuleSettings(codes=frozenset({"TL202"}), options={"TL202": options or {}})


def findings(text: str) -> List[int]:
    result = lint_source(_source(text), "example.py", _settings(None))
    assert not result.errors, result.errors
    return [d.location.row for d in result.diagnostics]


def only_fix(text: str, options: Optional[dict] = None):
    (diagnostic,) = lint_source(_source(text), "example.py", _settings(options)).diagnostics
    return diagnostic.fix


@pytest.mark.parametrize(
    "sniff, reported",
    [
        ("device_type = 'cuda' if 'cuda' in device else 'cpu'", True),  # device is a parameter
        ("device_type = 'cuda' if str(device).startswith('cuda') else 'cpu'", True),
        ("device_type = 'cpu' if 'cuda' not in device else 'cuda'", True),
        ("device_type = 'cuda' if torch.cuda.is_available() else 'cpu'", False),  # no MPS anywhere
        ("device_type = 'cuda' if 'cuda' in 'cuda:0' else 'cpu'", False),
    ],
)
def test_a_sniffed_device_type_is_reported_when_it_can_hide_mps(sniff: str, reported: bool) -> None:
    source = f"import torch\ndef train(device):\n    {sniff}\n    return torch.autocast(device_type=device_type)\n"
    assert findings(source) == ([3] if reported else [])


@pytest.mark.parametrize(
    "choices, reported",
    [
        ('["cuda", "cuda:0", "cuda:1", "cpu"]', False),  # the sniff is exact for every device offered
        ('["cuda", "mps", "cpu"]', True),
        (None, True),  # no choices: the user may type "mps"
    ],
)
def test_a_sniff_of_an_option_is_reported_only_where_its_choices_offer_another_accelerator(choices, reported) -> None:
    option = f'parser.add_argument("--device", default="cpu"{f", choices={choices}" if choices else ""})'
    source = f"""
        import torch
        {option}
        args = parser.parse_args()
        device_type = "cuda" if "cuda" in args.device else "cpu"
        ctx = torch.autocast(device_type=device_type, dtype=torch.bfloat16)
    """
    assert findings(source) == ([4] if reported else [])


def test_a_sniff_that_feeds_no_autocast_is_not_reported() -> None:
    source = "import torch\ndef train(device):\n    kind = 'cuda' if 'cuda' in device else 'cpu'\n    return torch.autocast('cpu')\n"
    assert findings(source) == []


@pytest.mark.parametrize("target, offered", [(None, False), ("2.4", False), ("2.5", True)])
def test_the_sniff_fix_is_unsafe_and_needs_mps_autocast(target, offered) -> None:
    source = "import torch\ndef train(device):\n    device_type = 'cuda' if 'cuda' in device else 'cpu'\n    return torch.autocast(device_type=device_type)\n"
    fix = only_fix(source, {"target-torch": target} if target else {})
    assert (fix is not None) is offered
    if offered:
        assert fix.applicability is Applicability.UNSAFE and "float16" in fix.message


@pytest.mark.parametrize(
    "helper, reported",
    [
        ("def pick_device():\n    return 'cuda:0' if torch.cuda.is_available() else 'cpu'\n", False),
        ("def pick_device():\n    return 'cuda:0' if torch.cuda.is_available() else 'mps'\n", True),
        ("from utils import pick_device\n", True),  # imported: it may return anything
    ],
)
def test_a_sniff_of_a_helper_is_reported_where_the_helper_can_return_another_accelerator(helper, reported) -> None:
    source = (
        f"import torch\n{helper}device = pick_device()\n"
        "device_type = 'cuda' if 'cuda' in device else 'cpu'\nctx = torch.autocast(device_type=device_type)\n"
    )
    assert bool(findings(source)) is reported


@pytest.mark.parametrize("mention, reported", [("", False), ("fallback = 'mps'\n", True), ("fallback = 'xpu'\n", True)])
def test_a_cuda_check_as_device_type_is_reported_where_another_accelerator_is_named(mention, reported) -> None:
    source = f"import torch\n{mention}device_type = 'cuda' if torch.cuda.is_available() else 'cpu'\nctx = torch.autocast(device_type)\n"
    assert bool(findings(source)) is reported


# ----- the statement forms -------------------------------------------------------------------------------------------

BRANCHES = {
    "two branches": "    if 'cuda' in device:\n        device_type = 'cuda'\n    else:\n        device_type = 'cpu'\n",
    "mirrored, with !=": "    if device != 'cuda':\n        device_type = 'cpu'\n    else:\n        device_type = 'cuda'\n",
    "one branch over a default": "    device_type = 'cuda'\n    if 'cuda' not in device:\n        device_type = 'cpu'\n",
    "one branch over the CPU": "    device_type = 'cpu'\n    if str(device).startswith('cuda'):\n        device_type = 'cuda'\n",
}


@pytest.mark.parametrize("branches", BRANCHES.values(), ids=BRANCHES.keys())
def test_a_type_bound_by_if_branches_is_reported_on_its_test(branches: str) -> None:
    source = f"import torch\ndef train(device):\n{branches}    return torch.autocast(device_type=device_type)\n"
    (row,) = findings(source)
    assert source.splitlines()[row - 1].lstrip().startswith("if ")


@pytest.mark.parametrize(
    "branches",
    [
        # a chain that gives MPS its own type
        "    if 'cuda' in device:\n        t = 'cuda'\n    elif 'mps' in device:\n        t = 'mps'\n    else:\n        t = 'cpu'\n",
        # the branches do more than bind the type
        "    if 'cuda' in device:\n        t = 'cuda'\n        print(t)\n    else:\n        t = 'cpu'\n",
        # the default before the branch is not the other type
        "    t = 'mps'\n    if 'cuda' not in device:\n        t = 'cpu'\n",
        # the branches bind different names
        "    if 'cuda' in device:\n        t = 'cuda'\n    else:\n        u = 'cpu'\n        t = u\n",
    ],
)
def test_branches_that_do_not_only_map_cuda_and_the_rest_are_not_reported(branches: str) -> None:
    assert findings(f"import torch\ndef train(device):\n{branches}    return torch.autocast(device_type=t)\n") == []


def test_a_type_bound_by_branches_that_feeds_no_autocast_is_not_reported() -> None:
    branches = BRANCHES["two branches"]
    assert findings(f"import torch\ndef train(device):\n{branches}    return device_type == 'cuda'\n") == []


def test_the_statement_fix_rebinds_the_type_once() -> None:
    source = f"import torch\ndef train(device):\n{BRANCHES['one branch over a default']}    return torch.autocast(device_type=device_type)\n"
    result = lint_source(_source(source), "example.py", _settings({"target-torch": "2.5"}))
    (diagnostic,) = result.diagnostics
    assert diagnostic.fix is not None and diagnostic.fix.applicability is Applicability.UNSAFE
    fixed = fix_source(_source(source), "example.py", _settings({"target-torch": "2.5"}), unsafe_fixes=True).text
    assert "    device_type = torch.device(device).type\n    return torch.autocast" in fixed
    assert "if " not in fixed


AUTOCAST_BRANCHES = {
    "CPU autocast off CUDA": ("torch.autocast('cuda', dtype=torch.float16)", "torch.autocast('cpu', dtype=torch.bfloat16)", True),
    "no autocast off CUDA": ("torch.autocast('cuda', dtype=torch.float16)", "nullcontext()", False),
    "both on the real type": ("torch.autocast(torch.device(device).type)", "torch.autocast(torch.device(device).type)", False),
    "CPU autocast, no CUDA one": ("nullcontext()", "torch.autocast('cpu', dtype=torch.bfloat16)", False),
}


@pytest.mark.parametrize("on_cuda, elsewhere, reported", AUTOCAST_BRANCHES.values(), ids=AUTOCAST_BRANCHES.keys())
def test_cpu_autocast_in_the_branch_mps_takes_is_reported(on_cuda: str, elsewhere: str, reported: bool) -> None:
    source = (
        "import torch\nfrom contextlib import nullcontext\ndef train(device):\n"
        f"    if device == 'cuda':\n        ctx = {on_cuda}\n    else:\n        ctx = {elsewhere}\n    return ctx\n"
    )
    assert findings(source) == ([4] if reported else [])


def test_a_statement_sniff_is_silent_where_the_choices_are_cuda_or_cpu() -> None:
    source = """
        import argparse
        import torch
        parser = argparse.ArgumentParser()
        parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
        args = parser.parse_args()
        if args.device == "cuda":
            ctx = torch.autocast("cuda", dtype=torch.float16)
        else:
            ctx = torch.autocast("cpu", dtype=torch.bfloat16)
    """
    assert findings(source) == []
    assert findings(source.replace('["cuda", "cpu"]', '["cuda", "mps", "cpu"]')) == [6]


@pytest.mark.parametrize(
    "function, note",
    [
        ("def train(device):\n    device_type = 'cuda' if device == 'cuda' else 'cpu'", "as a caller may pass"),
        ("def train(device):\n    device_type = 'cpu' if device != 'cuda' else 'cuda'", "as a caller may pass"),
        ("def train(name):\n    device = torch.device(name)\n    device_type = 'cuda' if device == 'cuda' else 'cpu'", "as it is bound here"),
        ("def train(device: str):\n    device_type = 'cuda' if device == 'cuda' else 'cpu'", None),  # a string: == works on CUDA
        ("def train(device='mps'):\n    device_type = 'cuda' if device == 'cuda' else 'cpu'", None),  # a string by default
        ("def train(device):\n    device_type = 'cuda' if 'cuda' in str(device) else 'cpu'", None),  # not an equality
    ],
)
def test_an_equality_with_a_torch_device_is_said_to_send_cuda_down_the_cpu_path_too(function: str, note: Optional[str]) -> None:
    """``torch.device("cuda") == "cuda"`` is False: where the tested value may be a torch.device, the message says
    that CUDA takes the CPU path too (fasterrcnn-pytorch-training-pipeline's engine.py, precision round 5)."""
    source = f"import torch\n{function}\n    return torch.autocast(device_type=device_type)\n"
    (diagnostic,) = lint_source(source, "example.py", _settings(None)).diagnostics
    assert ("so CUDA takes that path too" in diagnostic.message) is (note is not None)
    if note is not None:
        assert note in diagnostic.message


def test_a_torch_device_never_equals_its_type_string() -> None:
    """The premise of the note above, on the installed torch."""
    torch = pytest.importorskip("torch")
    assert (torch.device("cuda") == "cuda") is False and (torch.device("cpu") != "cpu") is True
