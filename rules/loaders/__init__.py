"""Data loading and device placement: TL101 pin-memory-device-tensors, TL102 device-dataset-in-workers,
TL104 pin-memory-without-cuda.

TL101 and TL102 ask where a DataLoader's data set lives and what the loader
does with it (``placement.py``), and both offer the same fix: keep the data
set on the CPU and move each batch in the loop. TL104 asks where the module
runs (``trainlint.analysis.devices``) and reads the loader's arguments with
``placement.py``; it leaves a loader over accelerator data to TL101.
"""
