"""The Kingsburg ``GameSpec``: who moves, what is legal, and the facts a move causes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.base import (
    ErrorCode,
    FoldingGameSpec,
    GameError,
    Option,
    Rng,
    Standing,
    illegal,
    rank_by,
    secret,
    update,
)
from pbem.games.kingsburg import board, mailboard, render, rules
from pbem.games.kingsburg.data import ADVISORS, BUILDINGS, ENEMIES, GOODS
from pbem.games.kingsburg.evolve import evolve
from pbem.games.kingsburg.explain import step_need, why_illegal
from pbem.games.kingsburg.flow import advance, can_recruit, fold, gift_facts
from pbem.games.kingsburg.moves import (
    Build,
    Give,
    Influence,
    Lose,
    Move,
    Pass,
    Recruit,
    Reroll,
    Take,
    Token,
    TownHall,
    format_move,
    parse_text,
    say_move,
)
from pbem.games.kingsburg.state import State, delta_of
from pbem.games.speech import N_  # the options' help, said in the reader's language
from pbem.games.text import _, resolve

Fact = dict[str, Any]


class Kingsburg(FoldingGameSpec[State, Move]):
    name = "kingsburg"
    title = "Kingsburg"
    rules_version = "2"  # 2: every advisor's help may be declined ("take nothing" with an influence)
    min_players = 2
    max_players = 5
    options = (
        Option(
            "reinforcements",
            N_(
                "King's reinforcements in winter: die (one die, base game), difference (variant: "
                "difference of two dice + 1) or tokens (variant: secret soldier tokens 0,1,1,2,3,4)"
            ),
            "die",
            ("die", "difference", "tokens"),
        ),
        Option(
            "demons",
            N_(
                "reading of the disputed year IV Demons card: primary (lose 4 goods + 1 VP, "
                "win 1 gold + 1 VP) or alternative (lose 4 goods + 1 building, win 1 gold)"
            ),
            "primary",
            ("primary", "alternative"),
        ),
    )

    # -- setup and fold ----------------------------------------------------------------------
    def setup(self, players: int, options: Mapping[str, str], rng: Rng) -> list[Fact]:
        options = self.settings(players, options)
        order = rng.shuffle(list(range(players)))  # the starting order is random
        deck = []
        for year in range(1, 6):  # one unseen card of each year, year I on top
            cards = sorted(e.id for e in ENEMIES.values() if e.year == year)
            deck.append(rng.shuffle(cards)[0])
        facts: list[Fact] = [
            {"kind": "GameStarted", "players": players, "options": dict(options), "order": order},
            {"kind": "EnemyDeckPrepared", "secret": secret([], {"deck": deck})},
        ]
        more, _after = advance(fold(evolve(None, facts[0]), facts[1:]), rng)
        return facts + more

    def evolve(self, state: State | None, fact: Fact) -> State:
        return evolve(state, fact)

    # -- whose turn, what is legal -----------------------------------------------------------
    def to_move(self, state: State) -> list[int]:
        if state.over:
            return []
        step = state.step
        if step in ("choose", "townhall", "tokens"):
            return list(state.pending)
        if step == "reroll":
            return [s for s in state.order if rules.may_reroll(state.players[s])]
        if step == "gifts":
            return list(dict.fromkeys(seat for _, seat, _ in state.gifts))
        if step == "spoils":
            return [s for s in state.order if state.players[s].owed_lose or state.players[s].owed_take]
        if step in ("influence", "build", "recruit") and 0 <= state.cursor < state.count:
            seat = state.order[state.cursor]
            ready = {"influence": rules.has_influence, "build": rules.may_build, "recruit": can_recruit}[step](
                state, seat
            )
            return [seat] if ready else []
        return []

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        if seat not in self.to_move(state):
            return []
        p = state.players[seat]
        step = state.step
        if step == "choose":
            return rules.aid_moves()
        if step == "reroll":
            return rules.reroll_moves(p)
        if step == "influence":
            return [*_with_choices(rules.influence_moves(state, seat)), Pass()]
        if step == "gifts":
            advisor = next(a for a, s, _ in state.gifts if s == seat)
            return [rules.choice_move(c) for c in rules.gift_choices(state, seat, advisor)]
        if step == "build":
            return rules.build_moves(state, seat)
        if step == "townhall":
            return rules.townhall_moves(p)
        if step == "recruit":
            return [*rules.recruit_moves(p), Pass()]
        if step == "tokens":
            return rules.token_moves(p)
        if step == "spoils":
            return rules.lose_moves(p) if p.owed_lose else rules.spoils_moves(p)
        return []

    # -- text ------------------------------------------------------------------------------------
    def parse_move(self, state: State, seat: int, text: str) -> Move:
        candidate = parse_text(text)
        if isinstance(candidate, Recruit) and candidate.gold < 0:
            candidate = rules.default_payment(state.players[seat], candidate.soldiers) or candidate
        if isinstance(candidate, Influence) and rules.names_fixed_gift(candidate):
            candidate = update(candidate, choice=None)  # "influence 8 with 5 3 take gold"
        if self._is_legal(state, seat, candidate):
            return candidate
        if isinstance(candidate, Influence) and not candidate.dice:
            return self._any_group(state, seat, candidate, text, self.legal_moves(state, seat))
        if isinstance(candidate, Pass) and state.step == "gifts":
            return Take(())  # "pass" on a gift declines it
        raise illegal(
            why_illegal(state, seat, candidate, text, self.legal_moves(state, seat)), self.legal_texts(state, seat)
        )

    def _is_legal(self, state: State, seat: int, move: object) -> bool:
        """``move in self.legal_moves(state, seat)``, without listing every group with every
        gift answer stated in advance: an influence is among them exactly when its group
        (without the answer) is one of ``influence_moves`` and its answer is one that
        ``_with_choices`` adds to that group."""
        if isinstance(move, Influence) and state.step == "influence":
            if seat not in self.to_move(state):
                return False
            group = move if move.choice is None else update(move, choice=None)
            return rules.is_influence_move(state, seat, group) and move in _with_choices([group])
        return move in self.legal_moves(state, seat)

    def _any_group(self, state: State, seat: int, wanted: Influence, text: str, legal: list[Move]) -> Move:
        """``influence 8`` without dice: the one group that fits, or the candidates."""
        fits = [
            m
            for m in legal
            if isinstance(m, Influence)
            and m.advisor == wanted.advisor
            and m.choice == wanted.choice
            and (m.plus2 or not wanted.plus2)
            and (m.envoy or not wanted.envoy)
        ]
        hint = _("name the dice, e.g. {example}", example=repr(say_move(fits[0]))) if fits else ""
        return resolve(
            text,
            fits,
            say_move,
            legal=self.legal_texts(state, seat),
            hint=hint,
            why=_("no group of your dice can influence advisor {advisor}", advisor=wanted.advisor),
        )

    def format_move(self, move: Move) -> str:
        return format_move(move)

    def say_move(self, move: Move) -> str:
        return say_move(move)

    def command_examples(self) -> list[str]:
        return [
            say_move(move)
            for move in (
                Take(("gold",)),
                Give("wood"),
                Influence(8, (5, 3)),
                Influence(8, (5,), (3,), envoy=True),
                Build("statue"),
                Recruit(2, 1, 1, 0),
                Reroll(False, 4),
                Reroll(True),
                TownHall("plus2"),
                Lose(("gold", "wood")),
                Token(2),
                Pass(),
            )
        ]

    def say_command(self, text: str) -> str:
        try:
            return say_move(parse_text(text))
        except GameError:
            return text

    def score_label(self, key: str) -> str:
        labels = {
            "goods": lambda: _("goods"),
            "buildings": lambda: _("buildings"),
            "tie_breaks": lambda: _("ties broken by"),
        }
        return labels[key]() if key in labels else key

    def legal_texts(self, state: State, seat: int, limit: int = 40) -> list[str]:
        # influences with a gift choice stated in advance come last, so a short list still
        # shows every plain group and "pass"
        moves = self.legal_moves(state, seat)
        plain = [m for m in moves if not (isinstance(m, Influence) and m.choice is not None)]
        stated = [m for m in moves if isinstance(m, Influence) and m.choice is not None]
        return [say_move(m) for m in (plain + stated)[:limit]]

    def public_move_text(self, state: State, seat: int, move: Move) -> str:
        return "token (secret)" if isinstance(move, Token) else format_move(move)

    def _check_turn(self, state: State, seat: int) -> None:
        if state.over:
            raise GameError(ErrorCode.GAME_OVER, _("The game is over; the King has judged."))
        if seat not in self.to_move(state):
            waiting = ", ".join(_("seat {seat}", seat=s + 1) for s in self.to_move(state))
            raise GameError(
                ErrorCode.NOT_YOUR_TURN,
                _(
                    "It is not your turn ({phase}); waiting for {waiting}.",
                    phase=self.phase_label(state),
                    waiting=waiting,
                ),
            )

    # -- decide -------------------------------------------------------------------------------------
    def decide_and_fold(self, state: State, seat: int, move: Move, rng: Rng) -> tuple[list[Fact], State]:
        self._check_turn(state, seat)
        if not self._is_legal(state, seat, move):
            text = say_move(move) if isinstance(move, Move.__args__) else repr(move)
            raise illegal(
                why_illegal(state, seat, move, text, self.legal_moves(state, seat)), self.legal_texts(state, seat)
            )
        facts = move_facts(state, seat, move, rng)
        more, after = advance(fold(state, facts), rng)
        return facts + more, after

    # -- end -----------------------------------------------------------------------------------------
    def outcome(self, state: State) -> list[Standing] | None:
        if not state.over:
            return None
        keys = {s: (p.vp, p.goods, len(p.buildings)) for s, p in enumerate(state.players)}
        ranks = rank_by(keys)
        return [
            # goods and buildings only break ties: named so, they never read as parts of the VP
            Standing(s, ranks[s], p.vp, {"tie_breaks": {"goods": p.goods, "buildings": len(p.buildings)}})
            for s, p in enumerate(state.players)
        ]

    # -- presentation ----------------------------------------------------------------------------------
    def view(self, state: State, viewer: int | None) -> dict[str, Any]:
        return render.view(state, viewer, self.to_move(state), self.phase_label(state))

    def render_text(self, view: Mapping[str, Any], names: Sequence[str]) -> str:
        return render.render_text(view, names)

    def render_svg(self, view: Mapping[str, Any], names: Sequence[str]) -> str | None:
        return board.render_svg(view, names)

    def render_narrow_svg(self, view: Mapping[str, Any], names: Sequence[str]) -> str | None:
        return board.render_narrow_svg(view, names)

    def render_mail_svg(self, view: Mapping[str, Any], names: Sequence[str]) -> str | None:
        return mailboard.render_mail_svg(view, names)

    def mail_caption(self, view: Mapping[str, Any], names: Sequence[str]) -> list[str]:
        return mailboard.mail_caption(view, names)

    def describe_fact(self, fact: Fact, names: Sequence[str]) -> str:
        return render.describe_fact(fact, names)

    def phase_label(self, state: State) -> str:
        return render.phase_label(state)

    def decision_text(self, state: State, seat: int, names: Sequence[str]) -> str:
        legal = self.legal_moves(state, seat)
        need = step_need(state.step, legal) if state.step != "start" else _("choose your move")
        if state.step == "gifts":
            advisor = next((a for a, s, _gift in state.gifts if s == seat), None)
            if advisor is not None:
                need = _(
                    "the {name} (advisor {advisor}) helps you; choose its gift from the lines below",
                    name=ADVISORS[advisor].name,
                    advisor=advisor,
                )
        label = self.phase_label(state)
        return f"{label[:1].upper()}{label[1:]} — {need}."

    def default_move(self, state: State, seat: int) -> Move | None:
        legal = self.legal_moves(state, seat)
        if not legal:
            return None
        if Pass() in legal:
            return Pass()
        real = [m for m in legal if m != Take(())]  # a missed gift is still taken
        return real[0] if real else legal[0]

    def turn_template(self, state: State, seat: int, names: Sequence[str]) -> str:
        p = state.players[seat]
        counters = {
            "vp": p.vp,
            "gold": p.gold,
            "wood": p.wood,
            "stone": p.stone,
            "plus2": p.plus2,
            "soldiers": p.soldiers,
        }
        lines = [
            f"# Kingsburg: {self.phase_label(state)}",
            "# " + _("you: {holdings}", holdings=render.holdings(counters)),
        ]
        if p.dice or p.white:
            dice = " ".join([*map(str, p.dice), *(f"w{w}" for w in p.white)])
            lines.append("# " + _("dice in hand: {dice}", dice=dice))
        lines.append("# " + _("one command per line (see docs/games/kingsburg.md); legal now:"))
        return "\n".join(lines + [f"# {text}" for text in self.legal_texts(state, seat)]) + "\n"

    def reveals(self, state: State, seat: int, facts: Sequence[Fact]) -> bool:
        # the winter's enemy turned up, soldier tokens opened, a card looked at by this seat
        return any(
            f["kind"] in ("EnemyRevealed", "TokensRevealed") or (f["kind"] == "CardPeeked" and f["seat"] == seat)
            for f in facts
        )

    def end_of_turn_file(self, state: State, seat: int) -> Move | None:
        # a turn file in the influence step ends the seat's part with a pass
        return Pass() if state.step in ("influence", "reroll") and seat in self.to_move(state) else None


def _with_choices(moves: list[Influence]) -> list[Move]:
    """Each influence, plus the same influence with each gift answer stated in advance. Every
    advisor's help may be declined (Czech rulebook p. 4, step c: "Hráč se také může rozhodnout
    pomoc ovlivněného rádce nevyužít"), so a fixed gift has one answer too: ``take nothing``."""
    out: list[Move] = []
    for m in moves:
        out.append(m)
        choices = rules.static_choices(m.advisor) if rules.asks(m.advisor) else (("take",),)
        out += [update(m, choice=rules.choice_move(c)) for c in choices]
    return out


