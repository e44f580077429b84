# TL301 edge of TreeFacts._names_code: `model(**batch)` in the base list, on a later line, of `class model(`; the class binds its name only after its bases are evaluated (no binding reaches the call), while the screen takes the `class` line, before the call, for a binding that reaches it
import torch
from torch.utils.data import DataLoader, Dataset


class Items(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, idx):
        return {"input_ids": torch.zeros(4, dtype=torch.long), "idx": idx}


batch = next(iter(DataLoader(Items(), batch_size=2)))


class model(
    type(model(**batch)),
):
    pass
