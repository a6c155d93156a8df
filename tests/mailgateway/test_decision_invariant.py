"""The decision invariant (issue 28): after any committed version, every seat the game waits on
has been sent (or has queued) a mail showing its decision as it stands at the latest version.

A stateful property test for all four games, on SQLite and PostgreSQL: in each round several of
the players the game waits on answer by mail (each on the game as it stands when they write,
as in a simultaneous step such as Kingsburg's gifts), then the gateway's worker runs once; after
it, every waited seat's newest mail about the game carries its current decision. Each example is
one game, its seed drawn by hypothesis, on a store and gateway of its own, so an example replays
as the same game (the budgets of one example's addresses never reach the next). Small in
`make test`, long in `make test-long`."""

from __future__ import annotations

import itertools
from contextlib import ExitStack

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
SIZES = {"default": (2, 8), "long": (8, 40)}  # examples, rounds of mail per example


def test_the_games_are_all_four():
    # the test suite's own games are left out (Long Pig is there when another test in the same
    # worker registered the benchmarks' long game)
    assert sorted(GAMES) == sorted(name for name in catalog() if name not in ("hidden-pig", "long-pig"))


def _machine(fresh_stores, game_type: str, players: int) -> type[RuleBasedStateMachine]:
    class Players(RuleBasedStateMachine):
        """A game by mail on a store of its own, its players answering several to a round."""

        @initialize(seed=st.binary(min_size=32, max_size=32))
        def start(self, seed: bytes) -> None:
            self.closing = ExitStack()
            settings = self.closing.enter_context(fresh_stores())
            clock = Clock()
            service = GameService(settings, clock=lambda: clock().isoformat(timespec="seconds"))
            self.closing.callback(service.close)
            # no board pictures: drawing them was half of each round's time, and the decision
            # is in the mail's text
            mail = MailSettings(
                address="pbem@example.org",
                maildir=settings.home / "maildir",
                replies_per_hour=1_000_000,
                pictures=False,
            )
            self.gw = Gateway(service, mail, clock=clock, transport=Memory())
            self.mails = itertools.count(1)
            self.game_id = service.create(game_type, PLAYERS[:players], {}, seed=seed)
            for player in PLAYERS[:players]:
                service.join(self.game_id, player)
            self.gw.work()

        def teardown(self) -> None:
            if hasattr(self, "closing"):
                self.closing.close()

        def _game_and_state(self):
            game = self.gw.service.game(self.game_id)
            return game, self.gw.service.state(game)

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
                to = address_of(self.gw, self.game_id, player)
                self.gw.receive(make_mail(player, to, move, message_id=f"<{next(self.mails)}@example.net>"))
            self.gw.work()

        @invariant()
        def every_waited_seat_has_its_current_decision(self) -> None:
            if not hasattr(self, "game_id"):
                return
            game, state = self._game_and_state()
            if game.ended or state is None:
                return
            for seat in game.spec.to_move(state):
                email = game.emails[seat]
                models = self.gw.mailroom.views.latest_models(email, self.game_id)
                blocks = [m["game"] for m in models if (m.get("game") or {}).get("id") == self.game_id]
                newest = max(blocks, key=lambda block: block["version"])
                with i18n.speaking(models[0].get("lang") or "en"):
                    now = decision(game, state, seat)
                assert newest["decision"] == now, f"seat {seat} of {game.id} at {game.version} lacks its decision"

    return Players


@pytest.mark.parametrize("game_type", GAMES)
@pytest.mark.parametrize("size", ["default", pytest.param("long", marks=pytest.mark.long)])
def test_every_waited_seat_is_mailed_its_current_decision(fresh_stores, game_type, size):
    examples, rounds = SIZES[size]
    players = 3 if game_type != "kingdom-builder" else 2
    profile = hypothesis_settings()  # the loaded profile (tests/conftest.py), fewer examples
    run_state_machine_as_test(
        _machine(fresh_stores, game_type, players),
        settings=hypothesis_settings(
            profile, max_examples=min(profile.max_examples, examples), stateful_step_count=rounds
        ),
    )


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
