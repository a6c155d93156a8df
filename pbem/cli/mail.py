"""Mail commands: serve-mail (SMTP or LMTP gateway with the outbox and deadlines),
mail-in (one message on standard input, for an MTA's pipe transport), mail-work (one round
of outbox, deadlines and sending) and check-receipt."""

from __future__ import annotations

import json
import logging
import signal
import sys
import threading
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

import click

from pbem.cli.errors import EX_SOFTWARE, EX_TEMPFAIL, EXIT_INVALID, EXIT_OK, TOO_DEEP
from pbem.logs import configure as configure_logs
from pbem.mailroom.desk import Letter

if TYPE_CHECKING:  # imported when used: `pbem` starts without the gateway
    from mailgateway.gateway import Gateway
    from pbem.mailroom.queue import QueuedMail


def gateway() -> Gateway:
    from mailgateway.gateway import Gateway
    from pbem.service.service import GameService

    return Gateway(GameService())


def run_mail(gw: Gateway, host: str, port: int, lmtp: bool, stop: threading.Event) -> None:
    """Start the gateway's server and worker, wait for ``stop``, then shut both down."""
    from mailgateway.smtp import controller
    from mailgateway.worker import Worker

    logging.getLogger("mail.log").setLevel(logging.WARNING)  # aiosmtpd's per-connection chatter
    server = controller(gw, host, port, lmtp)
    server.start()
    worker = Worker(gw)
    worker.start()
    click.echo(f"mail gateway: {'LMTP' if lmtp else 'SMTP'} on {host}:{port} for {gw.settings.address}")
    click.echo(_outgoing(gw))
    if sys.stdin.isatty():
        click.echo("stop with Ctrl-C")
    try:
        stop.wait()
    finally:
        server.stop()
        server.handler.close()
        worker.stop()


def _outgoing(gw: Gateway) -> str:
    """Where the replies go: the relay, or the maildir folder a mail client can open."""
    relay = gw.settings.relay
    if relay is not None:
        return f"replies go out through the relay {relay[0]}:{relay[1]}"
    return f"replies land in {gw.settings.maildir}/new (PBEM_SMTP_RELAY=host:port sends them out instead)"


def wait_for_signal() -> threading.Event:
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    return stop


