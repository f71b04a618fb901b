// uses: shadowRoots, walkSheets
// Who asked for each of `urls` (resources that did not load; theme/capture/resources.py):
// the element whose src/href names it (script, link, …, in the document or a shadow
// root), else the @import or @font-face rule of a readable stylesheet that does. A
// request nothing here names came from a script (a fetch, a module import).
(urls) => {
  const out = {};
  const abs = (value, base) => { try { return new URL(value, base || document.baseURI).href; } catch (e) { return null; } };
  for (const root of shadowRoots()) {
    for (const el of root.querySelectorAll('[src], [href]')) {
      for (const attr of ['src', 'href']) {
        const value = el.getAttribute(attr);
        const url = value && abs(value);
        if (url && urls.includes(url) && !out[url]) {
          out[url] = { how: 'element', tag: el.localName, attr, value, inShadow: root !== document,
                       host: root === document ? null : root.host.localName };
        }
      }
    }
  }
  const asked = (rule, sheet, root) => {
    const base = sheet.href || document.baseURI;
    const owner = root === document ? null : `the shadow root of <${root.host.localName}>`;
    const where = sheet.href || (owner ? `a <style> in ${owner}` : 'an inline <style>');
    if (rule instanceof CSSImportRule) {
      const url = abs(rule.href, base);
      if (url && urls.includes(url) && !out[url]) out[url] = { how: 'import', sheet: where, value: rule.href };
    } else if (rule instanceof CSSFontFaceRule) {
      const src = rule.style.getPropertyValue('src');
      for (const m of src.matchAll(/url\(\s*(['"]?)([^'")]+)\1\s*\)/g)) {
        const url = abs(m[2], base);
        if (url && urls.includes(url) && !out[url]) {
          out[url] = { how: 'font-face', sheet: where, value: m[2],
                       family: rule.style.getPropertyValue('font-family').replace(/^['"]|['"]$/g, '') };
        }
      }
    }
  };
  walkSheets({ rule: asked });
  return out;
}
