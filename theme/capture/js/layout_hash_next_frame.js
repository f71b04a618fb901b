// uses: nextFrame, layoutHash
// layout_hash.js after next_frame.js: one round of the stability check.
async (masks) => { await nextFrame(); return layoutHash(masks); }
