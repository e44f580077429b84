# TL301 edge of TreeFacts._names_code: `model(**batch)` in the body of `class model:` itself; the class binds its name only once its body has run (Names: no binding reaches the call, so the rule takes `model` for a model), while the screen takes the module-level class, whose `class` line comes before the call, for a binding that reaches it
import torch
from torch.utils.data import DataLoader, Dataset


class Items(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, idx):
        return {"input_ids": torch.zeros(4, dtype=torch.long), "idx": idx}


class model:
    for batch in DataLoader(Items(), batch_size=2):
        model(**batch)
