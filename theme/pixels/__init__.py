"""Pixels in memory and on disk: PNG in and out as (H, W, 4) uint8 RGBA (images.py), page-sized
buffers mapped from files and dropped from memory once done (resident.py), the numba kernels
(pngfilter.py, with the diff's in diff/jit.py) compiled ahead of time once per machine (aot.py),
and the pure diff of two images (diff/: arrays in, results out). Below the capture: it knows
nothing of pages, browsers or baselines."""
