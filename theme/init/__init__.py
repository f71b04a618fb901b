"""Onboarding a page you did not write. `theme init` (plan.py): render an existing article and
write what a first green run needs: `[tool.theme.visual]` merged into pyproject.toml, copies of
the files it loads from CDNs (vendor/, routed), `.gitignore` entries, the CI workflow and, with
lfs, the Git LFS rule for baselines. `plan.make_plan` looks and decides without writing;
`Plan.write` writes atomically what differs. What the user wrote stays theirs
(files.merged_pyproject). `theme init --scss` (adopt/): its hand-written stylesheet turned into
tokens. `theme lint` (lint/): the markup that silently defeats the theme.

Before it, `theme setup` (provision.py) makes this machine able to render: a browser, the
emoji font, the compiled kernels, git-lfs.

Only the errors are named here: `theme lint` imports lint/ through this package, and must not
load the survey, the plan and numpy with it.
"""

from .errors import AdoptIncomplete, InitBlocked, InitError, PackageUnavailable

__all__ = ["AdoptIncomplete", "InitBlocked", "InitError", "PackageUnavailable"]
