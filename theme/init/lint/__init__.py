"""`theme lint`: find the markup that silently defeats the theme.

Classes (TL020) are checked against the stylesheets each page loads (sources.py), plus what its scripts
supply, learned by rendering it once in Chromium (render.py; skipped with render=False): the sheets they
add and the classes they write or look up (script_classes.py). A page whose own script was blocked in
that render gets TL023 instead of TL020. TL021 (a warning) and TL040/TL041 judge the article as a
whole, so they run only on the configured pages. Codes: model.CODES.
"""

from .fix import fix_file, fix_text
from .model import CODES, Problem
from .run import LintResult, has_scripts, lint, site_root, targets

__all__ = ["CODES", "LintResult", "Problem", "fix_file", "fix_text", "has_scripts", "lint", "site_root", "targets"]
