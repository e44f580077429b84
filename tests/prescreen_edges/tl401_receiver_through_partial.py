# TL401 edge of ModuleValues._passed_to_receiver: `f = partial(C.f, obj)` called by a plain name fills `self` with `obj` (Names._arguments), a graph here.
import functools
class Wrapper:
    def training_step(self, batch):
        self.total += self * 2
for x in loader:
    loss = model(x)
    loss.backward()
    training_step = functools.partial(Wrapper.training_step, loss)
    training_step(x)
