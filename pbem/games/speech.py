"""The language a game speaks: every sentence a game says goes through ``_``, ``ngettext`` or
``pgettext`` below. The message is English and is extracted into the one set of catalogs
(``make messages``, docs/translations.md).

Which language the games answer in is chosen by the caller, never by a game: the service wraps
its calls in ``with speaking(translator):`` (the catalog of the mail's reader, of the web page,
of the CLI's user). A game loads no catalog and reads no file; outside a ``speaking`` block it
speaks English, so the games' tests, the stored facts and the canonical move texts never depend
on a language. The translator is held in a context variable, so concurrent work (the web
server's threads, the mail followers) each keeps its own.

Placeholders are ``{name}`` (``str.format``), filled after the lookup, so a translation may put
them in any order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Protocol


class Translator(Protocol):
    """What a game needs of a catalog: ``babel.support.Translations`` and the standard
    library's ``gettext.NullTranslations`` both fit."""

    def gettext(self, message: str) -> str: ...

    def ngettext(self, singular: str, plural: str, n: int) -> str: ...

    def pgettext(self, context: str, message: str) -> str: ...


class English:
    """The source language: every message as written."""

    def gettext(self, message: str) -> str:
        return message

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return singular if n == 1 else plural

    def pgettext(self, context: str, message: str) -> str:
        return message


ENGLISH = English()
_speaking: ContextVar[tuple[Translator, str | Callable[[], str]]] = ContextVar(
    "pbem_games_speaking", default=(ENGLISH, "en")
)


@contextmanager
def speaking(translator: Translator, lang: str | Callable[[], str]) -> Iterator[Translator]:
    """Game texts inside the block come from ``translator``, the catalog of ``lang`` (the
    code picks names kept in a game's data tables, such as a building's Czech name; a
    function when the caller learns the language only if it is needed)."""
    token = _speaking.set((translator, lang))
    try:
        yield translator
    finally:
        _speaking.reset(token)


def language() -> str:
    """The code of the language spoken now ("en" outside a ``speaking`` block)."""
    lang = _speaking.get()[1]
    return lang if isinstance(lang, str) else lang()


def named(names: Mapping[str, str | None], fallback: str) -> str:
    """The name in the language spoken now, from a data table's ``{"en": ..., "cs": ...}``."""
    return names.get(language()) or names.get("en") or fallback


def named_in(table: Mapping[str, Mapping[str, Any]], key: str) -> str:
    """The name of ``table[key]`` (a data table's row with "en", "cs", "pl") in the language
    spoken now."""
    return named(table[key], key)


def N_(message: str, /) -> str:
    """``message`` unchanged: marks a text kept in a table for ``make messages``; it is
    translated where it is shown, with ``_``."""
    return message


def _(message: str, /, **values: Any) -> str:
    """``message`` in the current language, its ``{name}`` placeholders filled from ``values``."""
    text = _speaking.get()[0].gettext(message)
    return text.format(**values) if values else text


def ngettext(singular: str, plural: str, n: int, /, **values: Any) -> str:
    """The counting form for ``n`` (Czech and Polish have three); ``{n}`` is the count unless
    ``values`` gives ``n`` (a signed amount, "+2", counted by its size)."""
    return _speaking.get()[0].ngettext(singular, plural, n).format(**{"n": n, **values})


def pgettext(context: str, message: str, /, **values: Any) -> str:
    """A word whose translation depends on where it stands (a command word, a table label)."""
    text = _speaking.get()[0].pgettext(context, message)
    return text.format(**values) if values else text
