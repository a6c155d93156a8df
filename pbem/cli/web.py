"""``pbem serve-web``: the read-only web site alone (``pbem serve`` runs it with the mail
gateway)."""

from __future__ import annotations

import click


@click.command("serve-web")
@click.option("--host", default="127.0.0.1", show_default=True, help="address to listen on")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="TCP port")
@click.option("--threads/--no-threads", default=True, show_default=True, help="serve requests in threads")
def serve_web(host: str, port: int, threads: bool) -> None:
    """Serve the read-only web site (werkzeug's server; put nginx in front for the Internet)."""
    from werkzeug.serving import run_simple

    from pbem.web import create_app

    app = create_app()
    click.echo(f"pbem web site on http://{host}:{port}/ (Ctrl-C stops it)", err=True)
    run_simple(host, port, app, threaded=threads, use_reloader=False, use_debugger=False)


def register(group: click.Group) -> None:
    group.add_command(serve_web)
