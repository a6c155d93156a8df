"""Games started rich (every player 12 of each good) with a builder policy, so the late
buildings (Cathedral, Wizards' Guild, Fortress, Merchants' Guild, Embassy, ...) and their
abilities are exercised; the same invariants as the random games are checked."""

import random
from collections import Counter
from dataclasses import replace

from pbem.games.base import SeededRng
from pbem.games.kingsburg import SPEC
from pbem.games.kingsburg.data import BUILDINGS
from pbem.games.kingsburg.moves import Build, Influence, Pass, Take
from pbem.games.kingsburg.state import STOCK_KEYS, row_prefix_ok

from .support import new_game, run

GAMES = 100


def builder_move(state, seat, chooser: random.Random):
    """Build the rightmost building it can; rarely recruit; never decline a gift."""
    moves = SPEC.legal_moves(state, seat)
    builds = [m for m in moves if isinstance(m, Build)]
    if builds:
        return max(builds, key=lambda m: (BUILDINGS[m.building].column, chooser.random()))
    if state.step == "recruit" and chooser.random() < 0.7:
        return Pass()
    keen = [m for m in moves if m not in (Pass(), Take(())) and not (isinstance(m, Influence) and m.choice == Take(()))]
    pool = keen if keen and chooser.random() < 0.9 else moves
    return pool[chooser.randrange(len(pool))]


def play_rich(players: int, seed: int) -> tuple[object, Counter]:
    options = {"reinforcements": ("die", "difference", "tokens")[seed % 3]}
    state = new_game(players, order=list(range(players)), **options)
    rich = tuple(replace(p, gold=12, wood=12, stone=12) for p in state.players)
    state = replace(state, players=rich)
    vp = [0] * players
    dice, chooser = SeededRng(f"rich-{seed}"), random.Random(seed)
    state, facts = run(state, dice)
    seen = Counter(f["kind"] for f in facts)
    while SPEC.to_move(state):
        seat = chooser.choice(SPEC.to_move(state))
        facts = SPEC.decide(state, seat, builder_move(state, seat, chooser), dice)
        for fact in facts:
            state = SPEC.evolve(state, fact)
            seen[fact["kind"]] += 1
            seen.update(fact.get("destroyed", []))
            if fact["kind"] == "BuildingBuilt":
                seen[fact["building"]] += 1
            if "delta" in fact:
                vp[fact["seat"]] += fact["delta"].get("vp", 0)
        for s, p in enumerate(state.players):
            assert all(p.stock(k) >= 0 for k in STOCK_KEYS)
            assert p.vp == vp[s] and row_prefix_ok(p.buildings)
    assert state.over and SPEC.outcome(state)
    return state, seen


def test_rich_games_reach_every_building_and_keep_the_invariants():
    total = Counter()
    for seed in range(GAMES):
        _, seen = play_rich(2 + seed % 4, seed)
        total += seen
    for building in BUILDINGS:
        assert total[building] > 0, building
    for kind in (
        "CathedralScored",
        "EmbassyScored",
        "GuildGoldTaken",
        "TownHallUsed",
        "InnTokenTaken",
        "DiceRerolled",
        "EnvoyReturned",
        "TokensScored",
        "BestDefenderRewarded",
    ):
        assert total[kind] > 0, kind
