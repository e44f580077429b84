# TL301 edge of TreeFacts._names_code: a match capture `net` (not counted among the bindings) shadows a module-level `def net`
import torch
from torch.utils.data import DataLoader, Dataset


class Items(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, idx):
        return {"input_ids": torch.zeros(4, dtype=torch.long), "idx": idx}


def net(**inputs):
    return inputs


def run(holder):
    match holder:
        case {"net": net}:
            for batch in DataLoader(Items(), batch_size=2):
                net(**batch)
