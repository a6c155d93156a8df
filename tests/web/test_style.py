"""The stylesheet's text colours meet WCAG AA contrast (4.5:1) on the grounds they are used on."""

import re
from pathlib import Path

import pytest

CSS = (Path(__file__).resolve().parents[2] / "pbem" / "web" / "static" / "style.css").read_text(encoding="utf-8")
COLOURS = dict(re.findall(r"--([a-z]+):\s*(#[0-9a-f]{6})", CSS))


def luminance(colour: str) -> float:
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(one: str, other: str) -> float:
    light, dark = sorted((luminance(one), luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@pytest.mark.parametrize(
    "text, ground",
    [
        ("ink", "ground"),
        ("muted", "ground"),
        ("accent", "ground"),
        ("ink", "soft"),
        ("muted", "soft"),
        ("accent", "soft"),
        ("muted", "#f4f4f2"),
        ("ink", "#fff7e0"),
        ("accent", "#fff7e0"),
        ("#ffffff", "accent"),
    ],
)
def test_text_contrast_is_at_least_aa(text, ground):
    pick = lambda name: name if name.startswith("#") else COLOURS[name]  # noqa: E731
    assert contrast(pick(text), pick(ground)) >= 4.5


def test_the_palette_was_read():
    assert {"ink", "muted", "ground", "accent", "soft"} <= set(COLOURS)
