"""The diff engine: pure functions, arrays in and results out; it never opens a file.

    pixelmatch(...)   drop-in for PyPI pixelmatch 0.4.0, bit-identical, fast
    compare(...)      tolerances, sizes, boxes of changes and shifted bands -> DiffResult
"""

from .pixelmatch_api import pixelmatch

__all__ = ["pixelmatch"]
