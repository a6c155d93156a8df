"""Conformance at scale, for `make test-long` only (marker ``long``; the default run deselects
it): 10,000 seeded random games per game, over every player count and random option values,
each checked for the contract's invariants:

* replay: folding the stored (JSON) facts gives the live state;
* views leak nothing: no seat's view (nor the public one) shows a text that only ever
  appeared in secret parts addressed to others;
* notation: ``parse(format(move)) == move`` for every move played;
* refusals change nothing: a move by a seat that is not to move, a command that is not a
  command, and moves played earlier in the game that are not legal now (tried by the seat to
  move) are refused and leave the state equal to a deep copy taken before;
* the referee: the independent model of scoring and the end of the game
  (``tests/referee/models.py``, written from the rulebooks) gives the engine's standings
  (Warriors & Traders alliance games excepted: the referee models free-for-all).

PBEM_LONG_GAMES sets the number of games per game (default 10,000).
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import random

import pytest

from pbem.games import catalog
from pbem.games.base import SECRET, GameError, GameSpec, SeededRng
from pbem.games.simulate import fold, play_random
from tests.referee.models import REFEREES

pytestmark = pytest.mark.long

GAMES = int(os.environ.get("PBEM_LONG_GAMES", "10000"))
CHUNK = 100
NAMES = ["kingsburg", "kingdom-builder", "warriors-traders", "ruse-and-bruise"]


def _options(spec: GameSpec, players: int, chooser: random.Random) -> dict[str, str]:
    """Random values for the options that list their choices; defaults when they clash."""
    raw = {o.key: chooser.choice(o.choices) for o in spec.options if o.choices}
    try:
        return spec.normalize_options(raw, players)
    except GameError:
        return spec.normalize_options({}, players)


def _strings(value, out: set[str]) -> set[str]:
    if isinstance(value, str):
        out.add(value)
    elif isinstance(value, list):
        for item in value:
            _strings(item, out)
    elif isinstance(value, dict):  # values only: keys are the shape of the data, not its content
        for item in value.values():
            _strings(item, out)
    return out


class _Secrets:
    """For each viewer, the texts seen in the open so far and those seen only in secret
    parts the viewer may not read."""

    def __init__(self, players: int):
        self.viewers = [None, *range(players)]
        self.public: dict[int | None, set[str]] = {v: set() for v in self.viewers}
        self.hidden: dict[int | None, set[str]] = {v: set() for v in self.viewers}

    def add(self, fact: dict) -> None:
        open_part = _strings({k: v for k, v in fact.items() if k != SECRET}, set())
        part = fact.get(SECRET)
        secret_part = _strings(part["data"], set()) if part is not None else set()
        for viewer in self.viewers:
            self.public[viewer] |= open_part
            if part is not None and viewer is not None and viewer in part["to"]:
                self.public[viewer] |= secret_part
            else:
                self.hidden[viewer] |= secret_part

    def leaked(self, viewer: int | None, view: dict, vocabulary: set[str]) -> set[str]:
        """Texts of ``view`` known only from secrets ``viewer`` may not read. Words of the
        game's own language (phase names, order words such as "trade") are public anyway."""
        return _strings(view, set()) & (self.hidden[viewer] - self.public[viewer] - vocabulary)


def _refusals_change_nothing(spec: GameSpec, state, players: int, seat: int, move, earlier: list) -> None:
    kept = copy.deepcopy(state)
    legal = spec.legal_moves(state, seat)
    for old in [m for m in earlier if m not in legal][-3:]:
        # W&T offers of any amounts are legal without being listed: then there is no refusal
        with contextlib.suppress(GameError):
            spec.decide(state, seat, old, SeededRng(0))
        assert state == kept, f"{spec.name}: deciding {old!r} changed the state"
    idle = [s for s in range(players) if s not in spec.to_move(state)]
    if idle:
        with pytest.raises(GameError):
            spec.decide(state, idle[0], move, SeededRng(0))
        assert state == kept
    with pytest.raises(GameError):
        spec.parse_move(state, seat, "@@ not a command @@")
    assert state == kept


def _play_checked(spec: GameSpec, players: int, seed: int) -> None:
    chooser = random.Random(seed)
    options = _options(spec, players, chooser)
    sampler = random.Random(-seed - 1)
    vocabulary: set[str] = set()
    earlier: list = []

    def on_step(before, seat, move, facts, after):
        assert spec.parse_move(before, seat, spec.format_move(move)) == move
        if len(vocabulary) < 10_000:
            for text in [spec.phase_label(before), *spec.legal_texts(before, seat)]:
                vocabulary.update(text.replace(",", " ").replace(":", " ").split())
        if sampler.random() < 0.05:
            _refusals_change_nothing(spec, before, players, seat, move, earlier)
        earlier[:] = [*earlier[-49:], move]

    play = play_random(spec, players, seed, options, on_step=on_step)
    assert play.standings is not None and spec.to_move(play.state) == []
    assert fold(spec, json.loads(json.dumps(play.facts))) == play.state
    if not (spec.name == "warriors-traders" and play.state.config.alliance):
        expected = REFEREES[spec.name](play.state, play.facts)
        assert {s.seat: (s.rank, s.score) for s in play.standings} == expected, f"{spec.name} seed {seed}: referee"
    secrets, state = _Secrets(players), None
    for fact in play.facts:  # the views along the way, as each viewer could have seen them
        secrets.add(fact)
        state = spec.evolve(state, fact)
        if sampler.random() < 0.05:
            for viewer in secrets.viewers:
                leaked = secrets.leaked(viewer, spec.view(state, viewer), vocabulary)
                assert not leaked, f"{spec.name} seed {seed}: the view of {viewer} shows {sorted(leaked)[:5]}"


def _chunks():
    for name in NAMES:
        for start in range(0, GAMES, CHUNK):
            yield pytest.param(name, start, id=f"{name}-{start}")


@pytest.mark.parametrize(("name", "start"), list(_chunks()))
def test_seeded_random_games_keep_the_contract(name, start):
    spec = catalog()[name]
    counts = list(range(spec.min_players, spec.max_players + 1))
    for seed in range(start, min(start + CHUNK, GAMES)):
        _play_checked(spec, counts[seed % len(counts)], seed)
