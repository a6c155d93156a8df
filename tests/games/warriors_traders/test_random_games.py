"""300 seeded random games (2-6 players, both maps, free-for-all and alliance, and the rules
options) with the game's invariants checked after every move."""

from collections import Counter

import pytest

from pbem.games.simulate import fold, play_random
from pbem.games.warriors_traders import SPEC
from pbem.games.warriors_traders.data import RULES
from pbem.games.warriors_traders.evolve import evolve
from pbem.games.warriors_traders.scoring import vp
from pbem.games.warriors_traders.state import ARMY_KINDS, BARBARIAN

OPTION_SETS = [{}, {"cavalry_level": "V", "attack_ap": "1"}, {"edition": "revised", "vp_purchase": "anyone"}]


def _cases():
    cases = []
    for players in range(2, 7):
        for map_name in ("west", "east"):
            for seed in range(24):
                cases.append((players, seed, {"map": map_name, **OPTION_SETS[seed % 3]}))
    for players, teams in ((4, "auto"), (4, "13/24"), (6, "auto"), (6, "12/34/56")):
        for map_name in ("west", "east"):
            for seed in range(8 if players == 4 else 7):
                cases.append(
                    (
                        players,
                        100 + seed,
                        {"map": map_name, "mode": "alliance", "teams": teams, **OPTION_SETS[seed % 3]},
                    )
                )
    return cases


CASES = _cases()


def _expected_vp(state, seat):
    """VP recomputed from the board, independently of scoring.py."""
    gmap = state.gmap
    provinces = sum(gmap.provinces[p].vp for p, o in zip(gmap.provinces, state.owners, strict=False) if o == seat)
    forts = 3 * sum(1 for u in state.units if u.owner == seat and u.kind == "fort")
    titles = 0
    for track in range(3):
        tokens = [p.tokens[track] for p in state.players]
        if tokens.count(max(tokens)) == 1 and tokens.index(max(tokens)) == seat:
            titles += 3
    player = state.players[seat]
    return provinces + forts + titles + player.kills + player.bought


def check_invariants(state):
    for seat, player in enumerate(state.players):
        assert min(player.stock) >= 0, f"negative stock {player.stock}"
        for kind in (*ARMY_KINDS, "princess"):
            assert sum(1 for u in state.units if u.owner == seat and u.kind == kind) <= 4
        assert sum(1 for u in state.units if u.owner == seat and u.kind == "fort") <= 8
        assert vp(state, seat) == _expected_vp(state, seat)
    present: dict[str, set[int]] = {}
    for u in state.units:
        assert u.damage >= 0
        if not u.engaged:
            present.setdefault(u.province, set()).add(u.owner)
    for province, holder in zip(state.gmap.provinces, state.owners, strict=False):
        here = present.get(province, set())
        players_here = {o for o in here if o != BARBARIAN}
        if holder is None:
            assert not players_here, f"{province} has player pieces {players_here} but no owner"
        else:
            assert holder in players_here, f"{province} owned by {holder} without its pieces"
            assert BARBARIAN not in here, f"{province} holds barbarians and player {holder}"
            teams = {state.players[o].team for o in players_here}
            assert len(teams) == 1, f"{province} holds pieces of enemies {players_here}"
    forts = Counter(u.province for u in state.units if u.kind == "fort")
    assert max(forts.values()) <= RULES.unit("fort")["max_per_province"]


def on_step(before, seat, move, facts, after):
    check_invariants(after)
    if not any(f["kind"] == "TurnEnded" for f in facts):
        return
    state = before
    for fact in facts:
        state = evolve(state, fact)
        if fact["kind"] == "TurnEnded":
            assert all(max(p.stock) <= 20 for p in state.players)
            assert all(u.damage == 0 and not u.retreated for u in state.units)


@pytest.mark.parametrize("chunk", range(6))
def test_seeded_random_games_keep_the_invariants(chunk, random_games):
    kinds: Counter[str] = Counter()
    chunk_cases = CASES[chunk::6]
    for players, seed, options in chunk_cases[: random_games(len(chunk_cases))]:
        play = play_random(SPEC, players, seed, options, on_step=on_step)
        standings = play.standings
        assert standings is not None and sorted(s.seat for s in standings) == list(range(players))
        assert fold(SPEC, play.facts) == play.state
        kinds.update(f["kind"] for f in play.facts)
    for kind in ("BattleResolved", "WarDeclared", "ArmyBuilt", "TrackDeveloped", "TurnEnded", "GameEnded"):
        assert kinds[kind] > 0, f"no {kind} in this chunk"


def test_there_are_at_least_300_games():
    assert len(CASES) >= 300
    assert {c[2].get("mode", "free-for-all") for c in CASES} == {"free-for-all", "alliance"}
