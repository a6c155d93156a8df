"""The per-game glossaries (``pbem/games/<game>/glossary.json``): the Czech and Polish words of
each game's rulebooks, and the command words players writing in those languages use.

They are the source the catalog translators work from, so they must load, be complete, and keep
every command word of a game distinct once accents and case are dropped (players may leave out
accents, so ``pas`` and ``pás`` would be one word)."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

import pbem.games

GAMES = ("kingsburg", "kingdom_builder", "ruse_and_bruise", "warriors_traders")
LANGUAGES = ("cs", "pl")


def glossary_path(game: str) -> Path:
    return Path(pbem.games.__file__).parent / game / "glossary.json"


def load(game: str) -> dict:
    return json.loads(glossary_path(game).read_text(encoding="utf-8"))


def fold(word: str) -> str:
    """What a player's word becomes before it is compared: lower case, no accents."""
    plain = unicodedata.normalize("NFKD", word.strip().lower())
    return "".join(ch for ch in plain if not unicodedata.combining(ch)).replace("ł", "l")


def strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def command_words(entry: dict) -> list[str]:
    words = [entry["en"], entry["cs"], entry["pl"]]
    for key in ("en_aliases", "cs_aliases", "pl_aliases"):
        words += entry.get(key, [])
    return words


@pytest.mark.parametrize("game", GAMES)
def test_glossary_is_valid_json_for_its_game(game):
    glossary = load(game)
    assert glossary["game"] == game
    assert set(glossary) >= {"title", "sources", "terms", "commands", "keywords"}
    assert glossary["terms"] and glossary["commands"]


@pytest.mark.parametrize("game", GAMES)
def test_every_term_has_a_czech_and_a_polish_word_and_a_source(game):
    for english, entry in load(game)["terms"].items():
        assert english.strip(), game
        for key in (*LANGUAGES, "note", "kind"):
            assert isinstance(entry.get(key), str) and entry[key].strip(), (game, english, key)
        assert set(entry.get("proposed", [])) <= set(LANGUAGES), (game, english)


@pytest.mark.parametrize("game", GAMES)
def test_counting_forms_have_one_few_and_many(game):
    for english, entry in load(game)["terms"].items():
        for language, forms in entry.get("forms", {}).items():
            assert language in LANGUAGES, (game, english)
            assert len(forms) == 3 and all(f.strip() for f in forms), (game, english, language)


@pytest.mark.parametrize("game", GAMES)
def test_every_command_and_keyword_has_english_czech_and_polish_words(game):
    glossary = load(game)
    for name, entry in {**glossary["commands"], **glossary.get("keywords", {})}.items():
        for word in command_words(entry):
            assert isinstance(word, str) and word.strip(), (game, name)
            assert " " not in word.strip(), (game, name, word)  # one word: the parser splits on spaces
        assert entry["usage"].strip(), (game, name)


@pytest.mark.parametrize("game", GAMES)
def test_no_two_command_words_of_a_game_fold_to_the_same_ascii(game):
    glossary = load(game)
    owner: dict[str, str] = {}
    for name, entry in {**glossary["commands"], **glossary.get("keywords", {})}.items():
        for word in command_words(entry):
            folded = fold(word)
            assert owner.setdefault(folded, name) == name, (
                f"{game}: {word!r} of {name!r} folds to {folded!r}, already a word of {owner[folded]!r}"
            )


@pytest.mark.parametrize("game", GAMES)
def test_no_empty_string_and_no_machine_path_anywhere(game):
    for text in strings(load(game)):
        assert text.strip(), game
        for marker in ("/work/", "/tmp/", "/home/", "seeds/", "shared/"):
            assert marker not in text, (game, text)


def test_fold_drops_accents_case_and_the_polish_l():
    assert fold("Přehoď") == "prehod"
    assert fold("WEŹ") == "wez"
    assert fold("zapłać") == "zaplac"


def data_file(game: str, name: str) -> dict:
    return json.loads((glossary_path(game).parent / name).read_text(encoding="utf-8"))


def test_kingsburg_glossary_names_advisors_and_buildings_as_the_rules_data_does():
    terms = load("kingsburg")["terms"]
    data = data_file("kingsburg", "kingsburg.json")
    for item in data["advisors"] + data["buildings"]:
        names = item["names"]
        entry = terms[names["en"]]
        assert entry["cs"] == names["cs"], names["en"]
        if names["pl"] is None:  # the Polish rules never name it: the glossary proposes a word
            assert "pl" in entry["proposed"], names["en"]
        else:
            assert entry["pl"] == names["pl"], names["en"]


def test_kingdom_builder_glossary_names_terrain_locations_and_cards_as_the_rules_data_does():
    terms = load("kingdom_builder")["terms"]
    data = data_file("kingdom_builder", "kingdom_builder.json")
    items = [*data["terrains"].values(), *data["locations"].values(), *data["kingdom_cards"].values()]
    for item in items:
        assert terms[item["en"]]["cs"] == item["cs"], item["en"]


def test_ruse_and_bruise_glossary_names_cards_and_suits_as_the_rules_data_does():
    terms = load("ruse_and_bruise")["terms"]
    data = data_file("ruse_and_bruise", "cards.json")
    for item in data["influence_cards"] + data["suits"]:
        assert terms[item["en"]]["cs"] == item["cs"], item["en"]
