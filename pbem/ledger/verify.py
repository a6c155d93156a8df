"""Offline verification of an exported game, trusting nothing but the keys.

Checks, in order: the file is in canonical form; the entries form a well-ordered log of one
game; every checkpoint is signed by a known key and its root is the Merkle root of the entries
it covers; after the end, the seed matches its commitment, every opening matches its
commitment, every draw re-derives from the seed, and replaying every command through the rules
gives exactly the stored facts and standings. ``VerificationError`` names what failed and where.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pbem.games import catalog
from pbem.games.base import SECRET, GameError
from pbem.games.speech import _, ngettext
from pbem.ledger import handovers, press, proposals, withdrawals
from pbem.ledger.canonical import NotCanonical, canonical_bytes, check_canonical, encode_checked
from pbem.ledger.commitments import public_fact
from pbem.ledger.entries import FORMAT, NAMED, instant
from pbem.ledger.fairness import DrawRng, draw_scope, rederive, seed_commitment
from pbem.ledger.merkle import leaf_hash, prefix_roots
from pbem.ledger.notes import Checkpoint, NoteError, Revocation, VerifierKey, open_note

EXPORT_FORMAT = "pbem-export/1"
DOCUMENT_FIELDS = {"format", "game", "origin", "keys", "entries", "checkpoints", "openings", "revocations"}
CHECKPOINT_FIELDS = {"size", "note"}
Progress = Callable[[int, int | None], None]  # (done, total): how far a long check has come
REVOCATION_FIELDS = {"key", "since"}
MAX_NAME_LENGTH = 40  # a seat's name (pbem.service.names.MAX_NAME)
OPENING_FIELDS = {"facts", "salts", "draws", "draws_salt", "command", "command_salt", press.SEALED_KEY}


class VerificationError(Exception):
    def __init__(self, where: str, what: str):
        super().__init__(f"{where}: {what}")
        self.where = where
        self.what = what


@dataclass
class Report:
    game: str = ""
    entries: int = 0
    checkpoints: int = 0
    ended: bool = False
    checked: list[str] = field(default_factory=list)
    not_checked: list[str] = field(default_factory=list)
    revoked: list[str] = field(default_factory=list)  # signatures by a key after its revocation


def export_bytes(document: dict[str, Any]) -> bytes:
    """The one byte form of an export (so that any changed byte is detectable)."""
    return canonical_bytes(document) + b"\n"


def _refuse_float(text: str) -> Any:
    raise NotCanonical(f"{text} is a float, which has no canonical encoding")


def verify_bytes(
    data: bytes,
    trusted: Sequence[VerifierKey] = (),
    revoked: Sequence[Revocation] = (),
    replay: bool = True,
    progress: Progress | None = None,
) -> Report:
    """``progress(done, total)`` is told how far the rules replay (the long part) has come."""
    try:
        # Floats (and NaN, Infinity) are refused while parsing, so everything decoded is plain
        # JSON and is encoded below without walking it again.
        document = json.loads(data.decode("utf-8"), parse_float=_refuse_float, parse_constant=_refuse_float)
    except UnicodeDecodeError as error:
        raise VerificationError(f"byte {error.start}", "the file is not UTF-8") from error
    except json.JSONDecodeError as error:
        raise VerificationError(f"byte {error.pos}", f"the file is not JSON ({error.msg})") from error
    except NotCanonical as error:
        raise VerificationError("file", str(error)) from error
    expected, entry_bytes = _encoded(document)
    if data != expected:
        differing = (i for i, (a, b) in enumerate(zip(data, expected, strict=False)) if a != b)
        offset = next(differing, min(len(data), len(expected)))
        raise VerificationError(f"byte {offset}", "the file is not in canonical form: it was changed after export")
    return _guarded(document, trusted, revoked, replay, entry_bytes, progress)


def _encoded(document: Any) -> tuple[bytes, list[bytes] | None]:
    """The export's canonical bytes, and each entry's (the Merkle leaves hash them): the
    document is assembled from its top-level fields (sorted keys, as the canonical form has
    them), so that each entry is encoded once for both."""
    entries = document.get("entries") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        return encode_checked(document) + b"\n", None
    entry_bytes = [encode_checked(entry) for entry in entries]
    fields = [
        encode_checked(key)
        + b":"
        + (b"[" + b",".join(entry_bytes) + b"]" if key == "entries" else encode_checked(document[key]))
        for key in sorted(document)
    ]
    return b"{" + b",".join(fields) + b"}\n", entry_bytes


def verify_export(
    document: dict[str, Any],
    trusted: Sequence[VerifierKey] = (),
    revoked: Sequence[Revocation] = (),
    replay: bool = True,
) -> Report:
    """``revoked`` are revocations the caller trusts (the server's published list); the
    export's own ``revocations`` are added to them. ``replay=False`` skips the rules replay
    (said in the report), for a quick check of the signatures and commitments."""
    try:
        check_canonical(document)
    except NotCanonical as error:
        raise VerificationError("document", str(error)) from error
    return _guarded(document, trusted, revoked, replay, None)


def _guarded(
    document: Any,
    trusted: Sequence[VerifierKey],
    revoked: Sequence[Revocation],
    replay: bool,
    entry_bytes: list[bytes] | None,
    progress: Progress | None = None,
) -> Report:
    try:
        return _verify(document, trusted, revoked, replay, entry_bytes, progress)
    except VerificationError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        # A forged document can be malformed in ways no check names; it is still refused.
        raise VerificationError("document", f"malformed ({type(error).__name__}: {error})") from error


def _commitment_matches(salt: Any, value: Any, expected: object) -> bool:
    """``commit(salt, value) == expected`` for a value from the checked document (encoded
    without walking it again)."""
    try:
        return hashlib.sha256(bytes.fromhex(salt) + encode_checked(value)).hexdigest() == expected
    except (TypeError, ValueError, NotCanonical):
        return False


def _verify(
    document: dict[str, Any],
    trusted: Sequence[VerifierKey],
    revoked: Sequence[Revocation],
    replay: bool,
    entry_bytes: list[bytes] | None,
    progress: Progress | None,
) -> Report:
    report = Report()
    entries, keys = _check_shape(document, trusted, report)
    _check_sequence(document["game"], entries)
    report.checked.append(
        ngettext("the {n} entry forms one game's log", "the {n} entries form one game's log in order", len(entries))
    )
    _check_press(entries, report)
    signers = _check_checkpoints(document, entries, entry_bytes or [encode_checked(e) for e in entries], keys, report)
    _check_times(entries, report)
    _check_revocations(entries, signers, [*revoked, *_revocations(document)], report)
    if entries[-1]["kind"] != "ended":
        _still_committed(document, entries, report)
    else:
        _check_ended(document, entries, replay, progress, report)
    return report


def _still_committed(document: dict[str, Any], entries: list[dict[str, Any]], report: Report) -> None:
    """A running game: its openings must not be published yet; says what stays unchecked."""
    if document.get("openings") is not None:
        raise VerificationError("openings", "a running game publishes no openings (they must be null)")
    hidden = sum(1 for e in entries for f in e.get("facts") or [] if SECRET in f)
    draws = sum((e.get("draws") or {}).get("count", 0) for e in entries)
    report.not_checked.append(
        _(
            "the game has not ended: its hidden facts ({hidden}) and random draws ({draws}) stay "
            "committed until the seed and the openings are published at the end, so they and the "
            "rules replay cannot be checked yet",
            hidden=hidden,
            draws=draws,
        )
    )


def _check_ended(
    document: dict[str, Any], entries: list[dict[str, Any]], replay: bool, progress: Progress | None, report: Report
) -> None:
    """An ended game: every opening, every draw and (when asked and possible) the rules replay."""
    report.ended = True
    openings = document.get("openings")
    if not isinstance(openings, list) or len(openings) != len(entries):
        raise VerificationError("openings", "an ended game must publish one opening per entry")
    spec = _replayable(entries[0]) if replay else None
    # The replay draws every number again through the same derivation, so when it runs the
    # draws are re-derived there, once.
    _check_openings(entries, openings, report, rederive_draws=spec is None)
    _check_sealed_notes(entries, openings, report)
    if spec is not None:
        _replay(spec, entries, openings, report, progress)
    elif replay:
        created = entries[0]
        report.not_checked.append(
            _(
                "the rules replay: this pbem has no {game} rules of version {version}",
                game=created["game_type"],
                version=created["rules_version"],
            )
        )
    else:
        report.not_checked.append(_("the rules replay (skipped on request)"))


def _check_shape(
    document: Any, trusted: Sequence[VerifierKey], report: Report
) -> tuple[list[dict[str, Any]], list[VerifierKey]]:
    if not isinstance(document, dict) or document.get("format") != EXPORT_FORMAT:
        raise VerificationError("format", f"not a {EXPORT_FORMAT} document")
    _check_fields(document)
    if len(set(document["keys"])) != len(document["keys"]):
        raise VerificationError("keys", "a key is listed twice")
    entries = document["entries"]
    if not isinstance(entries, list) or not entries:
        raise VerificationError("entries", "an export needs at least the created entry")
    try:
        keys = list(trusted) or [VerifierKey.parse(text) for text in document["keys"]]
    except (NoteError, TypeError, AttributeError) as error:
        raise VerificationError("keys", str(error)) from error
    report.game, report.entries = document["game"], len(entries)
    if not trusted:
        report.not_checked.append(
            _(
                "signatures were checked against the keys inside the export; pass the server's "
                "published key with --key to check that this server signed them"
            )
        )
    return entries, keys


def _check_fields(document: dict[str, Any]) -> None:
    """Every field an export needs is there, and no other (everything in an export is either
    checked or absent)."""
    for key in ("game", "origin", "keys", "entries", "checkpoints"):
        if key not in document:
            raise VerificationError(key, "missing")
    _only(document, DOCUMENT_FIELDS, "document")
    for number, item in enumerate(document["checkpoints"]):
        _only(item, CHECKPOINT_FIELDS, f"checkpoint {number}")
    for number, opening in enumerate(document.get("openings") or []):
        _only(opening or {}, OPENING_FIELDS, f"opening {number}")


def _only(item: Any, allowed: set[str], where: str) -> None:
    if not isinstance(item, dict):
        raise VerificationError(where, "is not an object")
    unknown = sorted(set(item) - allowed)
    if unknown:
        raise VerificationError(where, f"has fields this format does not define: {', '.join(unknown)}")


def _where(index: int, entry: dict[str, Any]) -> str:
    seat = f", seat {entry['seat']}" if "seat" in entry else ""
    return f"entry {index} ({entry.get('kind', '?')}{seat})"


def _check_sequence(game_id: str, entries: list[dict[str, Any]]) -> None:
    created = entries[0]
    if created.get("kind") != "created":
        raise VerificationError("entry 0", "the first entry must be 'created'")
    seats = len(created.get("seats", []))
    joined: set[int] = set()
    started = False
    for index, entry in enumerate(entries):
        where = _where(index, entry)
        _check_place(where, index, entry, game_id, seats)
        if index > 0:
            started = _stage_after(where, entry, index == len(entries) - 1, seats, joined, started)
        problem = _entry_problem(entries, index, seats)
        if problem:
            raise VerificationError(where, problem)


def _entry_problem(entries: list[dict[str, Any]], index: int, seats: int) -> str | None:
    """What the rules of withdrawals, proposals and hand-overs say is wrong with one entry (None:
    nothing)."""
    kind = entries[index].get("kind")
    if kind in withdrawals.KINDS:
        return withdrawals.check(entries, index, seats)
    if kind in proposals.KINDS:
        return proposals.check(entries, index, seats)
    if kind in handovers.KINDS:
        return handovers.check(entries, index, seats)
    if kind == "resigned":
        return proposals.check_kicked(entries, index)
    return None


def _check_place(where: str, index: int, entry: Any, game_id: str, seats: int) -> None:
    """The entry is of this format, says it is entry ``index`` of this game, and names a seat
    that exists."""
    if not isinstance(entry, dict) or entry.get("v") != FORMAT:
        raise VerificationError(where, "unknown entry format")
    if entry.get("index") != index or entry.get("game") != game_id:
        raise VerificationError(where, f"does not say it is entry {index} of game {game_id}")
    seat = entry.get("seat")
    seated = ("joined", "moved", "resigned", press.SAID, NAMED, *withdrawals.KINDS, *proposals.SEATED, *handovers.KINDS)
    if entry.get("kind") in seated and not (isinstance(seat, int) and 0 <= seat < seats):
        raise VerificationError(where, f"names seat {seat!r}, which does not exist")


def _check_name(where: str, entry: dict[str, Any]) -> None:
    """A ``named`` entry's name is a text of 1 to ``MAX_NAME_LENGTH`` characters."""
    name = entry.get("name")
    if not (isinstance(name, str) and 0 < len(name) <= MAX_NAME_LENGTH):
        raise VerificationError(where, f"a 'named' entry names no name of at most {MAX_NAME_LENGTH} characters")


def _stage_after(where: str, entry: dict[str, Any], last: bool, seats: int, joined: set[int], started: bool) -> bool:
    """Whether the game has started after ``entry`` (a join is added to ``joined``); refuses
    an entry that cannot follow the ones before it: joins of different seats, the start once
    all joined, then moves and resignations, and an end only as the last entry; messages
    anywhere before the end."""
    kind, seat = entry.get("kind"), entry.get("seat")
    if kind in press.TALK_KINDS:
        return started
    if kind == NAMED:  # a name given during the game: anywhere before the end
        _check_name(where, entry)
        return started
    if kind == "joined" and not started and isinstance(seat, int) and seat not in joined:
        joined.add(seat)
        return False
    if kind == "started" and not started and joined == set(range(seats)):
        return True
    if (kind in ("moved", "resigned", *withdrawals.KINDS, *proposals.KINDS, *handovers.KINDS) and started) or (
        kind == "ended" and started and last
    ):
        return started
    raise VerificationError(where, f"a '{kind}' entry cannot stand here")


def _check_press(entries: list[dict[str, Any]], report: Report) -> None:
    """Every message names other seats of the game as its recipients; a table message is
    opened in the log and its text matches its commitment; a private one stays closed."""
    seats = len(entries[0].get("seats", []))
    table = private = notes = 0
    for index, entry in enumerate(entries):
        if entry.get("kind") == press.NOTED:
            notes += 1
            wrong = press.note_problem(entry)
            if wrong is not None:
                raise VerificationError(_where(index, entry), wrong)
        if entry.get("kind") != press.SAID:
            continue
        wrong = press.problem(entry, seats)
        if wrong is not None:
            raise VerificationError(_where(index, entry), wrong)
        table += entry["to"] == press.TABLE
        private += entry["to"] != press.TABLE
    if table or private:
        matched = ngettext(
            "{n} table message matches its commitment", "{n} table messages match their commitments", table
        )
        closed = ngettext(
            "{n} private message names other seats of the game and stays closed (its parties hold the opening)",
            "{n} private messages name other seats of the game and stay closed (their parties hold the openings)",
            private,
        )
        report.checked.append(f"{matched}; {closed}")
    if notes:
        report.checked.append(ngettext("{n} note is committed in the log", "{n} notes are committed in the log", notes))


def _check_sealed_notes(entries: list[dict[str, Any]], openings: list[Any], report: Report) -> None:
    """At the end every sealed note is opened and matches the commitment made before; a
    private note is never published."""
    count = 0
    for index, (entry, opening) in enumerate(zip(entries, openings, strict=False)):
        if entry.get("kind") != press.NOTED:
            continue
        note = (opening or {}).get(press.SEALED_KEY)
        if not entry.get("sealed"):
            if note is not None:
                raise VerificationError(_where(index, entry), "a private note is published among the openings")
            continue
        if not isinstance(note, dict) or not press.opens(note.get("salt"), note.get("text"), entry["text_commitment"]):
            raise VerificationError(_where(index, entry), "the opened sealed note does not match its commitment")
        count += 1
    if count:
        report.checked.append(
            ngettext(
                "{n} sealed note, opened at the end, matches its commitment",
                "{n} sealed notes, opened at the end, match their commitments",
                count,
            )
        )


def _check_times(entries: list[dict[str, Any]], report: Report) -> None:
    """Each entry's time is no earlier than the one before: the signer never goes backwards."""
    previous = None
    for index, entry in enumerate(entries):
        where = _where(index, entry)
        try:
            when = instant(entry["time"])
        except (TypeError, ValueError) as error:
            raise VerificationError(where, f"its time {entry['time']!r} is not an ISO 8601 time") from error
        if previous is not None and when < previous:
            raise VerificationError(
                where,
                f"its time {entry['time']} is before the previous entry's "
                f"({entries[index - 1]['time']}): a log's time never runs backwards",
            )
        previous = when
    report.checked.append(_("the entries' times never run backwards"))


def _revocations(document: dict[str, Any]) -> list[Revocation]:
    items = document.get("revocations") or []
    try:
        for number, item in enumerate(items):
            _only(item, REVOCATION_FIELDS, f"revocation {number}")
        revocations = [Revocation.from_dict(item) for item in items]
        for revocation in revocations:
            instant(revocation.since)
    except (NoteError, KeyError, TypeError, ValueError) as error:
        raise VerificationError("revocations", f"malformed ({error})") from error
    return revocations


def _check_revocations(
    entries: list[dict[str, Any]],
    signers: list[tuple[int, list[VerifierKey]]],
    revocations: list[Revocation],
    report: Report,
) -> None:
    """A checkpoint is signed when its last entry was made (times never run backwards), so a
    signature by a key revoked at or before that time is one the key's owner may not have
    made. Only the last checkpoint vouches for the whole log: signed only by revoked keys, the
    log is refused; earlier ones are reported (a later, good signature covers their entries)."""
    if not revocations:
        return
    for number, (size, keys) in enumerate(signers):
        signed_at = instant(entries[size - 1]["time"])
        bad = [r for r in revocations if r.key in keys and instant(r.since) <= signed_at]
        if not bad or len({r.key for r in bad}) < len(keys):
            continue
        what = f"signed at {entries[size - 1]['time']} only by " + ", ".join(
            f"key {r.key.name}+{r.key.id.hex()} (revoked since {r.since})" for r in bad
        )
        if number == len(signers) - 1:
            raise VerificationError(f"checkpoint {number}", f"{what}: no trusted signature covers the log")
        named = ", ".join(_revoked_key(r) for r in bad)
        report.revoked.append(
            _(
                "checkpoint {number} (size {size}) was signed at {time} only by {keys}",
                number=number,
                size=size,
                time=entries[size - 1]["time"],
                keys=named,
            )
        )
    report.checked.append(
        _("no signature relied on is by a key after its revocation ({count} revoked)", count=len(revocations))
    )


def _revoked_key(revocation: Revocation) -> str:
    """A revoked key as the report names it, in the language spoken now."""
    key = revocation.key
    return _("key {key} (revoked since {since})", key=f"{key.name}+{key.id.hex()}", since=revocation.since)


def _check_checkpoints(
    document: dict[str, Any],
    entries: list[dict[str, Any]],
    entry_bytes: list[bytes],
    keys: list[VerifierKey],
    report: Report,
) -> list[tuple[int, list[VerifierKey]]]:
    leaves = [leaf_hash(data) for data in entry_bytes]
    checkpoints = document["checkpoints"]
    sizes = [item.get("size") for item in checkpoints if isinstance(item, dict)]
    roots = prefix_roots(leaves, [size for size in sizes if isinstance(size, int)])
    previous = 0
    signers: list[tuple[int, list[VerifierKey]]] = []
    for number, item in enumerate(checkpoints):
        where = f"checkpoint {number}"
        try:
            size, note = item["size"], item["note"]
            text, good = open_note(note, keys)
            checkpoint = Checkpoint.parse(text)
        except (NoteError, KeyError, TypeError) as error:
            raise VerificationError(where, f"signature does not verify ({error})") from error
        if checkpoint.size != size or not previous < size <= len(entries):
            raise VerificationError(where, f"claims size {checkpoint.size}, out of order or beyond the entries")
        if checkpoint.origin != document["origin"] or not document["origin"].endswith(f"/game/{document['game']}"):
            raise VerificationError(where, f"is for {checkpoint.origin!r}, not this game")
        if checkpoint.root != roots[size]:
            span = f"entry {previous}" if size - previous == 1 else f"entries {previous} to {size - 1}"
            raise VerificationError(where, f"root does not match the log: {span} or an earlier one was changed")
        previous = size
        signers.append((size, good))
    if previous != len(entries):
        raise VerificationError(
            "checkpoints", f"the last signed checkpoint covers {previous} of {len(entries)} entries"
        )
    report.checkpoints = len(checkpoints)
    report.checked.append(
        ngettext(
            "{n} signed checkpoint matches the Merkle tree of the entries (RFC 9162)",
            "{n} signed checkpoints match the Merkle tree of the entries (RFC 9162)",
            len(checkpoints),
        )
    )
    return signers


def _check_openings(entries: list[dict[str, Any]], openings: list[Any], report: Report, rederive_draws: bool) -> None:
    created, ended = entries[0], entries[-1]
    seed = bytes.fromhex(ended.get("seed", ""))
    if seed_commitment(seed) != created["seed_commitment"]:
        raise VerificationError(
            _where(len(entries) - 1, ended), "the revealed seed does not match the commitment in entry 0"
        )
    scope = draw_scope(created)
    nonces: list[list[Any]] = []
    count = draws = 0
    for index, (entry, opening) in enumerate(zip(entries, openings, strict=False)):
        if entry["kind"] == "joined" and entry.get("nonce"):
            nonces.append([entry["seat"], entry["nonce"]])
        if entry["kind"] not in ("started", "moved"):
            continue
        if not isinstance(opening, dict):
            raise VerificationError(f"opening {index}", "missing")
        count += _check_facts(index, entry, opening)
        draws += _check_draws(index, entry, opening, seed if rederive_draws else None, scope, nonces)
        if "command_commitment" in entry and not _commitment_matches(
            opening.get("command_salt"), opening.get("command"), entry["command_commitment"]
        ):
            raise VerificationError(_where(index, entry), "the opened command does not match its commitment")
    report.checked.append(_("the seed matches the commitment published before any move"))
    report.checked.append(
        ngettext("{n} hidden fact matches its commitment", "{n} hidden facts match their commitments", count)
    )
    report.checked.append(
        ngettext(
            "{n} random draw re-derives from the seed, the players' nonces and its position",
            "{n} random draws re-derive from the seed, the players' nonces and their positions",
            draws,
        )
    )


def _check_facts(index: int, entry: dict[str, Any], opening: dict[str, Any]) -> int:
    public, full, salts = entry.get("facts") or [], opening.get("facts"), opening.get("salts")
    if not isinstance(full, list) or not isinstance(salts, list) or not len(public) == len(full) == len(salts):
        raise VerificationError(_where(index, entry), "the opening does not list one fact and salt per fact")
    hidden = 0
    for number, (shown, fact, salt) in enumerate(zip(public, full, salts, strict=False)):
        try:
            well_formed = (salt is None) == (SECRET not in fact)
            matches = well_formed and public_fact(fact, salt) == shown
        except (KeyError, TypeError, ValueError, AssertionError):
            matches = False
        if not matches:
            raise VerificationError(
                f"{_where(index, entry)}, fact {number}",
                "the opened fact does not match the published one or its commitment",
            )
        hidden += SECRET in fact
    return hidden


def _check_draws(
    index: int, entry: dict[str, Any], opening: dict[str, Any], seed: bytes | None, scope: str, nonces: list[list[Any]]
) -> int:
    """The opened draws match their commitment and, given the seed, re-derive from it (the
    replay passes no seed: it re-derives them itself)."""
    published = entry.get("draws")
    if published is None:
        if opening.get("draws"):
            raise VerificationError(_where(index, entry), "draws are opened but none were committed")
        return 0
    transcript: Any = opening.get("draws")  # unchecked JSON until its commitment matches
    if (
        not _commitment_matches(opening.get("draws_salt"), transcript, published["commitment"])
        or len(transcript) != published["count"]
    ):
        raise VerificationError(_where(index, entry), "the opened draws do not match their commitment")
    if seed is not None:
        _fair_or_refuse(_where(index, entry), seed, scope, [list(n) for n in nonces], index, transcript)
    return len(transcript)


def _fair_or_refuse(where: str, seed: bytes, scope: str, nonces: list[list[Any]], index: int, transcript: Any) -> None:
    bad = rederive(seed, scope, nonces, index, transcript)
    if bad is not None:
        raise VerificationError(
            f"{where}, draw {bad}", "does not re-derive from the seed: the die or shuffle was not fair"
        )


def _replayable(created: dict[str, Any]) -> Any:
    """The rules the game was played by, when this pbem has them in that version."""
    spec = catalog().get(created["game_type"])
    return spec if spec is not None and spec.rules_version == created["rules_version"] else None


def _decided(
    spec: Any, created: dict[str, Any], state: Any, index: int, entry: dict[str, Any], opening: Any, rng: DrawRng
) -> tuple[list[Any], Any]:
    """The facts the rules give for a start or a move (and the state after them, when the
    rules had it anyway; else None)."""
    try:
        if entry["kind"] == "started":
            return spec.setup(len(created["seats"]), created["options"], rng), None
        command = opening.get("command", entry["command"])
        move = spec.parse_move(state, entry["seat"], command)
        facts, after = spec.decide_and_fold(state, entry["seat"], move, rng)
        return facts, after
    except GameError as error:
        raise VerificationError(_where(index, entry), f"the rules refuse this command: {error.message}") from error


def _folded(spec: Any, state: Any, facts: list[Any], after: Any) -> Any:
    """The state after the facts: ``after`` when the rules had it anyway, else the fold."""
    if after is not None:
        return after  # what evolving the facts (equal to the stored ones) gives
    for fact in facts:
        state = spec.evolve(state, fact)
    return state


def _rewound(spec: Any, entries: list[dict[str, Any]], openings: list[Any], index: int, state: Any) -> Any:
    """The state after entry ``index``, which is no move (``state``: the state before it). After
    a withdrawal, the state before the withdrawn ``move`` (the fold of the stored facts of the
    moves in play before it, which the replay has checked), provided the move turned up nothing
    hidden in the game's own judgement."""
    if entries[index]["kind"] != withdrawals.WITHDRAWN:
        return state
    move = int(entries[index]["move"])
    state = None
    for number in withdrawals.effective(entries, move):
        state = _folded(spec, state, openings[number]["facts"], None)
    if withdrawals.revealed(spec, state, openings[move]["facts"], len(entries[0]["seats"])):
        raise VerificationError(_where(index, entries[index]), "withdraws a move that revealed hidden information")
    return state


def _final_standings(spec: Any, entries: list[dict[str, Any]], state: Any) -> list[dict[str, Any]] | None:
    """The standings the rules give at the end: a draw after a passed ``end`` proposal
    (``pbem.ledger.proposals``), whatever the position; else the game's own outcome."""
    if proposals.agreed_end(entries):
        return proposals.draw(len(entries[0]["seats"]))
    standings = spec.outcome(state)
    return None if standings is None else [s.to_dict() for s in standings]


def _replay(
    spec: Any, entries: list[dict[str, Any]], openings: list[Any], report: Report, progress: Progress | None = None
) -> None:
    created = entries[0]
    seed = bytes.fromhex(entries[-1]["seed"])
    scope = draw_scope(created)
    nonces: list[list[Any]] = []
    state = None
    for index, (entry, opening) in enumerate(zip(entries, openings, strict=False)):
        if progress is not None:
            progress(index, len(entries))
        kind = entry["kind"]
        if kind == "joined" and entry.get("nonce"):
            nonces.append([entry["seat"], entry["nonce"]])
        if kind not in ("started", "moved"):
            state = _rewound(spec, entries, openings, index, state)
            continue
        rng = DrawRng(seed, scope, [list(n) for n in nonces], index)
        facts, after = _decided(spec, created, state, index, entry, opening, rng)
        draws = opening.get("draws") or []
        if rng.transcript != draws:
            _fair_or_refuse(_where(index, entry), seed, scope, [list(n) for n in nonces], index, draws)
        if facts != opening["facts"] or rng.transcript != draws:
            raise VerificationError(_where(index, entry), "replaying the command through the rules gives other facts")
        state = _folded(spec, state, facts, after)
    rules = _final_standings(spec, entries, state)
    if rules is None or rules != entries[-1]["standings"]:
        raise VerificationError(_where(len(entries) - 1, entries[-1]), "the standings are not what the rules give")
    report.checked.append(
        _("replaying every command through the {title} rules gives the stored facts and standings", title=spec.title)
    )
