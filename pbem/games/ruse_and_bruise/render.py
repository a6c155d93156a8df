"""What a seat may see (``view``), and pictures of it as text and SVG; history lines.

A card on the table is shown by name when it lies face up, when everybody saw it (an
Explorer after its trip) or when the viewer owns it; otherwise it is a card back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.base import Fact
from pbem.games.svg import escape
from pbem.games.text import seat_name

from .cards import CARDS, GOALS, ROUNDS, SUITS, goal_text, show_halves
from .state import GameState, to_move

COLOURS = ("#c0392b", "#2471a3", "#f1c40f", "#27ae60", "#8e44ad", "#e67e22")
COLOUR_NAMES = ("red", "blue", "yellow", "green", "purple", "orange")


def phase_label(state: GameState) -> str:
    if state.finished:
        return "game over"
    if state.pending is not None:
        return f"round {state.round}, play {state.plays}, {state.pending.kind} choice"
    return f"round {state.round}, play {state.plays + 1}"


def view(state: GameState, viewer: int | None) -> dict[str, Any]:
    columns = []
    for index, column in enumerate(state.columns):
        cards = [
            {"owner": slot.owner, "card": slot.card if (slot.public or viewer == slot.owner) else None,
             "face_up": slot.face_up, "tucked": slot.tucked}
            for slot in column.slots
        ]
        goal = GOALS[column.goal]
        columns.append({"number": index + 1, "goal": {"id": goal.id, "suit": goal.suit, "value": goal.value},
                        "filled": column.filled, "closed": column.closed, "cards": cards})
    players = [
        {"seat": seat, "colour": COLOUR_NAMES[seat], "hand": len(state.hands[seat]), "deck": len(state.decks[seat]),
         "discard": list(state.discards[seat]), "won": list(state.won[seat])}
        for seat in range(state.players)
    ]
    pending = state.pending
    result: dict[str, Any] = {
        "viewer": viewer, "round": state.round, "rounds": ROUNDS, "phase": phase_label(state),
        "turn": state.turn, "to_move": to_move(state), "columns": columns, "players": players,
        "goal_deck": len(state.goal_deck),
        "pending": None if pending is None else {
            "choice": pending.kind, "seat": pending.seat, "column": pending.column + 1,
        },
        "scores": None if state.scores is None else list(state.scores),
    }
    if viewer is not None:
        result["hand"] = list(state.hands[viewer])
    return result


def _card_name(card: str | None) -> str:
    return "face down" if card is None else CARDS[card].en


def render_text(view: Mapping[str, Any], names: Sequence[str]) -> str:
    lines = [f"Ruse & Bruise: {view['phase']}"]
    if view["to_move"]:
        lines.append("To move: " + ", ".join(seat_name(names, seat) for seat in view["to_move"]))
    if view["pending"]:
        pending = view["pending"]
        lines.append(f"Waiting for {seat_name(names, pending['seat'])}'s {pending['choice']} choice in column "
                     f"{pending['column']}.")
    for column in view["columns"]:
        state = "closed by a Storm" if column["closed"] else ("filled" if column["filled"] else "open")
        goal = column["goal"]
        lines.append(f"Column {column['number']}: {SUITS[goal['suit']]['en']} {goal['value']} ({state})")
        for position, card in enumerate(column["cards"], start=1):
            shown = _card_name(card["card"])
            if card["card"] is not None and not card["face_up"]:
                shown += " (face down)"
            tucked = " under the Cloak" if card["tucked"] else ""
            lines.append(f"  {position}. {seat_name(names, card['owner'])}: {shown}{tucked}")
    lines.append("Players:")
    for player in view["players"]:
        won = ", ".join(goal_text(goal) for goal in player["won"]) or "none"
        lines.append(f"  {seat_name(names, player['seat'])} ({player['colour']}): hand {player['hand']}, "
                     f"deck {player['deck']}, discard {len(player['discard'])}; goals won: {won}")
    if view.get("hand") is not None:
        lines.append("Your hand: " + (", ".join(CARDS[card].en for card in view["hand"]) or "empty"))
    if view["scores"] is not None:
        lines.append("Final scores: " + ", ".join(
            f"{seat_name(names, seat)} {score}" for seat, score in enumerate(view["scores"])))
    return "\n".join(lines) + "\n"


def _svg_lines(view: Mapping[str, Any], names: Sequence[str]) -> list[tuple[str, bool]]:
    """The lines under the columns: the players (counts, colours, goals won), the viewer's hand,
    the scores; (text, bold)."""
    lines: list[tuple[str, bool]] = []
    for player in view["players"]:
        won = ", ".join(goal_text(goal) for goal in player["won"]) or "none"
        lines.append((f"{seat_name(names, player['seat'])} ({player['colour']}): hand {player['hand']}, "
                      f"deck {player['deck']}, discard {len(player['discard'])}", True))
        lines.append((f"goals won: {won}", False))
    if view.get("hand") is not None:
        lines.append(("Your hand: " + (", ".join(CARDS[card].en for card in view["hand"]) or "empty"), True))
    if view["scores"] is not None:
        lines.append(("Final scores: " + ", ".join(
            f"{seat_name(names, seat)} {score}" for seat, score in enumerate(view["scores"])), True))
    return lines


def render_svg(view: Mapping[str, Any], names: Sequence[str]) -> str:
    title = f"Ruse & Bruise: {view['phase']}"
    if view["to_move"]:
        title += " - To move: " + ", ".join(seat_name(names, seat) for seat in view["to_move"])
    notes = []
    if view["pending"]:
        pending = view["pending"]
        notes.append(f"Waiting for {seat_name(names, pending['seat'])}'s {pending['choice']} choice in column "
                     f"{pending['column']}.")
    lines = _svg_lines(view, names)
    longest_text = max(len(t) for t in [title, *notes, *(text for text, _ in lines)])
    width = max(20 + 130 * max(1, len(view["columns"])), 20 + 7 * longest_text)
    tallest = max([len(column["cards"]) for column in view["columns"]] + [0])
    top = 30 + 16 * len(notes)
    below = top + 70 + 34 * tallest + 10
    height = below + 18 * (len(lines) + 1) + 10
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
             f'<text x="10" y="18" font-size="14" font-weight="bold">{escape(title)}</text>']
    parts += [f'<text x="10" y="{34 + 16 * i}">{escape(note)}</text>' for i, note in enumerate(notes)]
    for index, column in enumerate(view["columns"]):
        x = 10 + 130 * index
        goal = column["goal"]
        state = "closed by a Storm" if column["closed"] else ("filled" if column["filled"] else "open")
        fill = "#ddd" if column["closed"] else ("#cfe8cf" if column["filled"] else "#fff")
        parts.append(f'<rect x="{x}" y="{top}" width="120" height="60" rx="6" fill="{fill}" stroke="#333"/>')
        suit = escape(SUITS[goal["suit"]]["en"])
        parts.append(f'<text x="{x + 8}" y="{top + 20}">Column {column["number"]}: {suit}</text>')
        parts.append(f'<text x="{x + 8}" y="{top + 48}"><tspan font-size="20">{goal["value"]}</tspan> ({state})</text>')
        for position, card in enumerate(column["cards"]):
            parts.append(_svg_card(x, top + 70 + 34 * position, card, names, position + 1))
    lines.insert(0, ("Players:", True))
    for i, (line, bold) in enumerate(lines):
        weight = ' font-weight="bold"' if bold else ""
        parts.append(f'<text x="10" y="{below + 14 + 18 * i}"{weight}>{escape(line)}</text>')
    return "\n".join([*parts, "</svg>"]) + "\n"


def _svg_card(x: int, y: int, card: Mapping[str, Any], names: Sequence[str], position: int = 0) -> str:
    """A card in a column, in its owner's colour; its title (a tooltip, and what screen readers
    say) names the position, the owner and the card as the text picture does."""
    colour = COLOURS[card["owner"] % len(COLOURS)]
    shown = _card_name(card["card"]) + ("" if card["card"] is None or card["face_up"] else " (face down)")
    shown += " under the Cloak" if card["tucked"] else ""
    title = f'<title>{position}. {escape(seat_name(names, card["owner"]))}: {escape(shown)}</title>'
    return f"<g>{title}{_svg_card_face(x, y, card, names, colour)}</g>"


def _svg_card_face(x: int, y: int, card: Mapping[str, Any], names: Sequence[str], colour: str) -> str:
    if card["card"] is None:
        return (f'<rect x="{x}" y="{y}" width="120" height="30" rx="4" fill="{colour}" stroke="#333" '
                f'stroke-dasharray="4 2"/><text x="{x + 8}" y="{y + 20}" fill="#fff">'
                f'{escape(seat_name(names, card["owner"]))}: card back</text>')
    label = CARDS[card["card"]].en + ("" if card["face_up"] else " (face down)") + (" ↳" if card["tucked"] else "")
    return (f'<rect x="{x}" y="{y}" width="120" height="30" rx="4" fill="#fff" stroke="{colour}" stroke-width="3"/>'
            f'<text x="{x + 8}" y="{y + 20}">{escape(label)}</text>')


def describe_fact(fact: Fact, names: Sequence[str]) -> str:
    kind = fact["kind"]
    describe = _DESCRIBERS.get(kind)
    return describe(fact, names) if describe else kind


def _seat(fact: Fact, key: str, names: Sequence[str]) -> str:
    return seat_name(names, fact.get(key))


def _column_scored(fact: Fact, names: Sequence[str]) -> str:
    goal = goal_text(fact["goal"])
    if fact["winner"] is None:
        return f"Column {fact['column'] + 1} ({goal}) has no winner; the goal card leaves the game."
    how = {
        "prince-and-squire": " with Prince and Squire",
        "lowest": " with the lowest sum (Beggar)",
    }.get(fact["reason"], "")
    sums = [f"{seat_name(names, s)} {show_halves(h)}" for s, h in enumerate(fact["half_point_sums"]) if h is not None]
    removed = ", ".join(f"{seat_name(names, r['owner'])}'s {CARDS[r['card']].en}" for r in fact["removed"])
    tail = f"; removed: {removed}" if removed else ""
    detail = f" ({', '.join(sums)}{tail})" if sums or tail else ""
    return f"{_seat(fact, 'winner', names)} wins {goal} in column {fact['column'] + 1}{how}{detail}."


_DESCRIBERS = {
    "GameStarted": lambda f, n: f"The game starts with {f['players']} players and {f['rounds']} rounds.",
    "DeckShuffled": lambda f, n: f"{_seat(f, 'seat', n)} shuffles their deck.",
    "GoalDeckShuffled": lambda f, n: f"{f['count']} goal cards are shuffled into the goal deck.",
    "DiscardReshuffled": lambda f, n: f"{_seat(f, 'seat', n)} shuffles {f['count']} discarded cards into a new deck.",
    "CardsDrawn": lambda f, n: f"{_seat(f, 'seat', n)} draws {f['count']} card{'s' if f['count'] != 1 else ''}.",
    "RoundStarted": lambda f, n: (f"Round {f['round']} starts with {_seat(f, 'start', n)}; goals: "
                                  + ", ".join(goal_text(g) for g in f["goals"]) + "."),
    "CardPlayed": lambda f, n: f"{_seat(f, 'seat', n)} plays a card face down into column {f['column'] + 1}.",
    "CardRevealed": lambda f, n: (f"{_seat(f, 'owner', n)}'s {CARDS[f['card']].en} is revealed in column "
                                  f"{f['column'] + 1}."),
    "ExplorerTravelled": lambda f, n: (f"{_seat(f, 'owner', n)}'s Explorer travels from column {f['from'] + 1} "
                                       f"to column {f['to'] + 1}."),
    "ExplorerStayed": lambda f, n: (f"{_seat(f, 'owner', n)}'s Explorer stays in column {f['column'] + 1} ("
                                    + ("it already travelled this turn" if f["reason"] == "travelled-this-turn"
                                       else "no other open column") + ")."),
    "CardAssassinated": lambda f, n: (f"The Assassin sends {_seat(f, 'owner', n)}'s {CARDS[f['card']].en} in column "
                                      f"{f['column'] + 1} to the discard pile."),
    "ColumnClosed": lambda f, n: f"A Storm closes column {f['column'] + 1}.",
    "ChoiceOffered": lambda f, n: (f"{_seat(f, 'seat', n)} may " + ("tuck a card under the Cloak"
                                   if f["choice"] == "cloak" else "swap the Traitor's goal card")
                                   + f" in column {f['column'] + 1}."),
    "ChoiceDeclined": lambda f, n: f"{_seat(f, 'seat', n)} lets the {f['choice'].capitalize()} pass.",
    "CardTucked": lambda f, n: f"{_seat(f, 'seat', n)} tucks a card under the Cloak in column {f['column'] + 1}.",
    "GoalsSwapped": lambda f, n: (f"{_seat(f, 'seat', n)}'s Traitor swaps the goal cards of columns "
                                  f"{f['column'] + 1} and {f['other'] + 1}."),
    "TurnEnded": lambda f, n: (f"{_seat(f, 'next', n)} is next"
                               + "".join(f"; {seat_name(n, s)} has no cards and is skipped"
                                         for s in f["skipped"]) + "."),
    "RoundEnded": lambda f, n: (f"Round {f['round']} ends with {_seat(f, 'by', n)}'s turn"
                                + (" (every goal card is filled)." if f["reason"] == "filled"
                                   else " (nobody has cards left).")),
    "CardsRevealed": lambda f, n: "Face-down cards revealed: " + (", ".join(
        f"{seat_name(n, c['owner'])}'s {CARDS[c['card']].en} in column {c['column'] + 1}" for c in f["cards"])
        or "none") + ".",
    "ColumnScored": _column_scored,
    "TableCleared": lambda f, n: "Every player puts their cards from the table on their discard pile.",
    "GameEnded": lambda f, n: "The game ends: " + ", ".join(
        f"{seat_name(n, seat)} {score}" for seat, score in enumerate(f["scores"])) + ".",
}
