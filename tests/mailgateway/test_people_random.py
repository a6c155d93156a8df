"""Random games by mail with the people of issue 32 (its long test): each game is created and
played through the mail gateway (``Gateway.receive`` and its background work, with a test
clock), with random deadlines or correspondence clocks (with weekends off in random time
zones), absences, substitutes, proposals (pause, end, kick) with their votes or lapses, undos with their
consents or lapses, and time passing so that deadlines, reminders and the robot act. After
every step the contract's invariants hold: the live state is the replay of the log
(``LoadedGame.rewound``: the fold of the moves in play), no mail to a player carries another
seat's private address, and ``pbem verify`` passes on the export (with the rules replay once
the game has ended). Substitutes are invited for random seats (refused unless the robot plays
the seat or its player missed a deadline) and mostly join.

One game per game in ``make test`` (seconds); ``PBEM_LONG_PEOPLE_GAMES`` per game (default 250,
1,000 in all) in ``make test-long``; ``.ci/run`` plays 25 per game."""

from __future__ import annotations

import email
import os
import random
from datetime import timedelta
from email import policy

import pytest

from pbem.games import catalog
from pbem.ledger import proposals, withdrawals
from pbem.ledger.verify import export_bytes, verify_bytes
from tests.mailgateway.conftest import SERVICE, address_of, make_mail

NAMES = [name for name in ("kingsburg", "kingdom-builder", "warriors-traders", "ruse-and-bruise") if name in catalog()]
PLAYERS = ["ann@example.org", "bob@example.org", "cyril@example.org"]
ZONES = ["Europe/Prague", "Europe/Warsaw", "America/New_York", "Asia/Tokyo", "UTC"]
STEPS = 36  # then everybody resigns and the robots finish the game


