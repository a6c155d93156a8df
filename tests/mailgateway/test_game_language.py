"""A whole game played by mail in Czech or Polish says no English word of the game's vocabulary
(the English side of ``pbem/games/<game>/glossary.json``): not in any mail, nor in the history
page, the board picture or the turn file (issue 17, "Done when")."""

from __future__ import annotations

import email
import json
import random
import re
import unicodedata
from email import policy
from pathlib import Path

import pytest

import pbem.games
from pbem import i18n
from pbem.games import get_spec
from pbem.games.base import SeededRng, evolve_all
from pbem.web import create_app
from tests.mailgateway.conftest import address_of, confirmed, make_mail
from tests.mailgateway.playbook import text_of
from tests.mailgateway.test_golden_mail import PLAYERS, mail_settings, play  # noqa: F401 (no pictures: a fixture)

# (game, language): the games whose texts are translated so far
SPOKEN = (
    ("kingsburg", "cs"),
    ("kingsburg", "pl"),
    ("kingdom-builder", "cs"),
    ("ruse-and-bruise", "cs"),
    ("warriors-traders", "cs"),
    ("warriors-traders", "pl"),
)


def english_terms(game: str, lang: str) -> list[str]:
    """The glossary's English terms, less the names the rulebook of ``lang`` prints in English
    too (Romeo; the Polish title of Ruse & Bruise)."""
    glossary = json.loads(
        (Path(pbem.games.__file__).parent / game.replace("-", "_") / "glossary.json").read_text(encoding="utf-8")
    )
    return sorted(term for term, entry in glossary["terms"].items() if entry[lang].casefold() != term.casefold())


def english_words(text: str, terms: list[str]) -> list[str]:
    """The glossary's English terms in ``text``, as whole words (a plural "s" included)."""
    found = []
    for term in terms:
        words = re.escape(term.split(" (")[0])
        if re.search(rf"(?<![\w+]){words}(e?s)?(?!\w)", text, re.IGNORECASE):
            found.append(term)
    return found


def readable(text: str) -> str:
    """What a reader reads: without addresses and links, which hold the game's English name."""
    return re.sub(r"\S+@\S+|https?://\S+|\b[a-z]+(-[a-z]+)*-[0-9a-f]{8}\b", " ", text)


@pytest.mark.parametrize(("game", "lang"), SPOKEN)
def test_a_whole_game_in_the_players_language_says_no_english_game_word(gw, transport, clock, game, lang, monkeypatch):
    monkeypatch.setattr("pbem.service.service.secrets.token_hex", lambda n: "0a1b2c3d")
    for player in PLAYERS:
        confirmed(gw, transport, player, f"language {lang}")
    transport.clear()
    table = play(gw, transport, clock, game)
    terms = english_terms(game, lang)
    leaks = {}
    for n, (_, to, raw) in enumerate(transport.sent):
        msg = email.message_from_bytes(raw, policy=policy.default)
        text = readable(str(msg["Subject"]) + "\n" + text_of(msg))
        words = english_words(text, terms)
        if words:
            leaks[f"mail {n} to {to}"] = words
    assert not leaks, leaks

    client = create_app(gw.service).test_client()
    for page in (f"/games/{table.game_id}/history?lang={lang}", f"/games/{table.game_id}/board.svg?lang={lang}"):
        body = client.get(page).get_data(as_text=True)
        assert not english_words(readable(re.sub(r"<[^>]+>", " ", body)), terms), page


@pytest.mark.parametrize(("game", "lang"), SPOKEN)
def test_the_turn_file_is_in_the_players_language(gw, transport, clock, game, lang):
    for player in PLAYERS:
        confirmed(gw, transport, player, f"language {lang}")
    game_id = gw.service.create(game, list(PLAYERS), {}, seed=bytes(range(32)))
    for player in PLAYERS:
        gw.service.join(game_id, player)
    gw.work()
    seat = gw.service.summary(game_id)["waiting_for"][0]["seat"]
    transport.clear()
    gw.receive(make_mail(PLAYERS[seat], address_of(gw, game_id, PLAYERS[seat]), "template"))
    gw.work()
    (reply,) = transport.to(PLAYERS[seat])
    text = text_of(reply)
    header = {"cs": "\nfáze: ", "pl": "\nfaza: "}[lang]
    assert header in text, "the reply carries the turn file, its header in the player's words"
    assert not english_words(readable(text), english_terms(game, lang)), text


