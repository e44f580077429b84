"""TL101 pin-memory-device-tensors at run time.

On the CPU (no GPU here): each bad fixture puts its data on the device
before the loader hands the batch over, which is what pinning cannot take on
CUDA, and never moves a batch in the loop; each fixed fixture moves every
batch in the loop, nothing before, and trains exactly like
``reference_trainer.run("lstm")``. On a GPU (``cuda`` mark): the bad fixture
raises the pin error (or, when it also starts workers on CUDA, the
forked-worker error) and the fixed one trains.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")

import torch  # noqa: E402

from tests.device_transfers import (  # noqa: E402
    BATCH_PARTS,
    PIN_ERROR,
    STEPS,
    WORKER_ERROR,
    DeviceTransfers,
    assert_fails_on_cuda_and_fixed_trains,
    assert_fixed_trains_like_reference,
    assert_moves_before_the_loop,
)
from tests.fixture_cases import FIXTURES, bad_cases, case_id, snapshot_of  # noqa: E402
from tests.runtime_harness import run_fixture  # noqa: E402

pytestmark = pytest.mark.runtime

CASES = bad_cases(FIXTURES / "TL101_pin_memory_device_tensors")
# Where each bad fixture moves its data, and what it raises on a CUDA machine.
SYMPTOMS = {
    "bad_optimized_trainer.py": ("staged", PIN_ERROR),
    "bad_max_performance_trainer.py": ("staged", WORKER_ERROR),  # num_workers=4 on CUDA: the workers fail first
    "bad_dataset_class_stages_on_gpu.py": ("staged", PIN_ERROR),
    "bad_kwargs_dict_loader.py": ("staged", PIN_ERROR),
    "bad_dict_batch_dataset.py": ("staged", PIN_ERROR),
    "bad_mnist_style_kwargs.py": ("staged", WORKER_ERROR),  # num_workers=1 on CUDA
    "bad_collate_moves_batch.py": ("fetch", PIN_ERROR),
    "bad_collate_factory.py": ("fetch", PIN_ERROR),
    "bad_subset_of_staged_dataset.py": ("staged", PIN_ERROR),
    "bad_bound_method_collate.py": ("fetch", PIN_ERROR),
    "bad_collator_class_moves_batch.py": ("fetch", PIN_ERROR),
}
# Fixtures whose fix also moves the batches of a second loader that shares the collate (``predict=True``).
SHARED_COLLATE = FIXTURES / "TL101_pin_memory_device_tensors" / "bad_bound_method_collate.py"


def test_every_bad_fixture_declares_its_symptoms() -> None:
    assert sorted(path.name for path in CASES) == sorted(SYMPTOMS)


@pytest.mark.parametrize("bad", CASES, ids=case_id)
def test_bad_fixture_puts_data_on_the_device_before_the_loop(bad: Path) -> None:
    assert_moves_before_the_loop(bad, SYMPTOMS[bad.name][0])


@pytest.mark.parametrize("bad", CASES, ids=case_id)
def test_fixed_fixture_moves_batches_in_the_loop_and_trains_like_reference(bad: Path) -> None:
    assert_fixed_trains_like_reference(bad)


@pytest.mark.cuda
@pytest.mark.parametrize("bad", CASES, ids=case_id)
def test_on_cuda_bad_fixture_fails_and_fixed_fixture_trains(bad: Path) -> None:
    assert_fails_on_cuda_and_fixed_trains(bad, SYMPTOMS[bad.name][1])


def test_fixed_shared_collate_still_serves_the_unpinned_loader() -> None:
    """The prediction loader shares the collate method the fix empties: its loop now moves the inputs."""
    with DeviceTransfers() as transfers:
        fixed = run_fixture(snapshot_of(SHARED_COLLATE), max_steps=STEPS, predict=True)
    bad = run_fixture(SHARED_COLLATE, max_steps=STEPS, predict=True)
    assert torch.equal(fixed.result["predictions"], bad.result["predictions"])
    prediction_batches = -(-len(bad.result["predictions"]) // 64)
    assert transfers.in_loop == STEPS * BATCH_PARTS + prediction_batches  # only the windows: labels are `_`


@pytest.mark.cuda
def test_on_cuda_fixed_shared_collate_predicts() -> None:
    fixed = run_fixture(snapshot_of(SHARED_COLLATE), device="cuda", max_steps=STEPS, predict=True)
    assert fixed.result["predictions"].device.type == "cpu" and len(fixed.result["predictions"]) == 512
