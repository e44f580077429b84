# TL202 edge of trigger ("cuda", "cpu", "autocast"): the sniff's "cpu" branch written as an implicit concatenation `("c" "pu")` (string_value evaluates it; no "cpu" in the text). Contrived
import torch


def train_step(model, batch, device):
    device_type = "cuda" if "cuda" in device else ("c" "pu")
    with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
        return model(batch).sum()
