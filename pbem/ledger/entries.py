"""Log entries: the public record of each event (what is hashed into the Merkle log) and its
private part (the openings of everything committed).

Entry kinds, in the order a game's log holds them:

* ``created``  game type, options, seat names, the seed commitment (the seed is private);
* ``joined``   a seat's player accepted, with an optional randomness nonce;
* ``started``  the setup facts (secret parts committed) and a commitment to the draws;
* ``moved``    a seat's command (or its public text), its facts and draws;
* ``resigned`` a seat left; the house robot plays it from then on;
* ``named``    a seat's player is named otherwise from then on (``name``), at any time before the end;
* ``said``     a message between players (``pbem.ledger.press``), at any time before the end;
* ``noted``    a seat's note to itself, private or sealed (opened at the end), likewise;
* ``undo``, ``consented``, ``withdrawn``  a move taken back by consent (``pbem.ledger.withdrawals``);
* ``substitute``, ``handed``  a seat handed to a substitute player (``pbem.ledger.handovers``);
* ``ended``    the standings and the revealed seed.

Every entry has ``v`` (format), ``game``, ``index`` (its position, from 0), ``kind`` and
``time``. Private parts hold ``salts`` (one per fact, null for public facts), ``facts`` (the
full facts), ``draws`` and ``draws_salt``, and for a secret command ``command`` and
``command_salt``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from pbem.games.base import SECRET, Fact, Standing, can_see
from pbem.ledger import press
from pbem.ledger.commitments import commit, new_salt, opened_fact, public_fact

FORMAT = 1
NAMED = "named"  # not play: like talk, a rename changes nothing in the game and advances no turn
Entry = dict[str, Any]
Private = dict[str, Any]


def instant(time: str) -> datetime:
    """An entry's time as an instant (ISO 8601; a time without a zone is read as UTC).
    Raises ValueError for text that is not a time."""
    parsed = datetime.fromisoformat(time)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def not_before(entry: Entry, previous: Entry) -> Entry:
    """``entry`` with the time of ``previous`` when the clock reads earlier (a clock set back,
    two servers a little apart): a log's times never go backwards, and ``verify`` checks it.
    The time is not part of any commitment, so it may be set before the entry is hashed."""
    if instant(entry["time"]) < instant(previous["time"]):
        return entry | {"time": previous["time"]}
    return entry


def _base(game_id: str, index: int, kind: str, time: str) -> Entry:
    return {"v": FORMAT, "game": game_id, "index": index, "kind": kind, "time": time}


def created(
    game_id: str,
    time: str,
    game_type: str,
    rules_version: str,
    options: dict[str, str],
    names: Sequence[str],
    emails: Sequence[str],
    seed: bytes,
    seed_source: str,
    seed_commitment: str,
) -> tuple[Entry, Private]:
    entry = _base(game_id, 0, "created", time) | {
        "game_type": game_type,
        "rules_version": rules_version,
        "options": dict(options),
        "seats": list(names),
        "seed_commitment": seed_commitment,
        "seed_source": seed_source,
    }
    return entry, {"seed": seed.hex(), "emails": list(emails)}


def joined(game_id: str, index: int, time: str, seat: int, nonce: str | None) -> tuple[Entry, Private]:
    return _base(game_id, index, "joined", time) | {"seat": seat, "nonce": nonce}, {}


def resigned(game_id: str, index: int, time: str, seat: int, reason: str) -> tuple[Entry, Private]:
    """The robot plays ``seat`` from now on; ``reason`` is "resigned" or "missed-turns"."""
    return _base(game_id, index, "resigned", time) | {"seat": seat, "reason": reason}, {}


def named(game_id: str, index: int, time: str, seat: int, name: str) -> tuple[Entry, Private]:
    """The player of ``seat`` goes by ``name`` from this entry on (a public fact, like the names
    of the ``created`` entry; the name is cleaned and bounded by the service)."""
    return _base(game_id, index, NAMED, time) | {"seat": seat, "name": name}, {}


def seat_names(entries: Iterable[Mapping[str, Any]]) -> list[str]:
    """The seats' newest names in a log (its ``created`` entry first): each seat as its player
    goes by now, the one name every reader shows for a seat, at any turn (docs/mail.md "Names")."""
    names: list[str] = []
    for entry in entries:
        if entry["kind"] == "created":
            names = list(entry["seats"])
        elif entry["kind"] == NAMED:
            names[int(entry["seat"])] = str(entry["name"])
    return names


def said(game_id: str, index: int, time: str, seat: int, to: list[int] | str, text: str) -> tuple[Entry, Private]:
    """One message from ``seat`` to the seats ``to`` (or ``press.TABLE``): a table message is
    opened in the entry, a private one only in its private part (see ``pbem.ledger.press``)."""
    salt = new_salt()
    entry = _base(game_id, index, press.SAID, time) | {
        "seat": seat,
        "to": to if to == press.TABLE else sorted(to),
        "text_commitment": commit(salt, text),
    }
    if to == press.TABLE:
        return entry | {"text": text, "text_salt": salt}, {}
    return entry, {press.PRIVATE_KEY: {"text": text, "salt": salt}}


def noted(game_id: str, index: int, time: str, seat: int, text: str, sealed: bool) -> tuple[Entry, Private]:
    """A note of ``seat`` to itself: only its commitment is in the log; a sealed note is
    opened for everyone at the end (``opening``), a private one never (``pbem.ledger.press``)."""
    salt = new_salt()
    entry = _base(game_id, index, press.NOTED, time) | {
        "seat": seat,
        "sealed": sealed,
        "text_commitment": commit(salt, text),
    }
    return entry, {(press.SEALED_KEY if sealed else press.PRIVATE_KEY): {"text": text, "salt": salt}}


def undo(game_id: str, index: int, time: str, seat: int, move: int) -> tuple[Entry, Private]:
    """``seat`` asks to withdraw its move at entry ``move``."""
    return _base(game_id, index, "undo", time) | {"seat": seat, "move": move}, {}


def consented(game_id: str, index: int, time: str, seat: int, undo: int) -> tuple[Entry, Private]:
    """``seat`` agrees to the request of entry ``undo``."""
    return _base(game_id, index, "consented", time) | {"seat": seat, "undo": undo}, {}


def withdrawn(game_id: str, index: int, time: str, seat: int, move: int) -> tuple[Entry, Private]:
    """The move at entry ``move`` (``seat``'s) is withdrawn by consent: the state is again the
    state before it."""
    return _base(game_id, index, "withdrawn", time) | {"seat": seat, "move": move}, {}


def _facts_and_draws(facts: Sequence[Fact], draws: list[list[int]]) -> tuple[dict[str, Any], Private]:
    salts = [new_salt() if SECRET in fact else None for fact in facts]
    public = [public_fact(fact, salt) for fact, salt in zip(facts, salts, strict=False)]
    private: Private = {"facts": list(facts), "salts": salts}
    visible: dict[str, Any] = {"facts": public, "draws": None}
    if draws:
        private["draws"], private["draws_salt"] = draws, new_salt()
        visible["draws"] = {"count": len(draws), "commitment": commit(private["draws_salt"], draws)}
    return visible, private


def started(
    game_id: str, index: int, time: str, facts: Sequence[Fact], draws: list[list[int]]
) -> tuple[Entry, Private]:
    visible, private = _facts_and_draws(facts, draws)
    return _base(game_id, index, "started", time) | visible, private


def moved(
    game_id: str,
    index: int,
    time: str,
    seat: int,
    source: str,
    command: str,
    public_command: str,
    facts: Sequence[Fact],
    draws: list[list[int]],
) -> tuple[Entry, Private]:
    visible, private = _facts_and_draws(facts, draws)
    entry = _base(game_id, index, "moved", time) | {"seat": seat, "source": source, "command": public_command}
    if public_command != command:
        private["command"], private["command_salt"] = command, new_salt()
        entry["command_commitment"] = commit(private["command_salt"], command)
    return entry | visible, private


def ended(game_id: str, index: int, time: str, standings: Sequence[Standing], seed: bytes) -> tuple[Entry, Private]:
    entry = _base(game_id, index, "ended", time) | {
        "standings": [s.to_dict() for s in standings],
        "seed": seed.hex(),
    }
    return entry, {}


def opening(private: Private) -> dict[str, Any]:
    """What is published of a private part at the end (the created entry's emails stay
    private: they are contact data, not game data; a private message stays between its
    sender and recipients)."""
    return {key: value for key, value in private.items() if key not in ("emails", "seed", press.PRIVATE_KEY)}


def visible_entry(entry: Entry, private: Private, viewer: int | None, everything: bool) -> Entry:
    """The entry as ``viewer`` may read it: secret facts opened for their seats, the viewer's
    own secret command shown, and all of it when ``everything`` (the game has ended)."""
    facts = entry.get("facts")
    shown = dict(entry)
    if facts:
        shown["facts"] = [
            opened_fact(fact, full[SECRET]["data"])
            if SECRET in fact and (everything or can_see(fact, viewer))
            else fact
            for fact, full in zip(facts, private["facts"], strict=False)
        ]
    if "command_commitment" in entry and (everything or viewer == entry.get("seat")):
        shown["command"] = private["command"]
    if entry["kind"] in press.TALK_KINDS and "text" not in entry:
        text = press.text_of(entry, private, viewer, everything)  # for its parties (a sealed note: all at the end)
        if text is not None:
            shown["text"] = text
    return shown
