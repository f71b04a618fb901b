"""The stylesheet: SCSS compiled into the CSS every output gets (build.py), its design tokens
read back from that CSS (tokens.py), the contrast of its colour role pairs (contrast.py) and
the tokens' documentation page (tokens_page.py). The SCSS library it compiles against is
beside them, in scss/theme/. Only build.py imports sass."""
