"""The board picture of a mail as a PNG: the one adapter of ``pillow-lunasvg`` (LunaSVG, a
small SVG renderer written in C++, as a Pillow plugin in a wheel: nothing to install from the
operating system but a font; docs/mail.md "Board pictures" says why this renderer).

Why this renderer: it hands back the picture's pixels, so the PNG is encoded here, as cheaply
as a mail needs (``png_of``: no row filter, deflated by ISA-L); the renderer used before (``resvg``)
encodes its PNG itself, at a compression that cost more than drawing the picture
(docs/benchmarks.md). The fonts are registered once per process, from the font files found
here, under the family found; the picture's generic families (``sans-serif``) are named as
that family. LunaSVG keeps its fonts in one table for the process, so the pictures are drawn
one at a time (a lock).

Bounded: the SVG is at most ``MAX_SVG_BYTES`` (the queue's packed form is checked too), the
picture at most ``MAX_WIDTH`` x ``MAX_HEIGHT`` pixels, the PNG at most ``MAX_PNG_BYTES``: a
picture that comes out larger is drawn again smaller, and one that never fits is left out (the
mail says where the board is on the web instead). Pillow refuses a picture whose own size, at
a pixel a unit, is over some 179 million pixels (no board comes near it): a ValueError, as for
a picture LunaSVG cannot read.
"""

from __future__ import annotations

import io
import re
import struct
import threading
import zlib
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import pillow_lunasvg
from isal import isal_zlib
from PIL import Image

MAX_PNG_BYTES = 150 * 1024
MAX_SVG_BYTES = 2_000_000
MAX_WIDTH = 400  # pixels: a 360-unit picture for narrow screens is drawn at its own size
MIN_WIDTH = 240
MAX_HEIGHT = 2400
SHRINK = 0.8  # each try after a PNG too large is this much narrower
MAX_FONT_BYTES = 20_000_000  # a font file larger than this is not used
LEVEL = 2  # ISA-L's level (0-3): as fast as 0 and 1, smaller; 3 is three times slower, no smaller

