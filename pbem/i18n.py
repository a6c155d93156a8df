"""The one translation mechanism: gettext catalogs in ``pbem/locale`` (Babel's layout,
``LANG/LC_MESSAGES/messages.mo``), English as the source language.

The web site reads them through Flask-Babel, the mail templates and the CLI through
``translations(lang)``: one object per language, loaded once per process and cached, because
the mail path renders many mails and must not read a catalog per mail. ``make messages``
extracts, updates and compiles the catalogs (docs/translations.md).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from functools import lru_cache
from importlib.resources import files
from pathlib import Path

from babel.support import NullTranslations, Translations

from pbem.games import speech

LANGUAGES = ("en", "cs", "pl")
DEFAULT = "en"
LOCALE_DIR = Path(str(files("pbem") / "locale"))  # in the checkout and inside the wheel
DOMAIN = "messages"
# names a player may use for a language (mail command ``language``, ``lang=`` options),
# compared in lower case without diacritics
LANGUAGE_WORDS = {
    "en": "en",
    "english": "en",
    "anglicky": "en",
    "angielski": "en",
    "cs": "cs",
    "cz": "cs",
    "czech": "cs",
    "cesky": "cs",
    "cestina": "cs",
    "czeski": "cs",
    "pl": "pl",
    "polish": "pl",
    "polsky": "pl",
    "polstina": "pl",
    "polski": "pl",
}


def known(lang: object) -> str:
    """``lang`` when it is one of ours, else the default."""
    return lang if isinstance(lang, str) and lang in LANGUAGES else DEFAULT


@lru_cache(maxsize=len(LANGUAGES) + 1)
def translations(lang: str) -> NullTranslations:
    """The catalog of ``lang`` (English: no catalog, the messages are the source texts)."""
    lang = known(lang)
    if lang == DEFAULT:
        return NullTranslations()
    return Translations.load(str(LOCALE_DIR), [lang], domain=DOMAIN)


def cli_language(environ: Mapping[str, str] | None = None) -> str:
    """The language of the CLI's messages: ``PBEM_LANG``, else the usual locale variables
    (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``: ``cs_CZ.UTF-8`` means cs)."""
    env = os.environ if environ is None else environ
    for name in ("PBEM_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name) or ""
        if value:
            return known(value.split(":")[0].split("_")[0].split(".")[0].lower())
    return DEFAULT


def cli() -> NullTranslations:
    """The catalog for the CLI's player messages."""
    return translations(cli_language())


def speaking(lang: str) -> AbstractContextManager[speech.Translator]:
    """The games' texts inside the block in ``lang`` (``pbem.games.speech``): how the mail, the
    site and the CLI hand a reader's language to the games, which load no catalogs."""
    lang = known(lang)
    return speech.speaking(_Catalog(translations(lang)), lang)


def english() -> AbstractContextManager[speech.Translator]:
    """Game texts as the games write them: for what is compared or stored, not read (a phase
    label matched against deadline rules or a turn file's header)."""
    return speech.speaking(speech.ENGLISH, DEFAULT)


class _Catalog:
    """A Babel catalog as the games' ``Translator`` (its ``pgettext`` is typed loosely)."""

    def __init__(self, catalog: NullTranslations):
        self._catalog = catalog

    def gettext(self, message: str) -> str:
        return self._catalog.gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self._catalog.ngettext(singular, plural, n)

    def pgettext(self, context: str, message: str) -> str:
        return str(self._catalog.pgettext(context, message))


class _Later:
    """A translator that asks for its language only when a game first says something: the
    intake of a mail learns its sender's language only if a refusal needs words."""

    def __init__(self, choose: Callable[[], str]):
        self._choose = choose
        self._lang: str | None = None

    def language(self) -> str:
        if self._lang is None:
            self._lang = known(self._choose())
        return self._lang

    def _catalog(self) -> NullTranslations:
        return translations(self.language())

    def gettext(self, message: str) -> str:
        return self._catalog().gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self._catalog().ngettext(singular, plural, n)

    def pgettext(self, context: str, message: str) -> str:
        return str(self._catalog().pgettext(context, message))


@contextmanager
def speaking_later(choose: Callable[[], str]) -> Iterator[None]:
    """Like ``speaking``, with the language chosen on first use (``choose`` runs at most once)."""
    later = _Later(choose)
    with speech.speaking(later, later.language):
        yield
