"""Addresses. The service address (``PBEM_MAIL_ADDRESS``, e.g. ``pbem@example.org``) takes
global commands. Each seat has a private address ``pbem+GAME.TOKEN@example.org``: the game
id, a dot, and the seat's secret token (``GameService.seat_token``). A message's mails come
from ``pbem+GAME.TOKEN.toTARGET@example.org``, its conversation's address (pbem/mailroom/talk.py).
Game ids, tokens and targets never contain a dot, so the address splits unambiguously."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass


@dataclass(frozen=True)
class Target:
    """Where a message was sent: the service address (game None), or a game's address with
    or without a token."""

    game_id: str | None
    token: str | None
    address: str
    bounce: str | None = None  # the tag of a VERP return path: a bounce of one of our mails
    # a message's conversation (``pbem+GAME.TOKEN.toTARGET``, pbem/mailroom/talk.py): whom a
    # reply goes to, as written in the address ("to1-2", "toall"); the mail is then a message
    conversation: str | None = None


BOUNCE_PREFIX = "bounce="  # game ids never hold "=", so these return paths are told apart


def return_tag(secret: bytes, key: str) -> str:
    """The tag of a mail's VERP return path: unguessable, so a forged bounce cannot mark
    somebody's address undeliverable."""
    return hmac.new(secret, f"bounce/{key}".encode(), hashlib.sha256).hexdigest()[:20]


def return_path(service_address: str, tag: str) -> str:
    local, domain = service_address.split("@", 1)
    return f"{local}+{BOUNCE_PREFIX}{tag}@{domain}"


def seat_address(service_address: str, game_id: str, token: str) -> str:
    local, domain = service_address.split("@", 1)
    return f"{local}+{game_id}.{token}@{domain}"


def game_address(service_address: str, game_id: str) -> str:
    local, domain = service_address.split("@", 1)
    return f"{local}+{game_id}@{domain}"


def parse_target(address: str, service_address: str) -> Target | None:
    """The target an address names, or None when it is not one of ours."""
    address = address.strip().strip("<>").lower()
    if not (address.isascii() and address.isprintable()):  # ours are plain ASCII: no NUL reaches a query
        return None
    local, at, domain = address.partition("@")
    own_local, _, own_domain = service_address.lower().partition("@")
    if not at or domain != own_domain:
        return None
    if local == own_local:
        return Target(None, None, address)
    if not local.startswith(own_local + "+"):
        return None
    rest = local[len(own_local) + 1 :]
    if rest.startswith(BOUNCE_PREFIX):
        tag = rest[len(BOUNCE_PREFIX) :]
        return Target(None, None, address, tag) if tag.isascii() and tag.isalnum() else None
    return _game_target(rest, address)


def _game_target(rest: str, address: str) -> Target | None:
    """``GAME``, ``GAME.TOKEN`` or ``GAME.TOKEN.toTARGET`` (a message's conversation)."""
    game_id, dot, token = rest.partition(".")
    if not dot:
        return Target(rest, None, address) if rest else None
    token, dot, conversation = token.partition(".")
    if not game_id or (dot and not (token and conversation and "." not in conversation)):
        return None
    return Target(game_id, token or None, address, conversation=conversation or None)


def chosen(targets: list[Target | None]) -> Target | None:
    """The first recipient that is ours, of recipients parsed with ``parse_target`` (None: not
    ours); a seat or game address wins over the service one."""
    ours = [t for t in targets if t is not None]
    for target in ours:
        if target.game_id:
            return target
    return ours[0] if ours else None
