"""The mails a game's own entries call for: invitations when a game is created, and for each
change the notices of a robot taking a seat, of the start or the end, of whose turn it is now,
and the observers' updates. Each kind of notice is one handler of the ``Change``; the outbox
runs them all, in the order of ``NOTICES``.

A mail shows the game at the version its change made, and the decision only when that is the
newest version. So the last handler keeps the decision invariant: after a game's newest change,
every seat the game waits on whose last mail did not show its decision as it now stands (a
reply or notice built at an older version, two players answering a simultaneous step in one
round) gets a "your turn" mail with it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from pbem import i18n
from pbem.ledger import handovers, press, proposals
from pbem.ledger.entries import seat_names
from pbem.mailroom import talk
from pbem.mailroom.addresses import seat_address
from pbem.mailroom.limits import INVITE, INVITE_UNVERIFIED, LIVE
from pbem.mailroom.news import decision, numbered_lines
from pbem.mailroom.queue import Mail
from pbem.mailroom.writer import GameBlock, Round, Thread, Writer
from pbem.service.game import LoadedGame

HUMAN_SOURCES = ("email", "turnfile", "deadline")  # moves whose author hears of them in a reply
DAY = timedelta(days=1)  # between two digests to an observer who asked for "daily"
MAX_DIGEST_LINES = 60  # the newest lines of a digest; the web page has them all


@dataclass(frozen=True)
class Change:
    """The entries one stored event added to a game, at notification ``position``."""

    game: LoadedGame
    entries: list[dict[str, Any]]
    position: int

    @property
    def before(self) -> int:
        return int(self.entries[0]["index"])

    @property
    def after(self) -> int:
        return int(self.entries[-1]["index"]) + 1

    @property
    def kinds(self) -> list[str]:
        return [e["kind"] for e in self.entries]

    @property
    def robots(self) -> set[int]:
        """The seats a robot plays after the change."""
        return handovers.robots_in(self.game.entries[: self.after])

    @property
    def people(self) -> list[tuple[int, str]]:
        return list(enumerate(self.game.emails))


Notice = Callable[[Writer, Round, Change], list[Mail]]


def invitations(writer: Writer, round_: Round, game_id: str, position: int) -> list[Mail]:
    """One invitation to each seat of a new game."""
    game = round_.game(game_id)
    if writer.quiet(round_, game_id):
        return []
    clock = round_.clocks.clock_of(game_id)
    creator = clock.rules.get("invited_by") if clock else None  # games created by mail name their creator
    mails: list[Mail] = []
    for seat, email in enumerate(game.emails):
        block = writer.game_block(round_, game, 1, email)
        model = {
            "kind": "invitation",
            "game": block,
            "options": game.options,
            "invited_by": creator if creator != email else None,
        }
        mails += writer.queue(
            round_,
            f"n{position}/{seat}/invitation",
            email,
            model,
            sender=block["address"],
            limited=invitation_budget(round_, creator, email),
        )
    return mails


def invitation_budget(round_: Round, creator: str | None, email: str) -> str | None:
    """Only invitations sent by mail to an address that never showed who it is are limited
    (``Limits._invitation_over``): per inviter, and in all from inviters who never did either."""
    records = round_.clocks.records
    if creator is None or email == creator or records.verified(email):
        return None
    return (INVITE if records.verified(creator) else INVITE_UNVERIFIED) + creator


def notices(writer: Writer, round_: Round, entries: list[dict[str, Any]], position: int) -> list[Mail]:
    """Every notice the entries of one stored event call for."""
    game = round_.game(entries[0]["game"])
    if writer.quiet(round_, game.id):
        return []
    change = Change(game, entries, position)
    return [mail for notice in NOTICES for mail in notice(writer, round_, change)]


def robot_notices(writer: Writer, round_: Round, change: Change) -> list[Mail]:
    """Every player hears that a robot took over a seat, and why; but the one who resigned hears
    it in the reply to their mail, not a second time."""
    return _each_entry_to_each_player(
        writer,
        round_,
        change,
        ("resigned", "robot"),
        lambda entry, seat: seat == entry["seat"] and entry["reason"] == "resigned",
        lambda entry: {"name": change.game.names[entry["seat"]], "reason": entry["reason"]},
    )


def undo_notices(writer: Writer, round_: Round, change: Change) -> list[Mail]:
    """Every other player not played by the robot hears of a request to take back a move, with
    the line that agrees to it (pbem/service/consent.py)."""
    return _each_entry_to_each_player(
        writer,
        round_,
        change,
        ("undo", "undo"),
        lambda entry, seat: seat == entry["seat"] or seat in change.robots,
        lambda entry: {"name": change.game.names[entry["seat"]], "number": entry["index"] + 1},
    )


def _each_entry_to_each_player(
    writer: Writer,
    round_: Round,
    change: Change,
    kinds: tuple[str, str],
    skip: Callable[[dict[str, Any], int], bool],
    extra: Callable[[dict[str, Any]], dict[str, Any]],
) -> list[Mail]:
    """A mail of kind ``kinds[1]`` about each entry of kind ``kinds[0]`` to each player of the
    game whom ``skip(entry, seat)`` leaves out, with the game's block and ``extra(entry)``."""
    entry_kind, mail_kind = kinds
    mails: list[Mail] = []
    for entry in change.entries:
        if entry["kind"] != entry_kind:
            continue
        for seat, email in change.people:
            if skip(entry, seat):
                continue
            block = writer.game_block(round_, change.game, change.after, email)
            mails += writer.queue(
                round_,
                f"n{change.position}/{seat}/{mail_kind}/{entry['index']}",
                email,
                {"kind": mail_kind, "game": block, "extra": extra(entry)},
                sender=block["address"],
            )
    return mails


