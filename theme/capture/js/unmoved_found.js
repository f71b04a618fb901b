// What the unmoved.js guard found on this page: the first move and what the looks cost.
() => window.__themeUnmoved || null
