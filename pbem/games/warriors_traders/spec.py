"""The ``GameSpec`` of Warriors & Traders: options, setup, the contract's methods and the
turn-file hooks. The rules live in the sibling modules; this file only ties them together."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.base import ErrorCode, FoldingGameSpec, GameError, Option, Rng, Standing, evolve_all, illegal, invalid
from pbem.games.speech import N_  # the options' help, said in the reader's language
from pbem.games.text import _, fitted
from pbem.games.warriors_traders import describe, moves, narrow, render, rules, scoring, words
from pbem.games.warriors_traders.data import MAPS
from pbem.games.warriors_traders.evolve import evolve
from pbem.games.warriors_traders.flow import follow_ups
from pbem.games.warriors_traders.robot import choose
from pbem.games.warriors_traders.state import BARBARIAN, State
from pbem.games.warriors_traders.view import view

Order = tuple[Any, ...]  # ("develop", "trade"), ("build", "infantry", "w_paris"), ...; see rules.py

AUTO_TEAMS = {4: "12/34", 6: "123/456"}


def parse_teams(text: str, players: int) -> list[int]:
    """Seat numbers (1-based) grouped by slashes, e.g. ``12/34`` or ``12/34/56``."""
    text = AUTO_TEAMS.get(players, "") if text == "auto" else text
    groups = [g for g in text.split("/") if g]
    seats = [c for g in groups for c in g]
    if (
        sorted(seats) != [str(i) for i in range(1, players + 1)]
        or len({len(g) for g in groups}) != 1
        or len(groups) < 2
    ):
        raise invalid(
            f"teams={text!r} must split seats 1..{players} into equal teams, like 12/34, 123/456 or 12/34/56."
        )
    teams = [0] * players
    for number, group in enumerate(groups):
        for c in group:
            teams[int(c) - 1] = number
    return teams


class WarriorsTraders(FoldingGameSpec[State, Order]):
    name = "warriors-traders"

    @property  # a title in the reader's language, read like the base class's attribute
    def title(self) -> str:  # type: ignore[override]
        """The title the rulebook of the language spoken now prints (Czech: Válečníci a obchodníci)."""
        return words.title()

    # 2: retreated armies get no action points; the turn-file and data fixes of issue 21
    # 3: peace at any decision, not only in the trade phase; unification again each turn by default
    rules_version = "3"
    min_players = 2
    max_players = 6
    options = (
        Option(
            "map",
            N_("board side: west (Western Europe) or east (Eastern Europe); both maps are approximations"),
            "west",
            ("west", "east"),
        ),
        Option(
            "mode",
            N_("free-for-all, or alliance (4 players 2v2, 6 players 3v3 or 2v2v2)"),
            "free-for-all",
            ("free-for-all", "alliance"),
        ),
        Option("teams", N_("alliance teams as seat numbers: auto (12/34, 123/456), or e.g. 13/24, 12/34/56"), "auto"),
        Option(
            "countries",
            N_("random: shuffled country cards; order: seat N plays country N"),
            "random",
            ("random", "order"),
        ),
        Option(
            "cavalry_level",
            N_("military level that unlocks cavalry (the seed says VI; NOTES 3.3.1)"),
            "VI",
            ("VI", "V"),
        ),
        Option(
            "attack_ap",
            N_("action points an army needs to enter a hostile province (2 = step + battle)"),
            "2",
            ("2", "1"),
        ),
        Option(
            "vp_purchase",
            N_("who may buy VP in the trade phase: trade-centre holders, or anyone"),
            "trade-centre",
            ("trade-centre", "anyone"),
        ),
        Option(
            "edition",
            N_("first (the seed) or revised (one extra infantry in each capital)"),
            "first",
            ("first", "revised"),
        ),
        Option(
            "unification",
            N_(
                "each-turn: whenever the country is held, once in a turn (the rulebook's "
                "'whenever'); once: once a game per player"
            ),
            "each-turn",
            ("each-turn", "once"),
        ),
    )

    # -- options and setup -----------------------------------------------------------------
    def normalize_options(self, raw: Mapping[str, str], players: int) -> dict[str, str]:
        options = super().normalize_options(raw, players)
        if options["mode"] == "alliance":
            if players not in (4, 6):
                raise invalid("Alliance games are for 4 players (2v2) or 6 players (3v3 or 2v2v2).")
            parse_teams(options["teams"], players)
        return options

    def setup(self, players: int, options: Mapping[str, str], rng: Rng) -> list[dict[str, Any]]:
        options = self.settings(players, options)
        gmap = MAPS[options["map"]]
        countries = [c.id for c in gmap.countries]
        chosen = rng.shuffle(countries)[:players] if options["countries"] == "random" else countries[:players]
        alliance = options["mode"] == "alliance"
        teams = parse_teams(options["teams"], players) if alliance else list(range(players))
        config = {
            "map": options["map"],
            "alliance": alliance,
            "cavalry_level": 5 if options["cavalry_level"] == "V" else 6,
            "attack_ap": int(options["attack_ap"]),
            "vp_anyone": options["vp_purchase"] == "anyone",
            "revised": options["edition"] == "revised",
        }
        if options["unification"] == "each-turn":  # absent in older games' facts: once a game
            config["unify_each_turn"] = True
        facts = [{"kind": "GameStarted", "players": players, "config": config, "countries": chosen, "teams": teams}]
        more, _after = follow_ups(evolve(None, facts[0]))
        return facts + more

    # -- the rules -------------------------------------------------------------------------
    def evolve(self, state: State | None, fact: dict[str, Any]) -> State:
        return evolve(state, fact)

    def to_move(self, state: State) -> list[int]:
        return rules.to_move(state)

    def legal_moves(self, state: State, seat: int) -> list[Order]:
        return rules.legal(state, seat) if seat in rules.to_move(state) else []

    def parse_move(self, state: State, seat: int, text: str) -> Order:
        return moves.parse_move(state, seat, text, lambda: self.legal_texts(state, seat))

    def seat_word(self, state: State, seat: int) -> str | None:
        return state.players[seat].country  # war, peace, route and offer name a country

    def format_move(self, move: Order) -> str:
        return moves.format_move(move)

    def say_move(self, move: Order) -> str:
        return moves.say_move(move)

    def say_command(self, text: str) -> str:
        public = {
            "assign damage": lambda: _("assign damage"),
            "place a starting token": lambda: _("place a starting token"),
        }
        return public[text]() if text in public else moves.say_text(text)

    def score_label(self, key: str) -> str:
        return words.score_label(key)

    def command_examples(self) -> list[str]:
        return [moves.say_text(text) for text in moves.EXAMPLES]

    def decide_and_fold(self, state: State, seat: int, move: Order, rng: Rng) -> tuple[list[dict[str, Any]], State]:
        if state.phase == "over":
            raise GameError(ErrorCode.GAME_OVER, _("The game is over."))
        if seat not in rules.to_move(state):
            raise GameError(
                ErrorCode.NOT_YOUR_TURN, _("You have nothing to do now ({step}).", step=rules.phase_name(state))
            )
        reason = (
            rules.why_not_on_turn(state, seat, move) if isinstance(move, tuple) and move else _("That is not an order.")
        )
        if reason:
            raise illegal(
                f"{moves.say_move(move) if isinstance(move, tuple) else move!r}: {reason}",
                self.legal_texts(state, seat),
            )
        facts = rules.move_facts(state, seat, move)
        more, after = follow_ups(evolve_all(evolve, state, facts))
        return facts + more, after

    def outcome(self, state: State) -> list[Standing] | None:
        return scoring.standings(state) if state.phase == "over" else None

    def view(self, state: State, viewer: int | None) -> dict[str, Any]:
        return view(state, viewer, self.phase_label(state))

    # -- presentation ------------------------------------------------------------------------
    def render_text(self, view: Mapping[str, Any], names: Sequence[str]) -> str:
        return fitted(render.render_text(view, names))

    def render_svg(self, view: Mapping[str, Any], names: Sequence[str]) -> str | None:
        return render.render_svg(view, names)

    def render_narrow_svg(self, view: Mapping[str, Any], names: Sequence[str]) -> str | None:
        return narrow.render_narrow_svg(view, names)

    def render_mail_svg(self, view: Mapping[str, Any], names: Sequence[str]) -> str | None:
        return narrow.render_mail_svg(view, names)

    def mail_caption(self, view: Mapping[str, Any], names: Sequence[str]) -> list[str]:
        return narrow.mail_caption(view, names)

    def describe_fact(self, fact: dict[str, Any], names: Sequence[str]) -> str:
        return describe.describe_fact(fact, names)

    def public_move_text(self, state: State, seat: int, move: Order) -> str:
        if move and move[0] in ("hit", "auto"):
            return "assign damage"
        if state is not None and state.phase == "setup":
            return "place a starting token"
        return self.format_move(move)

    def random_move(self, state: State, seat: int, rng: random.Random) -> Order:
        return choose(state, seat, self.legal_moves(state, seat), rng)

    def default_move(self, state: State, seat: int) -> Order | None:
        if seat not in rules.to_move(state):
            return None
        return rules.trivial_move(state, seat)

    # -- turn files ------------------------------------------------------------------------
    def phase_label(self, state: State) -> str:
        if state.phase in ("over", "setup"):
            return words.phase(state.phase)
        label = _("turn {turn}, {phase}", turn=state.turn, phase=words.phase(state.phase))
        step = rules.current_step(state)
        return f"{label}, {rules.phase_name(state)}" if step else label

    def turn_template(self, state: State, seat: int, names: Sequence[str]) -> str:
        return render.turn_template(
            state, seat, names, self.phase_label(state), [self.say_move(m) for m in self.legal_moves(state, seat)]
        )

    def decision(self, state: State, seat: int) -> str:
        """Turn, phase and step, and in a battle which one (attacker, province, round of Double
        strike): the step alone does not tell one battle's damage assignment from the next."""
        label = self.phase_label(state)
        if state.phase == "maneuvers" and state.battle is not None:
            battle = state.battle
            label += _(
                ", seat {seat} attacks {province} (round {round})",
                seat=battle.attacker + 1,
                province=battle.province,
                round=state.round,
            )
        return label

    def reveals(self, state: State, seat: int, facts: Sequence[dict[str, Any]]) -> bool:
        # the starting tokens opened together; a battle's damage that another player assigned
        # in secret opened (the barbarians' damage follows public priorities: nothing hidden)
        return any(
            f["kind"] == "TokensRevealed"
            or (f["kind"] == "BattleResolved" and any(hit[0] not in (seat, BARBARIAN) for hit in f["hits"]))
            for f in facts
        )

    def end_of_turn_file(self, state: State, seat: int) -> Order | None:
        """``done`` / ``pass`` / ``auto``; none in setup, where a file places all three tokens."""
        return None if state.phase == "setup" else self.default_move(state, seat)


SPEC = WarriorsTraders()
