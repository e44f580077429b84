"""Model calls and batches: TL301 unfiltered-batch-kwargs, and the batch keys it reads (``batch_keys.py``)."""
