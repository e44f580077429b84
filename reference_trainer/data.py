"""Synthetic data sets built in code from an explicit seed.

Every generator here owns its RNG (``np.random.default_rng(seed)``), so the
data depend on ``seed`` alone: not on global RNG state, not on what ran
before, not on call order. That is what lets a fixture and the reference
trainer build bit-identical inputs independently. All data stay on the CPU;
batches are moved to the device one at a time (see ``devices.move_batch``).

The default sizes are the task sizes: ``tasks.py`` and the fixtures call these
functions with ``seed`` only.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from .devices import DeviceLike, should_pin_memory

LSTM_FEATURES = 8
LSTM_CLASSES = 3
TEXT_VOCAB_SIZE = 64
TEXT_CLASSES = 2
TEXT_PAD_ID = 0
REGRESSION_FEATURES = 8


def lstm_arrays(
    seed: int = 0, n: int = 512, window: int = 16, features: int = LSTM_FEATURES
) -> tuple[np.ndarray, np.ndarray]:
    """Windows of market-like features and the direction of the next return.

    Returns ``X`` float32 ``[n, window, features]`` and ``y`` int64 ``[n]`` with
    classes 0/1/2 = down/flat/up (tercile thresholds, so classes are
    balanced). Returns follow an AR(1) process, so the recent window carries
    real signal about the next move. Raw NumPy arrays on purpose: the buggy
    trading scripts start from ``torch.FloatTensor(X).to(device)``.
    """
    rng = np.random.default_rng(seed)
    noise = rng.standard_normal(n + window + 1)
    returns = np.empty_like(noise)
    returns[0] = noise[0]
    for t in range(1, returns.size):
        returns[t] = 0.6 * returns[t - 1] + noise[t]
    loadings = rng.normal(1.0, 0.5, size=features)
    series = returns[:-1, None] * loadings + 0.5 * rng.standard_normal((returns.size - 1, features))
    series = (series - series.mean(axis=0)) / series.std(axis=0)
    X = np.stack([series[i : i + window] for i in range(n)]).astype(np.float32)
    next_returns = returns[window : window + n]
    y = np.digitize(next_returns, np.quantile(next_returns, [1 / 3, 2 / 3])).astype(np.int64)
    return X, y


def lstm_files(seed: int = 0, directory: Optional[Union[str, Path]] = None) -> tuple[Path, Path]:
    """The lstm task's arrays saved as ``X.npy`` and ``y.npy``, as preprocessed data sets ship.

    Written to ``directory`` (a fresh temporary folder when None); returns the two paths. Loading
    them gives back ``lstm_arrays(seed)`` exactly, so a script that reads them trains like the
    lstm task.
    """
    folder = Path(directory) if directory is not None else Path(tempfile.mkdtemp(prefix="reference_trainer_"))
    X, y = lstm_arrays(seed)
    paths = folder / "X.npy", folder / "y.npy"
    np.save(paths[0], X)
    np.save(paths[1], y)
    return paths


class MemoryMappedArrays(Dataset):
    """Rows of ``.npy`` files opened with ``np.load(mmap_mode="r")``: only the rows a batch takes are read.

    The answer to a data set too large for memory (let alone for the GPU): nothing is loaded up
    front, each item is a CPU tensor copied out of the mapped file, and batches are moved to the
    device one at a time. Items are tuples, one tensor per file, like ``TensorDataset``'s.
    """

    def __init__(self, *paths: Union[str, Path]) -> None:
        self.arrays = [np.load(path, mmap_mode="r") for path in paths]
        if len({len(array) for array in self.arrays}) > 1:
            raise ValueError("every file must hold the same number of rows")

    def __len__(self) -> int:
        return len(self.arrays[0])

    def __getitem__(self, index: int) -> tuple[torch.Tensor, ...]:
        return tuple(torch.from_numpy(np.array(array[index])) for array in self.arrays)


def regression_arrays(
    seed: int = 0, n: int = 512, features: int = REGRESSION_FEATURES, noise: float = 0.1
) -> tuple[np.ndarray, np.ndarray]:
    """A smooth, mildly non-linear regression target: ``X`` float32 ``[n, features]``, ``y`` float32 ``[n]``."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, features))
    weights = rng.standard_normal(features) / np.sqrt(features)
    y = X @ weights + 0.5 * np.sin(X[:, 0]) + noise * rng.standard_normal(n)
    return X.astype(np.float32), y.astype(np.float32)


