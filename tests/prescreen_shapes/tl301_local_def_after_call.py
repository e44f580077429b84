# TL301 edge of TreeFacts._names_code: `model(**batch)` in `train` where `model` is bound only by defs (module-level, before the call) but `train` itself defines `model` after the call: the local binding makes the name local and no binding reaches the call, so the rule takes it for a model
import torch
from torch.utils.data import DataLoader, Dataset


class Items(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, idx):
        return {"input_ids": torch.tensor([idx, idx]), "labels": torch.tensor(idx), "idx": idx}


def model(**inputs):
    return sum(v.sum() for v in inputs.values())


def train(loader, optimizer):
    for batch in loader:
        optimizer.zero_grad()
        loss = model(**batch)
        loss.backward()
        optimizer.step()

    def model(**inputs):
        return None


train(DataLoader(Items(), batch_size=2), None)
