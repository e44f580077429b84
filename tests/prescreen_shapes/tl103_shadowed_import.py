# TL103 edge of _moved_value: a name an import binds is rebound to the read, so the screen takes the move's argument
import numpy as np
import torch

from . import features

device = "cuda" if torch.cuda.is_available() else "cpu"


def train(model, path, batch_size=64):
    features = torch.from_numpy(np.load(path))
    X = features.to(device)
    for i in range(0, len(X), batch_size):
        model(X[i:i + batch_size])
