"""The mail gateway's settings, read once from the environment (documented in docs/mail.md
and listed in ``pbem.config.ENVIRONMENT``)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

DKIM_MODES = ("off", "check", "require")
POLICIES = ("wait", "default")


@dataclass(frozen=True)
class MailSettings:
    address: str = "pbem@localhost"  # the service address; seats get address+GAME.TOKEN
    relay: tuple[str, int] | None = None  # None: outgoing mail goes to the maildir
    relay_starttls: bool = False
    relay_user: str | None = None
    relay_password: str | None = None
    maildir: Path | None = None
    max_bytes: int = 262_144
    tls_cert: Path | None = None  # offer STARTTLS on the gateway's own server with this certificate
    tls_key: Path | None = None
    dkim: str = "off"
    replies_per_hour: int = 20
    deadline_hours: int = 72
    reminder_hours: int = 24
    policy: str = "default"
    robot_after: int = 3
    tick_seconds: float = 5.0
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
    def from_env(cls, home: Path, environ: dict[str, str] | None = None) -> MailSettings:
        env = os.environ if environ is None else environ
        address = (env.get("PBEM_MAIL_ADDRESS") or "pbem@localhost").strip().lower()
        if "@" not in address or "+" in address.split("@", 1)[0]:
            raise ValueError(f"PBEM_MAIL_ADDRESS must be local@domain without '+', not {address!r}")
        relay = None
        if env.get("PBEM_SMTP_RELAY"):
            host, _, port = env["PBEM_SMTP_RELAY"].rpartition(":")
            if not host or not port.isdigit():
                raise ValueError("PBEM_SMTP_RELAY must be host:port")
            relay = (host, int(port))
        dkim = (env.get("PBEM_DKIM") or "off").lower()
        if dkim not in DKIM_MODES:
            raise ValueError(f"PBEM_DKIM must be one of {', '.join(DKIM_MODES)}")
        policy = (env.get("PBEM_MISSED_TURN_POLICY") or "default").lower()
        if policy not in POLICIES:
            raise ValueError(f"PBEM_MISSED_TURN_POLICY must be one of {', '.join(POLICIES)}")
        return cls(
            address=address,
            relay=relay,
            relay_starttls=(env.get("PBEM_SMTP_STARTTLS") or "no").lower() in ("1", "yes", "true", "on"),
            relay_user=env.get("PBEM_SMTP_USER") or None,
            relay_password=env.get("PBEM_SMTP_PASSWORD") or None,
            maildir=Path(env.get("PBEM_MAILDIR") or home / "maildir"),
            max_bytes=int(env.get("PBEM_MAIL_MAX_BYTES") or 262_144),
            tls_cert=Path(env["PBEM_MAIL_TLS_CERT"]) if env.get("PBEM_MAIL_TLS_CERT") else None,
            tls_key=Path(env["PBEM_MAIL_TLS_KEY"]) if env.get("PBEM_MAIL_TLS_KEY") else None,
            dkim=dkim,
            replies_per_hour=int(env.get("PBEM_MAIL_REPLIES_PER_HOUR") or 20),
            deadline_hours=int(env.get("PBEM_DEADLINE_HOURS") or 72),
            reminder_hours=int(env.get("PBEM_REMINDER_HOURS") or 24),
            policy=policy,
            robot_after=int(env.get("PBEM_MISSES_BEFORE_ROBOT") or 3),
            tick_seconds=float(env.get("PBEM_MAIL_TICK_SECONDS") or 5),
            send_attempts=int(env.get("PBEM_SMTP_ATTEMPTS") or 8),
            retry_seconds=float(env.get("PBEM_SMTP_RETRY_SECONDS") or 60),
            pictures=(env.get("PBEM_MAIL_PICTURES") or "on").lower() not in ("0", "no", "false", "off"),
        )
