"""`theme init`: render an existing article and write what a first green run needs:
`[tool.theme.visual]` merged into pyproject.toml, copies of the files it loads from CDNs
(vendor/, routed), `.gitignore` entries, the CI workflow and, with lfs, the Git LFS rule
for baselines. `make_plan` looks and decides without writing; `Plan.write` writes
atomically what differs. What the user wrote stays theirs (files.merged_pyproject).

Before it, `theme setup` (provision.py) makes this machine able to render: a browser, the
emoji font, the compiled kernels, git-lfs.
"""

from .errors import AdoptIncomplete, InitBlocked, InitError, PackageUnavailable
from .plan import LOCAL, Plan, Write, find_pages, make_plan

__all__ = ["LOCAL", "AdoptIncomplete", "InitBlocked", "InitError", "PackageUnavailable", "Plan", "Write", "find_pages",
           "make_plan"]
