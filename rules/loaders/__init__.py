"""Data loading and device placement: TL101 pin-memory-device-tensors, TL102 device-dataset-in-workers.

Both rules ask where a DataLoader's data set lives and what the loader does
with it (``placement.py``), and both offer the same fix: keep the data set on
the CPU and move each batch in the loop.
"""