class TextClassificationDataset(Dataset):
    """Map-style token-classification data shaped like a tokenised HF data set.

    Each item is a dict with ``input_ids`` (LongTensor ``[seq_len]``, padded
    with ``TEXT_PAD_ID``), ``attention_mask`` (LongTensor, 1 for real tokens),
    ``label`` (int), and the extra keys real data sets carry: ``idx`` (int)
    and ``sentence`` (str). The extra keys are the point: a naive
    ``model(**batch)`` passes them to ``forward`` and fails.

    The label is the sign of a fixed random per-token score summed over the
    sentence, so a bag-of-words model can learn it.
    """

    def __init__(self, seed: int = 0, n: int = 256, seq_len: int = 16, vocab_size: int = TEXT_VOCAB_SIZE) -> None:
        rng = np.random.default_rng(seed)
        token_scores = rng.choice([-1.0, 1.0], size=vocab_size)
        lengths = rng.integers(seq_len // 2, seq_len + 1, size=n)
        ids = rng.integers(TEXT_PAD_ID + 1, vocab_size, size=(n, seq_len))
        mask = np.arange(seq_len)[None, :] < lengths[:, None]
        ids = np.where(mask, ids, TEXT_PAD_ID)
        scores = (token_scores[ids] * mask).sum(axis=1)
        self.input_ids = torch.from_numpy(ids.astype(np.int64))
        self.attention_mask = torch.from_numpy(mask.astype(np.int64))
        self.labels = (scores > 0).astype(np.int64).tolist()
        self.sentences = [" ".join(f"tok{t}" for t in row[:length]) for row, length in zip(ids, lengths)]

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, index: int) -> dict[str, Any]:
        return {
            "input_ids": self.input_ids[index],
            "attention_mask": self.attention_mask[index],
            "label": self.labels[index],
            "idx": index,
            "sentence": self.sentences[index],
        }


def text_collate(items: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Collate dict items the naive way: copy EVERY key into the batch.

    Tensors are stacked, numbers become a tensor, anything else (strings)
    stays a list. Keeping ``idx`` and ``sentence`` is deliberate: it is what
    makes ``model(**batch)`` fail, and what ``batches.filter_batch`` answers.
    """
    batch: dict[str, Any] = {}
    for key in items[0]:
        values = [item[key] for item in items]
        if isinstance(values[0], torch.Tensor):
            batch[key] = torch.stack(values)
        elif isinstance(values[0], (bool, int, float)):
            batch[key] = torch.tensor(values)
        else:
            batch[key] = values
    return batch


def _is_cpu_resident(dataset: Dataset) -> bool:
    """True unless the data set visibly holds non-CPU tensors (``TensorDataset.tensors``)."""
    tensors = getattr(dataset, "tensors", ())
    return all(tensor.device.type == "cpu" for tensor in tensors)


def make_loader(
    dataset: Dataset,
    batch_size: int,
    device: DeviceLike,
    shuffle: bool = False,
    num_workers: int = 0,
    *,
    collate_fn: Optional[Callable[[list[Any]], Any]] = None,
    seed: int = 0,
) -> DataLoader:
    """A DataLoader over CPU-resident data, pinned only when that helps.

    Shuffling uses its own ``torch.Generator`` seeded with ``seed``, so the
    batch order never depends on the global RNG.
    """
    return DataLoader(
        dataset,
        batch_size=batch_size,
        shuffle=shuffle,
        num_workers=num_workers,
        collate_fn=collate_fn,
        pin_memory=should_pin_memory(_is_cpu_resident(dataset), device),
        generator=torch.Generator().manual_seed(seed) if shuffle else None,
    )
