"""Restoring a game from its export (``pbem import``).

An export of an ended game holds everything the game's record holds except the players' mail
addresses: the entries, every signed checkpoint, and the opening of every private part (the seed
is in the ``ended`` entry). So an ended game can be stored again exactly, and exporting it after
the import gives the same bytes as the file that was imported.

A running game cannot be restored from its export: the seed, the salts, the hidden facts and the
secret commands are not in it (that is the point of the export), so the game could not go on.
Such an import is refused; back up the database instead (docs/operations.md).

The checks, before anything is stored:

* the file verifies completely (``verify_bytes``: canonical form, log order, signatures,
  commitments, draws and the rules replay);
* its checkpoints were signed by this server (a key in ``keys/verifiers.txt``), unless the
  caller adopts the export's keys, which then join this server's list of verifier keys;
* it names this server's origin (``PBEM_ORIGIN``), because the signed checkpoints name it and
  an export from here must carry the same origin to verify;
* no game with that id exists here, unless it is the same game with the same log (then the
  import does nothing and says so).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from eventsourcing.persistence import RecordConflictError

from pbem.ledger.verify import Progress, Report, VerificationError, export_bytes, verify_bytes
from pbem.service.inputs import address_problem
from pbem.service.service import GameService
from pbem.service.store import GameRecord


class ImportRefused(Exception):
    """The export is valid but cannot be stored here (running game, other origin, ...)."""


@dataclass
class Imported:
    game_id: str
    entries: int
    checkpoints: int
    already_present: bool
    identical: bool  # exporting the stored game gives the imported bytes
    report: Report


def import_game(
    service: GameService,
    document: dict[str, Any],
    emails: Sequence[str] = (),
    adopt_keys: bool = False,
    progress: Progress | None = None,
) -> Imported:
    """Verify an export and store its game. ``emails`` optionally gives the seats' mail
    addresses back (they are not in an export); without them nobody can act as a seat of the
    imported game, which is ended anyway. Raises ``VerificationError`` when the file does not
    verify and ``ImportRefused`` when it cannot be stored here."""
    data = export_bytes(document)
    report = verify_bytes(data, progress=progress)  # everything, with the export's own keys
    if not report.ended:
        raise ImportRefused(
            f"game {report.game} has not ended: its export leaves out the seed, the salts and the hidden "
            "facts, so it cannot go on from here; restore running games from a database backup"
        )
    game_id = document["game"]
    if document["origin"] != service.origin(game_id):
        raise ImportRefused(
            f"the export was signed for {document['origin']!r} but this server is "
            f"{service.origin(game_id)!r}; set PBEM_ORIGIN to the original server's name to restore it"
        )
    _check_keys(service, data, document, adopt_keys)
    addresses = _check_emails(document, emails)

    existing = service.store.game(game_id)
    if existing is not None:
        stored = service.store.game_log(existing)
        if stored.entries != document["entries"] or [list(c) for c in stored.checkpoints] != [
            [c["size"], c["note"]] for c in document["checkpoints"]
        ]:
            raise ImportRefused(f"a different game {game_id} is already stored here")
        return _result(service, data, report, already_present=True)

    record = _record(document, addresses)
    try:
        service.store.save(record)
    except RecordConflictError:
        raise ImportRefused(f"game {game_id} was stored here by someone else meanwhile") from None
    service.keep_states(service.signer, game_id)  # as if it had been played here: any past state folds a few entries
    return _result(service, data, report, already_present=False)


def _check_keys(service: GameService, data: bytes, document: dict[str, Any], adopt: bool) -> None:
    ours = service.keys.verifiers()
    try:
        verify_bytes(data, ours)
        return
    except VerificationError as error:
        if not adopt:
            raise ImportRefused(
                f"the export's checkpoints are not signed by this server's keys ({error}); "
                "pass --adopt-keys to trust the keys inside the export"
            ) from None
    known = {str(key) for key in ours}
    missing = [key for key in document["keys"] if key not in known]
    service.keys.signer()  # make sure the list exists and starts with this server's own key
    with (service.keys.folder / "verifiers.txt").open("a", encoding="utf-8") as handle:
        for key in missing:
            handle.write(f"{key}\n")


def _check_emails(document: dict[str, Any], emails: Sequence[str]) -> list[str]:
    seats = document["entries"][0]["seats"]
    addresses = [e.strip().lower() for e in emails]
    if not addresses:
        return []
    if len(addresses) != len(seats):
        raise ImportRefused(f"the game has {len(seats)} seats but {len(addresses)} addresses were given")
    if len(set(addresses)) != len(addresses) or any(address_problem(a) for a in addresses):
        raise ImportRefused("each seat needs a different, valid mail address")
    return addresses


def _record(document: dict[str, Any], emails: list[str]) -> GameRecord:
    """The aggregate as the original server had it: one event per signed checkpoint."""
    entries = document["entries"]
    openings = [dict(opening) for opening in document["openings"]]
    privates = [{"seed": entries[-1]["seed"], "emails": emails}, *openings[1:]]
    record: GameRecord | None = None
    start = 0
    for checkpoint in document["checkpoints"]:
        size, note = checkpoint["size"], checkpoint["note"]
        if record is None:
            record = GameRecord(document["game"], entries[start:size], privates[start:size], note)
        else:
            record.append(entries[start:size], privates[start:size], note)
        start = size
    assert record is not None  # verify_bytes demands at least one checkpoint covering all entries
    return record


def _result(service: GameService, data: bytes, report: Report, already_present: bool) -> Imported:
    game_id = report.game
    exported = export_bytes(service.export(game_id))
    return Imported(game_id, report.entries, report.checkpoints, already_present, exported == data, report)
