# TL103 edge of moves_a_read_value (may_hold, _seen_bindings): a walrus in a parameter's default binds `features` in the module's scope, which `main` reads; the walk records the binding under the def (`describe`), so `main`'s read finds no module binding holding the file
import numpy as np
import torch


def describe(rows, table=(features := np.load("features.npy"))):
    return rows.shape, table.shape


def main():
    device = torch.device("cuda")
    inputs = torch.from_numpy(features).to(device)
    for start in range(0, len(inputs), 64):
        batch = inputs[start:start + 64]
        print(describe(batch))


main()
