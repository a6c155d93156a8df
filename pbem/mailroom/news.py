"""What a player's mail tells them, in plain words: what happened since their last mail, the
decision they face with the moves ready to send, and the final breakdown. Pure functions of a
loaded game; the outbox puts their results into mail models.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pbem.games.text import name_seats
from pbem.ledger import entries as log
from pbem.ledger import handovers, press, proposals
from pbem.ledger.entries import NAMED
from pbem.service.game import LoadedGame
from pbem.service.names import renamed_line
from pbem.service.talk import talk_line

MOVES_SHOWN = 12  # legal moves listed in a mail; the rest come with the "moves" command


def N_(message: str) -> str:  # the marker Babel extracts; translated when the mail is built
    return message


SOURCE_NOTES = {
    "deadline": N_("(%(player)s: deadline passed, default move: %(move)s)"),
    "robot": N_("(%(player)s: robot: %(move)s)"),
}
UNDO_LINES = {  # a move taken back by consent (pbem/ledger/withdrawals.py)
    "undo": N_('%(player)s asks to take back their move %(move)s; to agree, send "accept %(number)s".'),
    "consented": N_("%(player)s agrees to take back move %(move)s."),
    "withdrawn": N_("Move %(move)s (%(player)s) is withdrawn by consent; the game stands as before it."),
}
REASONS = {
    "missed-turns": N_("too many missed deadlines"),
    "resigned": N_("resigned"),
    "kicked": N_("by a vote of the other players"),
}
PLAIN_LINES = {"joined": N_("%(player)s joined."), "ended": N_("The game ended.")}
Translate = Callable[[str], str]


def untranslated(message: str) -> str:
    return message


def named_errors(result: dict[str, Any], names: Sequence[str]) -> dict[str, Any]:
    """A reply's result with every error message speaking of players by name."""

    def fix(error: Any) -> Any:
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return error | {"message": name_seats(error["message"], names)}
        return error

    result = dict(result)
    if result.get("error"):
        result["error"] = fix(result["error"])
    outcome = result.get("outcome")
    if isinstance(outcome, dict):
        result["outcome"] = outcome | {
            "error": fix(outcome.get("error")),
            "lines": [
                line | {"error": fix(line["error"])} if line.get("error") else line
                for line in outcome.get("lines") or []
            ],
        }
    return result


def since_lines(
    game: LoadedGame, start: int, stop: int, viewer: int | None, translate: Translate = untranslated
) -> list[str]:
    """Every fact of entries ``start``..``stop`` (exclusive) as ``viewer`` may see it, one
    plain sentence a line: moves, dice, battles, scoring, robot and deadline moves. The
    mail's own sentences (joins, start, end, robot and deadline notes) go through
    ``translate``, the recipient's gettext."""
    names = game.names
    lines: list[str] = []
    for index in range(max(start, 1), min(stop, game.version)):
        entry = log.visible_entry(game.entries[index], game.privates[index], viewer, game.ended)
        lines += [name_seats(line, names) for line in entry_lines(game, entry, translate)]
    return lines


def numbered_lines(
    game: LoadedGame, start: int, stop: int, viewer: int | None, translate: Translate = untranslated
) -> list[str]:
    """Entries ``start``..``stop`` (exclusive) as ``viewer`` may see them, one line each: the
    turn it made (as subjects and web pages count), then its facts. For the ``history``
    answer and the observers' mail; the games' words in the language spoken now."""
    lines = []
    for index in range(max(start, 0), min(stop, game.version)):
        entry = log.visible_entry(game.entries[index], game.privates[index], viewer, game.ended)
        said = entry_lines(game, entry, translate) if index else [translate(N_("The game was created."))]
        lines.append(f"{game.turn_of(index)}. " + " ".join(name_seats(line, game.names) for line in said))
    return lines


def _proposal_line(game: LoadedGame, entry: Mapping[str, Any], translate: Translate) -> str:
    return proposals.describe(dict(entry), game.entry, game.names, translate)


