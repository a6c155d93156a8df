"""The game service on the event store: creation, joining, moves, versions, refusals,
idempotency, robots and turn files."""

import json

import pytest

from pbem.games.base import ErrorCode, GameError
from pbem.games.simulate import fold
from pbem.ledger.canonical import canonical_bytes
from pbem.service.service import GameService
from pbem.service.store import Receipt
from tests.service.helpers import ANN, BOB, started_pig, to_move_email


@pytest.fixture
def service(settings):
    svc = GameService(settings)
    yield svc
    svc.close()


def _snapshot(service, game_id):
    game = service.game(game_id)
    return canonical_bytes(game.entries), service.state(game)


def test_a_new_game_waits_for_every_seat_to_join(service):
    game_id = service.create("hidden-pig", [ANN, BOB])
    summary = service.summary(game_id)
    assert summary["started"] is False
    assert [w["name"] for w in summary["waiting_for"]] == ["ann", "bob"]
    assert service.submit(game_id, ANN, ["roll"]).error.code is ErrorCode.NOT_STARTED


def test_the_game_starts_when_the_last_seat_joins(service):
    game_id = service.create("hidden-pig", [ANN, BOB])
    service.join(game_id, BOB)
    assert not service.game(game_id).started
    service.join(game_id, ANN, "my nonce")
    game = service.game(game_id)
    assert [e["kind"] for e in game.entries] == ["created", "joined", "joined", "started"]
    assert game.entries[2]["nonce"] == "my nonce"


def test_joining_twice_is_refused(service):
    game_id = service.create("hidden-pig", [ANN, BOB])
    service.join(game_id, ANN)
    assert service.join(game_id, ANN).error.code is ErrorCode.ILLEGAL


def test_a_stranger_has_no_seat(service):
    game_id = started_pig(service)
    outcome = service.submit(game_id, "eve@example.org", ["roll"])
    assert outcome.error.code is ErrorCode.NOT_A_PLAYER


def test_create_refuses_bad_players_and_options(service):
    with pytest.raises(GameError, match="not a mail address"):
        service.create("hidden-pig", [ANN, "bob"])
    with pytest.raises(GameError, match="different mail address"):
        service.create("hidden-pig", [ANN, ANN.upper()])
    with pytest.raises(GameError, match="2 to 4 players"):
        service.create("hidden-pig", [ANN])
    with pytest.raises(GameError, match="Unknown option"):
        service.create("hidden-pig", [ANN, BOB], {"colour": "red"})
    with pytest.raises(GameError) as unknown:
        service.create("chess", [ANN, BOB])
    assert unknown.value.code is ErrorCode.UNKNOWN_GAME


def test_public_names_hide_the_mail_addresses(service):
    game_id = started_pig(service)
    exported = json.dumps(service.export(game_id))
    assert "example.org" not in exported
    assert service.summary(game_id)["seats"] == ["ann", "bob"]


def test_a_move_is_stored_as_facts_with_its_author_and_source(service):
    game_id = started_pig(service)
    mover = to_move_email(service, game_id)
    outcome = service.submit(game_id, mover, ["roll"], source="email")
    assert outcome.ok and outcome.version == 5
    entry = service.game(game_id).entries[4]
    assert entry["kind"] == "moved" and entry["source"] == "email" and entry["command"] == "roll"
    assert entry["facts"][0]["kind"] == "DieRolled"
    assert entry["draws"]["count"] == 1


def test_a_rejected_command_changes_nothing(service):
    game_id = started_pig(service)
    before = _snapshot(service, game_id)
    waiting = to_move_email(service, game_id)
    other = BOB if waiting == ANN else ANN
    for email, text in [(waiting, "fly"), (other, "roll")]:
        outcome = service.submit(game_id, email, [text])
        assert not outcome.ok
    assert _snapshot(service, game_id) == before


def test_a_rejection_says_why_and_what_is_legal(service):
    game_id = started_pig(service)
    outcome = service.submit(game_id, to_move_email(service, game_id), ["fly"])
    error = outcome.lines[0].error
    assert error.code is ErrorCode.SYNTAX and "'fly'" in error.message
    assert error.legal == ["roll", "hold"]


