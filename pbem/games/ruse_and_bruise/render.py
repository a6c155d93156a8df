"""What a seat may see (``view``), and pictures of it as text and SVG; history lines.

A card on the table is shown by name when it lies face up, when everybody saw it (an
Explorer after its trip) or when the viewer owns it; otherwise it is a card back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.base import Fact
from pbem.games.svg import escape
from pbem.games.text import _, fitted, language, ngettext, pgettext, seat_name

from .cards import CARDS, GOALS, ROUNDS, goal_text, show_halves, suit_name
from .state import GameState, to_move

COLOURS = ("#c0392b", "#2471a3", "#f1c40f", "#27ae60", "#8e44ad", "#e67e22")
COLOUR_NAMES = ("red", "blue", "yellow", "green", "purple", "orange")


def game_title() -> str:
    """The game's short name as the rulebook of the language spoken now prints it."""
    return _("Ruse & Bruise")


def colour_name(seat: int) -> str:
    names = (
        lambda: pgettext("colour", "red"),
        lambda: pgettext("colour", "blue"),
        lambda: pgettext("colour", "yellow"),
        lambda: pgettext("colour", "green"),
        lambda: pgettext("colour", "purple"),
        lambda: pgettext("colour", "orange"),
    )
    return names[seat % len(names)]()


def phase_label(state: GameState) -> str:
    if state.finished:
        return _("game over")
    if state.pending is not None:
        return _(
            "round {round}, play {play}, {card} choice",
            round=state.round,
            play=state.plays,
            card=state.pending.kind if language() == "en" else CARDS[state.pending.kind].name,
        )
    return _("round {round}, play {play}", round=state.round, play=state.plays + 1)


def column_state(column: Mapping[str, Any]) -> str:
    if column["closed"]:
        return _("closed by a Storm")
    return pgettext("column", "filled") if column["filled"] else pgettext("column", "open")


def _shown(card: Mapping[str, Any]) -> str:
    """A card on the table as the text picture and the card's tooltip say it."""
    shown = _card_name(card["card"])
    if card["card"] is not None and not card["face_up"]:
        shown = _("{card} (face down)", card=shown)
    return _("{card} under the Cloak", card=shown) if card["tucked"] else shown


def _waiting(view: Mapping[str, Any], names: Sequence[str]) -> str:
    pending = view["pending"]
    return _(
        "Waiting for {who}'s {card} choice in column {column}.",
        who=seat_name(names, pending["seat"]),
        card=CARDS[pending["choice"]].name,
        column=pending["column"],
    )


def _player_line(player: Mapping[str, Any], names: Sequence[str]) -> str:
    return _(
        "{who} ({colour}): hand {hand}, deck {deck}, discard {discard}",
        who=seat_name(names, player["seat"]),
        colour=colour_name(player["seat"]),
        hand=player["hand"],
        deck=player["deck"],
        discard=len(player["discard"]),
    )


def _hand_line(view: Mapping[str, Any]) -> str:
    return _("Your hand: {cards}", cards=", ".join(CARDS[card].name for card in view["hand"]) or _("empty"))


def _scores_line(view: Mapping[str, Any], names: Sequence[str]) -> str:
    return _(
        "Final scores: {scores}",
        scores=", ".join(f"{seat_name(names, seat)} {score}" for seat, score in enumerate(view["scores"])),
    )


def view(state: GameState, viewer: int | None) -> dict[str, Any]:
    columns = []
    for index, column in enumerate(state.columns):
        cards = [
            {
                "owner": slot.owner,
                "card": slot.card if (slot.public or viewer == slot.owner) else None,
                "face_up": slot.face_up,
                "tucked": slot.tucked,
            }
            for slot in column.slots
        ]
        goal = GOALS[column.goal]
        columns.append(
            {
                "number": index + 1,
                "goal": {"id": goal.id, "suit": goal.suit, "value": goal.value},
                "filled": column.filled,
                "closed": column.closed,
                "cards": cards,
            }
        )
    players = [
        {
            "seat": seat,
            "colour": COLOUR_NAMES[seat],
            "hand": len(state.hands[seat]),
            "deck": len(state.decks[seat]),
            "discard": list(state.discards[seat]),
            "won": list(state.won[seat]),
        }
        for seat in range(state.players)
    ]
    pending = state.pending
    result: dict[str, Any] = {
        "viewer": viewer,
        "round": state.round,
        "rounds": ROUNDS,
        "phase": phase_label(state),
        "turn": state.turn,
        "to_move": to_move(state),
        "columns": columns,
        "players": players,
        "goal_deck": len(state.goal_deck),
        "pending": None
        if pending is None
        else {
            "choice": pending.kind,
            "seat": pending.seat,
            "column": pending.column + 1,
        },
        "scores": None if state.scores is None else list(state.scores),
    }
    if viewer is not None:
        result["hand"] = list(state.hands[viewer])
    return result


