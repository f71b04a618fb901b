"""The ground every room of theme reads: every error a user can cause (errors.py), `[tool.theme]`
read into frozen dataclasses (config.py), atomic writes and streaming digests (fsutil.py) and the
outcomes a checked image can have (status.py). It imports nothing else of theme."""
