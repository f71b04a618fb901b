// For the fingerprint: every distinct computed font-family stack on the page,
// and the families that loaded @font-face rules provide (those are hashed from
// the files served; the rest fall to fontconfig, see theme/capture/fonts.py).
() => {
  const stacks = new Set();
  const style = window.__themeStyleOf || getComputedStyle;  // see scheme_probe.js
  for (const el of document.getElementsByTagName('*')) stacks.add(style(el).fontFamily);
  const web = new Set([...document.fonts].filter((f) => f.status === 'loaded')
    .map((f) => f.family.replace(/^["']|["']$/g, '')));
  return { stacks: [...stacks].sort(), web: [...web].sort() };
}
