"""Counting forms in Czech and Polish: no number stands before a noun in the wrong form.

Czech and Polish have three counting forms (1, 2-4, 5 and 0: "1 voják", "4 vojáky",
"5 vojáků"), so a count must go through ``ngettext`` and each of its catalog forms must use the
noun's form for the numbers that form is chosen for. The nouns and their forms come from the
games' glossaries (``forms`` [1, 2-4, 5+], ``acc`` for the accusative singular a sentence may
need). The check reads every catalog message with a placeholder or a number before a glossary
noun: in a plural message the form must be the one of its index, and a singular message must
not count a glossary noun at all (its number could be anything, so no one form can be right).
The same check reads what the games write (history and board texts of seeded games) with the
catalog's own plural rule.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

import pbem.games
from pbem import i18n
from pbem.games import simulate

LANGUAGES = ("cs", "pl")
GAMES_DIR = Path(pbem.games.__file__).parent
# a count placeholder ({n}, %(num)s) or a written number, then the word after it
COUNTED = re.compile(r"(?:%\(\w+\)[sd]|\{\w*\}|(?<![\w.+-])[+-]?\d+) +([^\W\d_]+)")
# a number that opens a line is a row's label in a table ("  4 Obchodník   Ann [4]"), not a count
ROW_LABEL = re.compile(r"^[ \t]*[+-]?\d+ ", re.MULTILINE)
# placeholders that name someone or something, never a number ("{who} staví" is a verb)
NAMES = frozenset({"{who}", "{tile}", "{text}", "{unit}", "{card}", "{province}", "{building}", "{advisor}", "{hex}"})
Lexicon = dict[str, tuple[frozenset[str], ...]]


def fold(word: str) -> str:
    plain = unicodedata.normalize("NFKD", word.lower())
    return "".join(ch for ch in plain if not unicodedata.combining(ch)).replace("ł", "l")


def _stem(words: list[str]) -> str:
    stem = words[0]
    for word in words[1:]:
        while not word.startswith(stem):
            stem = stem[:-1]
    return stem


def lexicon(terms: list[dict], lang: str) -> Lexicon:
    """Key -> the allowed first words for each counting form. The key is the forms' common
    stem (one letter shorter when long, so 'vojáci' still meets 'voják'); short stems are
    matched whole-word only ('rok', 'let')."""
    found: dict[str, list[set[str]]] = {}
    for term in terms:
        forms = term.get("forms", {}).get(lang)
        if not forms:
            continue
        first = [form.split()[0] for form in forms]
        acc = term.get("acc", {}).get(lang)
        stem = _stem([fold(word) for word in first])
        keys = [stem[:-1] + "*"] if len(stem) >= 5 else [stem + "*"] if len(stem) == 4 else {fold(w) for w in first}
        for key in keys:
            allowed = found.setdefault(key, [set(), set(), set()])
            for index, word in enumerate(first):
                allowed[index].add(word)
            if acc:
                allowed[0].add(acc.split()[0])
    return {key: tuple(frozenset(s) for s in sets) for key, sets in found.items()}


def glossary_terms() -> list[dict]:
    terms: list[dict] = []
    for path in sorted(GAMES_DIR.glob("*/glossary.json")):
        terms += json.loads(path.read_text(encoding="utf-8"))["terms"].values()
    return terms


@cache
def known_words(lang: str) -> Lexicon:
    return lexicon(glossary_terms(), lang)


def _entries(word: str, lex: Lexicon) -> list[tuple[frozenset[str], ...]]:
    folded = fold(word)
    return [sets for key, sets in lex.items() if (folded.startswith(key[:-1]) if key.endswith("*") else folded == key)]


def wrong_forms(text: str, index: int, lex: Lexicon) -> list[str]:
    """The "number noun" pairs of ``text`` whose noun is not in counting form ``index``."""
    bad = []
    for match in COUNTED.finditer(text):
        if match.group(0).split()[0] in NAMES:
            continue
        entries = _entries(match.group(1), lex)
        if entries and not any(match.group(1) in sets[index] for sets in entries):
            bad.append(match.group(0))
    return bad


def counted_nouns(text: str, lex: Lexicon) -> list[str]:
    """Placeholders directly before a glossary noun: counts that no single form can fit."""
    return [
        m.group(0)
        for m in COUNTED.finditer(text)
        if m.group(0)[0] in "{%" and m.group(0).split()[0] not in NAMES and _entries(m.group(1), lex)
    ]


def catalog(lang: str):
    with (i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po").open("rb") as po:
        return read_po(po, locale=lang)


def catalog_problems(messages, lex: Lexicon) -> list[tuple[str, str]]:
    problems = []
    for message in messages:
        if not message.id:
            continue
        if isinstance(message.id, tuple):
            for index, text in enumerate(message.string):
                problems += [(text, pair) for pair in wrong_forms(text, index, lex)]
        else:
            problems += [(message.string, pair) for pair in counted_nouns(message.string, lex)]
    return problems


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_counted_noun_in_the_catalog_has_its_counting_form(lang):
    messages = [m for m in catalog(lang) if m.id]
    plural = [m for m in messages if isinstance(m.id, tuple)]
    assert len(plural) > 30  # the catalog was read, with its plural messages
    assert catalog_problems(messages, known_words(lang)) == []


class _Message:
    def __init__(self, id: str | tuple[str, str], string: str | tuple[str, ...]):
        self.id = id
        self.string = string


@pytest.mark.parametrize(
    ("lang", "message", "caught"),
    [
        ("cs", _Message(("{n} soldier", "{n} soldiers"), ("{n} voják", "{n} vojáci", "{n} vojáků")), "{n} vojáci"),
        ("cs", _Message(("{n} wood", "{n} wood"), ("{n} dřevo", "{n} dřeva", "{n} dřev")), "{n} dřev"),
        ("pl", _Message(("{n} stone", "{n} stone"), ("{n} kamień", "{n} kamieni", "{n} kamieni")), "{n} kamieni"),
        ("cs", _Message("{gold} gold", "{gold} zlata"), "{gold} zlata"),
        ("pl", _Message("{n} rounds", "Gra trwa {n} rund."), "{n} rund"),
    ],
)
def test_the_catalog_check_catches_a_wrong_form(lang, message, caught):
    """Positive control: the forms the issue found ('4 vojáci', '0 dřev') and a count in a
    message without plural forms are reported."""
    assert caught in [pair for _, pair in catalog_problems([message], known_words(lang))]


def test_the_catalog_check_passes_right_forms():
    right = _Message(("{n} soldier", "{n} soldiers"), ("{n} voják", "{n} vojáky", "{n} vojáků"))
    assert catalog_problems([right], known_words("cs")) == []


# -- what the games write ------------------------------------------------------------------------
def plural_index(lang: str) -> Callable[[int], int]:
    """The catalog's own rule: which counting form a number takes."""
    return i18n.translations(lang).plural  # type: ignore[attr-defined]


