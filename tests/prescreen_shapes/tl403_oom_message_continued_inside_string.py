# TL403 edge of trigger (the out-of-memory part): the handler tests `"CUDA out of \` + newline + `memory" in str(err)`, a one-line string continued by a backslash inside it, whose evaluated_value is the error message OOM_MESSAGE matches; the text holds the two words only across the backslash and line break, which neither `[oO](?i:f ?memory)` nor `[oO][oO][mM]\b` reads
import torch
from torch import nn
from torch.utils.data import DataLoader


def train_epoch(model: nn.Module, loader: DataLoader, optimizer: torch.optim.Optimizer, device: torch.device) -> int:
    criterion = nn.CrossEntropyLoss()
    skipped = 0
    model.train()
    for inputs, targets in loader:
        try:
            logits = model(inputs.to(device))
            loss = criterion(logits, targets.to(device))
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        except RuntimeError as err:
            if "CUDA out of \
memory" in str(err):
                torch.cuda.empty_cache()
                skipped += 1
                continue
            raise
    return skipped