@click.command("serve-mail")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8025, show_default=True, type=int)
@click.option("--lmtp", is_flag=True, help="speak LMTP (for Postfix's lmtp transport) instead of SMTP")
def serve_mail(host: str, port: int, lmtp: bool) -> None:
    """Receive mail over SMTP (or LMTP) and run the outbox and deadlines."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    configure_logs()  # moves and mails as JSON lines (pbem.logs)
    run_mail(gateway(), host, port, lmtp, wait_for_signal())


@click.command("mail-in")
@click.option("--sender", "envelope_from", default=None, help="the envelope sender (Postfix: ${sender})")
@click.option("--recipient", "recipients", multiple=True, help="an envelope recipient (Postfix: ${recipient})")
def mail_in(envelope_from: str | None, recipients: tuple[str, ...]) -> None:
    """Process one message from standard input. Exit 0: done (or ignored, or a duplicate);
    exit 75: the store is down or busy (or the gateway cannot start), deliver again later;
    exit 70: the mail could not even be answered, the MTA returns it to its sender."""
    from pbem.service.failures import StoreUnavailable

    raw = sys.stdin.buffer.read()
    try:
        gw = gateway()
    except Exception as error:  # the installation, not the mail: the MTA keeps it until it is fixed
        click.echo(f"temporary failure: {type(error).__name__}: {error}", err=True)
        sys.exit(EX_TEMPFAIL)
    try:
        result = gw.receive(raw, envelope_from, recipients)
    except StoreUnavailable as error:
        click.echo(f"temporary failure: {error}", err=True)
        sys.exit(EX_TEMPFAIL)
    except Exception as error:  # the mail's own answer failed: retrying would fail the same way
        click.echo(f"permanent failure: {type(error).__name__}: {error}", err=True)
        sys.exit(EX_SOFTWARE)
    click.echo(result)
    sys.exit(EXIT_OK)


@click.command("mail-work")
def mail_work() -> None:
    """One round of background work: queue replies and notices, run deadlines, send."""
    gw = gateway()
    gw.work()
    counts = gw.mailroom.views.counts()
    waiting, dead = counts.get("queued", 0) + counts.get("sending", 0), counts.get("dead", 0)
    notes = [f"{waiting} mail(s) waiting for a retry"] * bool(waiting)
    notes += [f"{dead} dead letter(s): pbem mail-dead"] * bool(dead)
    click.echo("done; " + "; ".join(notes) if notes else "done")


@click.command("mail-dead")
@click.option("--retry", "retry", multiple=True, metavar="KEY", help="queue this dead letter again; repeat")
@click.option("--retry-all", is_flag=True, help="queue every dead letter again (e.g. after a template fix)")
@click.option("--json", "as_json", is_flag=True, help="print JSON")
def mail_dead(retry: tuple[str, ...], retry_all: bool, as_json: bool) -> None:
    """List the mails that could not be composed or delivered (dead letters), or retry them."""
    gw = gateway()
    letters = gw.mailroom.dead_letters()
    keys = [letter.key for letter in letters] if retry_all else list(retry)
    if keys:
        _retry_dead(gw, keys, {letter.key for letter in letters})
    else:
        _list_dead(letters, as_json)


def _retry_dead(gw: Gateway, keys: list[str], dead: set[str]) -> None:
    queued = [new for key in keys for new in gw.mailroom.retry(key)]
    unknown = [key for key in keys if key not in dead]
    for key in unknown:
        click.echo(f"no dead letter {key!r}", err=True)
    gw.work()
    click.echo(f"queued again: {len(queued)} mail(s); sent now: see pbem mail-dead for what is left")
    sys.exit(1 if unknown else 0)


def _list_dead(letters: list[QueuedMail], as_json: bool) -> None:
    rows = [
        {"key": m.key, "to": m.to, "queued": m.created.isoformat(), "attempts": m.attempts, "error": m.error}
        for m in letters
    ]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    for row in rows:
        click.echo(
            f"{row['key']}  to {row['to'] or '-'}  queued {row['queued']}  attempts {row['attempts']}\n"
            f"    {row['error']}"
        )
    hint = "; pbem mail-dead --retry KEY (or --retry-all) sends again" if rows else ""
    click.echo(f"{len(rows)} dead letter(s){hint}")


@click.command("rotate-token")
@click.argument("game_id")
@click.option("--as", "email", required=True, help="the player whose private address and link change")
def rotate_token(game_id: str, email: str) -> None:
    """Give a seat a new private address and web link; the old ones stop working at once.
    The player is told by mail (from the new address)."""
    from pbem.games.base import GameError
    from pbem.mailroom.addresses import seat_address

    gw = gateway()
    try:
        gw.desk.handle(
            Letter(
                key=f"rotate/{game_id}/{email}/{uuid.uuid4().hex}",
                sender=email.strip().lower(),
                game_id=game_id,
                token=None,
                lines=("rotate",),
                notes={"operator": True},
            ),
            trusted=True,
        )
    except GameError as error:
        click.echo(f"error ({error.code.value}): {error}", err=True)
        sys.exit(2)
    game = gw.service.game(game_id)
    token = gw.service.seat_token(game_id, game.seat_of(email))
    click.echo(seat_address(gw.settings.address, game_id, token))
    click.echo(f"{gw.service.settings.base_url}/games/{game_id}/seat/{token}")


@click.command("check-receipt")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--key", "keys", multiple=True, help="a trusted verifier key (from `pbem key`); repeat")
def check_receipt(file: Path, keys: tuple[str, ...]) -> None:
    """Check a move's receipt (receipt.json from a reply mail) offline."""
    from pbem.ledger.receipts import ReceiptError
    from pbem.ledger.receipts import check_receipt as check

    try:
        checked = check(json.loads(file.read_text(encoding="utf-8")), list(keys) or None)
        click.echo(checked.summary())
        if not keys:
            click.echo(
                "checked against the keys inside the receipt; pass the server's key with --key "
                "to know that this server signed it"
            )
    except (ReceiptError, ValueError) as error:
        click.echo(f"invalid receipt: {error}", err=True)
        sys.exit(EXIT_INVALID)
    except RecursionError:
        click.echo(f"invalid receipt: {TOO_DEEP.format(what='receipt')}", err=True)
        sys.exit(EXIT_INVALID)


def register(group: click.Group) -> None:
    for command in (serve_mail, mail_in, mail_work, mail_dead, rotate_token, check_receipt):
        group.add_command(command)
