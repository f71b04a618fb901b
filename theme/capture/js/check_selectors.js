// Checks every selector; returns the first that does not parse.
(items) => {
  for (const [where, selector] of items) {
    try { document.querySelector(selector); } catch (e) { return { where, selector, message: String(e.message) }; }
  }
  return null;
}
