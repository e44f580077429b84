# TL301 edge of TreeFacts._names_code: `model(**batch)` in a default on a later line of `def model(` header; the def binds its name only after its defaults are evaluated (no binding reaches the call), while the screen takes the `def` line, before the call, for a binding that reaches it
import torch
from torch.utils.data import DataLoader, Dataset


class Items(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, idx):
        return {"input_ids": torch.zeros(4, dtype=torch.long), "idx": idx}


batch = next(iter(DataLoader(Items(), batch_size=2)))


def model(
    warmup=model(**batch),
):
    return warmup
