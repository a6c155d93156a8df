"""``pbem serve-web``: the read-only web site alone (``pbem serve`` runs it with the mail
gateway)."""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from flask import Flask


def _gunicorn(host: str, port: int, workers: int) -> None:
    from gunicorn.app.base import BaseApplication

    class Site(BaseApplication):
        def load_config(self) -> None:
            self.cfg.set("bind", f"{host}:{port}")
            self.cfg.set("workers", workers)
            self.cfg.set("accesslog", "-")
            self.cfg.set("logger_class", "pbem.web.accesslog.GunicornLogger")  # no seat tokens in the log

        def load(self) -> Flask:  # in each worker, so no store connection crosses a fork
            from pbem.web import site

            return site()

    Site().run()


@click.command("serve-web")
@click.option("--host", default="127.0.0.1", show_default=True, help="address to listen on")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="TCP port")
@click.option(
    "--server",
    type=click.Choice(["auto", "werkzeug", "gunicorn"]),
    default="auto",
    show_default=True,
    help="auto: gunicorn when it is installed (pip install -e '.[deploy]'), else werkzeug",
)
@click.option("--workers", default=2, show_default=True, type=click.IntRange(1, 64), help="gunicorn worker processes")
def serve_web(host: str, port: int, server: str, workers: int) -> None:
    """Serve the read-only web site. Put nginx (TLS) in front of it on the Internet."""
    if server == "auto":
        server = "gunicorn" if importlib.util.find_spec("gunicorn") else "werkzeug"
    if server == "gunicorn":
        _open_store_once()
        click.echo(f"pbem web site on http://{host}:{port}/ ({server}; Ctrl-C stops it)", err=True)
        _gunicorn(host, port, workers)
        return
    from werkzeug.serving import run_simple

    from pbem.logs import configure
    from pbem.web import create_app, follow_summaries

    app = create_app()  # opens the store: an unusable data directory stops here, before the banner
    click.echo(f"pbem web site on http://{host}:{port}/ ({server}; Ctrl-C stops it)", err=True)
    configure()
    follow_summaries(app)
    from pbem.web.accesslog import RedactingRequestHandler

    run_simple(
        host, port, app, threaded=True, use_reloader=False, use_debugger=False, request_handler=RedactingRequestHandler
    )


def _open_store_once() -> None:
    """gunicorn opens the store in each worker; opening it here first turns a read-only or full
    data directory into one sentence (pbem.cli.errors) instead of a loop of failing workers."""
    from pbem.service.service import GameService

    GameService().close()


def register(group: click.Group) -> None:
    group.add_command(serve_web)
