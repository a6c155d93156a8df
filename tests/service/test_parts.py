"""The game service's parts stand on their own: a writer on a repository and a signer plays a
game without the ``GameService`` facade, the reader has no command, and the web is given the
reader only (docs/architecture.md, "The game service's parts")."""

from __future__ import annotations

from pbem.ledger.verify import verify_export
from pbem.service.reading import GameReader
from pbem.service.repository import GameRepository
from pbem.service.service import GameService, GameWriter
from pbem.service.signer import CheckpointSigner
from tests.service.helpers import ANN, BOB

COMMANDS = ("create", "join", "submit", "resign", "say", "note", "work", "rotate_token")


def test_a_writer_on_a_repository_and_a_signer_plays_without_the_facade(settings):
    repository = GameRepository(settings)
    try:
        signer = CheckpointSigner(repository.settings.origin, repository.keys)
        reader = GameReader(repository, signer)
        writer = GameWriter(repository, signer, reader, lambda: "2026-01-01T00:00:00+00:00")
        game_id = writer.create("hidden-pig", [ANN, BOB], {"rounds": "1"}, b"\x01" * 32)
        writer.join(game_id, ANN)
        writer.join(game_id, BOB)
        game = repository.game(game_id)
        to_move = game.emails[game.spec.to_move(repository.state(game))[0]]
        assert writer.submit(game_id, to_move, ["roll"]).ok
        assert reader.game(game_id).version == 5  # created, two joins, started, the move
        assert verify_export(reader.export(game_id)).entries == 5  # raises on a bad signature
    finally:
        repository.close()


def test_the_reader_has_no_command(settings):
    service = GameService(settings)
    try:
        assert all(hasattr(service.writer, name) for name in COMMANDS)  # positive control
        assert [name for name in COMMANDS if hasattr(service.reader, name)] == []
    finally:
        service.close()


def test_the_web_is_given_the_reader_only(settings):
    from pbem.web import create_app

    service = GameService(settings)
    try:
        app = create_app(service, {"PBEM_SUMMARIES": object()})
        given = [value for value in app.extensions.values() if value is service or value is service.reader]
        assert given == [service.reader]
    finally:
        service.close()
