"""Access logs without seat tokens. A seat's private link (``/games/<id>/seat/<token>``) is a
secret; web servers write the requested path into their access logs, and logs are kept, copied
and read by more people than the players. Every server the project runs writes the path with
the token replaced: werkzeug (``pbem serve``, ``pbem serve-web --server werkzeug``) through
``RedactingRequestHandler``, gunicorn through ``GunicornLogger`` (``--logger-class``), and
nginx through the ``pbem`` log format in deploy/nginx/pbem.conf."""

from __future__ import annotations

import re
from typing import Any

from werkzeug.serving import WSGIRequestHandler

SEAT_TOKEN = re.compile(r"(/seat/)[^/?#\s\"]+")
HIDDEN = r"\1[token]"


def redact(text: str) -> str:
    """``text`` with every seat token replaced by ``[token]``."""
    return SEAT_TOKEN.sub(HIDDEN, text)


def _redacted(value: Any) -> Any:
    return redact(value) if isinstance(value, str) else value


class RedactingRequestHandler(WSGIRequestHandler):
    """werkzeug's request handler, logging request lines without seat tokens."""

    def log(self, type: str, message: str, *args: Any) -> None:
        super().log(type, redact(message), *(_redacted(arg) for arg in args))


try:  # gunicorn is the optional "deploy" extra
    from gunicorn.glogging import Logger as _GunicornLogger
except ImportError:  # pragma: no cover - depends on the installation
    _GunicornLogger = None

if _GunicornLogger is not None:

    class GunicornLogger(_GunicornLogger):
        """gunicorn's logger with every access-log value (request line, path, referrer, query,
        environment and header atoms) stripped of seat tokens."""

        def atoms(self, resp: Any, req: Any, environ: Any, request_time: Any) -> dict[str, Any]:
            return {key: _redacted(value) for key, value in super().atoms(resp, req, environ, request_time).items()}
