// uses: shadowRoots, walkSheets, realTime
// What `theme lint` reads from a rendered page (theme/init/lint/render.py): every stylesheet
// present after load (walkSheets: document, adopted, inside shadow roots, closed ones
// too), with where it is and its rules' text; the class names on the rendered DOM; the
// page's scripts (addresses of those with a src, the text of inline ones, not JSON data);
// and every file fetched, scripts' fetches included: the inputs lint's cache is keyed on.
() => {
  const sheets = [], texts = new Set(), classes = new Set();
  const whereOf = (root) => (root === document ? 'document' : 'shadow root of <' + root.host.localName + '>');
  walkSheets({
    sheet: (sheet, root) => {
      let list = null;
      try { list = [...sheet.cssRules]; } catch (e) {}  // cross-origin: unreadable
      const node = sheet.ownerNode;
      const css = list && list.map((r) => r.cssText).join('\n');
      // Every <d-math> has its own copy of the same sheet: each text is sent and parsed once.
      const again = css !== null && texts.has(css);
      texts.add(css);
      sheets.push({where: whereOf(root), href: sheet.href, style: node && node.localName === 'style' ? node.textContent : null,
                   css: again ? null : css, again});
    },
  });
  const scripts = new Set(), inline = [], JS = ['', 'module', 'text/javascript', 'application/javascript'];
  for (const root of shadowRoots()) {
    for (const el of root.querySelectorAll('*')) {
      for (const c of el.classList || []) classes.add(c);
      if (el.localName !== 'script') continue;
      if (el.src) scripts.add(el.src);
      else if (JS.includes((el.getAttribute('type') || '').trim().toLowerCase())) inline.push(el.text);
    }
  }
  const entries = realTime().performance.getEntriesByType('resource');
  for (const e of entries) if (e.initiatorType === 'script') scripts.add(e.name);  // module imports too
  return {sheets, classes: [...classes], resources: entries.map((e) => e.name), scripts: [...scripts], inline};
}
