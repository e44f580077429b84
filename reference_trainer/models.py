"""Tiny models for the three reference tasks, and seeded factories for them.

The factories build each model under its own forked CPU RNG seeded with
``seed``: initial weights then depend on ``seed`` alone (not on anything that
ran before), and building a model leaves the caller's global RNG untouched.
The models have no dropout or batch norm, so train/eval mode changes nothing
numerically and the loss sequence depends only on data, seed and optimiser.
Models are built on the CPU; callers move them with ``.to(device)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Optional, TypeVar

import torch
from torch import nn
from torch.nn import functional as F

from .data import LSTM_CLASSES, LSTM_FEATURES, REGRESSION_FEATURES, TEXT_CLASSES, TEXT_PAD_ID, TEXT_VOCAB_SIZE


class LSTMClassifier(nn.Module):
    """Sequence classifier: an LSTM over the window, a linear head on its last hidden state."""

    def __init__(self, features: int = LSTM_FEATURES, hidden: int = 32, classes: int = LSTM_CLASSES) -> None:
        super().__init__()
        self.lstm = nn.LSTM(features, hidden, batch_first=True)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x`` ``[batch, window, features]`` -> logits ``[batch, classes]``."""
        _, (hidden, _) = self.lstm(x)
        return self.head(hidden[-1])


@dataclass
class ClassifierOutput:
    """What an HF model returns, reduced to the two fields training code reads."""

    logits: torch.Tensor
    loss: Optional[torch.Tensor] = None


class TextClassifier(nn.Module):
    """Bag-of-embeddings classifier with a Hugging Face-like ``forward``.

    ``forward(input_ids, attention_mask=None, labels=None)`` and an output with
    ``.loss`` / ``.logits`` are exactly the interface that ``model(**batch)``
    code relies on; a batch carrying any other key (``idx``, ``sentence``)
    makes that call raise ``TypeError``.
    """

    def __init__(self, vocab_size: int = TEXT_VOCAB_SIZE, dim: int = 32, classes: int = TEXT_CLASSES) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=TEXT_PAD_ID)
        self.hidden = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, classes)

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: Optional[torch.Tensor] = None,
        labels: Optional[torch.Tensor] = None,
    ) -> ClassifierOutput:
        """Mean-pool the unmasked token embeddings; add the cross-entropy loss when ``labels`` is given."""
        if attention_mask is None:
            attention_mask = (input_ids != TEXT_PAD_ID).long()
        mask = attention_mask.unsqueeze(-1).to(self.embed.weight.dtype)
        pooled = (self.embed(input_ids) * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)
        logits = self.head(torch.tanh(self.hidden(pooled)))
        loss = F.cross_entropy(logits, labels) if labels is not None else None
        return ClassifierOutput(logits=logits, loss=loss)


class MLPRegressor(nn.Module):
    """Two-layer MLP; returns ``[batch]`` so it matches targets of shape ``[batch]`` without broadcasting."""

    def __init__(self, features: int = REGRESSION_FEATURES, hidden: int = 32) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(features, hidden), nn.Tanh(), nn.Linear(hidden, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x).squeeze(-1)


ModelT = TypeVar("ModelT", bound=nn.Module)


def _seeded(seed: int, build: Callable[[], ModelT]) -> ModelT:
    with torch.random.fork_rng(devices=[]):
        torch.default_generator.manual_seed(seed)
        return build()


def make_lstm_model(seed: int = 0) -> LSTMClassifier:
    """The LSTM task's model, initialised from ``seed`` only."""
    return _seeded(seed, LSTMClassifier)


def make_text_model(seed: int = 0) -> TextClassifier:
    """The text task's model, initialised from ``seed`` only."""
    return _seeded(seed, TextClassifier)


def make_regression_model(seed: int = 0) -> MLPRegressor:
    """The regression task's model, initialised from ``seed`` only."""
    return _seeded(seed, MLPRegressor)
