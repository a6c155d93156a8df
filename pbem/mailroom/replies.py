"""The mails a stored ``Receipt`` calls for: the reply to a mail (with the refusal notices and
the "wrong address" answers it asked for), and the notice of a missed deadline's default move.

What a command's reply shows beyond its stored result (the games list, a status, the history,
the legal moves, a turn-file template) is read when the reply is built, by one handler per
command in ``ANSWERS``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pbem import i18n
from pbem.games import get_spec, speech
from pbem.games.base import GameError
from pbem.ledger.receipts import MAX_ENTRIES
from pbem.mailroom.addresses import seat_address
from pbem.mailroom.commands import parse_command, plain, plain_subject
from pbem.mailroom.limits import LIVE, NOTHING
from pbem.mailroom.news import named_errors, numbered_lines
from pbem.mailroom.queue import Mail
from pbem.mailroom.writer import GameBlock, Round, Thread, Writer
from pbem.service.game import LoadedGame
from pbem.service.summary_view import GameSummary
from pbem.service.turnfile import turn_file_header

HISTORY_SHOWN = 40  # the last entries a "history" answer lists (the web page has them all)
GAMES_SHOWN = 50  # games a "games" or "status" answer lists (status: those not over first, then the newest)
ADDRESSES_SHOWN = 5  # private addresses a line sent to the service address is answered with
REFUSALS = ("refused", "unknown", "too-large")  # actions that are refusals whatever their result says
DAY = timedelta(days=1)  # between two receipts to a player who asked for "receipts daily"
OWN_KINDS = ("moved", "said", "noted")  # the entries a seat makes itself, which its receipts prove
TALK_ACTIONS = ("tell", "note")  # messages and notes: no moves, and their receipts come otherwise


@dataclass(frozen=True)
class Played:
    """What a command did to its game, as its stored result says (``Outcome.to_dict``)."""

    ok: bool
    duplicate: bool
    version_before: int
    version: int

    @classmethod
    def of(cls, result: dict[str, Any]) -> Played | None:
        outcome = result.get("outcome")
        if not outcome:
            return None
        return cls(bool(outcome["ok"]), bool(outcome.get("duplicate")), outcome["version_before"], outcome["version"])

    @property
    def moved(self) -> bool:
        return self.version > self.version_before


def played(results: list[dict[str, Any]]) -> list[Played]:
    return [p for p in map(Played.of, results) if p is not None]


def reply_summary(results: list[dict[str, Any]]) -> str:
    """What a reply is, in one word for the subject and first line: "applied" (every move
    was), "refused" (something was refused; nothing applied) or "answer"."""
    outcomes = played(results)
    if any(r.get("error") or r.get("action") in REFUSALS for r in results):
        return "refused"
    if any(not p.ok for p in outcomes if not p.duplicate):
        return "refused"
    if any(p.moved for p in played([r for r in results if r.get("action") not in TALK_ACTIONS])):
        return "applied"  # moves were applied (messages are said so line by line)
    return "answer"


@dataclass(frozen=True)
class Asked:
    """The stored context of a mail (``MailDesk.handle``): whom to answer and about what."""

    game_id: str | None
    reply_to: str | None
    subject: str
    thread: Thread
    version: int | None
    notify: list[dict[str, Any]]
    authenticated: str | None = None  # how the sender showed it was itself ("token", "confirm", "dkim")
    hint: str | None = None  # the language of the words of a mail to the service address

    @classmethod
    def of(cls, context: dict[str, Any]) -> Asked:
        return cls(
            game_id=context.get("game"),
            reply_to=context.get("reply_to"),
            subject=context.get("subject") or "",
            thread=Thread(context.get("message_id"), tuple(context.get("references") or ())),
            version=context.get("version"),
            notify=list(context.get("notify") or []),
            authenticated=context.get("authenticated"),
            hint=context.get("lang"),
        )


# -- the receipts --------------------------------------------------------------------------
def receipt_mails(writer: Writer, round_: Round, game_id: str | None, outcome: Any, position: int) -> list[Mail]:
    """A mail's receipt calls for its reply, a missed deadline's for the deadline notice."""
    outcome = outcome or {}
    context = outcome.get("context") or {}
    if outcome.get("kind") == "mail":
        return reply(writer, round_, outcome.get("results", []), Asked.of(context), position)
    if context.get("deadline") and game_id:
        return deadline_notice(writer, round_, game_id, outcome, context["deadline"], position)
    return []


def deadline_notice(
    writer: Writer, round_: Round, game_id: str, outcome: dict[str, Any], info: dict[str, Any], position: int
) -> list[Mail]:
    """The player whose deadline passed hears which default move was played for them."""
    game = round_.game(game_id)
    email = game.emails[info["seat"]]
    version = outcome.get("version") or game.version
    block = writer.game_block(round_, game, version, email)
    with writer.speaking(round_, email, game_id):  # stored in the game's notation, said in the reader's words
        moves = [
            game.spec.say_command(line["text"]) for line in outcome.get("lines", []) if line["status"] == "applied"
        ]
    extra = dict(info) | {"moves": moves}
    return writer.queue(
        round_,
        f"n{position}/deadline",
        email,
        {"kind": "deadline", "game": block, "extra": extra},
        sender=block["address"],
    )


def _receipt_line(game: LoadedGame, attachment: dict[str, Any], now: datetime) -> dict[str, Any]:
    """What the reply says of its receipt: the leaf index (every entry counts) and the turns
    shown of its first and last entry (play only: talk does not advance them)."""
    index = attachment.get("index")
    last = max([index] + [part["index"] for part in attachment.get("more", [])]) if isinstance(index, int) else None

    def turn_of(at: int | None) -> int | None:
        return game.turn_of(at) if isinstance(at, int) and 0 <= at < game.version else None

    return {
        "index": index,
        "size": attachment.get("size"),
        "turn": turn_of(index),
        "last": turn_of(last),
        "receipt_of": game.id,  # the last receipt about a game is looked up by this (receipts daily)
        "at": now.isoformat(),
    }


def reply(writer: Writer, round_: Round, stored: list[dict[str, Any]], asked: Asked, position: int) -> list[Mail]:
    """The notices a mail asked for, then its reply."""
    game = _game_of(round_, asked.game_id)
    mails = notifications(writer, round_, game, asked, position)
    to = asked.reply_to
    if not to:
        return mails
    if asked.authenticated:  # they wrote to us, so mail to them works again (a forged From proves nothing)
        writer.deliverable_again(round_, to)
    lang = reply_language(writer, round_, stored, asked, to)
    results = [answer(writer, round_, result, to, lang) for result in stored]
    if game is not None:
        results = [named_errors(result, game.names) for result in results]
    if not asked.authenticated:
        results = [unquoted(result) for result in results]
    model: dict[str, Any] = {
        "kind": "reply",
        "results": results,
        "game": None,
        "receipt": None,
        "subject": plain_subject(asked.subject) if asked.authenticated else "",
        "lang": lang,  # a mail to the service address about a game speaks the game's language
    }
    attachment = None
    if game is not None and to in game.emails:
        model["game"], attachment = _about_game(writer, round_, game, to, results, asked)
        if attachment is not None:
            model["receipt"] = _receipt_line(game, attachment, round_.clocks.now())
    model["summary"] = reply_summary(results)
    if model["game"] is None:  # e.g. "join GAME" at the service address: a mail about that game
        model["game"] = _own_block_in(results)
    return mails + writer.queue(
        round_,
        f"n{position}/reply",
        to,
        model,
        sender=model["game"]["address"] if model["game"] else None,
        thread=asked.thread,
        attachment=attachment,
        limited=reply_budget(game, to, results, asked),
    )


def reply_language(writer: Writer, round_: Round, stored: list[dict[str, Any]], asked: Asked, to: str) -> str:
    """The reply's language: ``to``'s chosen one, else that of the game the mail was about (at
    a game's address, or named by a command at the service address), else that of its words."""
    named = next((r.get("game") or r["about"] for r in stored if r.get("game") or r.get("about")), None)
    return writer.language(round_, to, asked.game_id or named, asked.hint)


QUOTED = re.compile(r"(?<!\w)'[^'\n]*'(?!\w)|\"[^\"\n]*\"")  # a quoted piece of the mail in an error message


def unquoted(result: dict[str, Any]) -> dict[str, Any]:
    """A result as the reply to a mail that did not show it came from its From may show it:
    nothing the mail said. Anybody can put a victim's address in From and make the reply
    carry text the victim's provider refuses (whose bounce would then mark the victim), so
    the command is shown by its name only, lines not read are counted, and what an error
    quotes is left out. The answer itself (help, the refusal, the confirmation to ask for)
    is all there."""
    shown = dict(result)
    if shown.get("text"):
        command = parse_command(str(shown["text"]))
        # the keyword as our list spells it ("pomoc", "pripojit"): the reader's language, none of the mail's text
        shown["text"] = plain(command.text.split()[0]).rstrip(":") if command is not None else ""
    if shown.get("action") == "not-read":
        shown["hidden"] = len(shown.get("lines") or []) + int(shown.get("more") or 0)
        shown["lines"], shown["more"] = [], 0
    error = shown.get("error")
    if isinstance(error, dict) and error.get("message"):
        shown["error"] = error | {"message": QUOTED.sub("'...'", str(error["message"]))}
    return shown


def _game_of(round_: Round, game_id: str | None) -> LoadedGame | None:
    if not game_id:
        return None
    try:
        return round_.game(game_id)
    except GameError:
        return None


def _about_game(
    writer: Writer, round_: Round, game: LoadedGame, to: str, results: list[dict[str, Any]], asked: Asked
) -> tuple[GameBlock, dict[str, Any] | None]:
    """A player's reply shows the game after their commands, and carries one receipt of every
    entry their moves added."""
    outcomes = played(results)
    versions = [p.version for p in outcomes if p.version]
    version = max(versions) if versions else asked.version or game.version
    block = writer.game_block(round_, game, min(version, game.version), to)
    moved = receipted(results)
    made = [index for p in moved for index in range(p.version_before, p.version)]  # every entry of the mail
    choice = round_.clocks.records.receipts(to)  # receipts on (default) | off | daily
    if made and choice == "daily":
        made = _since_last_receipt(writer, round_, game, to, made)
    if not made or choice == "off":
        return block, None
    receipt = writer.service.receipt(game.id, made[0], moved[-1].version, viewer=to, game=game, also=made[1:])
    return block, receipt


def _since_last_receipt(writer: Writer, round_: Round, game: LoadedGame, to: str, made: list[int]) -> list[int]:
    """``receipts daily``: nothing when the last receipt about this game went out less than a
    day ago; else every entry ``to``'s seat made since that receipt's log (the robot's moves
    for the seat left out), and the mail's own; the newest ``MAX_ENTRIES`` - 1 of them."""
    size, at = writer.last_receipt(round_, to, game.id)
    if at is not None and round_.clocks.now() - at < DAY:
        return []
    seat = game.seat_of(to)
    earlier = [
        index
        for index in range(min(size or 0, made[0]), made[0])
        if game.entry(index).get("seat") == seat
        and game.entry(index)["kind"] in OWN_KINDS
        and game.entry(index).get("source") != "robot"
    ]
    return (earlier + made)[-(MAX_ENTRIES - 1) :]


def receipted(results: list[dict[str, Any]]) -> list[Played]:
    """The applied outcomes a reply's receipt covers: its moves, else its notes (a message's
    receipt comes with its own mail, pbem/mailroom/talk.py; a note has no mail of its own)."""
    moves = [p for p in played([r for r in results if r.get("action") not in TALK_ACTIONS]) if p.ok and p.moved]
    return moves or [p for p in played([r for r in results if r.get("action") == "note"]) if p.ok and p.moved]


def notifications(writer: Writer, round_: Round, game: LoadedGame | None, asked: Asked, position: int) -> list[Mail]:
    """The refusal notices a mail asked for (to the owner of an address it was refused at),
    each with its "wrong address" answer where a player wrote to another's address."""
    mails: list[Mail] = []
    for n, note in enumerate(asked.notify):
        block = (
            writer.game_block(round_, game, game.version, note["to"]) if game and note["to"] in game.emails else None
        )
        mails += writer.queue(
            round_,
            f"n{position}/notify/{n}",
            note["to"],
            {"kind": "refused", "game": block, "extra": note},
            sender=block["address"] if block else None,
            limited="notify",
        )
        mails += wrong_address(writer, round_, game, note, f"n{position}/wrong-address/{n}", asked.thread)
    return mails


def wrong_address(
    writer: Writer, round_: Round, game: LoadedGame | None, note: dict[str, Any], key: str, thread: Thread
) -> list[Mail]:
    """A player who wrote to another player's private address is answered (at their own
    registered address, so nothing leaks) with their own private address."""
    sender = note.get("sender")
    if game is None or note.get("reason") != "forged" or sender not in game.emails or sender == note["to"]:
        return []
    block = writer.game_block(round_, game, game.version, sender)
    # the mail came to an address whose token is not the sender's: it showed nothing, so its
    # subject is not quoted back (see ``unquoted``)
    extra = {"owner": game.names[game.emails.index(note["to"])], "subject": ""}
    return writer.queue(
        round_,
        key,
        sender,
        {"kind": "wrong-address", "game": block, "extra": extra},
        sender=block["address"],
        thread=thread,
        limited="notify",
    )


def reply_budget(game: LoadedGame | None, to: str, results: list[dict[str, Any]], asked: Asked) -> str:
    """Answers to a player's own mail at their private address, while the game is not
    over, count only against the flood guard: the hourly limit must not silence play.
    Answers to mail in which nothing was read as a command meet the loop brake first."""
    if results and all(
        r.get("action") in ("nothing", "not-read") or (r.get("action") == "help" and not r.get("text")) for r in results
    ):
        return NOTHING
    if not asked.game_id:
        return "service"
    if game is None or to not in game.emails or any(r.get("action") == "refused" for r in results):
        return "game"
    # the game as it was when the mail came (a follower may be catching up on old mail)
    befores = [p.version_before for p in played(results)]
    arrived = min(befores) if befores else game.version
    ended = any(e["kind"] == "ended" for e in game.entries[:arrived])
    return "game" if ended else LIVE + game.id


def _own_block_in(results: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The recipient's own game block among the results of a mail to the service address
    (``join GAME``, ``status GAME``): the answer is then a mail about that game, from the
    player's private address, so that "Reply" goes where moves count."""
    for result in results:
        block = result.get("block") or {}
        if block.get("address") and block.get("seat") is not None:
            return dict(block)
    return None


# -- what a command's answer shows, read now ----------------------------------------------
Answer = Callable[[Writer, Round, dict[str, Any], str], dict[str, Any]]
ANSWERED_DESPITE_ERRORS = ("catalog", "games")  # lists that help whatever went wrong


def answer(writer: Writer, round_: Round, result: dict[str, Any], email: str, lang: str) -> dict[str, Any]:
    """A command's result with what its reply shows, read now, in ``lang`` (the reply's)."""
    action = result.get("action")
    handler = ANSWERS.get(action) if isinstance(action, str) else None
    if handler is None or (result.get("error") and action not in ANSWERED_DESPITE_ERRORS):
        return dict(result)
    with i18n.speaking(lang):
        try:
            return result | handler(writer, round_, result, email)
        except GameError as error:
            return result | {"error": error.to_dict()}


def _help(writer: Writer, round_: Round, result: dict[str, Any], email: str) -> dict[str, Any]:
    if not result.get("game"):
        return {}
    game = round_.game(result["game"])
    return {"game_commands": {"title": game.spec.title, "lines": game.spec.command_examples()}}


def _catalog(writer: Writer, round_: Round, result: dict[str, Any], email: str) -> dict[str, Any]:
    return {"games": writer.service.catalog()}


def _games(writer: Writer, round_: Round, result: dict[str, Any], email: str) -> dict[str, Any]:
    # the newest games from the players' read model, their lines from the games list's rows: no game loaded
    newest = writer.service.newest_games(GAMES_SHOWN)
    return {"games": [_line(writer, row, mine) for row, mine in writer.service.summaries(newest, email)]}


def _status(writer: Writer, round_: Round, result: dict[str, Any], email: str) -> dict[str, Any]:
    if result.get("game"):
        game = round_.game(result["game"])
        return {"block": writer.game_block(round_, game, game.version, email)}
    # the sender's games from the two read models: two indexed queries, no game loaded
    rows, total = writer.service.summaries_of(email, GAMES_SHOWN)
    return {"games": [_line(writer, row, True) for row in rows], "more": total - len(rows)}


def _new(writer: Writer, round_: Round, result: dict[str, Any], email: str) -> dict[str, Any]:
    if not result.get("game"):
        return {}
    game = round_.game(result["game"])
    if email not in game.emails:
        return {}
    # the creator plays: a mail about that game, "Reply" joins
    return {"block": writer.game_block(round_, game, game.version, email)}


def _history(writer: Writer, round_: Round, result: dict[str, Any], email: str) -> dict[str, Any]:
    game = round_.game(result["game"])
    seat = game.emails.index(email) if email in game.emails else None
    translate = i18n.translations(speech.language()).gettext  # the answer's language (``answer``)
    return {"lines": numbered_lines(game, game.version - HISTORY_SHOWN, game.version, seat, translate)}


def _legal(writer: Writer, round_: Round, result: dict[str, Any], email: str) -> dict[str, Any]:
    game = round_.game(result["game"])
    state = writer.service.state(game)
    seat = game.emails.index(email) if email in game.emails else None
    if state is None or seat is None or seat not in game.spec.to_move(state):
        return {"moves": []}
    return {"moves": game.spec.legal_texts(state, seat, limit=10_000)}


def _invite(writer: Writer, round_: Round, result: dict[str, Any], email: str) -> dict[str, Any]:
    game = round_.game(result["game"])
    return {"block": writer.game_block(round_, game, game.version, email)}


def _template(writer: Writer, round_: Round, result: dict[str, Any], email: str) -> dict[str, Any]:
    shown = _invite(writer, round_, result, email)
    game = round_.game(result["game"])
    if email in game.emails:
        shown["template"] = turn_file(writer, game, game.emails.index(email))
    return shown


def turn_file(writer: Writer, game: LoadedGame, seat: int) -> str:
    """A turn file to fill in, for ``seat`` on their turn (else nothing)."""
    state = writer.service.state(game)
    if state is None or seat not in game.spec.to_move(state):
        return ""
    header = turn_file_header(game.id, game.emails[seat], game.version, game.spec.phase_label(state))
    return header + game.spec.turn_template(state, seat, game.names)


def _line(writer: Writer, row: GameSummary, mine: bool) -> dict[str, Any]:
    """One game in a list of games, from its row in the games list's read model, in the
    language spoken now (``answer``)."""
    try:
        title = get_spec(row.game_type).title
    except GameError:  # a type no longer offered: listed by its name
        title = row.game_type
    lang = speech.language()
    waiting_join = row.status == "waiting_join"
    return {
        "id": row.id,
        "title": title,
        "phase": i18n.translations(lang).gettext("waiting for players") if waiting_join else row.phase_in(lang),
        "over": row.status == "finished",
        "expired": row.status == "expired",  # never started in time (``pbem.mailroom.expiry``)
        "left": row.status == "left",  # a substitute took the seat of the player asking
        "seats": row.names,
        "waiting": row.waiting_names,
        "mine": mine,
        "url": f"{writer.service.settings.base_url}/games/{row.id}",
    }


def _unknown(writer: Writer, round_: Round, result: dict[str, Any], email: str) -> dict[str, Any]:
    """For a line sent to the service address that is no command there (a move, likely):
    the sender's private addresses of the games they play that are not over; with one such
    game, its block, so the answer comes from that address and "Reply" goes there."""
    if result.get("sender") != email:
        return {}
    rows, _ = writer.service.summaries_of(email, ADDRESSES_SHOWN)  # not finished first: no other game is loaded
    games = [round_.game(row.id) for row in rows if row.status != "finished"]
    found: dict[str, Any] = {"games": []}
    for game in games:
        token = round_.seat_token(game.id, game.emails.index(email))
        address = seat_address(writer.settings.address, game.id, token)
        found["games"].append({"id": game.id, "title": game.spec.title, "address": address})
    if len(games) == 1:
        found["block"] = writer.game_block(round_, games[0], games[0].version, email)
    return found


ANSWERS: dict[str, Answer] = {
    "unknown": _unknown,
    "help": _help,
    "catalog": _catalog,
    "games": _games,
    "status": _status,
    "new": _new,
    "history": _history,
    "legal": _legal,
    "template": _template,
    "invite": _invite,
}
