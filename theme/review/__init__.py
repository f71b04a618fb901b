"""What a reviewer reads and does: the report folder (report.py), taking actual images as
baselines (accept.py) and the review server (server.py). The page images they show (a
page's changed bands, overview and patch) are made by the check: theme/check/bands.py."""
