# TL103 edge of `batches_a_moved_read`: a class-body `X = torch.load(p).cuda()` read as `self.X[i:i + bs]` in a method's loop.
import numpy as np
import torch
device = "cuda"
class Data:
    X = torch.load("x.pt").cuda()
    def batches(self, bs):
        for i in range(0, 100, bs):
            yield self.X[i:i + bs]
