"""What a reviewer reads and does: the report folder (report.py), a page's changed bands
and overview (bands.py), the lossless patch that carries a page's actual (patch.py),
taking actual images as baselines (accept.py) and the review server (server.py)."""
