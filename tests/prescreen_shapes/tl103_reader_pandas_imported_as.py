# TL103 edge of trigger (_WHOLE_FILE_READ): the table is read by `from pandas import read_csv as load_table` called as `load_table(...)`; the rule resolves it to `pandas.read_csv` (FILE_READERS), while the text holds "read_csv" only in the import, never "read_csv("
import torch
from pandas import read_csv as load_table
from torch.utils.data import DataLoader, TensorDataset

device = "cuda" if torch.cuda.is_available() else "cpu"

frame = load_table("ratings.csv")
users = torch.tensor(frame["user"].values).to(device)
items = torch.tensor(frame["item"].values).to(device)
scores = torch.tensor(frame["score"].values, dtype=torch.float32).to(device)

loader = DataLoader(TensorDataset(users, items, scores), batch_size=1024, shuffle=True)
user_table = torch.nn.Embedding(int(users.max()) + 1, 32).to(device)
item_table = torch.nn.Embedding(int(items.max()) + 1, 32).to(device)
optimizer = torch.optim.Adam([*user_table.parameters(), *item_table.parameters()], lr=1e-3)

for epoch in range(5):
    for u, i, s in loader:
        loss = ((user_table(u) * item_table(i)).sum(-1) - s).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
