"""The diff engine: pure functions, arrays in and results out; it never opens a file.

pixelmatch(): drop-in for PyPI pixelmatch 0.4.0, bit-identical and fast; compare(): tolerances, sizes,
change boxes and shifted bands -> DiffResult; palette(): a diff image as (indices, palette) or None.
"""

from .kernel import available_engines
from .palette import palette
from .pixelmatch_api import pixelmatch
from .result import DiffResult, IndexedImage, compare, identical
from .shift import Shift

__all__ = ["DiffResult", "IndexedImage", "Shift", "available_engines", "compare", "identical", "palette", "pixelmatch"]
