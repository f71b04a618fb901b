// What scheme_probe.js saw in this frame (null: nothing).
() => window.__themeSchemeRead || null
