# TL103 edge of `batches_a_moved_read`: the move bound to `self.X` in one method and sliced as `self.X[i:i + bs]` in another's loop (the rule's `uses` of a class attribute binding).
import numpy as np
import torch
device = "cuda"
class Trainer:
    def setup(self, p):
        self.X = torch.from_numpy(np.load(p)).to(device)
    def train(self, bs):
        for i in range(0, 100, bs):
            xb = self.X[i:i + bs]
