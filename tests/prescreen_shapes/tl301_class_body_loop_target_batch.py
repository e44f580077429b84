# TL301 edge of BatchQuestions._may_carry_keys (_may_be_bound): `self.batch` reads a class-body `for batch in loader:` target, a class attribute that `Names.attribute_bindings` binds (its keys those of the loader's items) while the walk stores no attribute for a loop target in a class body (only class-body assignments)
import torch
from torch.utils.data import DataLoader, Dataset


class Sentences(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return {"input_ids": torch.tensor([index, index + 1]), "idx": index}


class Warmup:
    for batch in DataLoader(Sentences(), batch_size=2):
        break

    def run(self, model):
        return model(**self.batch)
