"""What `theme init` refuses with, one line each (the CLI prints it; see theme/core/errors.py)."""

from ..core.errors import ThemeError


class InitError(ThemeError):
    """`theme init` cannot do what was asked: a package cannot be had, a file is in the way."""


class AdoptIncomplete(InitError):
    """--scss wrote tokens, but the stylesheet did not come out the same: a difference, exit 1."""

    exit_code = 1


class PackageUnavailable(InitError):
    """One package cannot be had (not in the registry, no answer, a corrupt tarball): the
    addresses it would serve stay blocked and init goes on. The message is the reason alone;
    `registry` says the registry itself did not answer (init then stops asking it)."""

    def __init__(self, reason: str, *, registry: bool = False) -> None:
        super().__init__(reason)
        self.registry = registry


class InitBlocked(InitError):
    """Init wrote what it found, but something a page needs is still blocked: exit 1."""

    exit_code = 1