def proposal_notices(writer: Writer, round_: Round, change: Change) -> list[Mail]:
    """A proposal goes to every player who votes on it, with the lines that vote; a decision to
    every player not played by the robot (a passed end or kick is told by the end's and the
    robot's notices instead). pbem/mailroom/proposals.py."""
    mails: list[Mail] = []
    game = change.game
    for entry in change.entries:
        if entry["kind"] == proposals.PROPOSED:
            seats = proposals.voters(game.entries[: entry["index"]], entry, len(game.names))
            kind, proposal = "proposal", entry
        elif entry["kind"] == proposals.DECIDED:
            proposal = game.entry(int(entry["proposal"]))
            if entry["passed"] and proposal["what"] in ("end", "kick"):
                continue
            seats = set(range(len(game.names))) - change.robots
            kind = "decided"
        else:
            continue
        extra = {
            "what": proposal["what"],
            "passed": bool(entry.get("passed")),
            "name": game.names[proposal["seat"]],
            "number": proposal["index"] + 1,
            "days": proposal.get("days"),
            "target": game.names[proposal["target"]] if "target" in proposal else "",
            "until": proposals.describe_until(proposal, entry),
        }
        for seat in sorted(seats):
            email = game.emails[seat]
            block = writer.game_block(round_, game, change.after, email)
            mails += writer.queue(
                round_,
                f"n{change.position}/{seat}/{kind}/{entry['index']}",
                email,
                {"kind": kind, "game": block, "extra": extra},
                sender=block["address"],
            )
    return mails


def substitute_notices(writer: Writer, round_: Round, change: Change) -> list[Mail]:
    """An invitation to take over a seat goes to the invited address, from an address of its
    own (``pbem.mailroom.substitutes``), with a digest of the game so far (its newest lines),
    whose turn it is and the public view of the board; once the substitute has joined, the
    other players hear that the seat changed hands, and so does the player it was taken from."""
    mails: list[Mail] = []
    game = change.game
    for entry in change.entries:
        if entry["kind"] == handovers.SUBSTITUTE:
            mails += _substitute_invitation(writer, round_, change, entry)
        if entry["kind"] != handovers.HANDED:
            continue
        old = seat_names(game.entries[: entry["index"]])[entry["seat"]]  # the seat's name before it
        mails += _replaced_notice(writer, round_, change, entry, old)
        for seat, email in change.people:
            if seat == entry["seat"] or seat in change.robots:
                continue
            block = writer.game_block(round_, game, change.after, email)
            mails += writer.queue(
                round_,
                f"n{change.position}/{seat}/handed/{entry['index']}",
                email,
                {"kind": "handed", "game": block, "extra": {"name": old, "new": game.names[entry["seat"]]}},
                sender=block["address"],
            )
    return mails


