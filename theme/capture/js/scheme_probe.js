// Init script, before any page script, in every frame: notes the first way a script of
// the page could have learned the colour scheme (window.__themeSchemeRead):
// a prefers-color-scheme query, or any computed style (colours, custom
// properties). A page that did neither was drawn by its CSS alone, so switching
// its emulated scheme gives what a fresh load in the other scheme gives, and
// Session may take its dark variant from its light one's page (theme/capture/schedule.py).
// The engine's own scripts use the unwrapped getComputedStyle (__themeStyleOf), so
// they never count.
() => {
  const mark = (how) => { if (!window.__themeSchemeRead) window.__themeSchemeRead = how; };
  const style = window.getComputedStyle;
  Object.defineProperty(window, '__themeStyleOf', { value: (el, pseudo) => style.call(window, el, pseudo) });
  window.getComputedStyle = function getComputedStyle(el, pseudo) {
    mark('getComputedStyle');
    return style.call(window, el, pseudo);
  };
  const query = window.matchMedia;
  if (query) window.matchMedia = function matchMedia(text) {
    if (/prefers-color-scheme/i.test(String(text))) mark('matchMedia(' + String(text) + ')');
    return query.call(window, text);
  };
  const map = Element.prototype.computedStyleMap;
  if (map) Element.prototype.computedStyleMap = function computedStyleMap() {
    mark('computedStyleMap');
    return map.call(this);
  };
}
