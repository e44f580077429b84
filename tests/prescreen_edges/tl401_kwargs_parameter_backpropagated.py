# TL401 edge of accumulates_per_step (_binding_carries): a `**parts` parameter holds no value the rule follows, but a backward of `parts["loss"]` marks it, so the dict kept per step carries the graph
history = []


def train(loader, **parts):
    for batch in loader:
        parts["loss"].backward()
        history.append(parts)


train(loader, loss=criterion(model(x), y))
