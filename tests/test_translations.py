"""The catalogs in pbem/locale: complete, nothing fuzzy, placeholders as in the English
message, plural forms right, compiled .mo in step with the .po, and every message the code
and templates ask for present (``make messages`` was run after the last change of a text)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from pbem import i18n

ROOT = Path(__file__).resolve().parents[1]
TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != i18n.DEFAULT]
# %(name)s / %(name)r / %(num)d, {name}, and bare %s / %d
PLACEHOLDER = re.compile(r"%\(\w+\)[sdr]|\{\w*\}|%[sd]")


def catalog(lang: str):
    with (i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po").open("rb") as po:
        return read_po(po, locale=lang)


def placeholders(text: str) -> list[str]:
    return sorted(PLACEHOLDER.findall(text))


def messages(lang: str):
    return [m for m in catalog(lang) if m.id]


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_is_translated_and_none_is_fuzzy(lang):
    found = messages(lang)
    assert len(found) > 200  # the catalog was read
    untranslated = [m.id for m in found if not (all(m.string) if isinstance(m.string, tuple) else m.string)]
    fuzzy = [m.id for m in found if m.fuzzy]
    assert not untranslated
    assert not fuzzy


@pytest.mark.parametrize("lang", TRANSLATED)
def test_placeholders_of_each_translation_are_the_english_ones(lang):
    wrong = []
    for m in messages(lang):
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        expected = placeholders(ids[-1])
        wrong += [(m.id, s) for s in strings if placeholders(s) != expected]
    assert not wrong


def test_the_placeholder_check_sees_a_mismatch():
    assert placeholders("Turn %(turn)s of {game}") != placeholders("Tah %(tah)s hry {game}")
    assert placeholders("a %(x)s b %s") == placeholders("%s c %(x)s")


@pytest.mark.parametrize("lang", TRANSLATED)
def test_czech_and_polish_have_three_plural_forms(lang):
    found = catalog(lang)
    assert found.num_plurals == 3
    plural = [m for m in found if isinstance(m.id, tuple)]
    assert plural and all(len(m.string) == 3 for m in plural)


@pytest.mark.parametrize(
    ("lang", "counts"),
    [
        ("cs", {1: "bajt;", 3: "bajty;", 5: "bajtů;", 22: "bajtů;"}),
        ("pl", {1: "bajt;", 3: "bajty;", 5: "bajtów;", 22: "bajty;", 12: "bajtów;"}),
    ],
)
def test_the_compiled_catalogs_choose_the_plural_form_by_number(lang, counts):
    catalog_ = i18n.translations(lang)
    for n, word in counts.items():
        text = catalog_.ngettext(
            "Your mail has %(num)s byte; the limit is %(limit)s. Nothing was done.",
            "Your mail has %(num)s bytes; the limit is %(limit)s. Nothing was done.",
            n,
        )
        assert f"%(num)s {word}" in text, (n, text)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_compiled_catalog_is_the_po_file_compiled(lang):
    buffer = io.BytesIO()
    write_mo(buffer, catalog(lang))
    assert (i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "messages.mo").read_bytes() == buffer.getvalue(), (
        "run `make messages`"
    )


def test_the_catalogs_hold_exactly_the_messages_of_the_code_and_templates():
    with (ROOT / "babel.cfg").open(encoding="utf-8") as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    keywords = {
        "_": None,
        "N_": None,
        "gettext": None,
        "ngettext": (1, 2),
        "pgettext": ((1, "c"), 2),
        "lazy_gettext": None,
        "lazy_ngettext": (1, 2),
        "lazy_pgettext": ((1, "c"), 2),
    }
    wanted = {
        message if isinstance(message, str) else message[0]
        for _, _, message, _, _ in extract_from_dir(str(ROOT), method_map, options_map, keywords=keywords)
    }
    for lang in TRANSLATED:
        held = {m.id if isinstance(m.id, str) else m.id[0] for m in messages(lang)}
        assert held == wanted, (
            f"{lang}: run `make messages` (missing {sorted(wanted - held)[:5]}, stale {sorted(held - wanted)[:5]})"
        )
