"""Long histories, built cheaply: a Hidden Pig variant with any number of rounds, and a builder
that writes a game's record exactly as the service would (one stored event per move, a signed
checkpoint after each, snapshots every ``PBEM_SNAPSHOT_INTERVAL`` events, a kept state every
``PBEM_SNAPSHOT_INTERVAL`` entries, sealed by the service's own ``keep_state``) without paying the
service's per-move load and full Merkle root, which would make a 10,000-event game quadratic
to build.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from eventsourcing.application import Application

from pbem.games import catalog, register
from pbem.games.base import Option, invalid
from pbem.ledger import entries as log
from pbem.ledger.canonical import canonical_bytes
from pbem.ledger.fairness import TEST_SEED_SCOPE, DrawRng, seed_commitment
from pbem.ledger.merkle import Frontier, leaf_hash
from pbem.ledger.notes import Checkpoint, sign_checkpoint
from pbem.service.service import GameService, seat_names
from pbem.service.store import GameRecord, PbemStore, game_uuid
from tests.support.hiddenpig import HiddenPig

PLAYERS = ["ann@example.org", "bob@example.org"]
TIME = "2026-01-01T00:00:00+00:00"


class RoundsOption(Option):
    def parse(self, text: str) -> str:
        if not text.isdigit() or not 1 <= int(text) <= 1_000_000:
            raise invalid(f"rounds must be a number from 1 to 1000000, not {text!r}")
        return text


class LongPig(HiddenPig):
    """Hidden Pig with any number of rounds (benchmarks and scale tests only)."""

    name = "long-pig"
    title = "Long Hidden Pig (benchmark game)"
    options = (RoundsOption("rounds", "turns each seat plays", "10"),)


SPEC = LongPig()


def register_games() -> None:
    """Register the test games (Hidden Pig and Long Pig) in this process."""
    from tests.support import hiddenpig

    if "hidden-pig" not in catalog():
        register(hiddenpig.SPEC)
    if SPEC.name not in catalog():
        register(SPEC)


class EventsOnlyStore(PbemStore):
    """The service's store without snapshots: reads replay every stored event, and a bulk save
    does not take a snapshot every N events (each would replay the events before it)."""

    def __init__(self, env: dict[str, str]):  # deliberately skips PbemStore's snapshot settings
        Application.__init__(self, env=env)
        self.start_caches()
        self.start_wakeup()


@dataclass
class Built:
    game_id: str
    events: int  # stored events (one per move, as the service stores them)
    entries: int  # log entries
    ended: bool


def build(svc: GameService, entries: int, seed: int = 0, finish: bool = False) -> Built:
    """A long-pig game with about ``entries`` log entries (exactly, unless ``finish``: then the
    game is played to its end, which adds the final reveal). Moves: roll, then hold unless a 1
    came up."""
    register_games()
    rounds = max(1, entries // 3) if finish else 1_000_000
    game_id = f"long-pig-{seed:04d}{entries:08d}"
    game_seed = bytes([seed % 256]) * 32
    options = {"rounds": str(rounds)}
    chooser = random.Random(seed)
    signer = svc.keys.signer()
    origin = svc.origin(game_id)
    tree = Frontier()
    batches: list[tuple[list, list, bytes]] = []  # entries, private parts, tree head after them
    interval = svc.settings.snapshot_interval
    kept: list[tuple[int, int, object, Frontier]] = []  # states the service keeps (Work.commit)
    state = None

    def add(batch: list[tuple[dict, dict]]) -> None:
        before = tree.size
        for entry, _ in batch:
            tree.append(leaf_hash(canonical_bytes(entry)))
        batches.append(([e for e, _ in batch], [p for _, p in batch], tree.root()))
        if interval and tree.size // interval > before // interval and state is not None:
            kept.append((tree.size, len(batches), state, tree.copy()))

    add(
        [
            log.created(
                game_id,
                TIME,
                SPEC.name,
                SPEC.rules_version,
                options,
                seat_names(PLAYERS),
                PLAYERS,
                game_seed,
                "test",
                seed_commitment(game_seed),
            )
        ]
    )
    add([log.joined(game_id, 1, TIME, 0, None)])
    rng = DrawRng(game_seed, TEST_SEED_SCOPE, [], 3)
    facts = SPEC.setup(2, options, rng)
    add([log.joined(game_id, 2, TIME, 1, None), log.started(game_id, 3, TIME, facts, rng.transcript)])
    for fact in facts:
        state = SPEC.evolve(state, fact)
    index = 4
    rolled = False
    while finish or index < entries:
        seat = SPEC.to_move(state)[0]
        move = "hold" if rolled or chooser.random() < 0.2 else "roll"
        rng = DrawRng(game_seed, TEST_SEED_SCOPE, [], index)
        facts = SPEC.decide(state, seat, move, rng)
        made = [log.moved(game_id, index, TIME, seat, "autoplay", move, move, facts, rng.transcript)]
        for fact in facts:
            state = SPEC.evolve(state, fact)
        rolled = move == "roll" and state.seat == seat
        index += 1
        if SPEC.outcome(state) is not None:
            made.append(log.ended(game_id, index, TIME, SPEC.outcome(state), game_seed))
            add(made)
            index += 1
            break
        add(made)
    record: GameRecord | None = None
    size = 0
    for batch_entries, batch_privates, head in batches:
        size += len(batch_entries)
        note = sign_checkpoint(Checkpoint(origin, size, head), signer)
        if record is None:
            record = GameRecord(game_id, batch_entries, batch_privates, note)
        else:
            record.append(batch_entries, batch_privates, note)
    assert record is not None
    bulk = EventsOnlyStore(svc.settings.store_env())
    bulk.save(record)
    bulk.close()
    for kept_size, version, at, frontier in kept:
        svc.keep_state(svc.signer, game_id, kept_size, version, at, frontier)
    if interval and len(batches) >= interval:  # the one snapshot a read of the latest version uses
        svc.store.take_snapshot(game_uuid(game_id), version=len(batches) // interval * interval)
    return Built(game_id, len(batches), size, SPEC.outcome(state) is not None)
