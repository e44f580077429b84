"""The reference trainer: determinism, learning, CLI, and the building blocks that answer the seed defects."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import warnings
import weakref
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

from reference_trainer import TASKS, run  # noqa: E402
from reference_trainer.__main__ import main as cli_main  # noqa: E402
from reference_trainer.amp import MixedPrecision, autocast_dtype  # noqa: E402
from reference_trainer.batches import filter_batch, forward_parameters  # noqa: E402
from reference_trainer.data import (  # noqa: E402
    TextClassificationDataset,
    lstm_arrays,
    make_loader,
    regression_arrays,
    text_collate,
)
from reference_trainer.devices import DeviceUnavailableError, move_batch, pick_device, should_pin_memory  # noqa: E402
from reference_trainer.loop import evaluate, train_epoch  # noqa: E402
from reference_trainer.metrics import GradientTracker, RunningLoss, StepHistory  # noqa: E402
from reference_trainer.models import make_lstm_model, make_regression_model, make_text_model  # noqa: E402
from reference_trainer.tasks import build  # noqa: E402

pytestmark = pytest.mark.runtime

REPO = Path(__file__).resolve().parent.parent
TASK_NAMES = sorted(TASKS)


# --- run() and the command line -------------------------------------------------------------


@pytest.mark.parametrize("task", TASK_NAMES)
def test_run_is_deterministic_and_seed_dependent(task: str) -> None:
    first = run(task, seed=0)
    assert len(first.step_losses) == 16 and len(first.epoch_losses) == 1
    assert all(math.isfinite(loss) for loss in first.step_losses)
    assert run(task, seed=0).step_losses == first.step_losses
    assert run(task, seed=1).step_losses != first.step_losses


@pytest.mark.parametrize("task", TASK_NAMES)
def test_loss_decreases_over_epochs(task: str) -> None:
    result = run(task, epochs=3)
    assert len(result.step_losses) == 48
    assert result.epoch_losses[0] > result.epoch_losses[1] > result.epoch_losses[2]


@pytest.mark.parametrize("task", TASK_NAMES)
def test_run_on_cpu_emits_no_warnings(task: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run(task, max_steps=4, accumulation_steps=2, clip_norm=1.0)
        precision = MixedPrecision("cpu", enabled=False)
        with precision.autocast():
            pass
        assert not precision.scaler.is_enabled()


def test_max_steps_caps_each_epoch() -> None:
    result = run("regression", epochs=2, max_steps=3)
    assert len(result.step_losses) == 6
    assert result.step_losses[:3] == run("regression", max_steps=3).step_losses


def test_run_rejects_bad_arguments() -> None:
    with pytest.raises(KeyError, match="unknown task"):
        run("nope")
    with pytest.raises(ValueError):
        run("lstm", epochs=0)
    with pytest.raises(ValueError):
        run("lstm", max_steps=0)


@pytest.fixture(scope="module")
def cli_runs() -> dict[str, subprocess.CompletedProcess]:
    """``python -m reference_trainer`` for every task, started together to share the torch start-up time."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    processes = {
        task: subprocess.Popen(
            [sys.executable, "-m", "reference_trainer", "--task", task, "--epochs", "2", "--device", "cpu"],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for task in TASK_NAMES
    }
    results = {}
    for task, process in processes.items():
        stdout, stderr = process.communicate(timeout=60)
        results[task] = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
    return results


@pytest.mark.parametrize("task", TASK_NAMES)
def test_cli_prints_the_epoch_losses_of_run(task: str, cli_runs: dict[str, subprocess.CompletedProcess]) -> None:
    completed = cli_runs[task]
    assert completed.returncode == 0, completed.stderr
    printed = [float(line.rsplit(" ", 1)[1]) for line in completed.stdout.splitlines() if line.startswith("epoch ")]
    assert printed == pytest.approx(run(task, epochs=2).epoch_losses, abs=1e-6)


