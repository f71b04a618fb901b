#!/usr/bin/env python3
"""Re-create the specimen article's vendored assets from the npm registry.

    python scripts/vendor_assets.py            # rewrite article/dist/assets/{katex,fonts}
    python scripts/vendor_assets.py --check    # exit 1 if the committed files differ

WHY a script and not a CDN: the article must render with no network, and the
bytes Chromium rasterises must be the same on every machine. So every package is
pinned to one version *and* to the registry's sha512 integrity string: `npm pack`
verifies the download against the registry's record, and we verify that record
against ours, so a changed tarball can never slip in silently.

What is copied (nothing is edited):
- katex: dist/katex.min.js, dist/katex.min.css, dist/fonts/*.woff2 and LICENSE.
  katex.min.css also names .woff/.ttf files; every src list puts woff2 first and
  Chromium uses the first format it supports, so the others are never requested.
- @fontsource/*: the latin-subset woff2 of the weights the theme uses, plus LICENSE.
- @infolektuell/noto-color-emoji (COLRv1 build of Google's Noto Color Emoji): only the
  numbered subsets that hold the emoji the article uses. Their @font-face rules keep
  their unicode-range, so the browser never asks for a subset that is not here.

fonts.css and VENDORED.md are generated here, byte-for-byte the same every run
(sorted inputs, no dates). Only assets/katex/ and assets/fonts/ are replaced;
assets/images/ and assets/specimen.js belong to the article and are left alone.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from theme.core.fsutil import atomic_write_bytes  # noqa: E402

ASSETS = REPO / "article" / "dist" / "assets"


@dataclass(frozen=True)
class Pin:
    name: str
    version: str
    integrity: str  # the registry's dist.integrity for this exact tarball
    licence: str


PINS = {
    "katex": Pin(
        "katex", "0.19.1",
        "sha512-jG8uKntjSEcm2EpQOh0XturpPuuC9r3Sq5HLHdsFdWZT27E672SF19QEi+of0/YeOy15lDgRhKvr5614uRrEfA==", "MIT",
    ),
    "serif": Pin(
        "@fontsource/source-serif-4", "5.3.1",
        "sha512-cWcTCXjYYrgF9A67fThVir1VSc0lPEYmwQ6jA4pPt01s2MSCi/maINUcZoCzaqnU8fyUReDO97eGcBUkHgOeug==", "OFL-1.1",
    ),
    "sans": Pin(
        "@fontsource/source-sans-3", "5.3.1",
        "sha512-O3YxvbotUOgYI2Zx0bBcEMNjnwitRf9P2+9pd54sMoux1NHrdXnMwZusw2P78lFhEzOPN4glOEQmX0ASaS68uA==", "OFL-1.1",
    ),
    "mono": Pin(
        "@fontsource/jetbrains-mono", "5.3.0",
        "sha512-fqDfB5I9f1p1TV486aUgB9t8zP84P0O1FtQR5Ol9vjwPy+S+EIGlVYm1cvj2W5shcZMTg2nZFdVMoH5wFu8a1A==", "OFL-1.1",
    ),
    # Not @fontsource/noto-color-emoji: its files carry the glyphs in an OpenType-SVG
    # table, which Chromium does not draw (the emoji render blank). This package ships
    # the same Google Fonts subsets as COLRv1, which Chromium draws in colour.
    "emoji": Pin(
        "@infolektuell/noto-color-emoji", "0.2.0",
        "sha512-B6kpvqeD0ukTR7sydGKpktvO3VhZkOwQxAdLLGPdSHxQxREa2+sH6B9ODop6quPGjhmsZkJ/hL01rQ8At5xDew==",
        "OFL-1.1",
    ),
}

# (pin key, CSS family, weight, style): the faces the specimen uses (article/README.md).
FACES = [
    ("serif", "Source Serif 4", 400, "normal"),
    ("serif", "Source Serif 4", 400, "italic"),
    ("serif", "Source Serif 4", 600, "normal"),
    ("serif", "Source Serif 4", 700, "normal"),
    ("sans", "Source Sans 3", 400, "normal"),
    ("sans", "Source Sans 3", 600, "normal"),
    ("sans", "Source Sans 3", 700, "normal"),
    ("mono", "JetBrains Mono", 400, "normal"),
    ("mono", "JetBrains Mono", 700, "normal"),
]

# Noto Color Emoji subsets holding the emoji in the article's note-box titles:
# 2 has U+26A0 (warning sign); 3 has U+1F4DD memo, U+1F4A1 bulb, U+1F9EE abacus,
# U+1F50D magnifier, U+1F4CC pushpin. tests/unit/test_specimen_static.py checks every
# emoji in index.html falls inside a vendored range.
EMOJI_SUBSETS = ["2", "3"]

# The latin range fontsource gives its latin subset (copied from its 400.css).
LATIN_RANGE = (
    "U+0000-00FF,U+0131,U+0152-0153,U+02BB-02BC,U+02C6,U+02DA,U+02DC,U+0304,U+0308,"
    "U+0329,U+2000-206F,U+20AC,U+2122,U+2191,U+2193,U+2212,U+2215,U+FEFF,U+FFFD"
)


class VendorError(Exception):
    """One line for the user; the script prints it and exits 2."""


def npm_pack(pin: Pin, dest: Path) -> Path:
    """Download one pinned tarball with the ordinary npm client; return its path."""
    spec = f"{pin.name}@{pin.version}"
    try:
        out = subprocess.run(
            ["npm", "pack", spec, "--json", "--pack-destination", str(dest)],
            cwd=dest, check=True, capture_output=True, text=True,
        ).stdout
    except FileNotFoundError as err:
        raise VendorError("npm not found; install Node.js 18+ (it ships npm) and retry") from err
    except subprocess.CalledProcessError as err:
        last = (err.stderr.strip().splitlines() or ["no output"])[-1]
        raise VendorError(f"npm pack {spec} failed: {last}; check the registry is reachable") from err
    info = json.loads(out)[0]
    if info["integrity"] != pin.integrity:
        raise VendorError(
            f"{spec}: registry integrity {info['integrity']} != pinned {pin.integrity}; "
            "the tarball changed, review it before updating the pin"
        )
    return dest / info["filename"]


def read_members(tarball: Path, wanted: list[str]) -> dict[str, bytes]:
    """Bytes of the named files (paths relative to the tarball's package/ folder)."""
    found: dict[str, bytes] = {}
    with tarfile.open(tarball, "r:gz") as tar:
        for member in tar.getmembers():
            rel = member.name.split("/", 1)[1] if "/" in member.name else member.name
            if member.isfile() and rel in wanted:
                found[rel] = tar.extractfile(member).read()
    missing = sorted(set(wanted) - set(found))
    if missing:
        raise VendorError(f"{tarball.name}: missing {', '.join(missing)}; the pinned version has a different layout")
    return found


def list_members(tarball: Path, pattern: str) -> list[str]:
    with tarfile.open(tarball, "r:gz") as tar:
        names = [m.name.split("/", 1)[1] for m in tar.getmembers() if m.isfile()]
    return sorted(n for n in names if re.fullmatch(pattern, n))


def katex_files(tarball: Path) -> dict[str, bytes]:
    wanted = ["dist/katex.min.js", "dist/katex.min.css", "LICENSE"]
    wanted += list_members(tarball, r"dist/fonts/KaTeX_[A-Za-z0-9_-]+\.woff2")
    got = read_members(tarball, wanted)
    return {("katex/" + rel.removeprefix("dist/")): data for rel, data in got.items()}


def face_file(family_slug: str, weight: int, style: str) -> str:
    return f"{family_slug}-latin-{weight}-{style}.woff2"


def font_face(family: str, weight: int, style: str, url: str, urange: str, tech: str = "") -> str:
    # font-display: block, so a screenshot can never catch a fallback face mid-swap.
    return (
        "@font-face {\n"
        f"  font-family: '{family}';\n"
        f"  font-style: {style};\n"
        f"  font-weight: {weight};\n"
        "  font-display: block;\n"
        f"  src: url(./{url}) format('woff2'){' ' + tech if tech else ''};\n"
        f"  unicode-range: {urange};\n"
        "}\n"
    )


def text_faces(tarballs: dict[str, Path]) -> tuple[dict[str, bytes], list[str]]:
    files: dict[str, bytes] = {}
    css: list[str] = []
    for key, family, weight, style in FACES:
        slug = PINS[key].name.split("/")[1]
        name = face_file(slug, weight, style)
        files["fonts/" + name] = read_members(tarballs[key], ["files/" + name])["files/" + name]
        css.append(font_face(family, weight, style, name, LATIN_RANGE))
    return files, css


def emoji_faces(tarball: Path) -> tuple[dict[str, bytes], list[str]]:
    """Copy the chosen subsets; take each one's unicode-range from the package's index.css."""
    sheet = read_members(tarball, ["index.css"])["index.css"].decode("utf-8")
    files: dict[str, bytes] = {}
    css: list[str] = []
    for subset in EMOJI_SUBSETS:
        source = f"files/{subset}.woff2"
        block = re.search(r"@font-face\s*{[^}]*?url\(\./" + re.escape(source) + r"\)[^}]*}", sheet)
        urange = re.search(r"unicode-range:\s*([^;]+);", block.group(0)) if block else None
        if urange is None:
            raise VendorError(f"{tarball.name}: no @font-face for {source} in index.css")
        name = f"noto-color-emoji-{subset}.woff2"
        files["fonts/" + name] = read_members(tarball, [source])[source]
        ranges = re.sub(r"\s+", "", urange.group(1))
        css.append(font_face("Noto Color Emoji", 400, "normal", name, ranges, "tech(color-COLRv1)"))
    return files, css


def licences(tarballs: dict[str, Path]) -> dict[str, bytes]:
    out = {}
    for key in ("serif", "sans", "mono", "emoji"):
        slug = PINS[key].name.split("/")[1]
        out[f"fonts/LICENSE-{slug}.txt"] = read_members(tarballs[key], ["LICENSE"])["LICENSE"]
    return out


def vendored_md(files: dict[str, bytes]) -> str:
    lines = [
        "# Vendored assets",
        "",
        "Generated by `python scripts/vendor_assets.py`; do not edit by hand",
        "(`--check` tells whether these files still match the pinned packages).",
        "",
        "| package | version | licence | sha512 integrity |",
        "| --- | --- | --- | --- |",
    ]
    for pin in PINS.values():
        lines.append(f"| {pin.name} | {pin.version} | {pin.licence} | `{pin.integrity}` |")
    lines += [
        "",
        "KaTeX: dist/katex.min.js, dist/katex.min.css and the woff2 fonts, unmodified.",
        "Fonts: latin-subset woff2 files from @fontsource; Noto Color Emoji (COLRv1) subsets "
        + ", ".join(EMOJI_SUBSETS) + " only.",
        "fonts/fonts.css is written by the script (font-display: block).",
        "",
        "| file | bytes | sha256 |",
        "| --- | --- | --- |",
    ]
    for rel in sorted(files):
        data = files[rel]
        lines.append(f"| {rel} | {len(data)} | {hashlib.sha256(data).hexdigest()} |")
    return "\n".join(lines) + "\n"


def collect(workdir: Path) -> dict[str, bytes]:
    """Every vendored file, keyed by its path under assets/."""
    tarballs = {key: npm_pack(pin, workdir) for key, pin in PINS.items()}
    files = katex_files(tarballs["katex"])
    text_files, text_css = text_faces(tarballs)
    emoji_files, emoji_css = emoji_faces(tarballs["emoji"])
    files.update(text_files)
    files.update(emoji_files)
    files.update(licences(tarballs))
    header = "/* Generated by scripts/vendor_assets.py from pinned npm font packages (all OFL-1.1). */\n"
    files["fonts/fonts.css"] = (header + "\n".join(text_css + emoji_css)).encode("utf-8")
    files["VENDORED.md"] = vendored_md(files).encode("utf-8")
    return files


def current(root: Path) -> dict[str, bytes]:
    out = {}
    for sub in ("katex", "fonts"):
        for path in sorted((root / sub).rglob("*")):
            if path.is_file():
                out[path.relative_to(root).as_posix()] = path.read_bytes()
    if (root / "VENDORED.md").exists():
        out["VENDORED.md"] = (root / "VENDORED.md").read_bytes()
    return out


def write(root: Path, files: dict[str, bytes]) -> None:
    for sub in ("katex", "fonts"):
        shutil.rmtree(root / sub, ignore_errors=True)
    for rel in sorted(files):
        atomic_write_bytes(root / rel, files[rel])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 when different")
    parser.add_argument("--dest", type=Path, default=ASSETS, help="assets folder (default: article/dist/assets)")
    args = parser.parse_args(argv)
    try:
        with tempfile.TemporaryDirectory(prefix="vendor-") as tmp:
            files = collect(Path(tmp))
    except VendorError as err:
        print(f"vendor_assets: {err}", file=sys.stderr)
        return 2
    if args.check:
        have = current(args.dest)
        diff = sorted(k for k in set(have) | set(files) if have.get(k) != files.get(k))
        for rel in diff:
            print(f"differs: {rel}")
        return 1 if diff else 0
    write(args.dest, files)
    print(f"wrote {len(files)} files under {args.dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