def _card_name(card: str | None) -> str:
    return _("face down") if card is None else CARDS[card].name


def render_text(view: Mapping[str, Any], names: Sequence[str]) -> str:
    lines = [f"{game_title()}: {view['phase']}"]
    if view["to_move"]:
        lines.append(_("To move: {players}", players=", ".join(seat_name(names, seat) for seat in view["to_move"])))
    if view["pending"]:
        lines.append(_waiting(view, names))
    for column in view["columns"]:
        goal = column["goal"]
        lines.append(
            _(
                "Column {number}: {suit} {value} ({state})",
                number=column["number"],
                suit=suit_name(goal["suit"]),
                value=goal["value"],
                state=column_state(column),
            )
        )
        for position, card in enumerate(column["cards"], start=1):
            lines.append(f"  {position}. {seat_name(names, card['owner'])}: {_shown(card)}")
    lines.append(_("Players:"))
    for player in view["players"]:
        won = ", ".join(goal_text(goal) for goal in player["won"]) or _("none")
        lines.append("  " + _("{player}; goals won: {won}", player=_player_line(player, names), won=won))
    if view.get("hand") is not None:
        lines.append(_hand_line(view))
    if view["scores"] is not None:
        lines.append(_scores_line(view, names))
    return fitted("\n".join(lines) + "\n")  # lines of words broken for a mail


def _svg_lines(view: Mapping[str, Any], names: Sequence[str]) -> list[tuple[str, bool]]:
    """The lines under the columns: the players (counts, colours, goals won), the viewer's hand,
    the scores; (text, bold)."""
    lines: list[tuple[str, bool]] = []
    for player in view["players"]:
        won = ", ".join(goal_text(goal) for goal in player["won"]) or _("none")
        lines.append((_player_line(player, names), True))
        lines.append((_("goals won: {won}", won=won), False))
    if view.get("hand") is not None:
        lines.append((_hand_line(view), True))
    if view["scores"] is not None:
        lines.append((_scores_line(view, names), True))
    return lines


def render_svg(view: Mapping[str, Any], names: Sequence[str]) -> str:
    title = f"{game_title()}: {view['phase']}"
    if view["to_move"]:
        title += " - " + _("To move: {players}", players=", ".join(seat_name(names, seat) for seat in view["to_move"]))
    notes = []
    if view["pending"]:
        notes.append(_waiting(view, names))
    lines = _svg_lines(view, names)
    longest_text = max(len(t) for t in [title, *notes, *(text for text, _ in lines)])
    width = max(20 + 130 * max(1, len(view["columns"])), 20 + 7 * longest_text)
    tallest = max([len(column["cards"]) for column in view["columns"]] + [0])
    top = 30 + 16 * len(notes)
    below = top + 70 + 34 * tallest + 10
    height = below + 18 * (len(lines) + 1) + 10
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        f'<text x="10" y="18" font-size="14" font-weight="bold">{escape(title)}</text>',
    ]
    parts += [f'<text x="10" y="{34 + 16 * i}">{escape(note)}</text>' for i, note in enumerate(notes)]
    for index, column in enumerate(view["columns"]):
        x = 10 + 130 * index
        goal = column["goal"]
        state = column_state(column)
        fill = "#ddd" if column["closed"] else ("#cfe8cf" if column["filled"] else "#fff")
        parts.append(f'<rect x="{x}" y="{top}" width="120" height="60" rx="6" fill="{fill}" stroke="#333"/>')
        head = _("Column {number}: {suit}", number=column["number"], suit=suit_name(goal["suit"]))
        parts.append(f'<text x="{x + 8}" y="{top + 20}">{escape(head)}</text>')
        parts.append(
            f'<text x="{x + 8}" y="{top + 48}"><tspan font-size="20">{goal["value"]}</tspan> ({escape(state)})</text>'
        )
        for position, card in enumerate(column["cards"]):
            parts.append(_svg_card(x, top + 70 + 34 * position, card, names, position + 1))
    lines.insert(0, (_("Players:"), True))
    for i, (line, bold) in enumerate(lines):
        weight = ' font-weight="bold"' if bold else ""
        parts.append(f'<text x="10" y="{below + 14 + 18 * i}"{weight}>{escape(line)}</text>')
    return "\n".join([*parts, "</svg>"]) + "\n"