def _replaced_notice(writer: Writer, round_: Round, change: Change, entry: dict[str, Any], old: str) -> list[Mail]:
    """The player a substitute took the seat from is told, in their language, who plays it now
    (their address only when the game shows addresses); their private address no longer works,
    so the mail comes from the service address."""
    game, index = change.game, int(entry["index"])
    before = handovers.address_before(game.entries, game.privates, index)
    if before is None or before in game.emails:
        return []
    block = writer.game_block(round_, game, change.after, before)
    new = game.names[entry["seat"]]
    shown = writer.addresses_shown(round_, game.id)
    extra = {"name": old, "new": new, "address": game.emails[entry["seat"]] if shown else None}
    return writer.queue(
        round_, f"n{change.position}/replaced/{index}", before, {"kind": "replaced", "game": block, "extra": extra}
    )


def _substitute_invitation(writer: Writer, round_: Round, change: Change, entry: dict[str, Any]) -> list[Mail]:
    game, index = change.game, int(entry["index"])
    email = str(game.private(index)["emails"][0])
    block = writer.game_block(round_, game, change.after, email)
    first = max(0, change.after - MAX_DIGEST_LINES)
    with i18n.speaking(writer.language(round_, email, game.id)):
        lines = numbered_lines(
            game, first, change.after, None, i18n.translations(writer.language(round_, email, game.id)).gettext
        )
    extra = {"name": game.names[entry["seat"]], "by": game.names[entry["by"]], "lines": lines, "earlier": first}
    address = seat_address(writer.settings.address, game.id, writer.service.reader.invitation_token(game.id, index))
    return writer.queue(
        round_,
        f"n{change.position}/substitute/{index}",
        email,
        {"kind": "substitute", "game": block, "extra": extra},
        sender=address,
        limited=invitation_budget(round_, game.emails[entry["by"]], email),
    )


def start_or_end_notices(writer: Writer, round_: Round, change: Change) -> list[Mail]:
    """Every player hears that the game started or ended, but the one whose join started it (or
    whose move ended it) hears it in the reply to that mail, and a robot's seat not at the start."""
    kinds = change.kinds
    if "ended" not in kinds and "started" not in kinds:
        return []
    kind = "ended" if "ended" in kinds else "started"
    answered = {
        e["seat"]
        for e in change.entries
        if e["kind"] == "joined" or (e["kind"] == "moved" and e.get("source") in ("email", "turnfile"))
    }
    mails: list[Mail] = []
    for seat, email in change.people:
        if seat in answered or (kind == "started" and seat in change.robots):
            continue
        block = writer.game_block(round_, change.game, change.after, email)
        mails += writer.queue(
            round_, f"n{change.position}/{seat}/{kind}", email, {"kind": kind, "game": block}, sender=block["address"]
        )
    return mails


def turn_notices(writer: Writer, round_: Round, change: Change) -> list[Mail]:
    """After moves (that neither started nor ended the game), each player who is now waited for
    and has news: not robots, not the movers who get a reply, and not a player who was already
    waited for while only others who were also due moved (a simultaneous phase)."""
    if "moved" not in change.kinds or told_everyone(change):
        return []
    game = change.game
    old_state = writer.service.state(game, change.before)
    waiting_before = set(game.spec.to_move(old_state)) if old_state is not None else set()
    movers = {e["seat"] for e in change.entries if e["kind"] == "moved"}
    replied = {e["seat"] for e in change.entries if e["kind"] == "moved" and e.get("source") in HUMAN_SOURCES}
    robots = change.robots
    mails: list[Mail] = []
    for seat in game.spec.to_move(writer.service.state(game, change.after)):
        if seat in robots or seat in replied:
            continue
        if seat in waiting_before and not movers - {seat} - waiting_before:
            continue  # no news: it is news only when someone out of turn order moved
        email = game.emails[seat]
        block = writer.game_block(round_, game, change.after, email)
        mails += writer.queue(
            round_, f"n{change.position}/{seat}/turn", email, {"kind": "turn", "game": block}, sender=block["address"]
        )
    return mails


