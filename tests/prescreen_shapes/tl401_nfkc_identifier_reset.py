# TL401 edge of _starts_afresh_each_iteration: CPython's `ast` folds identifiers by NFKC (`ｋｅｐｔ` is `kept`), LibCST keeps them as written; the rule's `kept = []` in the loop binds another name than the `ｋｅｐｔ` appended to, so nothing resets the list it reports, while the screen reads one name `kept` reset every iteration
import torch


def fit(model, loader, optimizer):
    for x in loader:
        kept = []
        out = model(x)
        optimizer.zero_grad()
        out.sum().backward()
        optimizer.step()
        ｋｅｐｔ.append(out)
    return kept