def move_facts(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    """The facts of a legal move, before the automatic follow-ups. The move's type says what
    happened; only a ``Take`` (the King's aid, a gift, battle spoils) and a ``Pass`` need the
    step to say which."""
    match move:
        case Influence():
            return [_influence_fact(seat, move)]
        case Build(building=building):
            g, w, s = rules.cost(state.players[seat], building)
            return [
                {
                    "kind": "BuildingBuilt",
                    "seat": seat,
                    "building": building,
                    "envoy": state.built == 1,
                    "delta": delta_of(-g, -w, -s, vp=BUILDINGS[building].vp),
                }
            ]
        case TownHall(pay=pay):
            return [{"kind": "TownHallUsed", "seat": seat, "paid": pay, "delta": {pay: -1, "vp": 1}}]
        case Recruit():
            return [
                {
                    "kind": "SoldiersRecruited",
                    "seat": seat,
                    "delta": delta_of(-move.gold, -move.wood, -move.stone, soldiers=move.soldiers),
                }
            ]
        case Reroll():
            return [_reroll_fact(state, seat, move, rng)]
        case Token(value=value):
            return [{"kind": "TokenChosen", "seat": seat, "secret": secret([seat], {"token": value})}]
        case Lose(goods=goods):
            return [{"kind": "GoodsLost", "seat": seat, "delta": {g: -goods.count(g) for g in GOODS if g in goods}}]
    return _answer_facts(state, seat, move)


def _answer_facts(state: State, seat: int, move: Move) -> list[Fact]:
    """The facts of a ``Take``, ``Give`` or ``Pass``: what it answers depends on the step."""
    match move:
        case Give() | Take() if state.step == "gifts":
            advisor = next(a for a, s, _ in state.gifts if s == seat)
            return gift_facts(state, seat, advisor, rules.move_choice(move))
        case Take(goods=goods) if state.step == "choose":
            return [{"kind": "AidTaken", "seat": seat, "delta": {goods[0]: 1}}]
        case Take(goods=goods):
            return [{"kind": "SpoilsTaken", "seat": seat, "delta": {g: goods.count(g) for g in GOODS if g in goods}}]
        case Pass():
            return [{"kind": PASSED[state.step], "seat": seat, **PASSED_EXTRA.get(state.step, {})}]
    raise AssertionError(f"no facts for {move!r} at {state.step}")  # decide checked legality


# What a Pass records at each step where passing is legal; the three passes that may also
# happen by themselves (a seat with nothing to do) say they were not automatic.
PASSED = {
    "reroll": "RerollsKept",
    "influence": "InfluencePassed",
    "build": "BuildPassed",
    "townhall": "TownHallSkipped",
    "recruit": "RecruitPassed",
}
PASSED_EXTRA: dict[str, dict[str, Any]] = {step: {"auto": False} for step in ("influence", "build", "recruit")}


def _influence_fact(seat: int, move: Influence) -> Fact:
    choice = None if move.choice is None else list(rules.move_choice(move.choice))
    fact: Fact = {
        "kind": "AdvisorInfluenced",
        "seat": seat,
        "advisor": move.advisor,
        "dice": list(move.dice),
        "white": list(move.white),
        "plus2": move.plus2,
        "envoy": move.envoy,
        "market": rules.uses_market(move),
        "choice": choice,
    }
    if move.plus2:
        fact["delta"] = {"plus2": -1}
    return fact


def _reroll_fact(state: State, seat: int, move: Reroll, rng: Rng) -> Fact:
    p = state.players[seat]
    dice, white = list(p.dice), list(p.white)
    if move.all:  # Chapel: every die again, white ones too
        dice = [rng.randint(1, 6) for _ in dice]
        white = [rng.randint(1, 6) for _ in white]
    elif move.white:  # Statue: one die again
        white[-1] = rng.randint(1, 6)
    else:
        dice[-1] = rng.randint(1, 6)
    return {
        "kind": "DiceRerolled",
        "seat": seat,
        "building": "chapel" if move.all else "statue",
        "dice": sorted(dice, reverse=True),
        "white": sorted(white, reverse=True),
    }


SPEC = Kingsburg()
