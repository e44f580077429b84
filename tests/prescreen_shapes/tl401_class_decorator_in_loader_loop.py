# TL401 edge of _dies_with_its_call: `kept.append(out)` in the decorator of a class defined in the loader loop runs in `fit`'s loop (a class's decorators run in the scope around it), yet the walk places a class's decorators with no loop of their own (`local_loops` 0) and, lying before the `class` line, outside the class by position (`_class_around`), so the local `kept` is taken for one that dies with the call
import torch


def tag(_):
    return lambda cls: cls


def fit(model, loader, optimizer):
    kept = []
    for x in loader:
        out = model(x)
        optimizer.zero_grad()
        out.sum().backward()
        optimizer.step()

        @tag(kept.append(out))
        class Note:
            pass

    return kept
