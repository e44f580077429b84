# TL302 edge of trigger _FLOAT_TENSOR: `torch.tensor(frame["label"].values.astype(np.float32))`, a NumPy cast to float whose only float word sits in `.astype(` (no `dtype=`, `.to(`, `.float()`, `from_numpy`)
import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn


frame = pd.read_csv("train.csv")
features = torch.tensor(frame.drop(columns=["label"]).values.astype(np.float32))
targets = torch.tensor(frame["label"].values.astype(np.float32))

model = nn.Linear(features.shape[1], 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(10):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(features), targets)
    loss.backward()
    optimizer.step()
