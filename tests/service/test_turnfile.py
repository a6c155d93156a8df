"""Turn files: checked whole, every error listed with its line number."""

import pytest

from pbem import i18n
from pbem.games.base import ErrorCode
from pbem.service.service import GameService
from pbem.service.turnfile import looks_like_turn_file, parse_turn_file
from tests.service.helpers import started_pig, to_move_email


@pytest.fixture
def service(sqlite_settings):
    return GameService(sqlite_settings)


def test_header_and_orders_are_read_with_line_numbers():
    turn = parse_turn_file("# my turn\ngame: g-1\nplayer: a@b.c\nversion: 7\n\nroll\n# thinking\nhold\n")
    assert turn.header == {"game": "g-1", "player": "a@b.c", "version": "7"}
    assert turn.orders == [(6, "roll"), (8, "hold")]
    assert looks_like_turn_file("\n# x\nGame: g-1\n")


def test_a_wrong_turn_file_lists_every_error_and_applies_nothing(service):
    game_id = started_pig(service)
    mover = to_move_email(service, game_id)
    version = service.game(game_id).version
    text = f"game: {game_id}\nplayer: {mover}\n\nfly\nhold\nswim\n"
    outcome = service.submit_turn_file(text, mover)
    assert [(r.line, r.status) for r in outcome.lines] == [(4, "rejected"), (5, "applied"), (6, "rejected")]
    assert service.game(game_id).version == version


def test_a_turn_file_from_another_sender_is_refused(service):
    game_id = started_pig(service)
    outcome = service.submit_turn_file(f"game: {game_id}\nplayer: ann@example.org\nhold\n", "eve@example.org")
    assert outcome.error.code is ErrorCode.NOT_A_PLAYER


def test_a_turn_file_without_header_is_refused(service):
    outcome = service.submit_turn_file("hold\n", "ann@example.org")
    assert outcome.error.code is ErrorCode.SYNTAX and "'game:'" in outcome.error.message


def test_a_turn_file_for_an_old_version_is_stale(service):
    game_id = started_pig(service)
    mover = to_move_email(service, game_id)
    outcome = service.submit_turn_file(f"game: {game_id}\nplayer: {mover}\nversion: 2\nhold\n", mover)
    assert outcome.error.code is ErrorCode.STALE


def test_a_good_turn_file_is_applied(service):
    game_id = started_pig(service)
    mover = to_move_email(service, game_id)
    version = service.game(game_id).version
    outcome = service.submit_turn_file(f"game: {game_id}\nplayer: {mover}\nversion: {version}\nhold\n", mover)
    assert outcome.ok and service.game(game_id).entries[-1]["source"] == "turnfile"


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("cs", "Hlavička souboru tahů je chybná: řádek 3: hlavička uvádí 'hra' dvakrát; verze musí být číslo"),
        ("pl", "Nagłówek pliku tury jest błędny: wiersz 3: nagłówek podaje 'gra' dwa razy; wersja musi być liczbą"),
        ("en", "The turn file's header is wrong: line 3: the header names 'game' twice; version must be a number"),
    ],
)
def test_a_wrong_header_is_explained_in_the_players_language(service, lang, said):
    """The header's problems are sentences of the service, so they come from the catalogs like
    every other refusal ("line 3: the header names ..." was English in Czech and Polish mails);
    the word named twice is the one the player wrote. English is the positive control."""
    game_id = started_pig(service)
    mover = to_move_email(service, game_id)
    word = {"cs": "hra", "pl": "gra", "en": "game"}[lang]
    text = f"{word}: {game_id}\nplayer: {mover}\n{word}: {game_id}\nversion: 7x\nhold\n"
    with i18n.speaking(lang):
        outcome = service.submit_turn_file(text, mover)
    assert outcome.error is not None and outcome.error.code is ErrorCode.SYNTAX
    assert said in outcome.error.message
