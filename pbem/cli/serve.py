"""``pbem serve``: the web site, the mail gateway and its worker (outbox, deadlines) together."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

import click

from pbem import __version__
from pbem.logs import configure as configure_logs

if TYPE_CHECKING:  # imported when used: `pbem` starts without the web site and the service
    from werkzeug.serving import BaseWSGIServer

    from mailgateway.gateway import Gateway
    from pbem.service.game import LoadedGame
    from pbem.service.service import GameService


def start_web(
    service: GameService,
    host: str,
    port: int,
    deadline: Callable[[LoadedGame, int, int], datetime | None] | None = None,
    language: Callable[[str, str | None], str | None] | None = None,
) -> BaseWSGIServer | None:
    """The web site in a thread, or None when ``pbem.web`` is not installed yet. ``deadline``
    is the gateway's ``(game, version, seat) -> datetime | None``, shown on the pages;
    ``language`` its ``(game_id, token) -> str | None``, a game's default language."""
    try:
        from pbem.web import create_app, follow_summaries
    except ImportError as error:
        click.echo(f"web site not available ({error}); starting without it")
        return None
    from werkzeug.serving import make_server

    config: dict[str, Any] = {"PBEM_DEADLINE": deadline} if deadline else {}
    if language:
        config["PBEM_LANGUAGE"] = language
    app = create_app(service, config or None)
    follow_summaries(app)
    from pbem.web.accesslog import RedactingRequestHandler

    server = make_server(host, port, app, threaded=True, request_handler=RedactingRequestHandler)
    thread = threading.Thread(target=server.serve_forever, name="pbem-web", daemon=True)
    thread.start()
    click.echo(f"web site on http://{host}:{port}/")
    return server


def game_language(gateway: Gateway) -> Callable[[str, str | None], str | None]:
    """The language a game was created with (``new ... lang=cs``), for its pages."""

    def find(game_id: str, token: str | None) -> str | None:
        clock = gateway.mailroom.clocks.clock_of(game_id)
        language = clock.rules.get("lang") if clock is not None else None
        return str(language) if language else None

    return find


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="address for the web site and mail")
@click.option("--web-port", default=8000, show_default=True, type=int)
@click.option("--mail-port", default=8025, show_default=True, type=int)
@click.option("--lmtp", is_flag=True, help="the mail gateway speaks LMTP instead of SMTP")
def serve(host: str, web_port: int, mail_port: int, lmtp: bool) -> None:
    """Run the service: web site, mail gateway, outbox and deadline scheduler."""
    from mailgateway.gateway import Gateway
    from pbem.cli.mail import run_mail, wait_for_signal
    from pbem.service.service import GameService

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    configure_logs()  # moves and mails as JSON lines (pbem.logs)
    service = GameService()
    click.echo(f"pbem {__version__}: data in {service.settings.home}; public key {service.keys.signer().verifier}")
    gateway = Gateway(service)
    web = start_web(service, host, web_port, gateway.mailroom.clocks.deadline, game_language(gateway))
    try:
        run_mail(gateway, host, mail_port, lmtp, wait_for_signal())
    finally:
        if web is not None:
            web.shutdown()
        service.close()


def register(group: click.Group) -> None:
    group.add_command(serve)