@pytest.mark.parametrize(
    "argv",
    [
        ["--task", "nope"],
        [],
        ["--task", "lstm", "--epochs", "0"],
        ["--task", "lstm", "--epochs", "two"],
        ["--task", "lstm", "--device", "tpu"],
    ],
)
def test_cli_exits_2_on_bad_arguments(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli_main(argv)
    assert exit_info.value.code == 2
    assert "error" in capsys.readouterr().err


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA is available here")
def test_cli_exits_2_for_an_unavailable_device(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli_main(["--task", "lstm", "--device", "cuda"])
    assert exit_info.value.code == 2
    assert "not available" in capsys.readouterr().err


# --- devices ----------------------------------------------------------------------------------


def test_pick_device() -> None:
    assert pick_device("cpu") == torch.device("cpu")
    assert pick_device("auto").type in {"cuda", "mps", "cpu"}
    with pytest.raises(ValueError, match="unknown device"):
        pick_device("gpu0")
    if not torch.cuda.is_available():
        with pytest.raises(DeviceUnavailableError, match="not available"):
            pick_device("cuda")
        assert pick_device("auto") == torch.device("mps" if torch.backends.mps.is_available() else "cpu")


def test_move_batch_moves_tensors_and_keeps_the_rest() -> None:
    batch = {"x": torch.ones(2), "pair": (torch.zeros(1), "a"), "items": [torch.ones(1), 3], "sentence": ["s", "t"]}
    moved = move_batch(batch, "cpu")
    assert moved.keys() == batch.keys()
    assert torch.equal(moved["x"], batch["x"])
    assert isinstance(moved["pair"], tuple) and moved["pair"][1] == "a"
    assert isinstance(moved["items"], list) and moved["items"][1] == 3
    assert moved["sentence"] == ["s", "t"]
    assert move_batch("just a string", "cpu") == "just a string"


def test_should_pin_memory_only_for_cpu_data_feeding_cuda() -> None:
    assert should_pin_memory(True, "cuda")
    assert should_pin_memory(True, torch.device("cuda", 0))
    assert not should_pin_memory(False, "cuda")  # the data set already lives on the GPU
    assert not should_pin_memory(True, "cpu")
    assert not should_pin_memory(True, "mps")
    dataset = build("regression").dataset
    assert make_loader(dataset, 8, "cpu").pin_memory is False


# --- data and models --------------------------------------------------------------------------


def test_data_depend_on_the_seed_only() -> None:
    X, y = lstm_arrays(0)
    assert X.shape == (512, 16, 8) and X.dtype == np.float32
    assert y.shape == (512,) and y.dtype == np.int64 and set(np.unique(y)) == {0, 1, 2}
    np.random.seed(123)
    torch.manual_seed(123)
    X_again, y_again = lstm_arrays(0)
    assert np.array_equal(X, X_again) and np.array_equal(y, y_again)
    assert not np.array_equal(X, lstm_arrays(1)[0])
    Xr, yr = regression_arrays(0)
    assert Xr.shape == (512, 8) and Xr.dtype == np.float32 and yr.shape == (512,) and yr.dtype == np.float32
    assert np.array_equal(yr, regression_arrays(0)[1])
    assert torch.equal(TextClassificationDataset(0).input_ids, TextClassificationDataset(0).input_ids)


def test_text_items_and_collate_keep_every_key() -> None:
    dataset = TextClassificationDataset(0)
    item = dataset[3]
    assert set(item) == {"input_ids", "attention_mask", "label", "idx", "sentence"}
    assert item["input_ids"].dtype == torch.long and item["input_ids"].shape == (16,)
    assert isinstance(item["label"], int) and item["idx"] == 3 and isinstance(item["sentence"], str)
    batch = text_collate([dataset[i] for i in range(4)])
    assert set(batch) == set(item)
    assert batch["input_ids"].shape == (4, 16) and batch["label"].dtype == torch.long
    assert batch["idx"].tolist() == [0, 1, 2, 3]
    assert batch["sentence"] == [dataset[i]["sentence"] for i in range(4)]
    batch["labels"] = batch.pop("label")
    with pytest.raises(TypeError, match="idx"):
        make_text_model(0)(**batch)


@pytest.mark.parametrize("factory", [make_lstm_model, make_text_model, make_regression_model])
def test_model_factories_depend_on_the_seed_only_and_leave_global_rng_alone(factory) -> None:
    reference = factory(0).state_dict()
    torch.manual_seed(99)
    torch.rand(5)  # consume global RNG state before building again
    state = torch.get_rng_state()
    again = factory(0).state_dict()
    assert torch.equal(state, torch.get_rng_state())
    assert all(torch.equal(reference[key], again[key]) for key in reference)
    other = factory(1).state_dict()
    assert any(not torch.equal(reference[key], other[key]) for key in reference)


# --- amp --------------------------------------------------------------------------------------


def test_mixed_precision_is_device_aware() -> None:
    assert autocast_dtype("cpu") == torch.bfloat16
    assert autocast_dtype("cuda") == torch.float16
    assert autocast_dtype("mps") == torch.float16
    enabled = MixedPrecision("cpu", enabled=True)
    assert enabled.dtype == torch.bfloat16 and not enabled.scaler.is_enabled()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with enabled.autocast():
            assert (torch.ones(2, 2) @ torch.ones(2, 2)).dtype == torch.bfloat16
        losses = run("regression", amp=True, max_steps=3).step_losses
    assert all(math.isfinite(loss) for loss in losses)


# --- batches ----------------------------------------------------------------------------------


class _KwargsModel(torch.nn.Module):
    def forward(self, input_ids, **kwargs):
        return input_ids


class _LabelModel(torch.nn.Module):
    def forward(self, input_ids, label=None, labels=None):
        return input_ids


def test_filter_batch_keeps_only_forward_parameters() -> None:
    model = make_text_model(0)
    batch = text_collate([TextClassificationDataset(0)[i] for i in range(2)])
    assert set(filter_batch(model, batch)) == {"input_ids", "attention_mask"}  # no alias unless asked
    aliased = filter_batch(model, batch, label_aliases={"label": "labels"})
    assert set(aliased) == {"input_ids", "attention_mask", "labels"}
    assert aliased["labels"] is batch["label"] and "label" in batch  # the input batch is not modified
    assert model(**aliased).loss is not None


def test_filter_batch_with_kwargs_forward_keeps_every_key() -> None:
    batch = {"input_ids": torch.ones(1), "idx": torch.zeros(1), "sentence": ["s"], "label": torch.ones(1)}
    assert filter_batch(_KwargsModel(), batch) == batch
    assert filter_batch(_KwargsModel(), batch, label_aliases={"label": "labels"}) == batch  # `labels` not named


def test_label_alias_only_when_forward_has_labels_but_not_label() -> None:
    batch = {"input_ids": torch.ones(1), "label": torch.ones(1)}
    assert set(filter_batch(_LabelModel(), batch, label_aliases={"label": "labels"})) == {"input_ids", "label"}
    both = {**batch, "labels": torch.zeros(1)}
    kept = filter_batch(make_text_model(0), both, label_aliases={"label": "labels"})
    assert kept["labels"] is both["labels"]  # an existing target key wins


def test_forward_parameters_are_cached_per_class() -> None:
    first = forward_parameters(make_text_model(0))
    assert forward_parameters(make_text_model(1)) is first
    assert first.names == {"input_ids", "attention_mask", "labels"} and not first.var_keyword
    assert forward_parameters(_KwargsModel()).var_keyword


# --- metrics ----------------------------------------------------------------------------------


def test_running_loss_and_step_history_keep_floats_only() -> None:
    weight = torch.ones(1, requires_grad=True)
    running, history = RunningLoss(), StepHistory(maxlen=3)
    for step in range(5):
        loss = (weight * step).sum()
        running.update(loss, count=2)
        history.append(loss)
    assert isinstance(running.total, float) and running.mean == pytest.approx(2.0)
    assert list(history) == [2.0, 3.0, 4.0] and len(history) == 3 and history.maxlen == 3
    assert math.isnan(RunningLoss().mean)


def test_gradient_tracker_is_bounded_with_welford_stats() -> None:
    norms = np.random.default_rng(0).lognormal(mean=0.0, sigma=2.0, size=500) + 1e6  # large offset: tests stability
    norms[::50] = 1e-9  # vanishing
    tracker = GradientTracker(history_size=20, vanishing_threshold=1e-7, exploding_threshold=1e7)
    for norm in norms:
        tracker.observe(float(norm))
    tracker.observe(float("inf"))
    tracker.observe(float("nan"))
    report = json.loads(tracker.to_json())
    assert report == tracker.report()
    assert len(report["history"]) == 20 and report["history"][-2:] == [None, None]
    assert report["steps"] == 502 and report["finite_steps"] == 500
    assert report["mean"] == pytest.approx(np.mean(norms), rel=1e-12)
    assert report["variance"] == pytest.approx(np.var(norms), rel=1e-9)
    assert report["std"] == pytest.approx(np.std(norms), rel=1e-9)
    assert report["min"] == norms.min() and report["max"] == norms.max()
    assert report["vanishing"] == 10
    assert report["exploding"] == int((norms > 1e7).sum()) + 2 and report["non_finite"] == 2


def test_gradient_tracker_update_matches_clip_grad_norm() -> None:
    model = make_regression_model(0)
    X, y = regression_arrays(0)
    torch.nn.functional.mse_loss(model(torch.from_numpy(X[:32])), torch.from_numpy(y[:32])).backward()
    tracker = GradientTracker()
    norm = tracker.update(model)
    assert norm == pytest.approx(torch.nn.utils.clip_grad_norm_(model.parameters(), math.inf).item(), rel=1e-6)
    assert tracker.report()["history"] == [norm]
    json.loads(GradientTracker().to_json())  # an empty tracker is valid JSON too


# --- loop -------------------------------------------------------------------------------------


def _regression_setup(batch_size: int, optimizer: str = "sgd"):
    task = build("regression")
    loader = make_loader(task.dataset, batch_size, "cpu")
    params = task.model.parameters()
    opt = torch.optim.SGD(params, lr=0.05) if optimizer == "sgd" else torch.optim.Adam(params, lr=0.01)
    return task.model, loader, opt, task.loss_fn


def test_gradient_accumulation_matches_a_larger_batch() -> None:
    big_model, big_loader, big_opt, loss_fn = _regression_setup(32)
    train_epoch(big_model, big_loader, big_opt, "cpu", loss_fn=loss_fn)
    small_model, small_loader, small_opt, _ = _regression_setup(16)
    losses = train_epoch(small_model, small_loader, small_opt, "cpu", loss_fn=loss_fn, accumulation_steps=2)
    assert len(losses) == 32
    for big, small in zip(big_model.parameters(), small_model.parameters()):
        torch.testing.assert_close(small, big, rtol=1e-5, atol=1e-6)


def test_clipping_bounds_the_update() -> None:
    model, loader, optimizer, loss_fn = _regression_setup(32)
    before = [p.detach().clone() for p in model.parameters()]
    train_epoch(model, loader, optimizer, "cpu", loss_fn=loss_fn, clip_norm=0.01, max_steps=1)
    moved = torch.stack([torch.linalg.vector_norm(p - b) for p, b in zip(model.parameters(), before)])
    step = torch.linalg.vector_norm(moved)
    assert 0 < step.item() <= 0.05 * 0.01 * (1 + 1e-5)  # lr * clip_norm


class _OutOfMemoryInBackward:
    """A loss function whose second loss raises OOM in ``backward``; it checks, when the next loss is
    computed, that the failed loss (and with it its graph) and all gradients were already released."""

    def __init__(self, loss_fn, model: torch.nn.Module) -> None:
        self.loss_fn, self.model = loss_fn, model
        self.calls = 0
        self.failed = None
        self.observed: list[tuple[bool, bool]] = []  # (failed loss freed, any gradient left)

    def __call__(self, prediction, target):
        self.calls += 1
        if self.failed is not None:
            self.observed.append((self.failed() is None, any(p.grad is not None for p in self.model.parameters())))
            self.failed = None
        loss = self.loss_fn(prediction, target)
        if self.calls == 2:
            self.failed = weakref.ref(loss)
            loss.register_hook(self._raise)
        return loss

    @staticmethod
    def _raise(grad):
        raise torch.OutOfMemoryError("CUDA out of memory (simulated)")


def test_out_of_memory_frees_the_step_and_skips_the_batch() -> None:
    task = build("regression")
    loss_fn = _OutOfMemoryInBackward(task.loss_fn, task.model)
    optimizer = torch.optim.SGD(task.model.parameters(), lr=0.05)
    loader = make_loader(task.dataset, 32, "cpu")
    losses = train_epoch(task.model, loader, optimizer, "cpu", loss_fn=loss_fn, max_steps=4, accumulation_steps=2)
    assert loss_fn.calls == 4 and len(losses) == 3
    assert loss_fn.observed == [(True, False)]  # batch 0's pending gradients were dropped too


@pytest.mark.parametrize("task_name", TASK_NAMES)
def test_evaluate_builds_no_graph_and_restores_the_mode(task_name: str) -> None:
    task = build(task_name)
    outputs = []
    task.model.register_forward_hook(lambda module, args, output: outputs.append(output))
    loader = make_loader(task.dataset, task.spec.batch_size, "cpu", collate_fn=task.collate_fn)
    task.model.train()
    loss = evaluate(task.model, loader, "cpu", task.loss_fn, label_aliases=dict(task.spec.label_aliases))
    assert math.isfinite(loss) and task.model.training
    tensors = [getattr(out, "logits", out) for out in outputs] + [o.loss for o in outputs if hasattr(o, "loss")]
    assert len(outputs) == 16 and all(t.grad_fn is None and not t.requires_grad for t in tensors)
    assert all(p.grad is None for p in task.model.parameters())


def test_lstm_files_hold_the_lstm_arrays(tmp_path: Path) -> None:
    from reference_trainer.data import lstm_files

    x_path, y_path = lstm_files(3, tmp_path)
    X, y = lstm_arrays(3)
    assert np.array_equal(np.load(x_path), X) and np.array_equal(np.load(y_path), y)


def test_memory_mapped_arrays_batch_like_a_tensor_dataset(tmp_path: Path) -> None:
    """The memory-mapped loader reads rows from the files and gives the same batches as the arrays in memory."""
    from torch.utils.data import DataLoader, TensorDataset

    from reference_trainer.data import MemoryMappedArrays, lstm_files

    mapped = MemoryMappedArrays(*lstm_files(0, tmp_path))
    assert all(isinstance(array, np.memmap) for array in mapped.arrays)
    in_memory = TensorDataset(*(torch.from_numpy(a) for a in lstm_arrays(0)))
    for (xa, ya), (xb, yb) in zip(DataLoader(mapped, batch_size=32), DataLoader(in_memory, batch_size=32)):
        assert torch.equal(xa, xb) and torch.equal(ya, yb)
    with pytest.raises(ValueError, match="same number of rows"):
        np.save(tmp_path / "short.npy", np.zeros(3))
        MemoryMappedArrays(tmp_path / "X.npy", tmp_path / "short.npy")
