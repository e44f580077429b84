# TL302 may_index_with_float misses: walk._float_or_index_call records a call in _calls only when it has positional ast args, so criterion(input=..., target=labels) never reaches _module_takes_float; the rule's _index_uses takes keywords['target'] of a call whose _made_by is torch.nn.CrossEntropyLoss; reported by FloatIndexTensors (dtype=torch.float32 source)
import pandas as pd
import torch
from torch import nn

df = pd.read_csv("train.csv")
features = torch.tensor(df.drop(columns=["label"]).values, dtype=torch.float32)
labels = torch.tensor(df["label"].values, dtype=torch.float32)
model = nn.Sequential(nn.Linear(features.shape[1], 64), nn.ReLU(), nn.Linear(64, 3))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters())
for epoch in range(10):
    optimizer.zero_grad()
    loss = criterion(input=model(features), target=labels)
    loss.backward()
    optimizer.step()
