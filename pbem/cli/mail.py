"""Mail commands: serve-mail (SMTP or LMTP gateway with the outbox and deadlines),
mail-in (one message on standard input, for an MTA's pipe transport), mail-work (one round
of outbox, deadlines and sending) and check-receipt."""

from __future__ import annotations

import json
import logging
import signal
import sys
import threading
from pathlib import Path

import click

from pbem.cli.errors import EX_TEMPFAIL, EXIT_INVALID, EXIT_OK, TOO_DEEP
from pbem.logs import configure as configure_logs


def gateway():
    from mailgateway.gateway import Gateway
    from pbem.service.service import GameService

    return Gateway(GameService())


def run_mail(gw, host: str, port: int, lmtp: bool, stop: threading.Event) -> None:
    """Start the gateway's server and worker, wait for ``stop``, then shut both down."""
    from mailgateway.smtp import controller
    from mailgateway.worker import Worker

    logging.getLogger("mail.log").setLevel(logging.WARNING)  # aiosmtpd's per-connection chatter
    server = controller(gw, host, port, lmtp)
    server.start()
    worker = Worker(gw)
    worker.start()
    where = "maildir " + str(gw.settings.maildir) if gw.settings.relay is None else "relay %s:%d" % gw.settings.relay
    click.echo(f"mail gateway: {'LMTP' if lmtp else 'SMTP'} on {host}:{port} for {gw.settings.address}; "
               f"outgoing mail to {where}")
    try:
        stop.wait()
    finally:
        server.stop()
        server.handler.close()
        worker.stop()


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
    exit 75: temporary failure, deliver again later."""
    raw = sys.stdin.buffer.read()
    try:
        result = gateway().receive(raw, envelope_from, recipients)
    except Exception as error:  # anything here is an infrastructure problem: ask the MTA to retry
        click.echo(f"temporary failure: {type(error).__name__}: {error}", err=True)
        sys.exit(EX_TEMPFAIL)
    click.echo(result)
    sys.exit(EXIT_OK)


@click.command("mail-work")
def mail_work() -> None:
    """One round of background work: queue replies and notices, run deadlines, send."""
    gw = gateway()
    gw.work()
    pending = len(gw.sender.pending)
    click.echo(f"done; {pending} mail(s) waiting for a retry" if pending else "done")


@click.command("check-receipt")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--key", "keys", multiple=True, help="a trusted verifier key (from `pbem key`); repeat")
def check_receipt(file: Path, keys: tuple[str, ...]) -> None:
    """Check a move's receipt (receipt.json from a reply mail) offline."""
    from mailgateway.receipts import ReceiptError, check_receipt as check

    try:
        click.echo(check(json.loads(file.read_text(encoding="utf-8")), list(keys) or None))
    except (ReceiptError, KeyError, ValueError) as error:
        click.echo(f"invalid receipt: {error}", err=True)
        sys.exit(EXIT_INVALID)
    except RecursionError:
        click.echo(f"invalid receipt: {TOO_DEEP.format(what='receipt')}", err=True)
        sys.exit(EXIT_INVALID)


def register(group: click.Group) -> None:
    for command in (serve_mail, mail_in, mail_work, check_receipt):
        group.add_command(command)
