# TL103 edge of trigger (the move's part): the move is `torch.tensor(..., device = device)`, a keyword written with spaces around `=`; the rule reads the keyword `device` (passed_argument), while the text holds no "device=", ".to(" or ".cuda("
import numpy as np
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

inputs = torch.tensor(np.load("inputs.npy"), dtype = torch.float32, device = device)
labels = torch.tensor(np.load("labels.npy"), dtype = torch.long, device = device)

model = nn.Linear(inputs.shape[1], 10, device = device)
optimizer = torch.optim.SGD(model.parameters(), lr = 0.05)
batch_size = 64

for epoch in range(5):
    for start in range(0, len(inputs), batch_size):
        xb = inputs[start:start + batch_size]
        yb = labels[start:start + batch_size]
        loss = nn.functional.cross_entropy(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
