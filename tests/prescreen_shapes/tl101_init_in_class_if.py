# TL101 loads_moved_data misses: a def inside an if/try of a class body is a method to Names.method_class (its scope is the class) but not to the screen (_method_class/_methods: direct class-body defs only), so values._on_a_receiver drops `self.features = ....cuda()` and _classes_holding_a_move never sees it; reported by PinMemoryDeviceTensors via DevicePlacement._instance_trace (attribute_bindings)
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


loader = DataLoader(FeatureDataset("features.pt"), batch_size=64, shuffle=True, pin_memory=True)