def _svg_card(x: int, y: int, card: Mapping[str, Any], names: Sequence[str], position: int = 0) -> str:
    """A card in a column, in its owner's colour; its title (a tooltip, and what screen readers
    say) names the position, the owner and the card as the text picture does."""
    colour = COLOURS[card["owner"] % len(COLOURS)]
    title = f"<title>{position}. {escape(seat_name(names, card['owner']))}: {escape(_shown(card))}</title>"
    return f"<g>{title}{_svg_card_face(x, y, card, names, colour)}</g>"


def _svg_card_face(x: int, y: int, card: Mapping[str, Any], names: Sequence[str], colour: str) -> str:
    if card["card"] is None:
        back = _("{who}: card back", who=seat_name(names, card["owner"]))
        return (
            f'<rect x="{x}" y="{y}" width="120" height="30" rx="4" fill="{colour}" stroke="#333" '
            f'stroke-dasharray="4 2"/><text x="{x + 8}" y="{y + 20}" fill="#fff">{escape(back)}</text>'
        )
    name = CARDS[card["card"]].name
    label = (name if card["face_up"] else _("{card} (face down)", card=name)) + (" ↳" if card["tucked"] else "")
    return (
        f'<rect x="{x}" y="{y}" width="120" height="30" rx="4" fill="#fff" stroke="{colour}" stroke-width="3"/>'
        f'<text x="{x + 8}" y="{y + 20}">{escape(label)}</text>'
    )


def describe_fact(fact: Fact, names: Sequence[str]) -> str:
    kind = fact["kind"]
    describe = _DESCRIBERS.get(kind)
    return describe(fact, names) if describe else kind


def _seat(fact: Fact, key: str, names: Sequence[str]) -> str:
    return seat_name(names, fact.get(key))


def _column_scored(fact: Fact, names: Sequence[str]) -> str:
    goal = goal_text(fact["goal"])
    if fact["winner"] is None:
        return _(
            "Column {column} ({goal}) has no winner; the goal card leaves the game.",
            column=fact["column"] + 1,
            goal=goal,
        )
    sums = [f"{seat_name(names, s)} {show_halves(h)}" for s, h in enumerate(fact["half_point_sums"]) if h is not None]
    removed = ", ".join(_owned(names, r["owner"], r["card"]) for r in fact["removed"])
    tail = "; " + _("removed: {cards}", cards=removed) if removed else ""
    detail = f" ({', '.join(sums)}{tail})" if sums or tail else ""
    who, column = _seat(fact, "winner", names), fact["column"] + 1
    if fact["reason"] == "prince-and-squire":
        line = _("{who} wins {goal} in column {column} with Prince and Squire", who=who, goal=goal, column=column)
    elif fact["reason"] == "lowest":
        line = _("{who} wins {goal} in column {column} with the lowest sum (Beggar)", who=who, goal=goal, column=column)
    else:
        line = _("{who} wins {goal} in column {column}", who=who, goal=goal, column=column)
    return f"{line}{detail}."


def _owned(names: Sequence[str], owner: int, card: str) -> str:
    return _("{who}'s {card}", who=seat_name(names, owner), card=CARDS[card].name)


def _explorer_stayed(f: Fact, n: Sequence[str]) -> str:
    if f["reason"] == "travelled-this-turn":
        return _(
            "{who}'s Explorer stays in column {column} (it already travelled this turn).",
            who=_seat(f, "owner", n),
            column=f["column"] + 1,
        )
    return _(
        "{who}'s Explorer stays in column {column} (no other open column).",
        who=_seat(f, "owner", n),
        column=f["column"] + 1,
    )


def _choice_offered(f: Fact, n: Sequence[str]) -> str:
    if f["choice"] == "cloak":
        return _(
            "{who} may tuck a card under the Cloak in column {column}.", who=_seat(f, "seat", n), column=f["column"] + 1
        )
    return _(
        "{who} may swap the Traitor's goal card in column {column}.", who=_seat(f, "seat", n), column=f["column"] + 1
    )


