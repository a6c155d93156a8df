"""The mail queue and the deadline timers: two small tables kept beside the event store, in the
same database, written by the mail followers together with their tracking record.

Both are eventsourcing ``TrackingRecorder`` views (the library's projection pattern): the
follower's position in the store's notification log is a row of the library's tracking
table, inserted in the same transaction as the rows it led to. A notification is therefore
turned into mail exactly once, however many gateway processes follow the same database: the
second one to record the same position gets ``IntegrityError`` and its whole transaction
(its copies of the mails) is rolled back.

Sending is claimed per row: a claim marks rows ``sending`` with a lease (``next_try``) in one
statement (``FOR UPDATE SKIP LOCKED`` on PostgreSQL; SQLite has one writer at a time), so two
senders never hold the same mail. A sender that dies after the relay took a mail and before
it marked it sent leaves a claim whose lease runs out; the mail is then sent once more, with
the same Message-ID.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from eventsourcing.persistence import Tracking
from eventsourcing.sqlite import SQLiteTrackingRecorder

from pbem.service.es_adapter import TrackingViews, changed

QUEUED, SENDING, SENT, DEAD, RETRIED, DROPPED = "queued", "sending", "sent", "dead", "retried", "dropped"
MAX_ERROR = 2000  # characters of an error kept with a dead letter

TABLES = [
    "CREATE TABLE IF NOT EXISTS pbem_mail ("
    " key TEXT PRIMARY KEY, recipient TEXT NOT NULL, budget TEXT NOT NULL, model TEXT NOT NULL,"
    " created TEXT NOT NULL, source BIGINT NOT NULL, status TEXT NOT NULL,"
    " attempts INTEGER NOT NULL DEFAULT 0, next_try TEXT NOT NULL, claimed_by TEXT, error TEXT,"
    " return_tag TEXT)",
    "CREATE INDEX IF NOT EXISTS pbem_mail_return_tag ON pbem_mail (return_tag)",
    "CREATE TABLE IF NOT EXISTS pbem_heads (game_id TEXT PRIMARY KEY, size INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS pbem_undeliverable (address TEXT PRIMARY KEY, since TEXT NOT NULL,"
    " reason TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS pbem_mail_due ON pbem_mail (status, next_try)",
    "CREATE INDEX IF NOT EXISTS pbem_mail_recipient ON pbem_mail (recipient, created)",
    "CREATE TABLE IF NOT EXISTS pbem_timers ("
    " game_id TEXT NOT NULL, seat INTEGER NOT NULL, kind TEXT NOT NULL, version INTEGER NOT NULL,"
    " email TEXT NOT NULL, since TEXT NOT NULL, hours INTEGER NOT NULL, due TEXT NOT NULL,"
    " PRIMARY KEY (game_id, seat, kind))",
    "CREATE INDEX IF NOT EXISTS pbem_timers_due ON pbem_timers (due)",
    "CREATE INDEX IF NOT EXISTS pbem_timers_email ON pbem_timers (email)",
    # the mails queued to addresses that never wrote (the hourly cap across all of them)
    "CREATE TABLE IF NOT EXISTS pbem_stranger_mail (key TEXT PRIMARY KEY, created TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS pbem_stranger_mail_created ON pbem_stranger_mail (created)",
    # the bounces of mails we sent, one row per bounced mail (its return tag)
    "CREATE TABLE IF NOT EXISTS pbem_bounces (tag TEXT PRIMARY KEY, address TEXT NOT NULL, time TEXT NOT NULL,"
    " permanent INTEGER NOT NULL)",
    "CREATE INDEX IF NOT EXISTS pbem_bounces_address ON pbem_bounces (address, time)",
    # what each address was last told of each game ("since your last mail"), kept as mail is queued
    "CREATE TABLE IF NOT EXISTS pbem_told (recipient TEXT NOT NULL, game_id TEXT NOT NULL, version INTEGER NOT NULL,"
    " decision TEXT NOT NULL, PRIMARY KEY (recipient, game_id))",
    "CREATE TABLE IF NOT EXISTS pbem_told_filled (done INTEGER PRIMARY KEY)",  # a row: filled from older mail
]
TOLD = (  # the newest version told wins; of one version, the mail queued last
    "INSERT INTO pbem_told (recipient, game_id, version, decision) VALUES (%s, %s, %s, %s)"
    " ON CONFLICT (recipient, game_id) DO UPDATE SET version = excluded.version, decision = excluded.decision"
    " WHERE pbem_told.version <= excluded.version"
)
BOUNCES_TO_MARK = 3  # permanent failures of different mails to one address within BOUNCE_WINDOW mark it
BOUNCE_WINDOW = timedelta(days=1)
STRANGER_ROWS_KEPT = timedelta(days=2)  # rows of pbem_stranger_mail older than this are deleted


def _like_prefix(text: str) -> str:
    """A LIKE pattern (escape character ``\\``) matching what starts with ``text``."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def stamp(moment: datetime) -> str:
    """A time as stored: UTC, fixed width, so text order is time order."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def unstamp(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


@dataclass(frozen=True)
class Mail:
    """One outgoing mail as queued: who gets it and the model its text is composed from."""

    key: str  # unique: the same key is never queued twice
    to: str
    model: dict[str, Any]
    budget: str = ""  # which rate-limit budget it counts against ("" for none)
    status: str = "queued"  # or "dropped" (over a rate limit: kept, never sent)
    return_tag: str = ""  # its VERP return path's tag (pbem.mailroom.addresses.return_tag)
    stranger: bool = False  # to an address that never wrote: counted against the hourly cap of all such


@dataclass(frozen=True)
class QueuedMail:
    key: str
    to: str
    model: dict[str, Any]
    created: datetime
    status: str
    attempts: int
    source: int
    error: str | None
    return_tag: str | None = None


@dataclass(frozen=True)
class Settled:
    """What became of one claimed mail: sent, queued again (at ``next_try``) or dead."""

    key: str
    status: str
    error: str | None = None
    next_try: datetime | None = None


@dataclass(frozen=True)
class Timer:
    """A reminder or a deadline of one seat at one version of a game."""

    game_id: str
    seat: int
    kind: str  # "reminder" or "deadline"
    version: int
    email: str
    since: datetime  # when the turn began
    hours: int  # the deadline's length (a reminder fires ``hours`` before... see scheduler)
    due: datetime


@dataclass(frozen=True)
class Queued:
    """What one notification leads to, stored with the follower's position (``MailViews.record``):
    its mails, the timers of ``game_ids`` replaced by ``timers``, the games' newest sizes
    (``heads``) and the addresses that showed they work again (``cleared``: their bounces are
    forgotten)."""

    source: int
    tracking: Tracking | None
    mails: Sequence[Mail] = ()
    game_ids: Sequence[str] = ()
    timers: Sequence[Timer] = ()
    heads: Mapping[str, int] = field(default_factory=dict)
    cleared: Sequence[str] = ()
    error: str | None = None


class MailViews(TrackingViews):
    """The SQL of both views, written once with ``%s`` placeholders (psycopg's; SQLite's
    subclass turns them into ``?``), in the transactions of ``TrackingViews``."""

    claim_lock = ""
    by_page = False  # ``record`` writes a batch with one statement per table (``_record_page``)
    # said in a transaction that queued mail, heard after its commit by every gateway's sender
    # (PostgreSQL: ``NOTIFY``; SQLite's one writer wakes its own sender)
    notify = ""

    if TYPE_CHECKING:  # given by the tracking recorder that each concrete view also derives from

        def max_tracking_id(self, application_name: str) -> int | None: ...

    def sql(self, text: str) -> str:
        return text

    def _notify(self, cursor: Any, mails: int) -> None:
        if mails and self.notify:
            cursor.execute(self.notify)

    # -- mail ------------------------------------------------------------------------------
    def enqueue(
        self,
        mails: Sequence[Mail],
        now: datetime,
        source: int,
        tracking: Tracking | None = None,
        error: str | None = None,
    ) -> None:
        """Queue mails (a key already queued is left as it is) and, in the same transaction,
        record the follower's position."""
        with self.writing() as cursor:
            self._insert_mails(cursor, mails, now, source, error)
            self.track(cursor, tracking)
            self._notify(cursor, len(mails))

    def _insert_mails(self, cursor: Any, mails: Sequence[Mail], now: datetime, source: int, error: str | None) -> None:
        for mail in mails:
            cursor.execute(
                self.sql(
                    "INSERT INTO pbem_mail (key, recipient, budget, model, created, source, status, attempts,"
                    " next_try, error, return_tag) VALUES (%s, %s, %s, %s, %s, %s, %s, 0, %s, %s, %s)"
                    " ON CONFLICT (key) DO NOTHING"
                ),
                (
                    mail.key,
                    mail.to,
                    mail.budget,
                    json.dumps(mail.model, sort_keys=True),
                    stamp(now),
                    source,
                    mail.status,
                    stamp(now),
                    error[:MAX_ERROR] if error else None,
                    mail.return_tag or None,
                ),
            )
            if mail.status != DROPPED and changed(cursor):  # queued now (not dropped, not queued before)
                self._tell(cursor, mail.to, mail.model)
            if mail.stranger and mail.status != DROPPED:
                cursor.execute(
                    self.sql(
                        "INSERT INTO pbem_stranger_mail (key, created) VALUES (%s, %s) ON CONFLICT (key) DO NOTHING"
                    ),
                    (mail.key, stamp(now)),
                )
        if any(mail.stranger for mail in mails):
            cursor.execute(
                self.sql("DELETE FROM pbem_stranger_mail WHERE created < %s"), (stamp(now - STRANGER_ROWS_KEPT),)
            )

    def _tell(self, cursor: Any, recipient: str, model: dict[str, Any]) -> None:
        """Keep what a mail tells its recipient of its game: the version and the decision of a
        seat's game block (a mail without one tells nothing "since your last mail" counts)."""
        block = model.get("game")
        if isinstance(block, dict) and block.get("seat") is not None and isinstance(block.get("version"), int):
            decision = json.dumps(block.get("decision"), sort_keys=True)
            cursor.execute(self.sql(TOLD), (recipient, block.get("id"), block["version"], decision))

    def told(self, recipient: str, game_id: str) -> tuple[int, Any] | None:
        """The version of ``game_id`` and the decision the newest mail queued for ``recipient``
        showed (dropped ones left out; None: no mail yet): one row by its key."""
        with self.reading() as cursor:
            cursor.execute(
                self.sql("SELECT version, decision FROM pbem_told WHERE recipient = %s AND game_id = %s"),
                (recipient, game_id),
            )
            row = cursor.fetchone()
            return (int(row["version"]), json.loads(row["decision"])) if row else None

    def fill_told(self) -> None:
        """Once per database: the rows of ``pbem_told`` for mail queued before the table was, read
        from the queue in the order it was queued (idempotent: two processes may both do it)."""
        with self.reading() as cursor:
            cursor.execute(self.sql("SELECT COUNT(*) AS n FROM pbem_told_filled"))
            if int(cursor.fetchone()["n"]):
                return
        with self.writing() as cursor:
            cursor.execute(
                self.sql(
                    "SELECT recipient, model FROM pbem_mail WHERE status <> %s AND model LIKE %s"
                    " ORDER BY created, source, key"
                ),
                (DROPPED, '%"seat"%'),
            )
            for row in cursor.fetchall():
                self._tell(cursor, row["recipient"], json.loads(row["model"]))
            cursor.execute(self.sql("INSERT INTO pbem_told_filled (done) VALUES (1) ON CONFLICT (done) DO NOTHING"))

    def recent(self, recipient: str, budget: str, since: datetime, prefix: bool = False) -> int:
        """Mails queued for ``recipient`` in ``budget`` (with ``prefix``: in every budget whose
        name starts so) since a time; dropped ones are not counted."""
        test = "budget LIKE %s ESCAPE '\\'" if prefix else "budget = %s"
        value = _like_prefix(budget) if prefix else budget
        with self.reading() as cursor:
            cursor.execute(
                self.sql(
                    "SELECT COUNT(*) AS n FROM pbem_mail WHERE recipient = %s AND created >= %s"
                    f" AND {test} AND status <> %s"
                ),
                (recipient, stamp(since), value, DROPPED),
            )
            return int(cursor.fetchone()["n"])

    def to_strangers(self, since: datetime) -> int:
        """Mails queued since a time to addresses that had never written (``Mail.stranger``)."""
        with self.reading() as cursor:
            cursor.execute(
                self.sql("SELECT COUNT(*) AS n FROM pbem_stranger_mail WHERE created >= %s"), (stamp(since),)
            )
            return int(cursor.fetchone()["n"])

    def latest_models(self, recipient: str, containing: str, limit: int = 20) -> list[dict[str, Any]]:
        """The models of the last mails queued for ``recipient`` whose text contains
        ``containing`` (dropped ones left out), newest first: what the player was last told
        about a game (the outbox's "since your last mail")."""
        pattern = "%" + _like_prefix(containing)
        with self.reading() as cursor:
            cursor.execute(
                self.sql(
                    "SELECT model FROM pbem_mail WHERE recipient = %s AND status <> %s"
                    " AND model LIKE %s ESCAPE '\\' ORDER BY created DESC, source DESC LIMIT %s"
                ),
                (recipient, DROPPED, pattern, limit),
            )
            return [json.loads(row["model"]) for row in cursor.fetchall()]

    def claim(self, owner: str, now: datetime, lease_until: datetime, limit: int = 20) -> list[QueuedMail]:
        """Take up to ``limit`` due mails for sending: queued ones whose time has come, and
        claims of others whose lease ran out."""
        with self.writing() as cursor:
            cursor.execute(
                self.sql(
                    "UPDATE pbem_mail SET status = %s, claimed_by = %s, next_try = %s WHERE key IN ("
                    " SELECT key FROM pbem_mail WHERE status IN (%s, %s) AND next_try <= %s ORDER BY next_try"
                    f" LIMIT %s{self.claim_lock}) RETURNING key, recipient, model, created, status, attempts, source,"
                    " error, return_tag"
                ),
                (SENDING, owner, stamp(lease_until), QUEUED, SENDING, stamp(now), limit),
            )
            return [self._mail(row) for row in cursor.fetchall()]

    def settle(
        self,
        key: str,
        owner: str,
        status: str,
        now: datetime,
        error: str | None = None,
        next_try: datetime | None = None,
    ) -> bool:
        """Record what became of a claimed mail; False when the claim was lost meanwhile."""
        return not self.settle_all([Settled(key, status, error, next_try)], owner, now)

    def settle_all(self, settled: Sequence[Settled], owner: str, now: datetime) -> list[str]:
        """Record what became of claimed mails, in one transaction (one commit for a sender's
        batch, not one a mail); returns the keys whose claim was lost meanwhile."""
        lost = []
        with self.writing() as cursor:
            for mail in settled:
                error = mail.error[:MAX_ERROR] if mail.error else None
                cursor.execute(
                    self.sql(
                        "UPDATE pbem_mail SET status = %s, attempts = attempts + 1, error = %s, next_try = %s,"
                        " claimed_by = NULL WHERE key = %s AND claimed_by = %s AND status = %s"
                    ),
                    (mail.status, error, stamp(mail.next_try or now), mail.key, owner, SENDING),
                )
                if not changed(cursor):
                    lost.append(mail.key)
        return lost

    def dead(self, limit: int = 1000) -> list[QueuedMail]:
        with self.reading() as cursor:
            cursor.execute(
                self.sql(
                    "SELECT key, recipient, model, created, status, attempts, source, error, return_tag FROM pbem_mail"
                    " WHERE status = %s ORDER BY created LIMIT %s"
                ),
                (DEAD, limit),
            )
            return [self._mail(row) for row in cursor.fetchall()]

    def waiting(self, limit: int = 1000) -> list[QueuedMail]:
        """Mails not sent yet: queued (maybe after a failed try) or claimed by a sender."""
        with self.reading() as cursor:
            cursor.execute(
                self.sql(
                    "SELECT key, recipient, model, created, status, attempts, source, error, return_tag FROM pbem_mail"
                    " WHERE status IN (%s, %s) ORDER BY created LIMIT %s"
                ),
                (QUEUED, SENDING, limit),
            )
            return [self._mail(row) for row in cursor.fetchall()]

    def mark(self, key: str, status: str, now: datetime, from_status: str = DEAD) -> bool:
        """Move a mail from one status to another (a dead letter to queued or retried)."""
        with self.writing() as cursor:
            cursor.execute(
                self.sql(
                    "UPDATE pbem_mail SET status = %s, attempts = 0, next_try = %s, claimed_by = NULL"
                    " WHERE key = %s AND status = %s"
                ),
                (status, stamp(now), key, from_status),
            )
            return changed(cursor)

    def get(self, key: str) -> QueuedMail | None:
        with self.reading() as cursor:
            cursor.execute(
                self.sql(
                    "SELECT key, recipient, model, created, status, attempts, source, error, return_tag FROM pbem_mail"
                    " WHERE key = %s"
                ),
                (key,),
            )
            row = cursor.fetchone()
            return self._mail(row) if row else None

    def counts(self) -> dict[str, int]:
        with self.reading() as cursor:
            cursor.execute("SELECT status, COUNT(*) AS n FROM pbem_mail GROUP BY status")
            return {row["status"]: int(row["n"]) for row in cursor.fetchall()}

    def next_due(self) -> datetime | None:
        """The earliest due time of a timer or of a mail waiting to be sent (two index look-ups)."""
        with self.reading() as cursor:
            found = []
            cursor.execute("SELECT MIN(due) AS due FROM pbem_timers")
            found.append(cursor.fetchone()["due"])
            for status in (QUEUED, SENDING):
                cursor.execute(self.sql("SELECT MIN(next_try) AS due FROM pbem_mail WHERE status = %s"), (status,))
                found.append(cursor.fetchone()["due"])
        times = [unstamp(text) for text in found if text]
        return min(times) if times else None

    @staticmethod
    def _mail(row: Any) -> QueuedMail:
        return QueuedMail(
            row["key"],
            row["recipient"],
            json.loads(row["model"]),
            unstamp(row["created"]),
            row["status"],
            int(row["attempts"]),
            int(row["source"]),
            row["error"],
            row["return_tag"],
        )

    # -- bounces ---------------------------------------------------------------------------
    def bounced(self, tag: str, now: datetime, permanent: bool = True) -> tuple[str | None, bool]:
        """Count a bounce of the mail with this return-path tag; returns its recipient (None:
        no mail we sent has the tag) and whether the address is now marked undeliverable.
        Only a mail that was handed to the relay can bounce, each mail counts once however
        often its bounce comes, and an address is marked only after ``BOUNCES_TO_MARK``
        permanent failures of different mails within ``BOUNCE_WINDOW``: one bounce, which a
        forged mail can provoke from the victim's provider, marks nobody."""
        with self.writing() as cursor:
            cursor.execute(
                self.sql("SELECT recipient FROM pbem_mail WHERE return_tag = %s AND status = %s"), (tag, SENT)
            )
            row = cursor.fetchone()
            if row is None:
                return None, False
            address = str(row["recipient"])
            cursor.execute(
                self.sql(
                    "INSERT INTO pbem_bounces (tag, address, time, permanent) VALUES (%s, %s, %s, %s)"
                    " ON CONFLICT (tag) DO UPDATE SET permanent = 1 WHERE excluded.permanent = 1"
                ),  # a delay's report, then the failure's: the mail failed for good
                (tag, address, stamp(now), 1 if permanent else 0),
            )
            cursor.execute(
                self.sql("SELECT COUNT(*) AS n FROM pbem_bounces WHERE address = %s AND time >= %s AND permanent = 1"),
                (address, stamp(now - BOUNCE_WINDOW)),
            )
            if int(cursor.fetchone()["n"]) < BOUNCES_TO_MARK:
                return address, False
            cursor.execute(
                self.sql(
                    "INSERT INTO pbem_undeliverable (address, since, reason) VALUES (%s, %s, %s)"
                    " ON CONFLICT (address) DO NOTHING"
                ),
                (address, stamp(now), "bounce"),
            )
            return address, True

    def undeliverable(self, address: str) -> bool:
        with self.reading() as cursor:
            cursor.execute(self.sql("SELECT 1 AS x FROM pbem_undeliverable WHERE address = %s"), (address,))
            return cursor.fetchone() is not None

    def undeliverable_among(self, addresses: Iterable[str]) -> frozenset[str]:
        """Which of ``addresses`` are marked undeliverable (a game's seats: a few)."""
        return frozenset(address for address in set(addresses) if self.undeliverable(address))

    def undeliverable_generation(self) -> tuple[int, str]:
        """A value that changes whenever a mark is set or lifted: how many addresses are
        marked, and when the newest mark was set (a mark lifted and another set between two
        reads still moves the newest time)."""
        with self.reading() as cursor:
            cursor.execute(self.sql("SELECT COUNT(*) AS n, MAX(since) AS newest FROM pbem_undeliverable"))
            row = cursor.fetchone()
            return int(row["n"]), str(row["newest"] or "")

    # -- timers ----------------------------------------------------------------------------
    def record(self, batch: Sequence[Queued], now: datetime) -> None:
        """Store what a run of notifications led to, with the follower's position after each,
        in one transaction (``Queued``): a follower round commits once, not once a notification."""
        with self.writing() as cursor:
            if self.by_page:
                self._record_page(cursor, batch, now)
            else:
                for queued in batch:
                    self._record(cursor, queued, now)
            self._notify(cursor, sum(len(queued.mails) for queued in batch))

    def _record_page(self, cursor: Any, batch: Sequence[Queued], now: datetime) -> None:
        """``_record`` of a whole batch with one statement per table (PostgreSQL, arrays through
        ``unnest``): the rows are what the notifications one after another would leave."""
        cleared = sorted({address for queued in batch for address in queued.cleared})
        if cleared:
            cursor.execute("DELETE FROM pbem_undeliverable WHERE address = ANY(%s)", (cleared,))
            cursor.execute("DELETE FROM pbem_bounces WHERE address = ANY(%s)", (cleared,))
        heads: dict[str, int] = {}
        for queued in batch:
            for game_id, size in queued.heads.items():
                heads[game_id] = max(size, heads.get(game_id, size))
        if heads:
            cursor.execute(
                "INSERT INTO pbem_heads (game_id, size) SELECT * FROM unnest(%s::text[], %s::int[])"
                " ON CONFLICT (game_id) DO UPDATE SET size = excluded.size WHERE pbem_heads.size < excluded.size",
                (list(heads), list(heads.values())),
            )
        self._page_timers(cursor, batch)
        self._page_mails(cursor, batch, now)
        self._page_tracking(cursor, [queued.tracking for queued in batch if queued.tracking is not None])

    def _page_timers(self, cursor: Any, batch: Sequence[Queued]) -> None:
        cleared: set[str] = set()
        timers: dict[tuple[str, int, str], Timer] = {}
        for queued in batch:
            for game_id in queued.game_ids:
                cleared.add(game_id)
                timers = {key: timer for key, timer in timers.items() if key[0] != game_id}
            timers |= {(timer.game_id, timer.seat, timer.kind): timer for timer in queued.timers}
        if cleared:
            cursor.execute("DELETE FROM pbem_timers WHERE game_id = ANY(%s)", (sorted(cleared),))
        if timers:
            rows = [
                (t.game_id, t.seat, t.kind, t.version, t.email, stamp(t.since), t.hours, stamp(t.due))
                for t in timers.values()
            ]
            cursor.execute(
                "INSERT INTO pbem_timers (game_id, seat, kind, version, email, since, hours, due) SELECT * FROM"
                " unnest(%s::text[], %s::int[], %s::text[], %s::int[], %s::text[], %s::text[], %s::int[], %s::text[])"
                " ON CONFLICT (game_id, seat, kind) DO UPDATE SET version = excluded.version, email = excluded.email,"
                " since = excluded.since, hours = excluded.hours, due = excluded.due",
                [list(column) for column in zip(*rows, strict=True)],
            )

    def _page_mails(self, cursor: Any, batch: Sequence[Queued], now: datetime) -> None:
        """The page's mails in one insert; what each newly queued one tells (``_tell``) in another."""
        mails: dict[str, tuple[Mail, Queued]] = {}
        for queued in batch:
            for mail in queued.mails:
                mails.setdefault(mail.key, (mail, queued))  # a key queued twice: the first stays
        if not mails:
            return
        when = stamp(now)
        rows = [
            (
                mail.key,
                mail.to,
                mail.budget,
                json.dumps(mail.model, sort_keys=True),
                queued.source,
                mail.status,
                queued.error[:MAX_ERROR] if queued.error else None,
                mail.return_tag or None,
            )
            for mail, queued in mails.values()
        ]
        cursor.execute(
            "INSERT INTO pbem_mail (key, recipient, budget, model, created, source, status, attempts, next_try, error,"
            " return_tag) SELECT k, r, b, m, %s, s, st, 0, %s, e, t FROM unnest(%s::text[], %s::text[], %s::text[],"
            " %s::text[], %s::bigint[], %s::text[], %s::text[], %s::text[]) AS page (k, r, b, m, s, st, e, t)"
            " ON CONFLICT (key) DO NOTHING RETURNING key",
            [when, when, *(list(column) for column in zip(*rows, strict=True))],
        )
        queued_now = {row["key"] for row in cursor.fetchall()}
        self._page_told(cursor, [mail for mail, _ in mails.values() if mail.key in queued_now])
        self._page_strangers(cursor, [mail for mail, _ in mails.values()], now)

    def _page_told(self, cursor: Any, mails: Sequence[Mail]) -> None:
        """What the page's newly queued mails tell (``_tell``), one row a recipient and game."""
        told: dict[tuple[str, Any], tuple[int, str]] = {}
        for mail in mails:
            block = mail.model.get("game")
            if mail.status == DROPPED or not isinstance(block, dict):
                continue
            if block.get("seat") is not None and isinstance(block.get("version"), int):
                key = (mail.to, block.get("id"))
                if key not in told or told[key][0] <= block["version"]:  # as TOLD, one mail after another
                    told[key] = (block["version"], json.dumps(block.get("decision"), sort_keys=True))
        if told:
            cursor.execute(
                "INSERT INTO pbem_told (recipient, game_id, version, decision) SELECT * FROM"
                " unnest(%s::text[], %s::text[], %s::int[], %s::text[]) ON CONFLICT (recipient, game_id) DO UPDATE"
                " SET version = excluded.version, decision = excluded.decision"
                " WHERE pbem_told.version <= excluded.version",
                (
                    [key[0] for key in told],
                    [key[1] for key in told],
                    [v[0] for v in told.values()],
                    [v[1] for v in told.values()],
                ),
            )

    def _page_strangers(self, cursor: Any, mails: Sequence[Mail], now: datetime) -> None:
        strangers = [mail.key for mail in mails if mail.stranger and mail.status != DROPPED]
        if strangers:
            cursor.execute(
                "INSERT INTO pbem_stranger_mail (key, created) SELECT k, %s FROM unnest(%s::text[]) AS page (k)"
                " ON CONFLICT (key) DO NOTHING",
                (stamp(now), strangers),
            )
        if any(mail.stranger for mail in mails):
            cursor.execute("DELETE FROM pbem_stranger_mail WHERE created < %s", (stamp(now - STRANGER_ROWS_KEPT),))

    def _page_tracking(self, cursor: Any, trackings: list[Tracking]) -> None:
        """The follower's positions: one tracking row holds the newest, and recording a run of
        rising positions one by one succeeds exactly when recording its first does (then its last)."""
        single = bool(getattr(getattr(self, "datastore", None), "single_row_tracking", False))
        ids = [tracking.notification_id for tracking in trackings]
        names = {tracking.application_name for tracking in trackings}
        if single and len(names) == 1 and ids == sorted(set(ids)):
            trackings = trackings[:1] + trackings[1:][-1:]
        for tracking in trackings:
            self.track(cursor, tracking)

    def _record(self, cursor: Any, queued: Queued, now: datetime) -> None:
        for address in queued.cleared:
            cursor.execute(self.sql("DELETE FROM pbem_undeliverable WHERE address = %s"), (address,))
            cursor.execute(self.sql("DELETE FROM pbem_bounces WHERE address = %s"), (address,))
        for game_id, size in queued.heads.items():
            cursor.execute(
                self.sql(
                    "INSERT INTO pbem_heads (game_id, size) VALUES (%s, %s) ON CONFLICT (game_id) DO UPDATE"
                    " SET size = excluded.size WHERE pbem_heads.size < excluded.size"
                ),
                (game_id, size),
            )
        for game_id in queued.game_ids:
            cursor.execute(self.sql("DELETE FROM pbem_timers WHERE game_id = %s"), (game_id,))
        for timer in queued.timers:
            self._insert_timer(cursor, timer)
        self._insert_mails(cursor, queued.mails, now, queued.source, queued.error)
        self.track(cursor, queued.tracking)

    def _insert_timer(self, cursor: Any, timer: Timer) -> None:
        cursor.execute(
            self.sql(
                "INSERT INTO pbem_timers (game_id, seat, kind, version, email, since, hours, due)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (game_id, seat, kind) DO UPDATE SET"
                " version = excluded.version, email = excluded.email, since = excluded.since,"
                " hours = excluded.hours, due = excluded.due"
            ),
            (
                timer.game_id,
                timer.seat,
                timer.kind,
                timer.version,
                timer.email,
                stamp(timer.since),
                timer.hours,
                stamp(timer.due),
            ),
        )

    def head(self, game_id: str) -> int | None:
        """The newest size of a game the follower has seen (rows are never lowered)."""
        with self.reading() as cursor:
            cursor.execute(self.sql("SELECT size FROM pbem_heads WHERE game_id = %s"), (game_id,))
            row = cursor.fetchone()
            return int(row["size"]) if row else None

    def due_timers(self, now: datetime, limit: int = 50) -> list[Timer]:
        with self.reading() as cursor:
            cursor.execute(
                self.sql(
                    "SELECT game_id, seat, kind, version, email, since, hours, due FROM pbem_timers"
                    " WHERE due <= %s ORDER BY due LIMIT %s"
                ),
                (stamp(now), limit),
            )
            return [self._timer(row) for row in cursor.fetchall()]

    def timers_of(self, email: str) -> list[Timer]:
        with self.reading() as cursor:
            cursor.execute(
                self.sql(
                    "SELECT game_id, seat, kind, version, email, since, hours, due FROM pbem_timers WHERE email = %s"
                ),
                (email,),
            )
            return [self._timer(row) for row in cursor.fetchall()]

    def timer(self, game_id: str, seat: int, kind: str) -> Timer | None:
        with self.reading() as cursor:
            cursor.execute(
                self.sql(
                    "SELECT game_id, seat, kind, version, email, since, hours, due FROM pbem_timers"
                    " WHERE game_id = %s AND seat = %s AND kind = %s"
                ),
                (game_id, seat, kind),
            )
            row = cursor.fetchone()
            return self._timer(row) if row else None

    def move_timers(self, timers: Sequence[Timer]) -> None:
        """Store new due times (after an absence changed)."""
        with self.writing() as cursor:
            for timer in timers:
                cursor.execute(
                    self.sql(
                        "UPDATE pbem_timers SET due = %s WHERE game_id = %s AND seat = %s AND kind = %s"
                        " AND version = %s"
                    ),
                    (stamp(timer.due), timer.game_id, timer.seat, timer.kind, timer.version),
                )

    def fired(self, timer: Timer) -> bool:
        """Remove a timer that has been acted on; False when another process did it first or
        the game moved on (a newer timer replaced it)."""
        with self.writing() as cursor:
            cursor.execute(
                self.sql("DELETE FROM pbem_timers WHERE game_id = %s AND seat = %s AND kind = %s AND version = %s"),
                (timer.game_id, timer.seat, timer.kind, timer.version),
            )
            return changed(cursor)

    @staticmethod
    def _timer(row: Any) -> Timer:
        return Timer(
            row["game_id"],
            int(row["seat"]),
            row["kind"],
            int(row["version"]),
            row["email"],
            unstamp(row["since"]),
            int(row["hours"]),
            unstamp(row["due"]),
        )


