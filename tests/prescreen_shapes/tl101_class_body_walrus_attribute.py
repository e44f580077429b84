# TL101 edge of loads_moved_data (may_hold: `_stored`): a walrus in a class body binds the class attribute `table`, which `self.table` reads (`Names.attribute_bindings` takes the class body's walrus), while the walk keeps only class-body assignments as attributes (`record_class_attribute`) for `may_hold`
import torch
from torch.utils.data import DataLoader, Dataset


class CachedRows(Dataset):
    rows = 256
    print((table := torch.randn(rows, 8).cuda()).device)

    def __len__(self):
        return self.rows

    def __getitem__(self, index):
        return self.table[index]


loader = DataLoader(CachedRows(), batch_size=32, pin_memory=True)
for batch in loader:
    print(batch.shape)
