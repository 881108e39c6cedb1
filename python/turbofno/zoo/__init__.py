"""Bundled demo models: the solvers that made their data and the trained FNO checkpoints.

Importing this package pulls in numpy/scipy only; torch is imported when a checkpoint is loaded.
"""
