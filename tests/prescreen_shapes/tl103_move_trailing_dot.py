# TL103 edge of trigger (_MOVE): the moves are written with the dot ending the line inside parentheses (`torch.from_numpy(...).float().` then `to(gpu)`); the rule reads `.to(gpu)` as a move (Placement.move), while `\.to{_GAP}\(` allows no gap between the dot and `to`
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

gpu = torch.device("cuda:0")

features = (torch.from_numpy(np.load("train_features.npy")).float().
            to(gpu))
targets = (torch.from_numpy(np.load("train_targets.npy")).long().
           to(gpu))

model = (torch.nn.Linear(features.shape[1], 10).
         to(gpu))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(features, targets), batch_size=128, shuffle=True)

for epoch in range(10):
    for xb, yb in loader:
        loss = torch.nn.functional.cross_entropy(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
