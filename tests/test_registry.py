"""The registry finds every game package, and every game package imports."""

from pbem.games import broken, catalog, get_spec
from pbem.games.base import ErrorCode, GameError

PRODUCT_GAMES = {"kingsburg", "kingdom-builder", "ruse-and-bruise", "warriors-traders"}


def test_every_game_package_imports():
    assert broken() == {}


def test_every_product_game_is_registered_with_its_name():
    assert set(catalog()) >= PRODUCT_GAMES


def test_an_unknown_game_is_refused_with_its_code():
    try:
        get_spec("chess")
    except GameError as error:
        assert error.code is ErrorCode.UNKNOWN_GAME and "kingsburg" in error.message
    else:
        raise AssertionError("chess was found")
