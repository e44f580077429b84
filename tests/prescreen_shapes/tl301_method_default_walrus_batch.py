# TL301 edge of BatchQuestions._may_carry_keys (_may_be_bound): `self.batch` reads a class attribute bound by a walrus in a method's default (a method's defaults run in the class body, where `Names` binds it; its keys those of the data set's items), while the walk records no stored attribute `batch` (`_class_scope` stops at the def, `_scope_at` files the walrus around the class)
import torch
from torch.utils.data import DataLoader, Dataset


class Sentences(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return {"input_ids": torch.tensor([index, index + 1]), "idx": index}


class Warmup:
    def prepare(self, first=(batch := next(iter(DataLoader(Sentences(), batch_size=2))))):
        return first

    def run(self, model):
        return model(**self.batch)
