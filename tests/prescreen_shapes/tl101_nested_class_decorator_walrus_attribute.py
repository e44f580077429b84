# TL101 edge of loads_moved_data (may_hold: `_stored`): a walrus in the decorator of a class nested in a Dataset's body binds the outer class's attribute `table` (a nested class's decorators run in the outer class body, where `Names` binds it), which `self.table` reads; `_class_scope` lists the nested class without walking its decorators, so the walk records no attribute `table` holding the move
import torch
from torch.utils.data import DataLoader, Dataset


def tag(value):
    return lambda cls: cls


class CachedRows(Dataset):
    @tag(table := torch.randn(256, 8).cuda())
    class Meta:
        rows = 256

    def __len__(self):
        return self.Meta.rows

    def __getitem__(self, index):
        return self.table[index]


loader = DataLoader(CachedRows(), batch_size=32, pin_memory=True)
for batch in loader:
    print(batch.shape)
