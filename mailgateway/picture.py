"""The board picture of a mail as a PNG: the one adapter of ``resvg`` (the Python binding of
resvg, the SVG renderer written in Rust, as a wheel: nothing to install from the operating
system but a font; docs/mail.md "Board pictures" says why this binding).

Why this binding: it keeps resvg's options, and with them the fonts, between pictures. The
fonts are read once per thread (the binding's objects may not cross threads) from the font
files themselves, held in memory: resvg then shapes the words without opening a file, which
made a turn mail's picture three to six times cheaper than a binding that loads the system's
fonts for every picture (docs/benchmarks.md). resvg maps the generic family ``sans-serif`` to
a font named Arial, which a server seldom has; the picture's generic families are therefore
replaced by the family found here.

Bounded: the SVG is at most ``MAX_SVG_BYTES`` (the queue's packed form is checked too), the
picture at most ``MAX_WIDTH`` x ``MAX_HEIGHT`` pixels, the PNG at most ``MAX_PNG_BYTES``: a
picture that comes out larger is drawn again smaller, and one that never fits is left out (the
mail says where the board is on the web instead). Shapes are drawn without anti-aliasing
(``crispEdges``): a board of flat colours then compresses to a third and is drawn in a third
of the time; the words keep theirs.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import resvg

MAX_PNG_BYTES = 150 * 1024
MAX_SVG_BYTES = 2_000_000
MAX_WIDTH = 400  # pixels: a 360-unit picture for narrow screens is drawn at its own size
MIN_WIDTH = 240
MAX_HEIGHT = 2400
SHRINK = 0.8  # each try after a PNG too large is this much narrower
MAX_FONT_BYTES = 20_000_000  # a font file larger than this is not read

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
_VIEWBOX = re.compile(r'viewBox="\s*[-0-9.]+[\s,]+[-0-9.]+[\s,]+([0-9.]+)[\s,]+([0-9.]+)\s*"')
_SIZE = re.compile(r'\b(width|height)="([0-9.]+)(?:px)?"')
_FAMILY = re.compile(r'font-family="([^"]*)"')
WHITE = (255, 255, 255, 255)


def own_size(svg: str) -> tuple[float, float]:
    """The picture's own width and height in its units (its viewBox, else its width and
    height); ValueError when it says none."""
    root = _ROOT.search(svg)
    if root is None:
        raise ValueError("not an SVG picture")
    box = _VIEWBOX.search(root.group(0))
    if box:
        width, height = float(box.group(1)), float(box.group(2))
    else:
        sizes = dict(_SIZE.findall(root.group(0)))
        width, height = float(sizes.get("width", 0)), float(sizes.get("height", 0))
    if not (0 < width < 100_000 and 0 < height < 100_000):
        raise ValueError("the picture says no size")
    return width, height


def first_width(width: float, height: float) -> int:
    """The width to draw at first: the picture's own, within the bounds."""
    scale = min(1.0, MAX_WIDTH / width, MAX_HEIGHT / height)
    return max(1, round(width * scale))


@cache
def font_files(dirs: tuple[str, ...] = FONT_DIRS) -> tuple[str, tuple[bytes, ...]]:
    """The first family of ``FAMILIES`` installed under ``dirs`` and its files' contents; an
    empty family and no files when none is (the pictures then have no words). Read once per
    process."""
    found: dict[str, Path] = {}
    for folder in dirs:
        root = Path(folder)
        if root.is_dir():
            for path in root.rglob("*.[ot]tf"):
                found.setdefault(path.name, path)
    for family, names in FAMILIES:
        paths = [found[name] for name in names if name in found]
        fonts = tuple(path.read_bytes() for path in paths if path.stat().st_size <= MAX_FONT_BYTES)
        if fonts:
            return family, fonts
    return "", ()


class _Fonts(threading.local):
    options: resvg.usvg.Options | None = None


_fonts = _Fonts()


def options() -> resvg.usvg.Options:
    """This thread's renderer options with the fonts loaded (made once per thread)."""
    if _fonts.options is None:
        made = resvg.usvg.Options.default()
        family, fonts = font_files()
        for data in fonts:
            made.load_font_data(data)
        if family:
            made.font_family = family
        _fonts.options = made
    return _fonts.options


def with_family(svg: str, family: str) -> str:
    """``svg`` with the generic font families of its ``font-family`` attributes named as
    ``family``, and its shapes drawn with crisp edges."""

    def named(match: re.Match[str]) -> str:
        names = [name.strip() for name in match.group(1).split(",")]
        return 'font-family="' + ", ".join(family if name in GENERIC else name for name in names) + '"'

    if family:
        svg = _FAMILY.sub(named, svg)
    return svg.replace("<svg", '<svg shape-rendering="crispEdges"', 1)


def parsed(svg: str) -> resvg.usvg.Tree:
    """The picture as resvg's tree (ValueError when resvg cannot read it: the binding stops
    with a Rust panic, which Python raises as a ``BaseException``)."""
    family, _ = font_files()
    try:
        return resvg.usvg.Tree.from_str(with_family(svg, family), options())
    except Exception as error:
        raise ValueError(f"the picture cannot be drawn: {error}") from error
    except BaseException as error:
        if type(error).__name__ != "PanicException":
            raise
        raise ValueError(f"the picture cannot be drawn: {error}") from None


def draw(tree: resvg.usvg.Tree, width: int) -> tuple[bytes, int]:
    """The PNG of the picture ``width`` pixels wide, on white, and its height."""
    own_width, own_height = tree.int_size()
    scale = width / own_width
    height = max(1, round(own_height * scale))
    # the binding's transform is an affine matrix's first two rows: (a, b, c, d, e, f) maps
    # x, y to a*x + b*y + c, d*x + e*y + f
    return resvg.render(tree, (scale, 0.0, 0.0, 0.0, scale, 0.0), bg_size=(width, height), bg_color=WHITE), height


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
    tree = parsed(svg)
    width = first_width(own_width, own_height)
    while True:
        png, height = draw(tree, width)
        if len(png) <= MAX_PNG_BYTES:
            return Picture(png, width, height, min(width, round(own_width)))
        if width <= MIN_WIDTH:
            return None
        width = max(MIN_WIDTH, int(width * SHRINK))


KEPT = 16  # pictures kept: at most 16 x (2 MB of SVG + 150 KB of PNG)
_kept = lru_cache(maxsize=KEPT)(drawn)  # a picture that cannot be drawn raises and is not kept
