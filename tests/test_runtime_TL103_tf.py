"""TL103 at run time, TensorFlow/Keras: each bad fixture builds its input pipeline from the whole arrays on
the default device; each fixed snapshot builds it on the CPU, and trains exactly as the bad one did.

Without a GPU the default device is stood in for by a second logical CPU device: every fixture runs under
``with tf.device("/CPU:1")``, where a GPU machine would place work on ``/GPU:0``. Every pipeline made
from in-memory data (``from_tensor_slices``/``from_tensors``, by the fixture or by Keras ``fit``) is
recorded with the bytes it holds and the device its data landed on. The whole lstm data set is 512
windows; the fixed pipelines must hold no such array anywhere but on ``CPU:0`` (Keras copies each batch
to the training device as it takes it).

TensorFlow is a test dependency of its own (``pip install -e ".[tf]"``); without it these tests skip.
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Tuple

import pytest

tf = pytest.importorskip("tensorflow")
pytest.importorskip("torch")

from tests.fixture_cases import FIXTURES, snapshot_of  # noqa: E402
from tests.runtime_harness import run_fixture  # noqa: E402

pytestmark = pytest.mark.runtime

DIRECTORY = FIXTURES / "TL103_dataset_on_accelerator"
BAD = sorted(p for p in DIRECTORY.glob("bad_tf_*.py") if not p.name.endswith(".fixed.py"))
DEFAULT_DEVICE = "/CPU:1"  # where a GPU machine's default placement would put the data
LARGE = 4096 * 4  # bytes: more than one batch of any fixture's table, less than its whole data set


@pytest.fixture(scope="module", autouse=True)
def two_cpu_devices() -> None:
    cpu = tf.config.list_physical_devices("CPU")[0]
    try:
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    except RuntimeError:  # devices were initialised earlier in this process
        if len(tf.config.list_logical_devices("CPU")) < 2:
            pytest.skip("TensorFlow's devices were initialised before a second CPU device could be configured")


@pytest.fixture
def pipelines(monkeypatch: pytest.MonkeyPatch) -> List[Tuple[int, str]]:
    """(bytes held, device of the pipeline's data) for every tf.data pipeline built from in-memory data."""
    made: List[Tuple[int, str]] = []
    for name in ("from_tensor_slices", "from_tensors"):
        original = getattr(tf.data.Dataset, name)

        def record(tensors, *args, _original=original, **kwargs):
            dataset = _original(tensors, *args, **kwargs)
            held = sum(int(getattr(t, "nbytes", 0) or 0) for t in tf.nest.flatten(tensors))
            made.append((held, dataset._variant_tensor.device))
            return dataset

        monkeypatch.setattr(tf.data.Dataset, name, staticmethod(record))
    return made


def _run(path: Path, tmp_path: Path):
    with tf.device(DEFAULT_DEVICE):
        return run_fixture(path, seed=0, data_dir=str(tmp_path))


def test_there_are_tensorflow_fixtures() -> None:
    assert len(BAD) >= 4


@pytest.mark.parametrize("bad", BAD, ids=lambda p: p.stem)
def test_bad_pipeline_holds_the_whole_data_set_on_the_default_device(bad: Path, tmp_path: Path, pipelines) -> None:
    _run(bad, tmp_path)
    whole = [device for held, device in pipelines if held >= LARGE]
    assert whole and any(device.endswith("CPU:1") for device in whole), pipelines


@pytest.mark.parametrize("bad", BAD, ids=lambda p: p.stem)
def test_fixed_pipeline_holds_it_on_the_cpu_and_trains_the_same(bad: Path, tmp_path: Path, pipelines) -> None:
    before = _run(bad, tmp_path).losses
    pipelines.clear()
    fixed = _run(snapshot_of(bad), tmp_path)
    whole = [device for held, device in pipelines if held >= LARGE]
    assert whole and all(device.endswith("CPU:0") for device in whole), pipelines
    assert fixed.losses == pytest.approx(before, rel=1e-5)
