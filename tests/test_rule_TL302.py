"""TL302 shapes beyond the fixtures: float sources followed through same-module calls."""

from __future__ import annotations

import textwrap
from typing import List

import pytest

from trainlint.engine import RuleSettings, lint_source

SETTINGS = RuleSettings(codes=frozenset({"TL302"}))

MODEL = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(10, 4)

    def embed(self, ids):
        return self.embedding(ids)

    def forward(self, tokens):
        return self.embed(torch.tensor(tokens, dtype=DTYPE))
"""


def messages(source: str) -> List[str]:
    result = lint_source(textwrap.dedent(source), "case.py", SETTINGS)
    assert not result.errors, result.errors
    return [d.message for d in result.diagnostics]


@pytest.mark.parametrize("dtype, reported", [("torch.float", True), ("torch.long", False)])
def test_a_method_parameter_takes_the_tensor_its_self_call_passes(dtype: str, reported: bool) -> None:
    found = messages(MODEL.replace("DTYPE", dtype))
    assert (len(found) == 1 and "the embedding `self.embedding` (`ids`)" in found[0]) if reported else not found


ITERATED = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)

    def forward(self, ids):
        return self.emb(ids).sum()


model = Model()
BATCHES
for ids in batches:
    model(ids)
"""


@pytest.mark.parametrize(
    "batches, reported",
    [
        ("batches = [torch.zeros(4, 8) for _ in range(3)]", "torch.zeros(4, 8)"),
        ("batches = (torch.ones(2, 8) for _ in range(3))", "torch.ones(2, 8)"),
        ("batches = [torch.zeros(8, dtype=torch.long), torch.ones(8)]", "torch.ones(8)"),
        ("batches = [*[torch.empty(3)], torch.zeros(3, dtype=torch.long)]", "torch.empty(3)"),
        ("batches = [torch.zeros(4, 8, dtype=torch.long) for _ in range(3)]", None),
        ("batches = (torch.zeros(8, dtype=torch.long), torch.ones(8, dtype=torch.int))", None),
    ],
)
def test_the_elements_of_a_list_or_comprehension_a_loop_iterates_are_followed(batches: str, reported) -> None:
    """Token ids iterated out of a list display or a comprehension keep the dtype they were made with."""
    found = messages(ITERATED.replace("BATCHES", batches))
    assert [message.split("`")[1] for message in found] == ([reported] if reported else [])


HELPERS = """
import numpy as np
import torch
from torch import nn


GPU


def generate_input(seq, label):
    return gpu(torch.from_numpy(np.array(seq)).type(torch.FloatTensor)), gpu(LABEL)


rnn = nn.Linear(4, 2)
criterion = nn.CrossEntropyLoss()
for k in range(10):
    x, target = generate_input([[0, 1, 0, 0]], 1)
    loss = criterion(rnn(x), target)
"""


# dataflowr's helper, and the same as one conditional expression
GPU_HELPERS = [
    "def gpu(tensor, gpu=torch.cuda.is_available()):\n    if gpu:\n        return tensor.cuda()\n    else:\n        return tensor\n",
    "def gpu(tensor):\n    return tensor.cuda() if torch.cuda.is_available() else tensor\n",
]


@pytest.mark.parametrize("gpu", GPU_HELPERS, ids=["if-statement", "conditional-expression"])
@pytest.mark.parametrize(
    "label, reported",
    [
        ("torch.from_numpy(np.array([label]))", None),
        ("torch.FloatTensor([label])", "torch.FloatTensor([label])"),
        ("torch.from_numpy(np.array([label], dtype=np.float32))", "torch.from_numpy(np.array([label], dtype=np.float32))"),
    ],
)
def test_a_helper_called_twice_returns_each_call_its_own_argument(gpu: str, label: str, reported) -> None:
    """Round 7 (dataflowr's 11_RNN): ``gpu(...)`` wraps both the float one-hot input and the integer target; the
    target's chain must come back to the target's own argument, not to the input's float cast. The helper's
    ``x.cuda() if ... else x`` is followed on both branches."""
    found = messages(HELPERS.replace("GPU\n", gpu).replace("LABEL", label))
    assert [message.split("`")[1] for message in found] == ([reported] if reported else [])


_LIST_LOOKUP = """
import torch
CLASSES = ["airplane", "automobile", "bird", "cat"]


def describe(logits, labels):
    {extra}
    idx = torch.zeros(logits.shape[0])
    for row in range(logits.shape[0]):
        idx[row] = logits[row].argmax()
    return [CLASSES[idx[row]] for row in range(len(idx))]
"""


@pytest.mark.parametrize("extra, reported", [("pass", False), ("torch.nn.functional.cross_entropy(logits, labels)", True)])
def test_a_list_subscript_counts_only_beside_another_index_use(extra: str, reported: bool) -> None:
    """The rule's trigger does not have a file parsed for a list subscript alone (`_INDEX_USE`: every Python file
    subscripts lists); the rule asks the same, so that its findings do not depend on the prefilter."""
    source = _LIST_LOOKUP.format(extra=extra)
    assert [m for m in messages(source) if "Python list `CLASSES`" in m] == (messages(source) if reported else [])
    assert bool(messages(source)) is reported
    settings = RuleSettings(frozenset({"TL302"}))
    assert bool(lint_source(source, "t.py", settings, screen=False).diagnostics) is reported
