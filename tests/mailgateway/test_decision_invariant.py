"""The decision invariant (issue 28): after any committed version, every seat the game waits on
has been sent (or has queued) a mail showing its decision as it stands at the latest version.

A stateful property test for all four games, on SQLite and PostgreSQL: in each round several of
the players the game waits on answer by mail (each on the game as it stands when they write,
as in a simultaneous step such as Kingsburg's gifts), then the gateway's worker runs once; after
it, every waited seat's newest mail about the game carries its current decision. Small, in
`make test`; the long size is off for now (see the parametrize below)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from mailgateway.gateway import Gateway
from pbem import i18n
from pbem.games import catalog
from pbem.mailroom.news import decision
from pbem.mailroom.settings import MailSettings
from pbem.service.service import GameService
from tests.mailgateway.conftest import Clock, Memory, address_of, make_mail

GAMES = ["kingsburg", "kingdom-builder", "warriors-traders", "ruse-and-bruise"]
PLAYERS = ["ann@example.net", "bob@example.net", "cy@example.net", "dee@example.net"]
SIZES = {"default": (2, 8), "long": (25, 40)}  # examples, rounds of mail per example
_seeds = itertools.count(1)


def test_the_games_are_all_four():
    # the test suite's own games are left out (Long Pig is there when another test in the same
    # worker registered the benchmarks' long game)
    assert sorted(GAMES) == sorted(name for name in catalog() if name not in ("hidden-pig", "long-pig"))


def _machine(gw: Gateway, game_type: str, players: int) -> type[RuleBasedStateMachine]:
    class Players(RuleBasedStateMachine):
        """A game by mail, its players answering several to a round."""

        @initialize()
        def start(self) -> None:
            service = gw.service
            seed = next(_seeds).to_bytes(4, "big") * 8
            self.game_id = service.create(game_type, PLAYERS[:players], {}, seed=seed)
            for player in PLAYERS[:players]:
                service.join(self.game_id, player)
            gw.work()

        def _game_and_state(self):
            game = gw.service.game(self.game_id)
            return game, gw.service.state(game)

        @rule(data=st.data())
        def a_round_of_mail(self, data: st.DataObject) -> None:
            game, state = self._game_and_state()
            if game.ended or state is None:
                return
            waited = list(game.spec.to_move(state))
            if not waited:
                return
            answering = data.draw(st.lists(st.sampled_from(waited), min_size=1, max_size=len(waited), unique=True))
            for seat in answering:  # each answers the game as it stands when they write
                game, state = self._game_and_state()
                if game.ended or seat not in game.spec.to_move(state):
                    continue
                moves = game.spec.legal_texts(state, seat, limit=200)
                if not moves:
                    continue
                move = data.draw(st.sampled_from(moves))
                player = game.emails[seat]
                gw.receive(make_mail(player, address_of(gw, self.game_id, player), move))
            gw.work()

        @invariant()
        def every_waited_seat_has_its_current_decision(self) -> None:
            if not hasattr(self, "game_id"):
                return
            game, state = self._game_and_state()
            if game.ended or state is None:
                return
            for seat in game.spec.to_move(state):
                email = game.emails[seat]
                models = gw.mailroom.views.latest_models(email, self.game_id)
                blocks = [m["game"] for m in models if (m.get("game") or {}).get("id") == self.game_id]
                newest = max(blocks, key=lambda block: block["version"])
                with i18n.speaking(models[0].get("lang") or "en"):
                    now = decision(game, state, seat)
                assert newest["decision"] == now, f"seat {seat} of {game.id} at {game.version} lacks its decision"

    return Players


@pytest.mark.parametrize("game_type", GAMES)
# The long size ("long" in SIZES) is not run: in make test-long it failed with hypothesis's
# FlakyStrategyDefinition, because each example's game seed comes from a process-wide counter and
# every example shares one gateway (its per-address budgets fill up across examples), so a
# replayed example is not the same game. It comes back when both are per example.
@pytest.mark.parametrize("size", ["default"])
def test_every_waited_seat_is_mailed_its_current_decision(settings, tmp_path, game_type, size):
    examples, rounds = SIZES[size]
    clock = Clock()
    service = GameService(settings, clock=lambda: clock().isoformat(timespec="seconds"))
    mail = MailSettings(address="pbem@example.org", maildir=tmp_path / "maildir", replies_per_hour=1_000_000)
    gw = Gateway(service, mail, clock=clock, transport=Memory())
    try:
        players = 3 if game_type != "kingdom-builder" else 2
        profile = hypothesis_settings()  # the loaded profile (tests/conftest.py), fewer examples
        run_state_machine_as_test(
            _machine(gw, game_type, players),
            settings=hypothesis_settings(
                profile, max_examples=min(profile.max_examples, examples), stateful_step_count=rounds
            ),
        )
    finally:
        service.close()


def test_two_players_answering_the_kings_aid_in_one_round_over_smtp(gw, transport, smtp):
    """The regression over real SMTP: Kingsburg's King's aid is answered by every player at once;
    when two answer before the worker's round, every seat still waited on has its decision."""
    players = PLAYERS[:3]
    game_id = gw.service.create("kingsburg", players, {}, seed=b"\x31" * 32)
    for player in players:
        gw.service.join(game_id, player)
    gw.work()
    for number, player in enumerate(players[:2]):
        to = address_of(gw, game_id, player)
        assert smtp(make_mail(player, to, "take gold", message_id=f"<aid{number}@example.net>"), player, to) == 250
    gw.work()
    game = gw.service.game(game_id)
    state = gw.service.state(game)
    waited = list(game.spec.to_move(state))
    assert waited, "the game waits on somebody"
    for seat in waited:
        models = gw.mailroom.views.latest_models(game.emails[seat], game_id)
        newest = max(
            (m["game"] for m in models if (m.get("game") or {}).get("id") == game_id), key=lambda b: b["version"]
        )
        assert newest["decision"] == decision(game, state, seat), f"seat {seat} lacks its decision"
