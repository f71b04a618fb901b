"""What a reviewer reads and does: the report folder (report.py), taking actual images as
baselines (accept.py) and the review server (server.py); and the runs that write that report,
the whole flow driven once (runs/). The page images they show (a page's changed bands, overview
and patch) are made by the check: theme/check/bands.py."""