OUTBOX_CHANNEL = "pbem_mail"  # PostgreSQL's channel of queued mail (``MailViews.notify``), one a database


class SQLiteMailViews(MailViews, SQLiteTrackingRecorder):
    def sql(self, text: str) -> str:
        return text.replace("%s", "?")

    def construct_create_table_statements(self) -> list[str]:
        return [*super().construct_create_table_statements(), *TABLES]


def _postgres_views() -> type:
    """Made on first use: psycopg is only needed by installations on PostgreSQL."""
    from eventsourcing.postgres import PostgresTrackingRecorder
    from psycopg.sql import SQL

    class PostgresMailViews(MailViews, PostgresTrackingRecorder):
        claim_lock = " FOR UPDATE SKIP LOCKED"
        by_page = True
        notify = f"NOTIFY {OUTBOX_CHANNEL}"

        def __init__(self, datastore: Any, **kwargs: Any):
            super().__init__(datastore, **kwargs)
            # the library's own statements are SQL too; it declares the list as Composed only
            self.sql_create_statements.extend(SQL(statement) for statement in TABLES)  # type: ignore[misc]

    return PostgresMailViews


def views_for(store: Any) -> MailViews:
    """The views in the database of ``store`` (the game service, or its repository), so one
    transaction can hold both (``GameRepository.views_beside``)."""
    views: MailViews = store.views_beside(SQLiteMailViews, _postgres_views)
    views.fill_told()
    return views
