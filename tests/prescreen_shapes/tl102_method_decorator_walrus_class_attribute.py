# TL102 edge of loads_moved_data (may_hold: `_stored`, `_scope_at`): a walrus in a method's decorator binds the class attribute `table` (a method's decorators run in the class body, where `Names` binds it), which `__getitem__` reads as `self.table`; the walk files the binding around the class (the module) and keeps no attribute `table`, so no class holds the move
import torch
from torch.utils.data import DataLoader, Dataset


def keep(value):
    return lambda function: function


class CachedRows(Dataset):
    @keep(table := torch.randn(256, 8).to("cuda"))
    def __len__(self):
        return 256

    def __getitem__(self, index):
        return self.table[index]


loader = DataLoader(CachedRows(), batch_size=32, num_workers=4)
for batch in loader:
    print(batch.shape)
