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

from tests.device_transfers import (  # noqa: E402
    PIN_ERROR,
    WORKER_ERROR,
    assert_fails_on_cuda_and_fixed_trains,
    assert_fixed_trains_like_reference,
    assert_moves_before_the_loop,
)
from tests.fixture_cases import FIXTURES, bad_cases, case_id  # noqa: E402

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
}


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