def entry_lines(game: LoadedGame, entry: Mapping[str, Any], translate: Translate = untranslated) -> list[str]:
    names = game.names
    kind = entry["kind"]
    who = names[entry["seat"]] if "seat" in entry else ""
    if kind in PLAIN_LINES:  # a mapping, so a line without a placeholder is left as it is
        return [translate(PLAIN_LINES[kind]) % {"player": who}]
    if kind == "resigned":
        reason = str(entry.get("reason", ""))
        reason = translate(REASONS[reason]) if reason in REASONS else reason
        return [
            translate(N_("From now on the house robot plays %(player)s (%(reason)s)."))
            % {"player": who, "reason": reason}
        ]
    if kind == NAMED:  # the seat's first name, so that a reader knows whom the new one names
        return [renamed_line(game.created["seats"], entry, translate)]
    if kind in handovers.KINDS or kind in UNDO_LINES:
        return [_table_line(game, entry, who, translate)]
    if kind in proposals.KINDS:
        return [_proposal_line(game, entry, translate)]
    if kind in press.TALK_KINDS:
        return [talk_line(entry, names)]
    facts = [game.spec.describe_fact(fact, names) for fact in entry.get("facts") or []]
    if kind == "started":
        return [translate(N_("The game started.")), *facts]
    note = SOURCE_NOTES.get(str(entry.get("source")))
    if note:
        return [translate(note) % {"player": who, "move": _said(game, entry)}, *facts]
    return facts or [f"{who}: {_said(game, entry)}"]


def _table_line(game: LoadedGame, entry: Mapping[str, Any], who: str, translate: Translate) -> str:
    """A line of the table's own entries: a seat handed over, a move taken back by consent."""
    kind = entry["kind"]
    if kind in handovers.KINDS:
        return handovers.describe(entry, game.entries[: int(entry["index"])], game.names, translate)
    move = entry["move"] if "move" in entry else game.entries[int(entry["undo"])]["move"]  # a consent: its request's
    # the move by its turn, as the history answer numbers it; the request by its entry, as "accept N" names it
    said = {"player": who, "number": entry["index"] + 1, "move": game.turn_of(int(move))}
    return translate(UNDO_LINES[kind]) % said


def _said(game: LoadedGame, entry: Mapping[str, Any]) -> str:
    """An entry's command in the reader's words (stored in the game's canonical English)."""
    command = entry.get("command")
    return game.spec.say_command(command) if isinstance(command, str) else ""


def decision(game: LoadedGame, state: Any, seat: int, limit: int = MOVES_SHOWN) -> dict[str, Any]:
    """The pending decision of ``seat``: one sentence, the first ``limit`` legal moves as lines
    ready to send, and how many more there are."""
    spec = game.spec
    moves = spec.legal_texts(state, seat, limit=10_000)
    sentence = name_seats(spec.decision_text(state, seat, game.names), game.names)
    return {"sentence": sentence, "moves": moves[:limit], "more": max(0, len(moves) - limit), "all": len(moves)}


def breakdown(
    details: Mapping[str, Any], label: Callable[[str], str] | None = None, item: Callable[[str], str] = str
) -> str:
    """A standing's details as "gold: castles 6, fishermen 4; goods 3" (nested dicts
    flattened, empty values left out, ``six_suits`` written "six suits"); ``label`` names the
    keys and ``item`` the entries of lists in the reader's language (the game's
    ``score_label`` and ``score_item``)."""

    def word(key: Any) -> str:
        return label(str(key)) if label else str(key).replace("_", " ")

    parts = []
    for key, value in details.items():
        if value is None or value == [] or value == {}:
            continue
        if isinstance(value, Mapping):
            inner = ", ".join(f"{word(k)} {v}" for k, v in value.items() if v is not None)
            parts.append(f"{word(key)}: {inner}")
        elif isinstance(value, (list, tuple)):
            parts.append(f"{word(key)} {', '.join(item(str(v)) for v in value)}")
        else:
            parts.append(f"{word(key)} {value}")
    return "; ".join(parts)
