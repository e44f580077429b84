# TL103 edge of moves_a_read_value (may_hold, _seen_bindings): a walrus in a decorator's argument binds `features` in the module's scope, which `main` reads; the walk records the binding under the decorated def, so `main`'s read finds no module binding holding the file
import functools

import numpy as np
import torch


@functools.lru_cache(maxsize=len(features := np.load("features.npy")))
def describe(rows):
    return rows


def main():
    inputs = torch.from_numpy(features).cuda()
    for start in range(0, len(inputs), 64):
        print(describe(start), inputs[start:start + 64].sum())


main()
