"""The baselines: the snapshots folder and its manifest (store.py: sizes, boxes, pixel digests,
environments, inputs) and the style record kept with each region's image (style_record.py: its
computed styles as data, their JSON, and what changed in CSS terms). The capture makes records,
the check compares them, `theme accept` writes them; the images themselves are theme/pixels/."""
