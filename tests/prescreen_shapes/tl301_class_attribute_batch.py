# TL301 edge of BatchQuestions._may_carry_keys: `self.batch` bound by a class-body assignment (no attribute store anywhere)
import torch
from torch.utils.data import DataLoader, Dataset


class Items(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, idx):
        return {"input_ids": torch.zeros(4, dtype=torch.long), "idx": idx}


class Runner:
    batch = next(iter(DataLoader(Items(), batch_size=2)))

    def run(self, model):
        return model(**self.batch)
