# TL401 edge of ModuleValues._passed_to_receiver: `C.f(self=loss)` passes the receiver by keyword (Names.argument_for).
import torch
class Wrapper:
    def training_step(self, batch):
        self.total += self * 2
for x in loader:
    loss = model(x)
    loss.backward()
    Wrapper.training_step(self=loss, batch=x)
