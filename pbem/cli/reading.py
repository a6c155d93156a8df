"""Commands that read and never change: catalog, show, history, export, verify, games.

``verify`` needs no server at all: it checks an export offline, against the keys in it or
the ones given, and against the receipts and checkpoints a player kept."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from pbem import i18n
from pbem.cli.core import _, _fail, in_cli_language, service
from pbem.cli.errors import EXIT_INVALID, TOO_DEEP
from pbem.cli.progress import TerminalProgress
from pbem.games.base import GameError
from pbem.ledger import entries as log
from pbem.ledger.notes import Revocation, VerifierKey
from pbem.ledger.verify import Report, VerificationError, export_bytes, verify_bytes


def counted(entries: int, checkpoints: int) -> str:
    """ "1 entry, 2 checkpoints": a verified game's counts in the CLI's language, each in its
    plural form (Czech and Polish have three)."""
    catalog = i18n.cli()
    return ", ".join(
        (
            catalog.ngettext("%(num)s entry", "%(num)s entries", entries) % {"num": entries},
            catalog.ngettext("%(num)s checkpoint", "%(num)s checkpoints", checkpoints) % {"num": checkpoints},
        )
    )


@click.command()
@click.option("--json", "as_json", is_flag=True, help="print JSON")
def catalog(as_json: bool) -> None:
    """List the games this server offers, with player counts and options."""
    games = service().catalog()
    if as_json:
        click.echo(json.dumps(games, indent=2, ensure_ascii=False))
        return
    for game in games:
        players = i18n.cli().ngettext("%(min)s-%(num)s player", "%(min)s-%(num)s players", game["max_players"])
        players %= {"min": game["min_players"], "num": game["max_players"]}
        click.echo(f"{game['name']}: {game['title']} ({players})")
        for option in game["options"]:
            choices = f" [{'|'.join(option['choices'])}]" if option["choices"] else ""
            click.echo(f"    --option {option['key']}={option['default']}{choices}  {option['help']}")


@click.command()
@click.argument("game_id")
@click.option("--as", "email", help="show this player's private view")
@click.option(
    "--at", "version", type=int, help="the state after this many entries (the version a mail's turn link names)"
)
@click.option("--json", "as_json", is_flag=True)
def show(game_id: str, email: str | None, version: int | None, as_json: bool) -> None:
    """Show a game's state (now, or at any past turn)."""
    svc = service()
    try:
        if as_json:
            click.echo(json.dumps(svc.summary(game_id, version, email), indent=2, ensure_ascii=False))
        else:
            click.echo(svc.render(game_id, version, email), nl=False)
    except GameError as error:
        _fail(error)


@click.command()
@click.argument("game_id")
@click.option("--as", "email", help="open what this player may see")
@click.option("--json", "as_json", is_flag=True)
@in_cli_language
def history(game_id: str, email: str | None, as_json: bool) -> None:
    """The game's log: every entry with its turn number and leaf hash."""
    svc = service()
    try:
        rows = svc.history(game_id, email)
    except GameError as error:
        _fail(error)
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    names = log.seat_names(row["entry"] for row in rows)  # each seat by its newest name, as pages and mails
    for row in rows:
        entry = row["entry"]
        who = f" {names[entry['seat']]}" if "seat" in entry else ""
        command = f": {entry['command']}" if "command" in entry else ""
        # the turn, as mails and web pages name it (the state after this entry; talk advances none)
        click.echo(f"{row['turn']:>4} {entry['kind']}{who}{command}  [{row['leaf_hash'][:12]}]")
        for line in row["lines"]:
            click.echo(f"       {line}")


OUTPUT = click.Path(dir_okay=False, allow_dash=True, path_type=Path)


def _write(output: Path | None, data: bytes) -> None:
    """To the file named, or to standard output when none or ``-`` is named (as Unix tools do)."""
    if output is None or str(output) == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        output.write_bytes(data)


@click.command()
@click.argument("game_id")
@click.option("-o", "--output", type=OUTPUT, help="write to a file ('-': standard output)")
def export(game_id: str, output: Path | None) -> None:
    """Export the public history with checkpoints and keys (and all openings once ended)."""
    try:
        data = export_bytes(service().export(game_id))
    except GameError as error:
        _fail(error)
    _write(output, data)


@click.command()
@click.argument("game_id")
@click.option("--as", "email", required=True, help="the player: the receipt opens what they may see")
@click.option(
    "--at", "version", type=click.IntRange(min=1), help="the entry that made this version (default: the newest)"
)
@click.option("-o", "--output", type=OUTPUT, help="write to a file ('-': standard output)")
def receipt(game_id: str, email: str, version: int | None, output: Path | None) -> None:
    """Print a receipt of one entry of the signed log (what a reply mail attaches as receipt.json):
    keep it, and `pbem verify --receipts` or the web site's /verify page checks it later."""
    svc = service()
    try:
        turn = version or svc.game(game_id).version
        data = svc.receipt(game_id, turn - 1, turn, viewer=email)
    except GameError as error:
        _fail(error)
    _write(output, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode())


