"""In-memory stand-ins for the parts of ``datasets`` and ``transformers`` that TL301's hub fixture uses.

The fixtures ``bad_glue_map_keeps_idx.py`` and ``bad_glue_remove_columns_keeps_idx.py`` are written against the real
libraries (``load_dataset("glue", "sst2")``, ``AutoTokenizer``), which need the
network and are not installed here. Only the download and the tokenizer are
replaced: :func:`hub_stand_ins` serves GLUE/SST-2's real columns (``sentence``,
``label``, ``idx``) filled with ``reference_trainer``'s text data for ``seed``,
and a tokenizer that turns its ``tok<N>`` words back into the reference's
token ids, so the fixed fixture must train exactly like
``reference_trainer.run("text")``. ``map(batched=True)``, ``rename_column``,
``remove_columns`` and ``set_format("torch")`` behave as in ``datasets``: numbers and lists of
numbers become tensors, strings stay strings.
"""

from __future__ import annotations

import sys
import types
from typing import Any, Callable, Dict, List
from unittest import mock

import torch

from reference_trainer.data import TEXT_PAD_ID, TextClassificationDataset


class InMemoryDataset:
    """A ``datasets.Dataset`` over columns held in memory."""

    def __init__(self, columns: Dict[str, List[Any]], torch_format: bool = False) -> None:
        self.columns = columns
        self.torch_format = torch_format

    def __len__(self) -> int:
        return len(next(iter(self.columns.values())))

    def map(self, function: Callable[[Dict[str, List[Any]]], Dict[str, List[Any]]], batched: bool = False) -> "InMemoryDataset":
        assert batched, "the stand-in maps whole columns only"
        return InMemoryDataset({**self.columns, **function(dict(self.columns))}, self.torch_format)

    def rename_column(self, original: str, new: str) -> "InMemoryDataset":
        renamed = {new if name == original else name: values for name, values in self.columns.items()}
        return InMemoryDataset(renamed, self.torch_format)

    def remove_columns(self, column_names: List[str]) -> "InMemoryDataset":
        kept = {name: values for name, values in self.columns.items() if name not in column_names}
        return InMemoryDataset(kept, self.torch_format)

    def set_format(self, type: str) -> None:  # noqa: A002 - the datasets API's own name
        self.torch_format = type == "torch"

    def __getitem__(self, index: int) -> Dict[str, Any]:
        row = {name: values[index] for name, values in self.columns.items()}
        if self.torch_format:
            row = {name: value if isinstance(value, str) else torch.tensor(value) for name, value in row.items()}
        return row


class WordIdTokenizer:
    """Reads ``tok<N>`` words back as token ``N``, padded with the reference's pad id."""

    def __call__(self, texts: List[str], padding: str = "max_length", max_length: int = 16) -> Dict[str, List[List[int]]]:
        ids = [[int(word[len("tok") :]) for word in text.split()] for text in texts]
        return {
            "input_ids": [row + [TEXT_PAD_ID] * (max_length - len(row)) for row in ids],
            "attention_mask": [[1] * len(row) + [0] * (max_length - len(row)) for row in ids],
        }


def hub_stand_ins(seed: int) -> "mock._patch_dict":
    """Patch ``sys.modules`` so that ``datasets`` and ``transformers`` are these stand-ins for ``seed``'s data."""
    rows = TextClassificationDataset(seed)

    def load_dataset(path: str, name: str, split: str) -> InMemoryDataset:
        assert (path, name, split) == ("glue", "sst2", "train")
        return InMemoryDataset({"sentence": list(rows.sentences), "label": list(rows.labels), "idx": list(range(len(rows)))})

    datasets = types.ModuleType("datasets")
    datasets.load_dataset = load_dataset  # type: ignore[attr-defined]
    transformers = types.ModuleType("transformers")
    transformers.AutoTokenizer = types.SimpleNamespace(from_pretrained=lambda name: WordIdTokenizer())  # type: ignore[attr-defined]
    return mock.patch.dict(sys.modules, {"datasets": datasets, "transformers": transformers})
