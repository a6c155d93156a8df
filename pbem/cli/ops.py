"""Operator commands: import (restore an ended game from its export), export-all (a
verifiable backup of every game), fsck (check games against their signed histories) and
keep-states (keep the past states of games stored before states were kept)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from pbem import i18n
from pbem.cli.core import _, service
from pbem.cli.errors import EXIT_INVALID, EXIT_REFUSED, TOO_DEEP
from pbem.cli.progress import TerminalProgress
from pbem.cli.reading import counted
from pbem.ledger.verify import VerificationError, export_bytes
from pbem.service.importer import ImportRefused, import_game
from pbem.service.service import GameService


@click.command(name="import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--player",
    "players",
    multiple=True,
    help="a seat's mail address, in seat order (repeat; optional: exports carry no addresses)",
)
@click.option(
    "--adopt-keys",
    is_flag=True,
    help="trust the verifier keys inside the export (a game signed by another server or a lost key)",
)
def import_(file: Path, players: tuple[str, ...], adopt_keys: bool) -> None:
    """Restore an ended game from its export, after verifying it completely."""
    data = file.read_bytes()
    try:
        document = json.loads(data.decode("utf-8"))
        if export_bytes(document) != data:
            raise VerificationError("file", "not in canonical form: it was changed after export")
        with TerminalProgress("verifying") as progress:
            result = import_game(service(), document, players, adopt_keys, progress)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        click.echo(f"INVALID: the file is not a JSON export ({error})", err=True)
        sys.exit(EXIT_INVALID)
    except VerificationError as error:
        click.echo(f"INVALID: {error}", err=True)
        sys.exit(EXIT_INVALID)
    except RecursionError:
        click.echo(f"INVALID: {TOO_DEEP.format(what='export')}", err=True)
        sys.exit(EXIT_INVALID)
    except ImportRefused as error:
        click.echo(f"refused: {error}", err=True)
        sys.exit(EXIT_REFUSED)
    counts = counted(result.entries, result.checkpoints)
    if result.already_present:
        click.echo(_("was already here: game %(game)s, %(counts)s", game=result.game_id, counts=counts))
    else:
        click.echo(_("imported: game %(game)s, %(counts)s", game=result.game_id, counts=counts))
    if not result.identical:
        click.echo(
            "note: this server lists other verifier keys, so its export of the game differs "
            "from the file in 'keys' (it still verifies)"
        )


@click.command(name="export-all")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
def export_all(folder: Path) -> None:
    """Write every game's export to FOLDER/<game id>.json (ended games can be imported again)."""
    svc = GameService()
    folder.mkdir(parents=True, exist_ok=True)
    count = 0
    game_ids = svc.game_ids()
    with TerminalProgress("exporting") as progress:
        for game_id in game_ids:
            target = folder / f"{game_id}.json"
            temporary = target.with_suffix(".tmp")
            temporary.write_bytes(export_bytes(svc.export(game_id)))
            temporary.replace(target)
            count += 1
            progress(count, len(game_ids))
    exported = i18n.cli().ngettext("%(num)s game exported to %(folder)s", "%(num)s games exported to %(folder)s", count)
    click.echo(exported % {"num": count, "folder": folder})


@click.command(name="fsck")
@click.argument("game_ids", nargs=-1)
def fsck(game_ids: tuple[str, ...]) -> None:
    """Check games (all, or the ones named) from scratch against their signed histories: every
    entry hashes to the signed checkpoints, the signatures are the server's, the game's record
    and its kept states agree with the entries, and no game is shorter than the mail follower
    saw it. Exit 0 when every game is sound, 1 otherwise."""
    checked = service()  # the mail follower's heads are the witness
    bad = 0
    for game_id in game_ids or tuple(checked.game_ids()):
        problem = checked.fsck(game_id)
        bad += problem is not None
        click.echo(f"{game_id}: {'FROZEN: ' + problem if problem else 'ok'}")
    checked.close()
    click.echo(f"{bad} game(s) do not match their signed history" if bad else "every game matches its signed history")
    sys.exit(1 if bad else 0)


@click.command(name="keep-states")
@click.argument("game_ids", nargs=-1)
def keep_states(game_ids: tuple[str, ...]) -> None:
    """Keep the past states of games (all, or the ones named) at every PBEM_SNAPSHOT_INTERVAL
    entries where none is kept yet: games played before pbem kept states, or stored with the
    interval off. Afterwards any past turn of them is folded from a nearby kept state instead of
    from the start. Safe to repeat and to run beside a running server; a frozen game is left
    as it is. Exit 0 when every game named was handled, 1 otherwise."""
    from pbem.games.base import GameError

    keeper = service()
    ids = list(game_ids) or keeper.game_ids()
    kept = failed = 0
    with TerminalProgress("keeping states") as progress:
        for done, game_id in enumerate(ids, start=1):
            try:
                frozen = keeper.game(game_id).frozen
                count = 0 if frozen else keeper.keep_states(keeper.signer, game_id)
            except GameError as error:
                failed += 1
                click.echo(f"{game_id}: {error.message}", err=True)
                continue
            kept += count
            click.echo(f"{game_id}: FROZEN ({frozen}), left as it is" if frozen else f"{game_id}: {count} kept")
            progress(done, len(ids))
    keeper.close()
    click.echo(f"{kept} states kept in {len(ids) - failed} games")
    sys.exit(1 if failed else 0)


def register(group: click.Group) -> None:
    group.add_command(import_)
    group.add_command(export_all)
    group.add_command(fsck)
    group.add_command(keep_states)
