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