class Table:
    """One random game by mail, and what it counts."""

    def __init__(self, gw, clock, transport, name: str, seed: int):
        self.gw, self.clock, self.transport = gw, clock, transport
        self.chooser = random.Random(seed)
        self.name = name
        self.counts: dict[str, int] = {}
        self.game_id = ""
        self.players: list[str] = []

    def count(self, what: str) -> None:
        self.counts[what] = self.counts.get(what, 0) + 1

    def mail(self, player: str, to: str, body: str) -> None:
        self.gw.receive(make_mail(player, to, body))
        self.gw.work()

    def seat_mail(self, seat: int, body: str) -> None:
        player = self.gw.service.game(self.game_id).emails[seat]  # a substitute's, after a hand-over
        self.mail(player, address_of(self.gw, self.game_id, player), body)

    def options(self) -> str:
        pick = self.chooser
        if pick.random() < 0.5:
            return f"deadline={pick.choice([12, 24, 48, 72])} vacation={pick.choice([3, 10, 21])}"
        bank, move = pick.choice([2, 3, 7]), pick.choice([0, 12, 24])
        weekend = " weekend=off" if pick.random() < 0.5 else ""
        return f"clock={bank}d+{move}h clock.max={bank + 3}d{weekend}"

    def create(self) -> None:
        pick = self.chooser
        self.players = PLAYERS[: pick.choice([2, 3]) if self.name != "ruse-and-bruise" else 2]
        for player in self.players:  # each player's time zone, for weekends off
            self.mail(player, SERVICE, f"timezone {pick.choice(ZONES)}")
        before = set(self.gw.service.game_ids())
        self.mail(self.players[0], SERVICE, f"new {self.name} {' '.join(self.players)} {self.options()}")
        made = set(self.gw.service.game_ids()) - before
        if not made:  # the daily limit of new games: a day later
            self.clock.advance(days=1)
            self.mail(self.players[0], SERVICE, f"new {self.name} {' '.join(self.players)} {self.options()}")
            made = set(self.gw.service.game_ids()) - before
        (self.game_id,) = made
        for seat in range(len(self.players)):
            self.seat_mail(seat, "join")

    # -- one step --------------------------------------------------------------------------
    def step(self) -> None:
        game = self.gw.service.game(self.game_id)
        entries = game.entries
        asked = proposals.open_proposal(entries, self.clock())
        if asked is not None and self.chooser.random() < 0.8:
            return self.vote(game, asked)
        undo = withdrawals.pending(entries)
        if undo is not None and self.chooser.random() < 0.7:
            for seat in sorted(withdrawals.missing_consents(entries, undo, len(game.names), game.robots)):
                word = self.chooser.choice(["accept", "přijmout", "akceptuj"])
                self.seat_mail(seat, f"{word} {undo['index'] + 1}")  # as the request's mail says
            return self.count("consented")
        roll = self.chooser.random()
        if roll < 0.45:
            return self.move(game)
        if roll < 0.57:
            return self.undo(game)
        if roll < 0.74:
            return self.propose(game)
        if roll < 0.79:
            return self.absence()
        if roll < 0.87:
            return self.substitute(game)
        self.clock.advance(hours=self.chooser.choice([1, 6, 20, 50, 80]))
        self.gw.work()
        return self.count("time")

    def humans(self, game) -> list[int]:
        return [seat for seat in range(len(game.names)) if seat not in game.robots]

    def move(self, game) -> None:
        state = self.gw.service.state(game)
        waiting = [seat for seat in sorted(game.spec.to_move(state)) if seat not in game.robots]
        if not waiting:
            return
        seat = self.chooser.choice(waiting)
        self.seat_mail(seat, self.chooser.choice(game.spec.legal_texts(state, seat, limit=10_000)))
        self.count("move")

    def undo(self, game) -> None:
        newest = withdrawals.last_move(game.entries)
        if newest is not None and game.entries[newest].get("seat") in self.humans(game):
            self.seat_mail(game.entries[newest]["seat"], self.chooser.choice(["undo", "zpět", "cofnij"]))
            self.count("undo")

    def propose(self, game) -> None:
        humans = self.humans(game)
        if not humans:
            return
        seat = self.chooser.choice(humans)
        what = self.chooser.choice(["pause", "pause", "end", "kick", "kick"])
        others = [name for other, name in enumerate(game.names) if other != seat and other not in game.robots]
        line = {
            "pause": f"propose pause {self.chooser.randint(1, 10)}d",
            "end": "propose end",
            "kick": f"propose kick {self.chooser.choice(others or ['nobody'])}",
        }[what]
        self.seat_mail(seat, line)
        self.count("proposed")

    def vote(self, game, asked) -> None:
        missing = sorted(proposals.missing(game.entries, asked, len(game.names)))
        if self.chooser.random() < 0.15 or not missing:  # nobody answers: the votes lapse
            self.clock.advance(days=proposals.VOTE_DAYS, hours=1)
            self.gw.work()
            return self.count("lapsed")
        seat = self.chooser.choice(missing)
        self.seat_mail(seat, f"{'accept' if self.chooser.random() < 0.75 else 'decline'} {asked['index'] + 1}")
        self.count("vote")

    def substitute(self, game) -> None:
        """A player invites a substitute for another seat (refused unless the robot plays it or
        its player missed a deadline); the substitute mostly joins at once."""
        humans = self.humans(game)
        if not humans or len(game.names) < 2:
            return
        seat = self.chooser.choice(humans)
        others = [other for other in range(len(game.names)) if other != seat]
        robots = [other for other in others if other in game.robots]
        target = self.chooser.choice(robots if robots and self.chooser.random() < 0.7 else others)
        address = f"sub{self.counts.get('substitute', 0)}.{self.game_id}@example.org"
        self.seat_mail(
            seat, f"{self.chooser.choice(['substitute', 'náhradník', 'zastępca'])} {game.names[target]} {address}"
        )
        self.count("substitute")
        invited = [m for m in self.transport.to(address) if m["X-Pbem-Kind"] == "substitute"]
        if invited and self.chooser.random() < 0.8:
            self.mail(address, str(invited[-1]["Reply-To"]), "join")
            self.count("joined")

    def absence(self) -> None:
        start = (self.clock() + timedelta(days=self.chooser.randint(0, 3))).date()
        end = start + timedelta(days=self.chooser.randint(0, 4))
        self.seat_mail(self.chooser.randrange(len(self.players)), f"absence {start} {end}")
        self.count("absence")

    # -- the invariants ----------------------------------------------------------------------
    def check(self) -> None:
        game = self.gw.service.game(self.game_id)
        if game.started:
            assert self.gw.service.state(game) == game.rewound(game.version), "replay = live state"
        tokens = {self.gw.service.seat_token(self.game_id, seat): email for seat, email in enumerate(game.emails)}
        for _key, to, raw in self.transport.sent:
            text = readable(raw)
            leaked = [email for token, email in tokens.items() if token in text and email != to]
            assert not leaked, f"a mail to {to} carries the private address of {leaked}"
        self.transport.clear()

    def verified(self) -> None:
        game = self.gw.service.game(self.game_id)
        report = verify_bytes(export_bytes(self.gw.service.export(self.game_id)))
        assert report.entries == game.version
        if game.ended:
            assert any("replaying" in line for line in report.checked), report.checked

    def play(self, steps: int = STEPS) -> dict[str, int]:
        self.create()
        self.check()
        for number in range(steps):
            if self.gw.service.game(self.game_id).ended:
                break
            self.step()
            self.check()
            if number % 12 == 11:
                self.verified()
        for seat in range(len(self.players)):
            if not self.gw.service.game(self.game_id).ended:
                self.seat_mail(seat, "resign")
        self.check()
        game = self.gw.service.game(self.game_id)
        assert game.ended, "every seat resigned: the robots played the game to its end"
        self.verified()
        self.count("ended by agreement" if proposals.agreed_end(game.entries) else "ended")
        for kind in ("proposed", "voted", "decided", "undo", "withdrawn", "handed"):
            self.counts[f"entries {kind}"] = sum(1 for e in game.entries if e["kind"] == kind)
        return self.counts


def readable(raw: bytes) -> str:
    """A mail's headers and every text part, decoded."""
    message = email.message_from_bytes(raw, policy=policy.default)
    parts = [part.get_content() for part in message.walk() if part.get_content_maintype() == "text"]
    return "\n".join([str(message.items()), *parts])


def totals(tables: list[dict[str, int]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for counts in tables:
        for key, value in counts.items():
            out[key] = out.get(key, 0) + value
    return out


@pytest.mark.parametrize("name", NAMES)
def test_random_games_by_mail_with_people_keep_the_invariants(gw, clock, transport, name):
    found = totals([Table(gw, clock, transport, name, seed).play() for seed in (1,)])
    assert found.get("entries proposed", 0) > 0 and found.get("entries decided", 0) > 0, found


@pytest.mark.long
@pytest.mark.parametrize("name", NAMES)
def test_many_random_games_by_mail_with_people(gw, clock, transport, name):
    games = int(os.environ.get("PBEM_LONG_PEOPLE_GAMES", "250"))
    found = totals([Table(gw, clock, transport, name, 1000 + seed).play() for seed in range(games)])
    assert found.get("entries decided", 0) > 0 and found.get("entries handed", 0) > 0, found
    if name != "ruse-and-bruise":  # where every move plays a hidden card
        assert found.get("entries withdrawn", 0) > 0, found
