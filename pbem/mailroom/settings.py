"""The mail gateway's settings, read once from the environment (documented in docs/mail.md
and listed in ``pbem.config.ENVIRONMENT``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pbem.config import ConfigError, choice, number

DKIM_MODES = ("off", "check", "require")
POLICIES = ("wait", "default")


@dataclass(frozen=True)
class MailSettings:
    address: str = "pbem@localhost"  # the service address; seats get address+GAME.TOKEN
    relay: tuple[str, int] | None = None  # None: outgoing mail goes to the maildir
    relay_starttls: bool = False
    relay_user: str | None = None
    relay_password: str | None = None
    relay_connections: int = 4  # SMTP conversations with the relay at once (the sender's lanes)
    maildir: Path | None = None
    max_bytes: int = 262_144
    tls_cert: Path | None = None  # offer STARTTLS on the gateway's own server with this certificate
    tls_key: Path | None = None
    dkim: str = "off"
    replies_per_hour: int = 20
    flood_per_hour: int = 720  # the flood guard: replies to one player's own moves, per game and hour
    strangers_per_hour: int = 100  # mails an hour to all addresses that never wrote, together
    deadline_hours: int = 72
    reminder_hours: int = 24
    policy: str = "default"
    robot_after: int = 3
    tick_seconds: float = 5.0
    idle_seconds: float = 60.0  # an SMTP conversation that hands over no mail this long is closed
    send_attempts: int = 8
    retry_seconds: float = 60.0
    pictures: bool = True  # board pictures in turn and end mails (PBEM_MAIL_PICTURES=off: none)

    @property
    def local(self) -> str:
        return self.address.split("@", 1)[0].lower()

    @property
    def domain(self) -> str:
        return self.address.split("@", 1)[1].lower()

    @classmethod
    def from_env(cls, home: Path, environ: Mapping[str, str] | None = None) -> MailSettings:
        """The settings of ``environ`` (default: the process's). A value that cannot work
        raises ``ConfigError`` naming the variable and what it takes (``pbem`` exits 3)."""
        env = os.environ if environ is None else environ
        address = (env.get("PBEM_MAIL_ADDRESS") or "pbem@localhost").strip().lower()
        if "@" not in address or "+" in address.split("@", 1)[0]:
            raise ConfigError(f"PBEM_MAIL_ADDRESS must be local@domain without '+', not {address!r}")
        return cls(
            address=address,
            relay=_relay(env.get("PBEM_SMTP_RELAY")),
            relay_starttls=(env.get("PBEM_SMTP_STARTTLS") or "no").lower() in ("1", "yes", "true", "on"),
            relay_user=env.get("PBEM_SMTP_USER") or None,
            relay_password=env.get("PBEM_SMTP_PASSWORD") or None,
            relay_connections=int(number(env, "PBEM_SMTP_CONNECTIONS", 4, 1, 32)),
            maildir=Path(env.get("PBEM_MAILDIR") or home / "maildir"),
            max_bytes=int(number(env, "PBEM_MAIL_MAX_BYTES", 262_144, 1024, 1 << 30)),
            tls_cert=Path(env["PBEM_MAIL_TLS_CERT"]) if env.get("PBEM_MAIL_TLS_CERT") else None,
            tls_key=Path(env["PBEM_MAIL_TLS_KEY"]) if env.get("PBEM_MAIL_TLS_KEY") else None,
            dkim=choice(env, "PBEM_DKIM", DKIM_MODES),
            replies_per_hour=int(number(env, "PBEM_MAIL_REPLIES_PER_HOUR", 20, 1, 10_000_000)),
            strangers_per_hour=int(number(env, "PBEM_MAIL_STRANGERS_PER_HOUR", 100, 1, 10_000_000)),
            flood_per_hour=int(number(env, "PBEM_MAIL_FLOOD_PER_HOUR", 720, 1, 10_000_000)),
            deadline_hours=int(number(env, "PBEM_DEADLINE_HOURS", 72, 0, 1440)),
            reminder_hours=int(number(env, "PBEM_REMINDER_HOURS", 24, 0, 1440)),
            policy=choice(env, "PBEM_MISSED_TURN_POLICY", POLICIES, "default"),
            robot_after=int(number(env, "PBEM_MISSES_BEFORE_ROBOT", 3, 0, 20)),
            tick_seconds=number(env, "PBEM_MAIL_TICK_SECONDS", 5.0, 0.01, 3600, whole=False),
            idle_seconds=number(env, "PBEM_MAIL_IDLE_SECONDS", 60.0, 1, 3600, whole=False),
            send_attempts=int(number(env, "PBEM_SMTP_ATTEMPTS", 8, 1, 100)),
            retry_seconds=number(env, "PBEM_SMTP_RETRY_SECONDS", 60.0, 0.01, 86_400, whole=False),
            pictures=choice(env, "PBEM_MAIL_PICTURES", ("on", "off", "yes", "no", "true", "false", "1", "0"))
            in ("on", "yes", "true", "1"),
        )


def _relay(text: str | None) -> tuple[str, int] | None:
    if not text:
        return None
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"PBEM_SMTP_RELAY must be host:port, not {text[:80]!r}")
    return host, int(port)
