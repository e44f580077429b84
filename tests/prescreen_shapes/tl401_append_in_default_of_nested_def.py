# TL401 edge of accumulates_per_step (may_carry_graph's scope): `kept.append(out)` in a nested def's default runs in the loop's function, where `out` is a model output; the screen asks in the def's own scope, whose parameter `out` shadows it
import torch


def fit(model, loader, optimizer):
    kept = []
    for x in loader:
        out = model(x)
        optimizer.zero_grad()
        out.sum().backward()
        optimizer.step()

        def show(out, note=kept.append(out)):
            print(out)

        show(x)
    return kept
