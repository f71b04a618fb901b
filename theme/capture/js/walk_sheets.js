// uses: shadowRoots
// The one stylesheet walker: every sheet the document and its shadow roots use
// (shadowRoots), each once, and each rule in them. Per root its own sheets (<style>,
// <link>), then its adopted ones; a sheet is followed by its rules, and an @import's
// sheet walked where the rule stands. The handlers, each optional:
//   sheet(sheet, root)       a sheet, before its rules;
//   rule(rule, sheet, root)  every rule, those nested in @media, @supports, @layer… too
//                            (without it only the top level is read, where an @import stands);
//   unreadable(sheet, root)  another origin's sheet, whose rules a page may not read.
({ sheet: onSheet, rule: onRule, unreadable } = {}) => {
  const seen = new Set();
  const walk = (sheet, root) => {
    if (!sheet || seen.has(sheet)) return;
    seen.add(sheet);
    if (onSheet) onSheet(sheet, root);
    let rules;
    try { rules = sheet.cssRules; } catch (e) { if (unreadable) unreadable(sheet, root); return; }
    const visit = (list) => {
      for (const rule of list) {
        if (onRule) onRule(rule, sheet, root);
        if (rule.styleSheet) walk(rule.styleSheet, root);
        if (rule.cssRules && onRule) visit(rule.cssRules);  // an @import stands only at the top
      }
    };
    visit(rules);
  };
  for (const root of shadowRoots()) {
    for (const s of [...(root.styleSheets || []), ...(root.adoptedStyleSheets || [])]) walk(s, root);
  }
}
