"""Settings, read once from the environment. Every variable the code reads is listed here
(and in docs/operations.md)."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

ENVIRONMENT = {
    "PBEM_HOME": "data directory: SQLite database, signing keys, outgoing maildir (default ./pbem-data)",
    "PBEM_DATABASE_URL": "postgresql://user:password@host:port/dbname to use PostgreSQL instead of SQLite",
    "PBEM_ORIGIN": "name of this server in checkpoints and key names (default pbem.localhost)",
    "PBEM_BASE_URL": "public address of the web site, for links in mail (default http://127.0.0.1:8000)",
    "PBEM_SNAPSHOT_INTERVAL": "store a snapshot of a game every N events and its state every N entries (default 32)",
    "PBEM_SQLITE_SYNCHRONOUS": "full (default: every accepted mail survives a power cut) or normal "
    "(SQLite WAL's NORMAL: faster commits that survive a crash of pbem, "
    "not of the machine)",
    "PBEM_LANG": "en, cs or pl: the language of the CLI's messages for players (default: the locale's, else en)",
    "CIPHER_KEY": "optional: base64 AES key; events are then encrypted at rest (eventsourcing)",
    "PBEM_MAIL_IDLE_SECONDS": "an SMTP/LMTP conversation that hands over no mail this long is closed (default 60)",
    # the mail gateway (mailgateway/settings.py; docs/mail.md)
    "PBEM_MAIL_ADDRESS": "the service address for global commands (default pbem@localhost); "
    "seats get LOCAL+GAME.TOKEN@DOMAIN",
    "PBEM_SMTP_RELAY": "host:port of the relay for outgoing mail; unset: mail goes to the maildir",
    "PBEM_MAIL_TLS_CERT": "PEM certificate (chain): the gateway's SMTP server then offers STARTTLS",
    "PBEM_MAIL_TLS_KEY": "PEM private key for PBEM_MAIL_TLS_CERT (when not in the same file)",
    "PBEM_SMTP_STARTTLS": "yes: upgrade the relay connection with STARTTLS, certificate verified (default no)",
    "PBEM_SMTP_USER": "user name for SMTP AUTH at the relay (default none)",
    "PBEM_SMTP_PASSWORD": "password for SMTP AUTH at the relay",
    "PBEM_MAILDIR": "where outgoing mail goes without a relay (default PBEM_HOME/maildir)",
    "PBEM_MAIL_MAX_BYTES": "largest incoming mail that is read (default 262144); larger ones get a short answer",
    "PBEM_DKIM": "off (default), check (record the result) or require (moves need an aligned DKIM signature)",
    "PBEM_MAIL_REPLIES_PER_HOUR": "replies to one sender per hour, at most (default 20)",
    "PBEM_MAIL_STRANGERS_PER_HOUR": "mails an hour to all addresses that never wrote, together, at most (default 100)",
    "PBEM_MAIL_FLOOD_PER_HOUR": "answers to one player's own moves in one game per hour, at most (default 720)",
    "PBEM_DEADLINE_HOURS": "default deadline of a turn in hours, 0 for none (default 72)",
    "PBEM_REMINDER_HOURS": "a reminder this many hours before a deadline, 0 for none (default 24)",
    "PBEM_MISSED_TURN_POLICY": "wait, or default (play the game's default move; default)",
    "PBEM_MISSES_BEFORE_ROBOT": "missed deadlines before the robot takes the seat, 0 for never (default 3)",
    "PBEM_MAIL_TICK_SECONDS": "longest pause of the outbox, deadlines and sender; a commit wakes them (default 5)",
    "PBEM_SMTP_CONNECTIONS": "SMTP conversations with the relay at once; a player's mails in order (default 4)",
    "PBEM_SMTP_ATTEMPTS": "delivery attempts of one mail before it is given up (default 8)",
    "PBEM_SMTP_RETRY_SECONDS": "first retry delay; it doubles with each attempt (default 60)",
    "PBEM_MAIL_PICTURES": "on (default) or off: a PNG of the board in the mails that hand a player the turn",
}


@dataclass(frozen=True)
class Settings:
    home: Path
    database_url: str | None = None
    origin: str = "pbem.localhost"
    base_url: str = "http://127.0.0.1:8000"
    snapshot_interval: int = 32
    sqlite_synchronous: str = "full"  # "normal": faster commits, durable against crashes but not power cuts
    cipher_key: str | None = field(default=None, repr=False)  # CIPHER_KEY: events encrypted at rest

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """The settings of ``environ`` (default: the process's); a value that cannot work
        raises ``ConfigError`` naming the variable."""
        env = os.environ if environ is None else environ
        return cls(
            home=Path(env.get("PBEM_HOME") or "pbem-data").absolute(),
            database_url=env.get("PBEM_DATABASE_URL") or None,
            origin=env.get("PBEM_ORIGIN") or "pbem.localhost",
            base_url=(env.get("PBEM_BASE_URL") or "http://127.0.0.1:8000").rstrip("/"),
            snapshot_interval=int(number(env, "PBEM_SNAPSHOT_INTERVAL", 32, 1, 1_000_000)),
            sqlite_synchronous=choice(env, "PBEM_SQLITE_SYNCHRONOUS", ("full", "normal")),
            cipher_key=env.get("CIPHER_KEY") or None,
        )

    def store_env(self) -> dict[str, str]:
        """The eventsourcing environment for this installation's event store."""
        env: dict[str, str] = {}
        if self.cipher_key:
            env["CIPHER_KEY"] = self.cipher_key
            env["CIPHER_TOPIC"] = "eventsourcing.cryptography:AESCipher"
        if self.database_url:
            return env | postgres_env(self.database_url)
        private_directory(self.home)
        return env | {
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(self.home / "pbem.sqlite"),
            "SQLITE_LOCK_TIMEOUT": "30",
            "PBEM_SQLITE_SYNCHRONOUS": self.sqlite_synchronous,
        }


class ConfigError(ValueError):
    """A setting or the installation cannot work; the message is one sentence saying how to fix it."""


def number(env: Mapping[str, str], name: str, default: float, low: float, high: float, whole: bool = True) -> float:
    """The setting ``name`` as a number from ``low`` to ``high`` (``default`` when unset)."""
    text = (env.get(name) or "").strip()
    if not text:
        return default
    kind = "a whole number" if whole else "a number"
    span = f"from {int(low)} to {int(high)}" if whole else f"from {low:g} to {high:g}"
    try:
        value = int(text) if whole else float(text)
    except ValueError:
        raise ConfigError(f"{name} must be {kind} {span}, not {text[:40]!r}") from None
    if not low <= value <= high:  # also refuses nan
        raise ConfigError(f"{name} must be {kind} {span}, not {text[:40]!r}")
    return value


def choice(env: Mapping[str, str], name: str, choices: tuple[str, ...], default: str | None = None) -> str:
    value = (env.get(name) or default or choices[0]).strip().lower()
    if value not in choices:
        raise ConfigError(f"{name} must be one of {', '.join(choices)}, not {value[:40]!r}")
    return value


def postgres_env(url: str) -> dict[str, str]:
    parsed = urlparse(url)
    if parsed.scheme not in ("postgres", "postgresql"):
        raise ConfigError(f"PBEM_DATABASE_URL must start with postgresql://, not {parsed.scheme}://")
    require_postgres_extra()
    return {
        "PERSISTENCE_MODULE": "eventsourcing.postgres",
        "POSTGRES_DBNAME": parsed.path.lstrip("/") or "postgres",
        "POSTGRES_HOST": parsed.hostname or "127.0.0.1",
        "POSTGRES_PORT": str(parsed.port or 5432),
        "POSTGRES_USER": unquote(parsed.username or "postgres"),
        "POSTGRES_PASSWORD": unquote(parsed.password or ""),
        "POSTGRES_CONNECT_TIMEOUT": "5",
        # The pool starts at one connection, not five, and grows when threads need more at
        # once (up to 1 + the library's overflow of 10). It hands out its idle connections in
        # turn, so with five a gateway's saves went round five server processes; kept to one
        # or two, a mail cost 70-85 microseconds less (an interleaved A/B of Gateway.receive).
        "POSTGRES_POOL_SIZE": "1",
    }


def private_directory(path: Path) -> Path:
    """A data directory only its owner can read (0700), whatever the caller's umask: it holds
    the database (game seeds decide every future die) and seat tokens."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.chmod(0o700)
    return path


def private_files(folder: Path, names: tuple[str, ...] = ("pbem.sqlite", "pbem.sqlite-wal", "pbem.sqlite-shm")) -> None:
    """Make the named files in ``folder`` 0600 (SQLite creates them with the umask's mode)."""
    for name in names:
        target = folder / name
        if target.exists():
            target.chmod(0o600)


def require_postgres_extra() -> None:
    """PostgreSQL support is the optional extra ``pbem[postgres]``; say so instead of failing
    deep inside eventsourcing with an import error."""
    if importlib.util.find_spec("psycopg") is None:
        raise ConfigError(
            "PBEM_DATABASE_URL names PostgreSQL but the PostgreSQL driver is not installed; "
            "install pbem with its extra: pip install 'pbem[postgres]'"
        )
