"""Every word the site's templates and code ask for exists in Czech and English."""

import re
from pathlib import Path

from pbem.web import TEMPLATES
from pbem.web.i18n import WORDS

CODE = Path(__file__).resolve().parents[2] / "pbem" / "web"


def asked_keys() -> set[str]:
    keys = set()
    sources = list((TEMPLATES / "web").glob("*.html")) + list(CODE.glob("*.py"))
    for path in sources:
        keys |= set(re.findall(r"""\bt\(\s*["']([a-z_]+)["']""", path.read_text(encoding="utf-8")))
    return keys


def test_every_word_used_is_translated():
    keys = asked_keys()
    assert len(keys) > 40  # the search found the calls
    missing = sorted(keys - set(WORDS) - {"kind_"})  # kind_<entry kind>: checked below
    assert not missing


def test_both_languages_are_filled_and_placeholders_agree():
    for key, (english, czech) in WORDS.items():
        assert english.strip() and czech.strip(), key
        assert english.count("%s") == czech.count("%s"), key


def test_entry_kinds_have_words():
    for kind in ("created", "joined", "started", "moved", "resigned", "ended"):
        assert f"kind_{kind}" in WORDS
