"""The buildings' grid of the text board fits a mail's 72-character line in every language."""

from __future__ import annotations

import pytest

from pbem import i18n
from pbem.games.kingsburg.data import ROWS
from pbem.games.kingsburg.render import building_grid
from pbem.games.text import TEXT_WIDTH


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_building_grid_fits_72_characters_in_every_language(lang):
    with i18n.speaking(lang):
        lines = building_grid({"statue", "inn"})
    assert len(lines) == len(ROWS) and all(len(line) <= TEXT_WIDTH for line in lines)
    assert lines[0].startswith("   [x] ") and lines[1].startswith("   [x] ") and lines[2].startswith("   [ ] ")
    assert all(line.count("[") == len(next(iter(ROWS.values()))) for line in lines)


def test_english_columns_are_aligned():
    with i18n.speaking("en"):
        lines = building_grid(set())
    starts = {tuple(i for i, char in enumerate(line) if char == "[") for line in lines}
    assert len(starts) == 1  # every row's cells start in the same columns