# Where fonts are installed (Debian's packages and a local administrator's), and the families
# tried in this order, each by its files' names: regular and bold (the boards use both). All
# three have the Czech and Polish letters.
FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts")
FAMILIES = (
    ("DejaVu Sans", ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf")),
    ("Liberation Sans", ("LiberationSans-Regular.ttf", "LiberationSans-Bold.ttf")),
    ("Noto Sans", ("NotoSans-Regular.ttf", "NotoSans-Bold.ttf")),
)
GENERIC = frozenset({"sans-serif", "serif", "monospace", "cursive", "fantasy", "system-ui"})

_ROOT = re.compile(r"<svg\b[^>]*>", re.S)
_VIEWBOX = re.compile(r'viewBox="\s*([-0-9.]+)[\s,]+([-0-9.]+)[\s,]+([0-9.]+)[\s,]+([0-9.]+)\s*"')
_SIZE = re.compile(r'\b(width|height)="([0-9.]+)(?:px)?"')
_FAMILY = re.compile(r'font-family="([^"]*)"')
_LOCK = threading.Lock()  # LunaSVG's fonts are one table for the process


def own_box(svg: str) -> tuple[float, float, float, float]:
    """The picture's own box in its units: left, top, width and height (its viewBox, else 0,
    0 and its width and height); ValueError when it says no size."""
    root = _ROOT.search(svg)
    if root is None:
        raise ValueError("not an SVG picture")
    box = _VIEWBOX.search(root.group(0))
    if box:
        left, top, width, height = (float(value) for value in box.groups())
    else:
        sizes = dict(_SIZE.findall(root.group(0)))
        left, top, width, height = 0.0, 0.0, float(sizes.get("width", 0)), float(sizes.get("height", 0))
    if not (0 < width < 100_000 and 0 < height < 100_000):
        raise ValueError("the picture says no size")
    return left, top, width, height


def own_size(svg: str) -> tuple[float, float]:
    """The picture's own width and height in its units; ValueError when it says none."""
    return own_box(svg)[2:]


def first_width(width: float, height: float) -> int:
    """The width to draw at first: the picture's own, within the bounds."""
    scale = min(1.0, MAX_WIDTH / width, MAX_HEIGHT / height)
    return max(1, round(width * scale))


@cache
def font_files(dirs: tuple[str, ...] = FONT_DIRS) -> tuple[str, tuple[Path, ...]]:
    """The first family of ``FAMILIES`` installed under ``dirs`` and its files (regular, then
    bold); an empty family and no files when none is (the pictures then have no words)."""
    found: dict[str, Path] = {}
    for folder in dirs:
        root = Path(folder)
        if root.is_dir():
            for path in root.rglob("*.[ot]tf"):
                found.setdefault(path.name, path)
    for family, names in FAMILIES:
        paths = tuple(found[name] for name in names if name in found and found[name].stat().st_size <= MAX_FONT_BYTES)
        if paths:
            return family, paths
    return "", ()


_registered: list[str] = []  # the family registered, once per process


def fonts_registered() -> str:
    """The family the pictures' words are drawn in, its files registered with LunaSVG (once
    per process, under the lock; also as the family of last resort, for a family the picture
    names that is not installed)."""
    with _LOCK:
        if not _registered:
            family, paths = font_files()
            for path in paths:
                bold = "Bold" in path.name
                pillow_lunasvg.add_font_file(path, family, bold=bold)
                pillow_lunasvg.add_font_file(path, "", bold=bold)
            _registered.append(family)
        return _registered[0]


def with_family(svg: str, family: str) -> str:
    """``svg`` with the generic font families of its ``font-family`` attributes named as
    ``family``."""

    def named(match: re.Match[str]) -> str:
        names = [name.strip() for name in match.group(1).split(",")]
        return 'font-family="' + ", ".join(family if name in GENERIC else name for name in names) + '"'

    return _FAMILY.sub(named, svg) if family else svg


def on_white(svg: str) -> str:
    """``svg`` with a white rectangle under everything it draws (a PNG on white, whatever
    the mail's reader shows around it)."""
    left, top, width, height = own_box(svg)
    root = _ROOT.search(svg)
    assert root is not None  # own_box found it
    white = f'<rect x="{left:g}" y="{top:g}" width="{width:g}" height="{height:g}" fill="#fff" stroke="none"/>'
    tag = root.group(0)
    if tag.endswith("/>"):  # an empty picture: the root gets a body
        return svg[: root.start()] + tag[:-2].rstrip() + ">" + white + "</svg>" + svg[root.end() :]
    return svg[: root.end()] + white + svg[root.end() :]


def prepared(svg: str) -> bytes:
    """The picture as LunaSVG is given it: its families named, on white."""
    return on_white(with_family(svg, fonts_registered())).encode("utf-8")


def png_of(pixels: bytes, width: int, height: int) -> bytes:
    """A PNG of 8-bit RGB ``pixels``, row by row: every row unfiltered, deflated by ISA-L
    (``isal``: a zlib stream like zlib's own, made four to seven times faster) at ``LEVEL``
    (an anti-aliased board compresses no better with PNG's row filters, and filtering costs
    time)."""
    stride = width * 3
    view = memoryview(pixels)
    rows = b"".join(b"\x00" + view[row * stride : (row + 1) * stride] for row in range(height))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB, no interlace
    body = chunk(b"IHDR", header) + chunk(b"IDAT", isal_zlib.compress(rows, LEVEL)) + chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + body


def draw(data: bytes, scale: float) -> tuple[bytes, int, int]:
    """The PNG of a prepared picture at ``scale`` pixels per unit, its width and height
    (ValueError when LunaSVG cannot read it)."""
    try:
        with _LOCK, Image.open(io.BytesIO(data), formats=("SVG",)) as image:
            if not isinstance(image, pillow_lunasvg.SvgImageFile):  # formats= lets no other in
                raise ValueError("not an SVG picture")
            image.load(scale=scale)
            width, height = image.size
            pixels = image.tobytes("raw", "RGB")
    except (OSError, SyntaxError, ValueError, Image.DecompressionBombError) as error:
        # Pillow's bound on a picture's own size (at one pixel a unit) counts too: no board
        # comes near it
        raise ValueError(f"the picture cannot be drawn: {error}") from error
    return png_of(pixels, width, height), width, height


@dataclass(frozen=True)
class Picture:
    png: bytes
    width: int  # pixels
    height: int
    shown_width: int  # CSS pixels to show it at: the picture's own width, or less

    @property
    def shown_height(self) -> int:
        return round(self.height * self.shown_width / self.width)


def picture_of(svg: str) -> Picture | None:
    """The PNG of a board; None when even the narrowest is larger than ``MAX_PNG_BYTES``.
    ValueError for a picture that cannot be drawn. The same SVG is drawn once for the last
    ``KEPT`` pictures: the mails that show one player's view of one game version (a turn
    mail and its reminder), or the same board to several players (the end of a game without
    hidden cards, in one language), share it."""
    if len(svg.encode("utf-8")) > MAX_SVG_BYTES:
        raise ValueError(f"the picture is larger than {MAX_SVG_BYTES} bytes")
    return _kept(svg)


def drawn(svg: str) -> Picture | None:
    """The drawing behind ``picture_of``, each time anew (the benchmark times it)."""
    own_width, own_height = own_size(svg)
    data = prepared(svg)
    width = first_width(own_width, own_height)
    while True:
        png, drawn_width, height = draw(data, width / own_width)
        if len(png) <= MAX_PNG_BYTES:
            return Picture(png, drawn_width, height, min(drawn_width, round(own_width)))
        if width <= MIN_WIDTH:
            return None
        width = max(MIN_WIDTH, int(width * SHRINK))


KEPT = 16  # pictures kept: at most 16 x (2 MB of SVG + 150 KB of PNG)
_kept = lru_cache(maxsize=KEPT)(drawn)  # a picture that cannot be drawn raises and is not kept
