# TL103 edge of moves_a_read_value (_moved_values): the read is passed by keyword before a `*args` (`torch.as_tensor(data=..., *extra, device=device)`); the rule's moved value is LibCST's first argument in source order, the keyword, while the screen takes CPython's first positional one, the starred
import numpy as np
import torch

device = "cuda"
extra = ()
X = torch.as_tensor(data=np.load("train.npy"), *extra, device=device)
bs = 64
for i in range(0, len(X), bs):
    print(X[i:i + bs].sum())
