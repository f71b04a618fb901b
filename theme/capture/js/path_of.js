// A readable selector path of an element, for messages, reports and `mask`:
// tag, id or first two classes, :nth-of-type among same-tag siblings, up to
// the nearest ancestor with an id (or body).
(el) => {
  const step = (e) => {
    if (e.id) return `${e.localName}#${CSS.escape(e.id)}`;
    let s = e.localName + [...e.classList].slice(0, 2).map((c) => '.' + CSS.escape(c)).join('');
    const parent = e.parentElement;
    if (parent) {
      const same = [...parent.children].filter((c) => c.localName === e.localName);
      if (same.length > 1) s += `:nth-of-type(${same.indexOf(e) + 1})`;
    }
    return s;
  };
  const parts = [];
  for (let e = el; e && e !== document.documentElement; e = e.parentElement) {
    parts.unshift(step(e));
    if (e.id || e === document.body) break;
  }
  return parts.join(' > ');
}
