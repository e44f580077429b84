# TL102 loads_moved_data misses: same cause as tl101_init_in_class_if.py (a conditionally defined __init__ is no method to the screen: _on_a_receiver/_receivers, so the stored move is dropped); reported by DeviceDatasetInWorkers via DevicePlacement.device_batches
import torch
from torch.utils.data import DataLoader, Dataset

USE_GPU_CACHE = torch.cuda.is_available()


class FeatureDataset(Dataset):
    if USE_GPU_CACHE:
        def __init__(self, path):
            self.features = torch.load(path).cuda()
    else:
        def __init__(self, path):
            self.features = torch.load(path)

    def __len__(self):
        return len(self.features)

    def __getitem__(self, index):
        return self.features[index]


loader = DataLoader(FeatureDataset("features.pt"), batch_size=64, shuffle=True, num_workers=4)