def test_a_batch_is_all_or_nothing_and_lists_every_error(service):
    game_id = started_pig(service)
    before = _snapshot(service, game_id)
    outcome = service.submit(game_id, to_move_email(service, game_id), ["jump", "hold", "fly"])
    assert [r.status for r in outcome.lines] == ["rejected", "applied", "rejected"]
    assert not outcome.ok and outcome.version == outcome.version_before
    assert _snapshot(service, game_id) == before


def test_commands_after_a_random_draw_are_not_applied_in_the_same_batch(service):
    game_id = started_pig(service)
    outcome = service.submit(game_id, to_move_email(service, game_id), ["roll", "hold"])
    assert [r.status for r in outcome.lines] == ["applied", "skipped"]
    assert outcome.ok
    assert service.game(game_id).entries[-1]["command"] == "roll"


def test_stale_version_is_refused(service):
    game_id = started_pig(service)
    version = service.game(game_id).version
    service.submit(game_id, to_move_email(service, game_id), ["hold"])
    outcome = service.submit(game_id, to_move_email(service, game_id), ["hold"], expected_version=version)
    assert outcome.error.code is ErrorCode.STALE
    assert service.game(game_id).version == version + 1


def test_the_same_idempotency_key_applies_once(service):
    game_id = started_pig(service)
    mover = to_move_email(service, game_id)
    first = service.submit(game_id, mover, ["hold"], idempotency_key="<m1@x>", context={"subject": "turn"})
    again = service.submit(game_id, mover, ["hold"], idempotency_key="<m1@x>")
    assert first.ok and not first.duplicate
    assert again.duplicate and again.version == first.version
    assert service.game(game_id).version == first.version
    assert service.store.receipt("<m1@x>").outcome["context"] == {"subject": "turn"}


def test_a_receipt_made_directly_is_stored_as_one_made_by_its_constructor(service):
    outcome = {"game": "g-1", "lines": [{"line": 1, "text": "hold"}], "context": {"subject": "ø"}}
    made, constructed = Receipt.of("<a@x>", "g-1", outcome), Receipt("<a@x>", "g-1", outcome)
    stored = [service.store.mapper.to_stored_event(r.collect_events()[0]) for r in (made, constructed)]
    assert (stored[0].originator_id, stored[0].originator_version, stored[0].topic) == (
        stored[1].originator_id,
        stored[1].originator_version,
        stored[1].topic,
    )
    states = [json.loads(s.state) for s in stored]
    for state in states:
        del state["timestamp"]  # the moment each was made
    assert states[0] == states[1]
    service.store.save(Receipt.of("<b@x>", "g-1", outcome))
    again = service.store.receipt("<b@x>")
    assert (again.key, again.game_id, again.outcome, again.version) == ("<b@x>", "g-1", outcome, 1)


def test_a_rejected_command_with_a_key_is_remembered_too(service):
    game_id = started_pig(service)
    mover = to_move_email(service, game_id)
    assert not service.submit(game_id, mover, ["fly"], idempotency_key="<bad@x>").ok
    assert service.submit(game_id, mover, ["hold"], idempotency_key="<bad@x>").duplicate


def test_state_at_version_n_equals_the_state_after_n_entries(service):
    game_id = started_pig(service)
    for _ in range(6):
        service.submit(game_id, to_move_email(service, game_id), ["roll"])
    game = service.game(game_id)
    for version in range(4, game.version + 1):
        facts = [
            f
            for private, entry in zip(game.privates[:version], game.entries[:version], strict=False)
            if entry["kind"] in ("started", "moved")
            for f in private["facts"]
        ]
        assert service.state(game, version) == fold(game.spec, facts)
    assert service.state(game, 3) is None


