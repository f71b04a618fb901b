// uses: realTime
// After every image is complete: each one decoded, so no half-painted bitmap
// reaches the screenshot; then two animation frames.
async () => {
  await Promise.all([...document.images].map((img) => img.decode().catch(() => {})));
  const { requestAnimationFrame: frame } = realTime();
  await new Promise((r) => frame(() => frame(r)));
}
