"""Pixels in memory and on disk: PNG in and out as (H, W, 4) uint8 RGBA (images.py), page-sized
buffers mapped from files and dropped from memory once done (resident.py), and the numba kernels
(pngfilter.py, with the diff's in theme/diff/jit.py) compiled ahead of time once per machine
(aot.py). Below the diff and the capture: it knows neither."""
