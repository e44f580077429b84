# TL302 missed by `may_index_with_float`: Features._plain_values is filled only from Assign, so `(model := Classifier())` is no instance of a class here and `_instance_may_get_float` misses `model(float_ids)` into a forward that embeds; FloatIndexTensors (_forward_embeds) follows the walrus binding and reports.
import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(100, 8)

    def forward(self, ids):
        return self.embed(ids).sum(1)


def main(texts):
    ids = torch.FloatTensor(texts)
    if (model := Classifier()) is not None:
        out = model(ids)
    return out
