# TL103 edge of `batches_a_moved_read`: a split through an import alias whose tensor is a keyword (`sp(tensor=X, ...)`; the rule's first argument in source order).
import numpy as np
import torch
device = "cuda"
from torch import split as sp
def main(p):
    X = torch.from_numpy(np.load(p)).cuda()
    batches = sp(tensor=X, split_size_or_sections=64)
