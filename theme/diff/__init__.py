"""The diff engine: pure functions, arrays in and results out; it never opens a file.

    pixelmatch(...)   drop-in for PyPI pixelmatch 0.4.0, bit-identical, fast
    compare(...)      tolerances, sizes, boxes of changes and shifted bands -> DiffResult
    palette(diff)     a diff image as (indices, palette) for a fast 8-bit PNG, or None
    IndexedImage      compare(diff_image="indexed")'s diff image: one byte a pixel
"""

from .kernel import available_engines
from .palette import palette
from .pixelmatch_api import pixelmatch
from .result import DiffResult, IndexedImage, compare
from .shift import Shift

__all__ = ["DiffResult", "IndexedImage", "Shift", "available_engines", "compare", "palette", "pixelmatch"]
