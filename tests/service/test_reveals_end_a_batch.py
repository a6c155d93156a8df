"""A command that turns up something hidden ends the batch, like a die roll: what follows it
in the same mail or `pbem move` is not applied, and no message about it depends on what was
revealed. Checked with twin games that differ only in one face-down card."""

import pytest

from pbem.service.service import GameService

ANN, BOB, CID = "ann@example.org", "bob@example.org", "cid@example.org"
PLAIN = ("king", "queen", "juliet")  # cards without an on-reveal ability


def _game(service: GameService, seed: bytes) -> str:
    game_id = service.create("ruse-and-bruise", [ANN, BOB, CID], seed=seed)
    for email in (ANN, BOB, CID):
        service.join(game_id, email)
    return game_id


def _seed_with(sqlite_settings, hidden: str) -> tuple[bytes, str]:
    """A seed whose opening hand gives Ann ``hidden`` and a plain card."""
    service = GameService(sqlite_settings)
    for number in range(300):
        seed = number.to_bytes(32, "big")
        hand = service.state(service.game(_game(service, seed))).hands[0]
        plain = [card for card in hand if card in PLAIN]
        if hidden in hand and plain:
            return seed, plain[0]
    pytest.fail(f"no seed deals Ann a {hidden} and a plain card")


def _bobs_two_plays(service: GameService, game_id: str, ann_plays: str):
    assert service.submit(game_id, ANN, [f"play {ann_plays} 1"]).ok
    hand = service.state(service.game(game_id)).hands[1]
    return service.submit(game_id, BOB, [f"play {hand[0]} 1", f"play {hand[1]} 2"])


@pytest.mark.parametrize("hidden", ["cloak", "traitor"])
def test_a_batch_ends_at_a_reveal_and_tells_nothing_of_the_hidden_card(hidden, sqlite_settings, tmp_path):
    from pbem.config import Settings

    seed, plain = _seed_with(sqlite_settings, hidden)
    twins = [GameService(Settings(home=tmp_path / name)) for name in ("hidden", "plain")]
    outcomes = [
        _bobs_two_plays(service, _game(service, seed), card)
        for service, card in zip(twins, (hidden, plain), strict=False)
    ]
    lines = [[line.to_dict() for line in outcome.lines] for outcome in outcomes]
    assert lines[0] == lines[1]  # the same words whichever card lay face down
    assert [line["status"] for line in lines[0]] == ["applied", "skipped"]
    assert outcomes[0].ok and outcomes[1].ok  # Bob's first play stands; he resends the second


def test_a_trailing_end_after_a_turn_that_ended_with_a_drawn_card_is_ignored(sqlite_settings):
    """Kingdom Builder: the third settlement ends the turn and draws the next terrain card (a
    reveal, so the batch ends there); an "end" after it has nothing left to do."""
    from pbem.games.base import SeededRng
    from pbem.games.simulate import fold

    service = GameService(sqlite_settings)
    game_id = service.create("kingdom-builder", [ANN, BOB], seed=bytes(32))
    for email in (ANN, BOB):
        service.join(game_id, email)
    game = service.game(game_id)
    spec, state = game.spec, service.state(game)
    seat = spec.to_move(state)[0]
    orders = []
    while seat in spec.to_move(state) and state.mandatory_pending():
        move = spec.legal_moves(state, seat)[0]
        orders.append(spec.format_move(move))
        state = fold(spec, spec.decide(state, seat, move, SeededRng(0)), state)
    assert seat not in spec.to_move(state)  # no tile yet: the turn ended by itself
    outcome = service.submit(game_id, game.emails[seat], [*orders, "end"])
    assert outcome.ok and [line.status for line in outcome.lines] == ["applied"] * len(orders) + ["ignored"]
