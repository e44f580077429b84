# TL103 edge of trigger (_WHOLE_FILE_READ): the reader is written with the dot ending the line inside parentheses (`np.` then `load(path)`); the rule resolves it to `numpy.load` (FILE_READERS), while the substring "np.load" allows no gap after the dot
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
DATA = "/data/cifar_features"

features = torch.from_numpy((np.
                             load(f"{DATA}/train_x.npy"))).float().to(device)
targets = torch.from_numpy((np.
                            load(f"{DATA}/train_y.npy"))).long().to(device)

model = torch.nn.Linear(features.shape[1], 10).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(features, targets), batch_size=128, shuffle=True)

for epoch in range(10):
    for xb, yb in loader:
        loss = torch.nn.functional.cross_entropy(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
