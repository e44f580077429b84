# TL401 edge of _dies_with_its_call: `kept.append(out)` in a nested def's default runs in `fit` (the scope around the def), in its loader loop, where `kept` is bound before the loop; the screen asks whether `kept` is local to the nested def (`place.functions[-1]`), whose parameter `kept` makes it so, and takes the list for one that dies with the call
import torch


def fit(model, loader, optimizer):
    kept = []
    for x in loader:
        out = model(x)
        optimizer.zero_grad()
        out.sum().backward()
        optimizer.step()

        def show(kept=None, note=kept.append(out)):
            print(kept)

        show()
    return kept
