# TL103 edge of trigger (_WHOLE_FILE_READ): torch is imported as `th` and the data set read by `th.load(...)`; the rule resolves it to `torch.load` (FILE_READERS), while the text holds no "torch.load("
import torch as th
import torch.nn as nn

device = th.device("cuda" if th.cuda.is_available() else "cpu")

data = th.load("expert_transitions.pt")
observations = data["observations"].to(device)
actions = data["actions"].to(device)

policy = nn.Sequential(nn.Linear(observations.shape[1], 64), nn.Tanh(), nn.Linear(64, actions.shape[1])).to(device)
optimizer = th.optim.Adam(policy.parameters(), lr=3e-4)
batch_size = 256

for epoch in range(20):
    permutation = th.randperm(len(observations), device=device)
    for start in range(0, len(observations), batch_size):
        index = permutation[start:start + batch_size]
        loss = ((policy(observations[index]) - actions[index]) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