def decision_notices(writer: Writer, round_: Round, change: Change) -> list[Mail]:
    """The decision invariant's keeper, after the newest change of a game the round knows: a
    seat the game waits on whose last mail (a reply, a notice) did not show its decision as it
    now stands gets a "your turn" mail with it. Two players answering a simultaneous step in
    one round, a notice built before a later change: the seat still hears what to decide."""
    game = change.game
    if "ended" in change.kinds or game.version != change.after or writer.quiet(round_, game.id):
        return []  # a later change of the game keeps it (its own notification comes)
    state = writer.service.state(game, game.version)
    if state is None or not game.started or game.ended:
        return []
    mails: list[Mail] = []
    for seat in game.spec.to_move(state):
        email = game.emails[seat]
        if seat in change.robots or writer.last_decision(round_, email, game.id) == _decision_now(
            writer, round_, game, seat
        ):
            continue
        block = writer.game_block(round_, game, game.version, email)
        mails += writer.queue(
            round_,
            f"n{change.position}/{seat}/decision",
            email,
            {"kind": "turn", "game": block},
            sender=block["address"],
        )
    return mails


def _decision_now(writer: Writer, round_: Round, game: LoadedGame, seat: int) -> Any:
    """The decision a mail to ``seat`` would show now (in its reader's language)."""
    with writer.speaking(round_, game.emails[seat], game.id):
        return decision(game, writer.service.state(game, game.version), seat)


def told_everyone(change: Change) -> bool:
    """The start, the end and a robot's taking over tell every player, with their decision."""
    return any(kind in change.kinds for kind in ("started", "ended", "resigned"))


def watcher_notices(writer: Writer, round_: Round, change: Change) -> list[Mail]:
    """The observers of a game get one digest when a turn ends (the game waits for someone it
    did not wait for before), when the game starts or ends and when a robot takes a seat: the
    lines of its history since their last digest (the first: the game so far). Who asked for
    ``daily`` gets one only when the last was a day ago or more (and always the end)."""
    watchers = round_.clocks.records.watchers(change.game.id)
    if not (watchers and watchers.emails) or not turn_ended(writer, change):
        return []
    game = change.game
    block_of: dict[str, GameBlock] = {}  # by language: each observer's own
    now = round_.clocks.now()
    daily = set(watchers.daily_emails())
    mails: list[Mail] = []
    for email in watchers.emails:
        since, last = writer.last_watched(round_, email, game.id)
        if email in daily and last is not None and "ended" not in change.kinds and now - last < DAY:
            continue
        start = max(0, min(since or 0, change.before))  # the first digest: the game so far (its newest lines)
        first = max(start, change.after - MAX_DIGEST_LINES)
        lang = writer.language(round_, email, game.id)
        if lang not in block_of:
            block_of[lang] = writer.game_block(round_, game, change.after, email)
        with i18n.speaking(lang):  # numbered by turn, said as "Since your last mail" says them
            lines = numbered_lines(game, first, change.after, None, i18n.translations(lang).gettext)
        extra = {"lines": lines, "earlier": first - start, "at": now.isoformat()}
        model = {"kind": "watch", "game": block_of[lang], "extra": extra}
        mails += writer.queue(round_, f"n{change.position}/watch/{email}", email, model)
    return mails


def turn_ended(writer: Writer, change: Change) -> bool:
    """Whether the change ends a turn for the observers: the start, the end, a robot taking a
    seat, or moves after which the game waits for a seat it did not wait for before."""
    if any(k in change.kinds for k in ("started", "resigned", "ended")):
        return True
    if "moved" not in change.kinds:
        return False
    game = change.game
    before, after = writer.service.state(game, change.before), writer.service.state(game, change.after)
    waiting_before = set(game.spec.to_move(before)) if before is not None else set()
    return bool(set(game.spec.to_move(after)) - waiting_before) if after is not None else False


