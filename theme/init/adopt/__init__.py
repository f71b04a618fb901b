"""`theme init --scss`: a hand-written style.css turned into a starter scss/ of tokens and components.

adopt_stylesheet() converts, compiles with libsass, proves the result renders like the original
in a real Chromium (0 differing pixels in every variant), and only then writes scss/, [tool.theme]
entry/outputs and the compiled CSS into every copy of the stylesheet.
"""

from .adoption import ENTRY, Adoption, adopt_stylesheet
from .errors import AdoptError

__all__ = ["ENTRY", "AdoptError", "Adoption", "adopt_stylesheet"]