def test_replay_in_a_fresh_process_equals_the_live_state(settings):
    live = GameService(settings)
    game_id = started_pig(live)
    for _ in range(8):
        live.submit(game_id, to_move_email(live, game_id), ["roll"])
    fresh = GameService(settings)  # no cache: folds the stored facts
    assert fresh.state(fresh.game(game_id)) == live.state(live.game(game_id))
    assert fresh.summary(game_id, viewer=ANN) == live.summary(game_id, viewer=ANN)
    live.close()
    fresh.close()


def test_an_unknown_version_is_refused(service):
    game_id = started_pig(service)
    with pytest.raises(GameError, match="versions 1 to 4"):
        service.summary(game_id, version=99)


def test_a_seat_view_shows_its_own_secret_only(service):
    game_id = started_pig(service)
    ann, bob, public = (service.summary(game_id, viewer=e)["view"]["cards"] for e in (ANN, BOB, None))
    assert ann[0] is not None and ann[1] is None
    assert bob[1] is not None and bob[0] is None
    assert public == [None, None]


def test_history_opens_secrets_only_for_their_seat(service):
    game_id = started_pig(service)

    def dealt(viewer):
        started = service.history(game_id, viewer)[3]["entry"]
        return [f["secret"] for f in started["facts"] if f["kind"] == "CardDealt"]

    public = dealt(None)
    assert all("data" not in s and len(s["commitment"]) == 64 for s in public)
    ann = dealt(ANN)
    assert "data" in ann[0] and "data" not in ann[1]


def test_resigned_seat_is_played_by_the_robot_to_the_end(service):
    game_id = started_pig(service)
    service.resign(game_id, ANN)
    service.resign(game_id, BOB)
    game = service.game(game_id)
    assert game.ended
    assert {e["source"] for e in game.entries if e["kind"] == "moved"} == {"robot"}


def test_a_finished_game_refuses_moves(service):
    game_id = started_pig(service)
    service.resign(game_id, ANN)
    service.resign(game_id, BOB)
    assert service.submit(game_id, ANN, ["roll"]).error.code is ErrorCode.GAME_OVER


def test_seat_tokens_identify_their_seat_only(service):
    game_id = started_pig(service)
    tokens = [service.seat_token(game_id, seat) for seat in (0, 1)]
    assert tokens[0] != tokens[1]
    assert [service.seat_by_token(game_id, t) for t in tokens] == [0, 1]
    assert service.seat_by_token(game_id, "a" * 16) is None


def test_every_save_is_followed_by_a_signed_checkpoint(service):
    game_id = started_pig(service)
    service.submit(game_id, to_move_email(service, game_id), ["hold"])
    game = service.game(game_id)
    assert [size for size, _ in game.checkpoints] == [1, 2, 4, 5]
    proof = service.inclusion(game_id, 4)
    assert proof["size"] == 5 and proof["checkpoint"] == game.checkpoints[-1][1]


def test_a_trailing_turn_end_after_the_turn_ended_by_itself_is_ignored(service, monkeypatch):
    game_id = started_pig(service)
    spec = service.game(game_id).spec
    monkeypatch.setattr(type(spec), "turn_end_words", ("end",))
    outcome = service.submit(game_id, to_move_email(service, game_id), ["hold", "end"])
    assert outcome.ok and [r.status for r in outcome.lines] == ["applied", "ignored"]
    alone = service.submit(game_id, to_move_email(service, game_id), ["end"])
    assert not alone.ok  # without an earlier applied line, "end" is judged like any command


def test_every_stored_entry_is_logged_as_one_json_line(service):
    import io

    from pbem.logs import LOGGER, configure

    stream = io.StringIO()
    handler = configure(stream)
    try:
        game_id = started_pig(service)
        service.submit(game_id, to_move_email(service, game_id), ["hold"], source="email", idempotency_key="<k@x>")
    finally:
        LOGGER.removeHandler(handler)
        LOGGER.propagate = True
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [line["event"] for line in lines] == ["created", "joined", "joined", "started", "move"]
    move = lines[-1]
    assert move["game"] == game_id and move["version"] == 5 and move["source"] == "email"
    assert move["message_id"] == "<k@x>"
    assert "example.org" not in stream.getvalue()
