"""Reliability: trainlint never loses a byte of the files it checks or fixes (issue 8)."""