def _turn_ended(f: Fact, n: Sequence[str]) -> str:
    skipped = "".join("; " + _("{who} has no cards and is skipped", who=seat_name(n, s)) for s in f["skipped"])
    return _("{who} is next", who=_seat(f, "next", n)) + skipped + "."


def _round_ended(f: Fact, n: Sequence[str]) -> str:
    if f["reason"] == "filled":
        return _(
            "Round {round} ends with {who}'s turn (every goal card is filled).", round=f["round"], who=_seat(f, "by", n)
        )
    return _("Round {round} ends with {who}'s turn (nobody has cards left).", round=f["round"], who=_seat(f, "by", n))


def _cards_revealed(f: Fact, n: Sequence[str]) -> str:
    cards = [
        _("{card} in column {column}", card=_owned(n, c["owner"], c["card"]), column=c["column"] + 1)
        for c in f["cards"]
    ]
    return _("Face-down cards revealed: {cards}.", cards=", ".join(cards) or _("none"))


_DESCRIBERS = {
    "GameStarted": lambda f, n: _(
        "The game starts: {players}, {rounds}.",
        players=ngettext("{n} player", "{n} players", f["players"]),
        rounds=ngettext("{n} round", "{n} rounds", f["rounds"]),
    ),
    "DeckShuffled": lambda f, n: _("{who} shuffles their deck.", who=_seat(f, "seat", n)),
    "GoalDeckShuffled": lambda f, n: ngettext(
        "{n} goal card is shuffled into the goal deck.", "{n} goal cards are shuffled into the goal deck.", f["count"]
    ),
    "DiscardReshuffled": lambda f, n: ngettext(
        "{who} shuffles {n} discarded card into a new deck.",
        "{who} shuffles {n} discarded cards into a new deck.",
        f["count"],
        who=_seat(f, "seat", n),
    ),
    "CardsDrawn": lambda f, n: ngettext(
        "{who} draws {n} card.", "{who} draws {n} cards.", f["count"], who=_seat(f, "seat", n)
    ),
    "RoundStarted": lambda f, n: _(
        "Round {round} starts with {who}; goals: {goals}.",
        round=f["round"],
        who=_seat(f, "start", n),
        goals=", ".join(goal_text(g) for g in f["goals"]),
    ),
    "CardPlayed": lambda f, n: _(
        "{who} plays a card face down into column {column}.", who=_seat(f, "seat", n), column=f["column"] + 1
    ),
    "CardRevealed": lambda f, n: _(
        "{card} is revealed in column {column}.", card=_owned(n, f["owner"], f["card"]), column=f["column"] + 1
    ),
    "ExplorerTravelled": lambda f, n: _(
        "{who}'s Explorer travels from column {source} to column {target}.",
        who=_seat(f, "owner", n),
        source=f["from"] + 1,
        target=f["to"] + 1,
    ),
    "ExplorerStayed": _explorer_stayed,
    "CardAssassinated": lambda f, n: _(
        "The Assassin sends {card} in column {column} to the discard pile.",
        card=_owned(n, f["owner"], f["card"]),
        column=f["column"] + 1,
    ),
    "ColumnClosed": lambda f, n: _("A Storm closes column {column}.", column=f["column"] + 1),
    "ChoiceOffered": _choice_offered,
    "ChoiceDeclined": lambda f, n: _(
        "{who} lets the {card} pass.", who=_seat(f, "seat", n), card=CARDS[f["choice"]].name
    ),
    "CardTucked": lambda f, n: _(
        "{who} tucks a card under the Cloak in column {column}.", who=_seat(f, "seat", n), column=f["column"] + 1
    ),
    "GoalsSwapped": lambda f, n: _(
        "{who}'s Traitor swaps the goal cards of columns {column} and {other}.",
        who=_seat(f, "seat", n),
        column=f["column"] + 1,
        other=f["other"] + 1,
    ),
    "TurnEnded": _turn_ended,
    "RoundEnded": _round_ended,
    "CardsRevealed": _cards_revealed,
    "ColumnScored": _column_scored,
    "TableCleared": lambda f, n: _("Every player puts their cards from the table on their discard pile."),
    "GameEnded": lambda f, n: _(
        "The game ends: {scores}.",
        scores=", ".join(f"{seat_name(n, seat)} {score}" for seat, score in enumerate(f["scores"])),
    ),
}
