"""What `theme init` refuses with, one line each (the CLI prints it; see theme/errors.py)."""

from ..errors import ThemeError


class InitError(ThemeError):
    """`theme init` cannot do what was asked: a package cannot be had, a file is in the way."""


class AdoptIncomplete(InitError):
    """--scss wrote tokens, but the stylesheet did not come out the same: a difference, exit 1."""

    exit_code = 1
