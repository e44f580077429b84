# TL301 edge of BatchQuestions.calls_with_kwargs (_may_be_bound): `self.encoder(**batch)`, `encoder = Encoder()` a class-body attribute (no attribute store anywhere)
import torch
from torch.utils.data import DataLoader, Dataset


class Items(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, idx):
        return {"input_ids": torch.zeros(4, dtype=torch.long), "idx": idx}


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(10, 4)

    def forward(self, input_ids):
        return self.emb(input_ids)


class Runner:
    encoder = Encoder()

    def run(self):
        for batch in DataLoader(Items(), batch_size=2):
            self.encoder(**batch)
