"""The one check flow: expected images (expected.py: the baselines, or a base revision's
captures), the verdict on one image (verdict.py), the pipeline every caller goes through
(pipeline.py: capture, spill, realign, check), sub-pixel phase (phase.py), where a
difference is (attribution.py), what a report shows of each image (entry.py), and what a
failed or new page leaves for review while its pixels are at hand: its changed bands and
overview (bands.py), its actual as a patch on its baseline (patch.py)."""
