"""The candidates ``has_choice`` and ``legal`` check leave out two kinds of move that would
all be refused: actions in the special step of a seat with no special slot left, and
exchanges, routes and offers of a seat that may not trade. This checks, over random games,
that every such move is indeed refused whenever it is left out (so the legal moves are the
same as when they were listed and refused one by one)."""

from pbem.games.simulate import play_random
from pbem.games.warriors_traders import SPEC, rules, trade
from pbem.games.warriors_traders import development as dev
from pbem.games.warriors_traders.data import RESOURCES


def _trade_moves(state, seat):
    countries = [p.country for p in state.players]
    yield from (("bank", g, w, n) for g in RESOURCES for w in RESOURCES for n in (1, 2))
    yield from (("route", c) for c in countries)
    yield from (("offer", c, ((g, 1),), ((w, 1),)) for c in countries for g in RESOURCES for w in RESOURCES if g != w)


class Skipped:
    def __init__(self):
        self.special = self.trade = 0

    def __call__(self, before, seat, move, facts, after):
        state = before
        for fact in facts:  # the automatic steps pass through states no move is made in
            state = SPEC.evolve(state, fact)
            self.check(state)

    def check(self, state):
        for s in rules.to_move(state):
            if rules.current_step(state) == "special" and not dev.specials_left(state, s):
                self.special += 1
                assert all(rules.why_not(state, s, m) is not None for m in dev.action_candidates(state, s))
            if state.phase == "trade" and trade._may_trade(state, s) is not None:
                self.trade += 1
                assert all(rules.why_not(state, s, m) is not None for m in _trade_moves(state, s))


def test_the_moves_left_out_are_all_refused():
    seen = Skipped()
    for players, seed in ((2, 0), (3, 1), (4, 2)):
        assert play_random(SPEC, players, seed, on_step=seen).state.phase == "over"
    assert seen.special > 5 and seen.trade > 5
