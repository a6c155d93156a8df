"""A Hidden Pig game played a few moves, shared by the consistency and witness tests."""

from __future__ import annotations

import pytest

from pbem.config import Settings
from pbem.service.service import GameService
from tests.service.helpers import started_pig, to_move_email


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    service = GameService(Settings(home=tmp_path_factory.mktemp("home")))
    game_id = started_pig(service, rounds="3")
    for _ in range(4):
        service.submit(game_id, to_move_email(service, game_id), ["hold"])
    yield service, game_id
    service.close()
