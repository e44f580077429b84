"""TL102 device-dataset-in-workers at run time.

On the CPU (no GPU here): each bad fixture puts its data on the device before
the loader hands the batch over (staged, or in ``__getitem__``/``collate_fn``,
observed in-process), and never moves a batch in the loop; each fixed
fixture, run with its worker processes, moves every batch in the loop and
trains exactly like ``reference_trainer.run("lstm")``. On a GPU (``cuda``
mark): the bad fixture's workers fail to re-initialise CUDA and the fixed one
trains.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")

from tests.device_transfers import (  # noqa: E402
    WORKER_ERROR,
    assert_fails_on_cuda_and_fixed_trains,
    assert_fixed_trains_like_reference,
    assert_moves_before_the_loop,
)
from tests.fixture_cases import FIXTURES, bad_cases, case_id  # noqa: E402

pytestmark = pytest.mark.runtime

CASES = bad_cases(FIXTURES / "TL102_device_dataset_in_workers")
# Where each bad fixture moves its data to the device.
WHERE_MOVED = {
    "bad_getitem_moves_to_device.py": "fetch",
    "bad_partial_collate_in_workers.py": "fetch",
    "bad_staged_dataset_with_workers.py": "staged",
}


def test_every_bad_fixture_declares_where_it_moves_data() -> None:
    assert sorted(path.name for path in CASES) == sorted(WHERE_MOVED)


@pytest.mark.parametrize("bad", CASES, ids=case_id)
def test_bad_fixture_puts_data_on_the_device_before_the_loop(bad: Path) -> None:
    assert_moves_before_the_loop(bad, WHERE_MOVED[bad.name])


@pytest.mark.parametrize("bad", CASES, ids=case_id)
def test_fixed_fixture_trains_with_workers_like_reference(bad: Path) -> None:
    assert_fixed_trains_like_reference(bad)


@pytest.mark.cuda
@pytest.mark.parametrize("bad", CASES, ids=case_id)
def test_on_cuda_bad_fixture_workers_fail_and_fixed_fixture_trains(bad: Path) -> None:
    assert_fails_on_cuda_and_fixed_trains(bad, WORKER_ERROR)
