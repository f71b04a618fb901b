// After every image is complete: each one decoded, so no half-painted bitmap
// reaches the screenshot; then two animation frames.
async () => {
  await Promise.all([...document.images].map((img) => img.decode().catch(() => {})));
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
}
