# TL101 edge of loads_moved_data (may_hold: `_stored`, `_scope_at`): a walrus in a method's default binds the class attribute `table` (a method's defaults run in the class body, `Names` binds it there), which `self.table` reads; the walk's `_scope_at` files the binding in the scope around the class (the module) and `_class_scope` stops at the def, so no attribute `table` holds the move
import torch
from torch.utils.data import DataLoader, Dataset


class CachedRows(Dataset):
    rows = 256

    def __len__(self, _=(table := torch.randn(256, 8).cuda())):
        return self.rows

    def __getitem__(self, index):
        return self.table[index]


loader = DataLoader(CachedRows(), batch_size=32, pin_memory=True)
for batch in loader:
    print(batch.shape)
