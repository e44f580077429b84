# TL401 accumulates_per_step misses: _starts_afresh_each_iteration picks the step loop as the innermost loop that is not _never_a_loader_loop, skipping the range loop, so the reset in the loader loop counts; but TrainingLoops records a range loop that trains directly (backward in its body) as a step loop, and TL401._step_region takes that innermost one, where chunk_loss is never reset; reported by TL401._outlives_step


def train(model, loader, optimizer, accumulation_steps=4):
    for batch in loader:
        optimizer.zero_grad()
        chunk_loss = 0.0
        for k in range(accumulation_steps):
            micro = batch[k::accumulation_steps]
            loss = model(micro).mean() / accumulation_steps
            loss.backward()
            chunk_loss += loss
        optimizer.step()
        print(float(chunk_loss))
