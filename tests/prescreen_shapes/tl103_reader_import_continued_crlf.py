# TL103 edge of trigger (_WHOLE_FILE_READ): a CRLF file (newlines kept untranslated by trainlint.source.decode) imports the reader by a from-import continued with a backslash (`from numpy import savez, \` then the reader's name on the next line); the rule resolves the call to numpy's reader (FILE_READERS), while the continued-import pattern's `\\.` takes the CR and then stops at the LF
from numpy import savez, \
    load

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
    savez("weights.npz", *[p.detach().cpu().numpy() for p in model.parameters()])