@click.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--key", "keys", multiple=True, help="a trusted verifier key (repeat); default: the export's own")
@click.option(
    "--receipts",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="a folder of receipts and signed checkpoints you kept; each must be consistent with the export",
)
@click.option(
    "--revoked",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="the server's revoked keys (/keys/revoked.txt: a key and a time per line)",
)
@in_cli_language  # what was checked is said in the CLI's language
def verify(file: Path, keys: tuple[str, ...], receipts: Path | None, revoked: Path | None) -> None:
    """Verify an exported game offline. Exit 0 when valid."""
    try:
        trusted = [VerifierKey.parse(k) for k in keys]
        revocations = (
            [Revocation.parse(line) for line in revoked.read_text(encoding="utf-8").splitlines() if line.strip()]
            if revoked
            else []
        )
        data = file.read_bytes()
        with TerminalProgress("replaying") as progress:
            report = verify_bytes(data, trusted, revocations, progress=progress)
    except (VerificationError, ValueError) as error:  # ValueError: a malformed --key
        click.echo(f"INVALID: {error}", err=True)
        sys.exit(EXIT_INVALID)
    except RecursionError:
        click.echo(f"INVALID: {TOO_DEEP.format(what='export')}", err=True)
        sys.exit(EXIT_INVALID)
    if receipts is not None:
        _compare_with_held(json.loads(data), receipts, trusted, report)
    counts = counted(report.entries, report.checkpoints)
    if report.ended:
        click.echo(_("valid: game %(game)s, %(counts)s, ended", game=report.game, counts=counts))
    else:
        click.echo(_("valid: game %(game)s, %(counts)s, still running", game=report.game, counts=counts))
    for line in report.checked:
        click.echo("  " + _("checked: %(line)s", line=line))
    for line in report.revoked:
        click.echo("  " + _("revoked key: %(line)s", line=line))
    for line in report.not_checked:
        click.echo("  " + _("not checked: %(line)s", line=line))


def _held_files(folder: Path) -> list[tuple[str, object]]:
    """Every file under ``folder``: JSON (a receipt, a checkpoints list) or a signed note."""
    items: list[tuple[str, object]] = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            items.append((path.name, json.loads(text)))
        except json.JSONDecodeError:
            items.append((path.name, text))
    return items


def _compare_with_held(document: dict[str, Any], folder: Path, trusted: list[VerifierKey], report: Report) -> None:
    from pbem.ledger.consistency import compare, read_held

    keys = trusted or [VerifierKey.parse(text) for text in document["keys"]]
    reading = read_held(_held_files(folder), keys)
    for line in reading.refused:
        click.echo("  " + _("ignored (not valid evidence): %(line)s", line=line), err=True)
    findings = compare(document, reading.held, keys)
    for finding in findings:
        click.echo(finding.evidence(), err=True)
    if findings:
        verdicts = sorted({f.verdict for f in findings})
        click.echo(f"INVALID: {' and '.join(verdicts)}: the export contradicts what you hold", err=True)
        sys.exit(1)
    ours = sum(1 for h in reading.held if h.checkpoint.origin == document["origin"])
    said = i18n.cli().ngettext(
        "%(num)s checkpoint you hold is consistent with the export (RFC 9162 consistency proofs)",
        "%(num)s checkpoints you hold are consistent with the export (RFC 9162 consistency proofs)",
        ours,
    )
    report.checked.append(said % {"num": ours})


@click.command()
@click.option("--json", "as_json", is_flag=True)
def games(as_json: bool) -> None:
    """List the games on this server."""
    svc = service()
    rows = [svc.summary(game_id) for game_id in svc.game_ids()]
    if as_json:
        listed = [{k: v for k, v in r.items() if k != "view"} for r in rows]
        click.echo(json.dumps(listed, indent=2, ensure_ascii=False))
        return
    for row in rows:
        state = i18n.cli().pgettext("game status", "over") if row["over"] else row["phase"]
        waiting = ", ".join(w["name"] for w in row["waiting_for"])
        line = f"{row['id']}  {row['title']}  v{row['version']}  {state}"
        click.echo(line + ("  " + _("waiting for %(players)s", players=waiting) if waiting else ""))


@click.command()
@click.option(
    "--from",
    "folder",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="a folder of exports (pbem export-all) to compute from instead of this server's store",
)
@click.option(
    "--json", "as_json", is_flag=True, help="every number as computed (the same bits from the store and from --from)"
)
def ratings(folder: Path | None, as_json: bool) -> None:
    """Players' ratings (openskill) and reliability, from finished games whose exports verify."""
    from pbem.ledger.ratings import ratings as compute

    table = service().player_ratings() if folder is None else compute(_exports_in(folder))
    if as_json:
        click.echo(json.dumps(table, indent=1, sort_keys=True))
        return
    click.echo(f"{len(table['games'])} finished games; {len(table['left_out'])} left out")
    for row in table["players"]:
        met = "-" if row["deadlines_met"] is None else f"{row['deadlines_met']:.0%}"
        click.echo(
            f"{row['ordinal']:8.2f}  {row['name']}  (mu {row['mu']:.2f}, sigma {row['sigma']:.2f}; "
            f"{row['games']} games, {row['finished']} finished, {row['abandoned']} abandoned, deadlines met {met})"
        )


def _exports_in(folder: Path) -> list[Any]:
    """The exports in ``folder`` (``*.json``), each read as verify reads it; a file that is not
    JSON is left out (and named by the ratings as not verifying)."""
    documents: list[Any] = []
    for path in sorted(folder.glob("*.json")):
        try:
            documents.append(json.loads(path.read_bytes().decode("utf-8")))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            documents.append({"game": path.name})
    return documents


def register(group: click.Group) -> None:
    for command in (catalog, show, history, export, receipt, verify, games, ratings):
        group.add_command(command)
