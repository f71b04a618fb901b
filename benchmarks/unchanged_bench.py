"""Pages whose inputs did not change (theme/check/inputs.py): prints ratio lines from one run.

    python benchmarks/unchanged_bench.py [--articles 8] [--rounds 2] [--screens 12]

(d) of issue 33 item 5: a repository of N generated articles (one shared stylesheet, an
image, each article its own HTML with note-boxes, code and figures) x 2 viewports x 2
schemes. Baselines are written once (`pytest --update-snapshots`, which records every
variant's inputs). Then one article's HTML changes in a way that leaves its pixels alone
(a comment, as a pull request that touches only the text around the page would), and a
clean check runs with the skip on (`pytest`) and with it off (`pytest --rerender`), the
two alternated, best of each. Target: <= 0.3x.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PYPROJECT = """
[tool.theme]
entry = "scss/style.scss"
outputs = ["site/style.css"]

[tool.theme.visual]
root = "site"
pages = [{pages}]
viewports = {{ mobile = [390, 844], desktop = [1280, 800] }}
color_schemes = ["light", "dark"]
regions = {{ note-box = ".note-box", code = "pre", figure = "figure" }}
"""

STYLE = """
:root { --bg: #ffffff; --fg: #1a1a1a; --note: #eef3fb; --edge: #3366cc; --code: #f4f4f4; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #15171c; --fg: #e6e6e6; --note: #1d2a3f; --edge: #7aa2f7; --code: #23262d; }
}
body { margin: 0 auto; max-width: 760px; padding: 24px; background: var(--bg); color: var(--fg);
       font: 17px/1.6 serif; }
h1 { font: 700 34px/1.2 sans-serif; } h2 { font: 700 24px/1.3 sans-serif; margin-top: 40px; }
.note-box { background: var(--note); border-left: 4px solid var(--edge); padding: 12px 16px; margin: 20px 0; }
pre { background: var(--code); padding: 12px; overflow: auto; font: 14px/1.5 monospace; }
figure { margin: 24px 0; } figure img { width: 100%; height: auto; display: block; }
figcaption { font: 14px/1.4 sans-serif; opacity: 0.8; }
"""

WORDS = ("pipeline parallel stages micro batch memory gradient checkpoint schedule bubble device "
         "activation tensor layer forward backward optimizer throughput latency shard replica").split()


def paragraph(seed: int, n: int = 70) -> str:
    return " ".join(WORDS[(seed * 7 + i * 13) % len(WORDS)] for i in range(n)).capitalize() + "."


def article(number: int, screens: int) -> str:
    """An article of about `screens` desktop screens: sections of text, a note-box, code, a figure."""
    parts = [f"<h1>Article {number}: on pipelines</h1>"]
    for s in range(screens):
        seed = number * 100 + s
        parts.append(f"<h2>Section {s + 1} of article {number}</h2><p>{paragraph(seed)}</p>")
        parts.append(f'<div class="note-box"><strong>Note {s + 1}.</strong> {paragraph(seed + 1, 30)}</div>')
        if s % 2 == 0:
            parts.append(f"<pre>def stage_{s}(batch):\n    return model.layer_{s}(batch) * {number}\n</pre>")
        else:
            parts.append(f'<figure><img src="figure.svg" width="600" height="200" alt="">'
                         f"<figcaption>Figure {s + 1}: a schedule.</figcaption></figure>")
        parts.append(f"<p>{paragraph(seed + 2)}</p>")
    return ('<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="style.css">'
            f"</head><body>{''.join(parts)}</body></html>\n")


FIGURE = """<svg xmlns="http://www.w3.org/2000/svg" width="600" height="200" viewBox="0 0 600 200">
<rect width="600" height="200" fill="#dde6f5"/><g fill="#3366cc">
<rect x="20" y="30" width="160" height="30"/><rect x="200" y="80" width="160" height="30"/>
<rect x="380" y="130" width="160" height="30"/></g></svg>
"""


def make_repository(folder: Path, articles: int, screens: int) -> list[str]:
    """The generated repository in `folder`; its pages."""
    pages = [f"article-{n}.html" for n in range(1, articles + 1)]
    (folder / "site").mkdir(parents=True)
    (folder / "scss").mkdir()
    (folder / "scss/style.scss").write_text("body { margin: 0; }\n")  # the config's build entry; not built here
    (folder / "site/style.css").write_text(STYLE)
    (folder / "site/figure.svg").write_text(FIGURE)
    for n, page in enumerate(pages, start=1):
        (folder / "site" / page).write_text(article(n, screens))
    (folder / "pyproject.toml").write_text(PYPROJECT.format(pages=", ".join(f'"{p}"' for p in pages)))
    return pages


def timed_pytest(project: Path, *args: str, env: dict[str, str] | None = None) -> tuple[float, str]:
    """(seconds, the theme summary line) of one pytest run as a user starts it, `env` added to
    the environment; exits on failure."""
    env = {**{k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}, **(env or {})}
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
                          cwd=project, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if done.returncode != 0:
        sys.exit(f"pytest {' '.join(args)} failed in {project}:\n{done.stdout[-3000:]}{done.stderr[-2000:]}")
    summary = next((line for line in done.stdout.splitlines() if line.startswith("theme: ")), "?")
    return seconds, summary


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--articles", type=int, default=8)
    parser.add_argument("--screens", type=int, default=12, help="sections per article (about a screen each)")
    parser.add_argument("--rounds", type=int, default=2, help="skip/rerender pairs, alternated; best of each")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        pages = make_repository(project, args.articles, args.screens)
        update, summary = timed_pytest(project, "--update-snapshots")
        print(f"(d) {len(pages)} articles x 2 viewports x 2 schemes: baselines written in {update:.1f} s ({summary})")
        changed = project / "site" / pages[len(pages) // 2]
        before = changed.read_text()
        changed.write_text(before.replace("<body>", "<body><!-- reworded in review -->", 1))
        took: dict[str, list[float]] = {"skip": [], "full": []}
        said: dict[str, str] = {}
        for _ in range(args.rounds):
            for name, flags in (("skip", ()), ("full", ("--rerender",))):
                seconds, said[name] = timed_pytest(project, *flags)
                took[name].append(seconds)
        skip, full = min(took["skip"]), min(took["full"])
        for name in ("skip", "full"):
            print(f"    {name}: " + ", ".join(f"{s:.1f} s" for s in took[name]) + f" ({said[name]})")
        print(f"RATIO clean check of {len(pages)} articles with one changed, skip on / every page rendered "
              f"(--rerender) = {skip / full:.2f}x ({skip:.1f} s vs {full:.1f} s, best of {args.rounds}; "
              f"target <= 0.3x)")
        changed.write_text(before)  # the floor: pytest, a browser launched, every record checked, nothing rendered
        none, said["none"] = timed_pytest(project)
        print(f"RATIO clean check with nothing changed (no page rendered) / every page rendered = "
              f"{none / full:.2f}x ({none:.1f} s: {said['none']})")


if __name__ == "__main__":
    main()
