"""TL202 at run time: given "mps", each bad fixture's sniff picks the CPU branch and its fix picks MPS.

Choosing a device type is string logic, so it is shown on this CPU machine
by asking each fixture which device type it picks for an MPS device (its
``amp_device_type``, or the ``device`` of the autocast its ``amp_context``
builds; building one for "mps" works without MPS); the fixed scripts must
also still train exactly like ``reference_trainer`` on the CPU.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pytest

torch = pytest.importorskip("torch")

from tests.fixture_cases import FIXTURES, bad_cases  # noqa: E402
from tests.runtime_harness import assert_trains_like_reference, run_fixture  # noqa: E402

pytestmark = pytest.mark.runtime

DIRECTORY = FIXTURES / "TL202_device_type_sniffing"
STEPS = 4


def _mps_namespace(module: ModuleType) -> argparse.Namespace:
    return module.parse_args(["--device", "mps"])


# fixture -> the device type it picks given an MPS device
CASES: dict[str, Callable[[ModuleType], Any]] = {
    "bad_sniff_of_device_parameter": lambda module: module.amp_device_type("mps"),
    "bad_sniff_of_detected_device": lambda module: module.amp_device_type(torch.device("mps")),
    "bad_sniff_of_option_offering_mps": lambda module: module.amp_device_type(_mps_namespace(module)),
    "bad_cuda_check_as_device_type": lambda module: module.amp_device_type("mps"),
    "bad_statement_sniff_of_device_parameter": lambda module: module.amp_device_type("mps"),
    "bad_statement_sniff_overriding_a_default": lambda module: module.amp_device_type(_mps_namespace(module)),
    "bad_cpu_autocast_off_cuda": lambda module: module.amp_context("mps").device,
}


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_tl202_{path.stem.replace('.', '_')}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def _path(name: str, fixed: bool = False) -> Path:
    return DIRECTORY / f"{name}{'.fixed' if fixed else ''}.py"


def test_every_bad_fixture_has_a_runtime_case() -> None:
    assert {_path(name) for name in CASES} == set(bad_cases(DIRECTORY))


@pytest.mark.skipif(torch.cuda.is_available(), reason="shows the CPU branch the sniff takes where there is no CUDA")
@pytest.mark.parametrize("name", CASES)
def test_given_mps_the_bad_code_takes_the_cpu_branch_and_the_fixed_code_the_mps_one(name: str) -> None:
    bad, fixed = _load(_path(name)), _load(_path(name, fixed=True))
    assert CASES[name](bad) == "cpu"
    assert CASES[name](fixed) == "mps"


@pytest.mark.parametrize("name", CASES)
def test_fixed_fixture_trains_like_the_reference_on_the_cpu(name: str) -> None:
    fixed = run_fixture(_path(name, fixed=True), seed=0, max_steps=STEPS)
    assert_trains_like_reference(fixed.losses, "regression", seed=0, max_steps=STEPS)