def text_problems(text: str, lang: str) -> list[str]:
    """Every written number before a glossary noun in the wrong form for that number."""
    index = plural_index(lang)
    lex = known_words(lang)
    bad = []
    for match in COUNTED.finditer(ROW_LABEL.sub("", text)):
        number = match.group(0).split()[0]
        if not number.lstrip("+-").isdigit():
            continue
        bad += wrong_forms(match.group(0), index(abs(int(number))), lex)
    return bad


def test_the_text_check_catches_a_wrong_form():
    assert text_problems("Ann: 3 VB, 2 zlata, 0 dřev, 1 kámen, 4 vojáci", "cs") == ["0 dřev", "4 vojáci"]
    assert text_problems("Ann: 3 VB, 2 zlata, 0 dřeva, 1 kámen, 4 vojáky, 12 vojáků", "cs") == []
    assert text_problems("Ola: 5 kamienie, 22 kamienie, 12 kamieni", "pl") == ["5 kamienie"]


def game_texts(game: str, seed: int) -> list[str]:
    """Everything a seeded random game says: each fact's history line, the board text of every
    seat every few facts, and the final standings."""
    spec = pbem.games.get_spec(game)
    played = simulate.play_random(spec, spec.max_players, seed)
    names = [f"P{seat}" for seat in range(played.players)]
    texts = [spec.describe_fact(fact, names) for fact in played.facts]
    state = None
    for number, fact in enumerate(played.facts):
        state = spec.evolve(state, fact)
        if number % 25 == 0 or number == len(played.facts) - 1:
            texts += [spec.render_text(spec.view(state, seat), names) for seat in (None, *range(played.players))]
    return texts


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize(
    "game", sorted(path.parent.name.replace("_", "-") for path in GAMES_DIR.glob("*/glossary.json"))
)
def test_the_games_texts_count_in_the_right_form(game, lang):
    with i18n.speaking(lang):
        texts = game_texts(game, seed=1)
    assert sum(len(t) for t in texts) > 1000  # the game said something
    assert [p for t in texts for p in text_problems(t, lang)] == []
