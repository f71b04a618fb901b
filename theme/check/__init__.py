"""The one check flow: expected images (expected.py: the baselines, or a base revision's
captures), the verdict on one image (verdict.py), the pipeline every caller goes through
(pipeline.py: capture, spill, realign, check), sub-pixel phase (phase.py), where a
difference is (attribution.py) and what a report shows of each image (entry.py)."""
