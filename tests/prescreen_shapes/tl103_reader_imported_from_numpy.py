# TL103 edge of trigger (_WHOLE_FILE_READ): the reader is `from numpy import load` called as `load(...)`; the rule resolves it to `numpy.load` (FILE_READERS), while the text holds no "np.load(" or "numpy.load("
from numpy import load

import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

features = torch.from_numpy(load("train_features.npy")).float().to(device)
targets = torch.from_numpy(load("train_targets.npy")).long().to(device)

model = torch.nn.Linear(features.shape[1], 10).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(features, targets), batch_size=128, shuffle=True)

for epoch in range(10):
    for xb, yb in loader:
        loss = torch.nn.functional.cross_entropy(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
