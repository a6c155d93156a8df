from pbem.service.service import GameService

ANN, BOB = "ann@example.org", "bob@example.org"


def started_pig(service: GameService, seed: bytes | None = b"\x01" * 32, rounds: str = "2") -> str:
    game_id = service.create("hidden-pig", [ANN, BOB], {"rounds": rounds}, seed)
    service.join(game_id, ANN, "ann's nonce")
    service.join(game_id, BOB)
    return game_id


def to_move_email(service: GameService, game_id: str) -> str:
    game = service.game(game_id)
    return game.emails[game.spec.to_move(service.state(game))[0]]