@pytest.mark.parametrize("lang", ("cs", "pl"))
def test_help_at_a_game_address_lists_the_games_moves_in_the_players_words(gw, transport, clock, lang):
    for player in PLAYERS:
        confirmed(gw, transport, player, f"language {lang}")
    game_id = gw.service.create("kingsburg", list(PLAYERS), {}, seed=bytes(range(32)))
    for player in PLAYERS:
        gw.service.join(game_id, player)
    gw.work()
    transport.clear()
    gw.receive(make_mail(PLAYERS[0], address_of(gw, game_id, PLAYERS[0]), "help"))
    gw.work()
    (reply,) = transport.to(PLAYERS[0])
    assert {"cs": "ovlivni 8 s 5 3", "pl": "wpłyń 8 z 5 3"}[lang] in text_of(reply)


def accentless(text: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch)).replace("ł", "l")


@pytest.mark.parametrize("lang", ("cs", "pl"))
@pytest.mark.parametrize("game", ("kingsburg", "kingdom-builder", "ruse-and-bruise", "warriors-traders"))
def test_every_move_offered_in_the_players_words_parses_back_with_or_without_accents(game, lang):
    spec = get_spec(game)
    rng = SeededRng(7)
    state = evolve_all(spec.evolve, None, spec.setup(2, {}, rng))
    checked = 0
    for _step in range(60):
        seats = spec.to_move(state)
        if not seats:
            break
        seat = seats[0]
        moves = spec.legal_moves(state, seat)
        with i18n.speaking(lang):
            for move in moves[:25]:
                said = spec.say_move(move)
                assert spec.parse_move(state, seat, said) == move, said
                assert spec.parse_move(state, seat, accentless(said)) == move, said
                checked += 1
        state = evolve_all(spec.evolve, state, spec.decide(state, seat, moves[0], rng))
    assert checked > 20


def test_the_board_picture_is_drawn_in_each_readers_language(gw, transport):
    game_id = gw.service.create("kingsburg", list(PLAYERS), {}, seed=bytes(range(32)))
    for player in PLAYERS:
        gw.service.join(game_id, player)
    client = create_app(gw.service).test_client()
    english = client.get(f"/games/{game_id}/board.svg?lang=en")
    czech = client.get(f"/games/{game_id}/board.svg?lang=cs")
    assert "turn order: " in english.get_data(as_text=True)
    assert "pořadí tahů: " in czech.get_data(as_text=True)
    assert "Accept-Language" in czech.headers.get("Vary", "")


# Warriors & Traders reads its orders in the glossary's Polish words, whatever language it answers in
POLISH = {
    "develop": "rozwiń",
    "build": "zbuduj",
    "fort": "twierdza",
    "upgrade": "wzmocnij",
    "war": "wojna",
    "pass": "pasuj",
    "done": "gotowe",
    "shift": "przesuń",
    "route": "szlak",
    "offer": "oferta",
    "accept": "przyjmij",
    "decline": "odrzuć",
    "peace": "pokój",
    "move": "ruch",
    "princess": "księżniczka",
    "refuge": "odwrót",
    "starve": "głoduj",
    "production": "produkcja",
    "trade": "handel",
    "military": "wojsko",
    "infantry": "piechota",
    "archer": "łucznik",
    "cavalry": "jazda",
    "food": "żywność",
    "goods": "towary",
    "weapons": "broń",
    "gold": "złoto",
    "for": "za",
    "and": "i",
}


def test_warriors_and_traders_orders_in_polish_words_mean_the_english_ones():
    spec = get_spec("warriors-traders")
    rng, choose = SeededRng(5), random.Random(5)
    state = evolve_all(spec.evolve, None, spec.setup(2, {}, rng))
    verbs = set()
    for _step in range(200):
        seats = spec.to_move(state)
        if not seats:
            break
        seat = seats[0]
        moves = spec.legal_moves(state, seat)
        for move in moves[:30]:
            english = spec.format_move(move)
            polish = " ".join(POLISH.get(word, word) for word in english.split())
            assert spec.parse_move(state, seat, polish) == move, polish
            assert spec.parse_move(state, seat, accentless(polish)) == move, polish
            verbs.add(english.split()[0])
        move = moves[choose.randrange(len(moves))]
        state = evolve_all(spec.evolve, state, spec.decide(state, seat, move, rng))
    assert len(verbs) >= 10