def press_notices(writer: Writer, round_: Round, change: Change) -> list[Mail]:
    """Each message goes at once to its readers as a mail of its own (pbem/mailroom/talk.py):
    its recipients and a copy to its sender, each with their receipt of it, from their
    address of its conversation; a table message of a game whose press is public also to its
    observers."""
    mails: list[Mail] = []
    for entry in change.entries:
        if entry["kind"] != press.SAID:
            continue
        for seat in talk.readers(entry, len(change.game.names)):
            if seat not in change.robots:
                mails += _press_mail(writer, round_, change, entry, seat)
        if entry["to"] == press.TABLE and change.game.options.get("press") == "public":
            mails += _press_to_watchers(writer, round_, change, entry)
    return mails


def _press_block(writer: Writer, game: LoadedGame) -> dict[str, Any]:
    """What a message's mail shows of its game: no board and no news, so that it never counts
    as the mail that told a player what happened (their next game mail still does)."""
    return {"id": game.id, "title": game.spec.title, "url": f"{writer.service.settings.base_url}/games/{game.id}"}


def _press_model(change: Change, entry: dict[str, Any], seat: int | None, text: str | None) -> dict[str, Any]:
    names = change.game.names
    to = entry["to"]
    return {
        "sender_name": names[entry["seat"]],
        "to": to if to == press.TABLE else [names[s] for s in to],
        "text": text,
        "mine": seat == entry["seat"],
        "turn": change.game.turn_of(entry["index"]),  # talk does not advance the turn
        "conversation": talk.conversation_names(entry, names),
    }


def _press_mail(writer: Writer, round_: Round, change: Change, entry: dict[str, Any], seat: int) -> list[Mail]:
    game = change.game
    index, email = entry["index"], game.emails[seat]
    token = round_.seat_token(game.id, seat)
    answer_to = talk.answer_goes_to(entry, seat)
    address = talk.conversation_address(writer.settings.address, game.id, token, answer_to)
    own = seat_address(writer.settings.address, game.id, token)
    extra = _press_model(change, entry, seat, talk.shown_text(entry, game.private(index), seat))
    shown_to = [game.names[s] for s in answer_to] if isinstance(answer_to, list) else answer_to
    receipt = round_.clocks.records.receipts(email) != "off"  # receipts off: none, not even a message's
    extra |= {"answer_to": shown_to, "own": own, "receipt": receipt}
    thread = Thread(None, (talk.conversation_id(game.id, talk.parties(entry), writer.settings.domain),))
    return writer.queue(
        round_,
        f"n{change.position}/{seat}/said/{index}",
        email,
        {"kind": "press", "game": _press_block(writer, game), "extra": extra},
        sender=address,
        thread=thread,
        attachment=writer.service.receipt(game.id, index, viewer=email, game=game) if receipt else None,
        limited=LIVE + game.id,
        conversation=True,
    )


def _press_to_watchers(writer: Writer, round_: Round, change: Change, entry: dict[str, Any]) -> list[Mail]:
    watchers = round_.clocks.records.watchers(change.game.id)
    if not (watchers and watchers.emails):
        return []
    extra = _press_model(change, entry, None, entry.get("text"))
    thread = Thread(None, (talk.conversation_id(change.game.id, press.TABLE, writer.settings.domain),))
    mails: list[Mail] = []
    for email in watchers.emails:
        mails += writer.queue(
            round_,
            f"n{change.position}/watch/{email}/said/{entry['index']}",
            email,
            {"kind": "press", "game": _press_block(writer, change.game), "extra": extra | {"watching": True}},
            thread=thread,
            limited=LIVE + change.game.id,
            conversation=True,
        )
    return mails


NOTICES: tuple[Notice, ...] = (
    press_notices,  # a message first: it may speak of the move that follows it
    robot_notices,
    undo_notices,
    proposal_notices,
    substitute_notices,
    start_or_end_notices,
    turn_notices,
    watcher_notices,
    decision_notices,
)
