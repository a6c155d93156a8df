"""The measurements behind ``python -m benchmarks``. Each section returns rows; each row holds
two timings taken in this run and their ratio."""

from __future__ import annotations

import contextlib
import http.client
import os
import random
import smtplib
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from email import policy as email_policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from eventsourcing.domain import Aggregate, event

from benchmarks.longgame import PLAYERS, EventsOnlyStore, build, register_games
from pbem.config import Settings
from pbem.games import catalog
from pbem.games.simulate import play_random
from pbem.ledger.canonical import canonical_bytes
from pbem.ledger.commitments import commit
from pbem.ledger.fairness import seed_commitment
from pbem.ledger.merkle import leaf_hash, root
from pbem.ledger.notes import VerifierKey, verify_checkpoint
from pbem.ledger.verify import export_bytes, verify_bytes
from pbem.service.game import FACT_KINDS, load
from pbem.service.service import GameService
from pbem.service.store import game_uuid, states_uuid

SERVICE = "pbem@bench.example"
ROOT = Path(__file__).resolve().parent.parent  # the checkout, for the servers' imports


@dataclass
class Row:
    section: str
    what: str
    size: str
    pbem: str
    baseline: str
    ratio: float
    meaning: str  # how to read the ratio


def table(rows: list[Row]) -> str:
    head = ("section", "what", "size", "pbem", "baseline", "ratio", "ratio means")
    body = [(r.section, r.what, r.size, r.pbem, r.baseline, f"{r.ratio:,.1f}x", r.meaning) for r in rows]
    widths = [max(len(str(line[i])) for line in [head, *body]) for i in range(len(head))]

    def fmt(line: tuple) -> str:
        return " | ".join(str(cell).ljust(width) for cell, width in zip(line, widths, strict=False)).rstrip()

    return "\n".join([fmt(head), "-+-".join("-" * w for w in widths), *map(fmt, body)])


def per_call(fn: Callable[[], Any], budget: float = 0.3, min_runs: int = 3, max_runs: int = 2000) -> float:
    """Median seconds per call, over at least ``min_runs`` calls and about ``budget`` seconds."""
    times: list[float] = []
    deadline = time.perf_counter() + budget
    while len(times) < min_runs or (time.perf_counter() < deadline and len(times) < max_runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.3f} ms" if seconds < 0.01 else f"{seconds * 1000:,.1f} ms"


def service_at(home: Path, database_url: str | None = None, synchronous: str = "full") -> GameService:
    return GameService(Settings(home=home, database_url=database_url, sqlite_synchronous=synchronous))


# -- past state ------------------------------------------------------------------------------
def _fold_to(game, version: int):
    state = None
    for index in range(version):
        if game.entry(index)["kind"] in FACT_KINDS:
            for fact in game.private(index)["facts"]:
                state = game.spec.evolve(state, fact)
    return state


def _replayed(store: EventsOnlyStore, game_id: str):
    """The game as a replay of every stored event (no snapshot, nothing kept)."""
    record = store.repository.get(game_uuid(game_id))
    store.forget(game_id)
    return load(record, lambda _game: store.game_log(record))


def _cold_state(home: Path, game_id: str, version: int) -> tuple[float, float]:
    """Seconds to the state at ``version`` in a service that has seen nothing yet: the record
    from its snapshot and the events since, the check of its newest checkpoint, the nearest
    kept state and the entries after it. Wall time and this thread's CPU time."""
    svc = service_at(home)
    started, cpu = time.perf_counter(), time.thread_time()
    svc.state(svc.game(game_id), version)
    elapsed, cpu = time.perf_counter() - started, time.thread_time() - cpu
    svc.close()
    return elapsed, cpu


def first_request(home: str, game_id: str, version: int) -> None:
    """In a new process (``_cold_process``): the first request's wall and CPU seconds, printed."""
    register_games()
    wall, cpu = _cold_state(Path(home), game_id, version)
    print(wall, cpu)


def _cold_process(home: Path, game_id: str, version: int) -> tuple[float, float]:
    """``_cold_state`` in a new Python process (started, imports done, then timed)."""
    code = f"from benchmarks.measure import first_request; first_request({str(home)!r}, {game_id!r}, {version})"
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    wall, cpu = done.stdout.split()
    return float(wall), float(cpu)


def past_state(work: Path, quick: bool) -> list[Row]:
    register_games()
    rows = []
    for size in (10, 100, 1_000, 10_000):
        svc = service_at(work / f"n{size}")
        built = build(svc, size, seed=1)
        replay_store = EventsOnlyStore(svc.settings.store_env())
        chooser = random.Random(size)
        versions = [chooser.randint(max(4, size // 2), size) for _ in range(25)]
        game = svc.game(built.game_id)
        svc.state(game)  # a running server has folded the latest state once: the cache is warm

        def via_service() -> None:
            svc.state(svc.game(built.game_id), chooser.choice(versions))

        def via_replay() -> None:
            _fold_to(_replayed(replay_store, built.game_id), chooser.choice(versions))

        def cached_only() -> None:
            svc.state(game, chooser.choice(versions))

        def fold_only() -> None:
            _fold_to(game, chooser.choice(versions))

        budget = 0.2 if quick else 0.6
        runs = 2 if quick and size >= 10_000 else 3
        service_time = per_call(via_service, budget, min_runs=runs)
        replay_time = per_call(via_replay, budget, min_runs=runs, max_runs=50)
        rows.append(
            Row(
                "past state",
                "load + state at a past turn: service vs replay all events",
                f"{size:,} events",
                ms(service_time),
                ms(replay_time),
                replay_time / service_time,
                "replay / service; >1: service faster",
            )
        )
        cached, folded = per_call(cached_only, budget), per_call(fold_only, budget, max_runs=200)
        rows.append(
            Row(
                "past state",
                "state only, game loaded: state cache vs fold from the start",
                f"{size:,} events",
                ms(cached),
                ms(folded),
                folded / cached,
                "fold / cache; >1: cache faster",
            )
        )
        runs = 5 if quick else 9
        for where, many, measured in (("service", "services", _cold_state), ("process", "processes", _cold_process)):
            colds = [measured(work / f"n{size}", built.game_id, chooser.choice(versions)) for _ in range(runs)]
            cold, cpu = statistics.median(w for w, _ in colds), statistics.median(c for _, c in colds)
            rows.append(
                Row(
                    "past state",
                    f"cold: first state at a past turn in a new {where} vs replay all events",
                    f"{size:,} events",
                    f"{ms(cold)} (CPU {ms(cpu)})",
                    ms(replay_time),
                    replay_time / cold,
                    f"replay / cold (median of {runs} new {many}); >1: service faster",
                )
            )
        replay_store.close()
        svc.close()
    return rows


# -- storage ---------------------------------------------------------------------------------
def _stored_bytes(svc: GameService, game_id: str) -> tuple[int, int]:
    """Bytes of the game's stored events and of its snapshots and kept states, as the recorders
    hold them."""
    events = sum(len(stored.state) for stored in svc.store.events.recorder.select_events(game_uuid(game_id)))
    snapshots = svc.store.snapshots.recorder if svc.store.snapshots else None
    kept = (
        sum(
            len(stored.state)
            for originator in (game_uuid(game_id), states_uuid(game_id))
            for stored in snapshots.select_events(originator)
        )
        if snapshots
        else 0
    )
    return events, kept


def storage(work: Path, quick: bool) -> list[Row]:
    """Bytes stored per log entry (events, snapshots and kept states, every ``PBEM_SNAPSHOT_INTERVAL`` as the
    service takes them) at 100 to 10,000 events, against the events alone."""
    register_games()
    rows = []
    for size in (100, 1_000) if quick else (100, 1_000, 10_000):
        svc = service_at(work / f"n{size}")
        built = build(svc, size, seed=3)
        interval = svc.settings.snapshot_interval
        for version in range(interval, built.events // interval * interval, interval):  # build took the last
            svc.store.take_snapshot(game_uuid(built.game_id), version=version)
        events, snapshots = _stored_bytes(svc, built.game_id)
        rows.append(
            Row(
                "storage",
                "bytes stored per entry: events + snapshots + kept states vs the events alone",
                f"{size:,} events",
                f"{(events + snapshots) / built.entries:,.0f} B",
                f"{events / built.entries:,.0f} B",
                (events + snapshots) / events,
                "all / events; flat across sizes: snapshots and states do not grow with the game",
            )
        )
        svc.close()
    return rows


# -- verify ----------------------------------------------------------------------------------
def bare_checks(document: dict[str, Any]) -> None:
    """What verification cannot avoid: hash every entry, one tree head, check every signature,
    and recompute every published commitment."""
    leaves = [leaf_hash(canonical_bytes(entry)) for entry in document["entries"]]
    keys = [VerifierKey.parse(text) for text in document["keys"]]
    root(leaves)
    for item in document["checkpoints"]:
        verify_checkpoint(item["note"], keys)
    for _entry, opening in zip(document["entries"], document.get("openings") or [], strict=False):
        for fact, salt in zip(opening.get("facts") or [], opening.get("salts") or [], strict=False):
            if salt is not None:
                commit(salt, fact)
        if opening.get("draws"):
            commit(opening["draws_salt"], opening["draws"])
        if "command_salt" in opening:
            commit(opening["command_salt"], opening["command"])
    if document["entries"][-1]["kind"] == "ended":
        seed_commitment(bytes.fromhex(document["entries"][-1]["seed"]))


def bare_replay(document: dict[str, Any]) -> None:
    """The game engine's own share of a replay: parse, decide with the derived draws, and fold
    every fact (``decide_and_fold``: a game that folds while it decides is not asked to fold
    again, as in ``verify``), with nothing compared."""
    from pbem.ledger.fairness import DrawRng, draw_scope

    entries, openings = document["entries"], document["openings"]
    created = entries[0]
    spec = catalog()[created["game_type"]]
    seed, nonces, state = bytes.fromhex(entries[-1]["seed"]), [], None
    for index, (entry, opening) in enumerate(zip(entries, openings, strict=False)):
        if entry["kind"] == "joined" and entry.get("nonce"):
            nonces.append([entry["seat"], entry["nonce"]])
        if entry["kind"] not in ("started", "moved"):
            continue
        rng = DrawRng(seed, draw_scope(created), [list(n) for n in nonces], index)
        if entry["kind"] == "started":
            for fact in spec.setup(len(created["seats"]), created["options"], rng):
                state = spec.evolve(state, fact)
        else:
            move = spec.parse_move(state, entry["seat"], opening.get("command", entry["command"]))
            _facts, state = spec.decide_and_fold(state, entry["seat"], move, rng)


def verify(work: Path, quick: bool) -> list[Row]:
    from tests.ops.helpers import finished_game

    register_games()
    svc = service_at(work)
    exports = []
    for name, spec in catalog().items():
        if name != "long-pig":
            exports.append((name, svc.export(finished_game(svc, name, max(2, spec.min_players), seed=2))))
    for size in (300,) if quick else (300, 1_000, 2_000):
        built = build(svc, size, seed=5, finish=True)
        exports.append(("long-pig", svc.export(built.game_id)))
    rows = []
    budget = 0.3 if quick else 1.0
    for name, document in exports:
        data = export_bytes(document)
        # Interleaved in one loop so that a noisy neighbour on a shared machine slows all four alike.
        timings = interleaved(
            {
                "verify": lambda: verify_bytes(data),
                "verify, no replay": lambda: verify_bytes(data, replay=False),
                "bare": lambda: bare_checks(document),
                "engine": lambda: bare_replay(document),
            },
            budget,
        )
        size = f"{len(document['entries']):,} entries, {len(document['checkpoints']):,} signatures"
        full, quick_check, bare, engine = (timings[k] for k in ("verify", "verify, no replay", "bare", "engine"))
        rows.append(
            Row(
                "verify",
                f"pbem verify {name} vs its bare hashes + signatures",
                size,
                ms(full),
                ms(bare),
                full / bare,
                "verify / bare: cost of the extra checks (incl. the rules replay)",
            )
        )
        rows.append(
            Row(
                "verify",
                "  same, without the rules replay (replay=False)",
                size,
                ms(quick_check),
                ms(bare),
                quick_check / bare,
                "verify without replay / bare hashes + signatures",
            )
        )
        rows.append(
            Row(
                "verify",
                "  same, against bare hashes + signatures + the engine's own replay",
                size,
                ms(full),
                ms(bare + engine),
                full / (bare + engine),
                "verify / (bare + engine replay)",
            )
        )
    svc.close()
    return rows


def interleaved(calls: dict[str, Callable[[], Any]], budget: float, min_rounds: int = 5) -> dict[str, float]:
    """Median seconds per call of each, the calls taking turns round after round."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    started = time.perf_counter()
    while len(times[next(iter(calls))]) < min_rounds or time.perf_counter() - started < budget * len(calls):
        for name, fn in calls.items():
            begin = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - begin)
        if len(times[next(iter(calls))]) >= 200:
            break
    return {name: statistics.median(values) for name, values in times.items()}


# -- games -----------------------------------------------------------------------------------
def games(work: Path, quick: bool) -> list[Row]:
    from tests.ops.helpers import finished_game

    register_games()
    rows = []
    for name, spec in catalog().items():
        if name == "long-pig":
            continue
        players = max(2, spec.min_players)
        seeds = iter(range(10_000))
        bare = per_call(lambda: play_random(spec, players, next(seeds)), 0.5 if quick else 2.0, min_runs=2)
        svc = service_at(work / name)
        service_seeds = iter(range(10_000))
        through = per_call(
            lambda: finished_game(svc, name, players, seed=next(service_seeds) % 256),
            0.1 if quick else 3.0,
            min_runs=1 if quick else 2,
            max_runs=20,
        )
        svc.close()
        rows.append(
            Row(
                "games",
                f"{name}: random full games/s, bare engine vs through the service",
                f"{players} players",
                f"{1 / through:,.2f}/s",
                f"{1 / bare:,.1f}/s",
                through / bare,
                "bare games/s / service games/s",
            )
        )
    return rows


# -- mail ------------------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _hold_mails(svc: GameService, game_id: str, count: int) -> list[tuple[str, str, bytes]]:
    """``hold`` from the seat to move, alternating: the same bytes can go to any server."""
    from pbem.mailroom.addresses import seat_address

    game = svc.game(game_id)
    first = game.spec.to_move(svc.state(game))[0]
    mails = []
    for number in range(count):
        seat = (first + number) % 2
        msg = EmailMessage()
        msg["From"] = PLAYERS[seat]
        msg["To"] = seat_address(SERVICE, game_id, svc.seat_token(game_id, seat))
        msg["Subject"] = f"turn {number}"
        msg["Message-ID"] = f"<bench-{number}@client.example>"
        msg.set_content("hold\n")
        mails.append((PLAYERS[seat], msg["To"], bytes(msg)))
    return mails


def _stream(port: int, mails: list[tuple[str, str, bytes]]) -> float:
    start = time.perf_counter()
    with smtplib.SMTP("127.0.0.1", port, timeout=60) as client:
        for sender, to, raw in mails:
            client.sendmail(sender, [to], raw)
    return time.perf_counter() - start


def _streams_taking_turns(ports: Sequence[int], mails: list[tuple[str, str, bytes]], chunk: int = 25) -> list[float]:
    """Seconds to send ``mails`` to each server, one connection to each, the servers taking
    turns every ``chunk`` mails: all streams see the same share of whatever else the machine is
    doing (one stream after the other, a change in load lands on one side only)."""
    spent = [0.0] * len(ports)
    with contextlib.ExitStack() as stack:
        clients = [stack.enter_context(smtplib.SMTP("127.0.0.1", port, timeout=60)) for port in ports]
        for at in range(0, len(mails), chunk):
            for side, client in enumerate(clients):
                start = time.perf_counter()
                for sender, to, raw in mails[at : at + chunk]:
                    client.sendmail(sender, [to], raw)
                spent[side] += time.perf_counter() - start
    return spent


class BareHandler:
    async def handle_DATA(self, server, session, envelope) -> str:
        return "250 2.0.0 OK"


class StoringHandler:
    """A bare handler that stores each mail durably before its 250 (one INSERT, one commit):
    the floor of any gateway that accepts only what it has stored."""

    def __init__(self, work: Path, database_url: str | None, synchronous: str, table: str = "floor_mails") -> None:
        if database_url:
            import psycopg

            self.db: Any = psycopg.connect(database_url, autocommit=True)  # one statement, one commit
            self.db.execute(f"CREATE TABLE {table} (id BIGSERIAL PRIMARY KEY, raw BYTEA NOT NULL)")
            self.insert = f"INSERT INTO {table} (raw) VALUES (%s)"
        else:
            import sqlite3

            work.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(work / f"{table}.sqlite", isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute(f"PRAGMA synchronous={'NORMAL' if synchronous == 'normal' else 'FULL'}")
            self.db.execute(f"CREATE TABLE {table} (id INTEGER PRIMARY KEY, raw BLOB NOT NULL)")
            self.insert = f"INSERT INTO {table} (raw) VALUES (?)"

    async def handle_DATA(self, server, session, envelope) -> str:
        self.db.execute(self.insert, (envelope.original_content,))
        return "250 2.0.0 OK"


class MinimalGateway(StoringHandler):
    """The least a gateway with pbem's guarantees does before its 250, and nothing more: served
    as pbem's gateway is (``mailgateway.server``: a thread per conversation, so that no mail can
    stop the other SMTP conversations, docs/security.md), the mail is read by the email package,
    one checkpoint is signed with Ed25519, and the mail and its signature are stored with one
    durable commit. No authentication, no rules, no entry, no reply intent: what is left between
    this and pbem is all that pbem does for a move."""

    def __init__(self, work: Path, database_url: str | None, synchronous: str, signer: Any) -> None:
        super().__init__(work, database_url, synchronous, table="minimal_mails")
        self.signer = signer
        self.signed = 0

    async def handle_DATA(self, server, session, envelope) -> str:
        from email import message_from_bytes

        from pbem.ledger.notes import Checkpoint, sign_checkpoint

        raw = envelope.original_content
        message = message_from_bytes(raw, policy=email_policy.compat32)
        body = message.get_payload(decode=True) or b""
        self.signed += 1
        note = sign_checkpoint(Checkpoint("minimal", self.signed, bytes(32)), self.signer)
        self.db.execute(self.insert, (raw + body + note.encode(),))
        return "250 2.0.0 OK"


def _gateway_rate(work: Path, database_url: str | None, count: int, synchronous: str = "full") -> dict[str, float]:
    """Mails per second, by stream, the streams taking turns on one connection each:
    ``pbem`` (SMTP, parsed, decided, stored and signed with the reply intent, 250), ``bare`` (a
    bare aiosmtpd handler), ``floor`` (a handler that only stores each mail with one durable
    commit on the same database: the floor of any gateway that stores before its 250) and
    ``minimal`` (the floor served as pbem is, with the mail read and one checkpoint signed:
    ``MinimalGateway``); and ``followed``, mails per second through the follower afterwards
    (replies and notices queued)."""
    from aiosmtpd.controller import Controller

    from mailgateway.gateway import Gateway
    from mailgateway.server import ThreadedServer
    from mailgateway.smtp import controller
    from pbem.mailroom.settings import MailSettings

    class Keep:
        def send(self, key, to, message):
            pass

    svc = service_at(work, database_url, synchronous)
    game_id = svc.create("long-pig", PLAYERS, {"rounds": "1000000"}, seed=b"\x0c" * 32)
    for player in PLAYERS:
        svc.join(game_id, player)
    version = svc.game(game_id).version
    gw = Gateway(svc, MailSettings(address=SERVICE, maildir=work / "maildir", replies_per_hour=10**9), transport=Keep())
    gw.mailroom.follow()
    mails = _hold_mails(svc, game_id, count)
    storing = StoringHandler(work / "floor", database_url, synchronous)
    minimal = MinimalGateway(work / "floor", database_url, synchronous, svc.keys.signer())
    names = ("pbem", "bare", "floor", "minimal")
    ports = [_free_port() for _ in names]
    servers = [
        controller(gw, "127.0.0.1", ports[0]),
        Controller(BareHandler(), hostname="127.0.0.1", port=ports[1]),
        Controller(storing, hostname="127.0.0.1", port=ports[2]),
        ThreadedServer(minimal, "127.0.0.1", ports[3]),
    ]
    for server in servers:
        server.start()
    try:
        spent = _streams_taking_turns(ports, mails)
        start = time.perf_counter()
        followed = gw.mailroom.follow()
        following = time.perf_counter() - start
    finally:
        for server in servers:
            server.stop()
        servers[0].handler.close()
        storing.db.close()
        minimal.db.close()
    moved = svc.game(game_id).version - version
    svc.close()
    if moved != count or followed < count:
        raise RuntimeError(f"mail benchmark: {moved} moves and {followed} notifications for {count} mails")
    return {name: count / seconds for name, seconds in zip(names, spent, strict=True)} | {"followed": count / following}


class Floor(Aggregate):
    """The floor of a move: an aggregate whose every event adds an entry and its signed note."""

    @event("Made")
    def __init__(self, entry: dict) -> None:
        self.entries = [entry]

    @event("Added")
    def add(self, entry: dict, note: str) -> None:
        self.entries.append(entry)


def _move_and_floor(work: Path, count: int, chunk: int = 20) -> tuple[float, float]:
    """Seconds per move through the service, and its floor in the same run: one SQLite append
    and commit of an event of the same size plus one Ed25519 signature. The two take turns
    every ``chunk`` saves, so a change in the machine's (or the disk's) load lands on both."""
    from pbem.ledger.notes import Checkpoint, sign_checkpoint

    svc = service_at(work)
    game_id = svc.create("long-pig", PLAYERS, {"rounds": "1000000"}, seed=b"\x0d" * 32)
    for player in PLAYERS:
        svc.join(game_id, player)
    game = svc.game(game_id)
    seat = game.spec.to_move(svc.state(game))[0]
    moved = iter(range(count + 1))

    def move() -> None:
        number = next(moved)
        svc.submit(game_id, PLAYERS[(seat + number) % 2], ["hold"], source="email", idempotency_key=f"m{number}")

    move()  # the first move stores the entry the floor writes again and again
    entry = svc.game(game_id).entries[-1]

    floor = Floor(entry)
    svc.store.save(floor)
    signer = svc.keys.signer()
    floored = iter(range(1, count + 1))

    def floor_save() -> None:
        note = sign_checkpoint(Checkpoint("floor", next(floored), bytes(32)), signer)
        floor.add(entry, note)
        svc.store.save(floor)

    spent = [0.0, 0.0]
    for at in range(0, count, chunk):
        for side, step in enumerate((move, floor_save)):
            begin = time.perf_counter()
            for _ in range(min(chunk, count - at)):
                step()
            spent[side] += time.perf_counter() - begin
    svc.close()
    return spent[0] / count, spent[1] / count


def _idle_round(work: Path, games: int) -> float:
    """Seconds of one idle worker round (follow, fire timers, send) over a store of finished games."""
    import logging

    logging.getLogger("pbem.mail").setLevel(logging.ERROR)  # building the store says nothing worth reading
    from mailgateway.gateway import Gateway
    from pbem.mailroom.settings import MailSettings

    class Keep:
        def send(self, key, to, message):
            pass

    svc = service_at(work)
    for number in range(games):
        game_id = svc.create("hidden-pig", PLAYERS, {}, seed=bytes([number % 256]) * 32)
        for player in PLAYERS:
            svc.join(game_id, player)
        svc.resign(game_id, PLAYERS[0])  # the robot plays it to the end
    gw = Gateway(svc, MailSettings(address=SERVICE, maildir=work / "maildir", replies_per_hour=10**9), transport=Keep())
    gw.work()
    gw.work()
    seconds = per_call(gw.work, budget=0.5, min_runs=20)
    svc.close()
    return seconds


def _hostile_mails() -> dict[str, tuple[str, bytes]]:
    """The slowest mails to read that we found (docs/security.md, "Bounded reading time"), by
    name: (extra headers, body). Each is refused or answered short after reading a bounded
    part of it."""
    nested = "".join(f"--b{n}\r\nContent-Type: multipart/mixed; boundary=b{n + 1}\r\n\r\n" for n in range(4000))
    return {
        "MIME nested 4,000 deep": (
            "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b0\r\n",
            nested.encode(),
        ),
        "25,000 empty MIME parts": (
            "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n",
            b"--b\r\n\r\nx\r\n" * 25_000,
        ),
        "370 KB of headers": ("".join(f"X-Note-{n}: {'x' * 60}\r\n" for n in range(5_000)), b"help\r\n"),
        "380 KB of 3-byte lines (just under the SMTP cap)": ("", b"x\r\n" * 127_000),
    }


def _big_mail_delay(work: Path, big: tuple[str, bytes] | None = None) -> tuple[float, float]:
    """Seconds from sending a small mail to its 250, alone and right after a big mail sent on
    another connection (issue: one big mail never delays others by > 1 s): by default 256 KiB
    of junk lines, else ``big`` (extra headers, body)."""
    import threading

    from mailgateway.gateway import Gateway
    from mailgateway.smtp import controller
    from pbem.mailroom.settings import MailSettings

    svc = service_at(work)
    gw = Gateway(svc, MailSettings(address=SERVICE, maildir=work / "maildir"))
    port = _free_port()
    server = controller(gw, "127.0.0.1", port)
    server.start()

    def mail(body: str, number: int) -> tuple[str, str, bytes]:
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = PLAYERS[0], SERVICE, "x"
        msg["Message-ID"] = f"<big-{number}@client.example>"
        msg.set_content(body)
        return PLAYERS[0], SERVICE, msg.as_bytes(policy=email_policy.SMTP)

    first = mail("xyzzy plugh frob\n" * 15_000, 1)
    if big is not None:
        head = (
            f"From: {PLAYERS[0]}\r\nTo: {SERVICE}\r\nSubject: x\r\nMessage-ID: <big-1@client.example>\r\n{big[0]}\r\n"
        )
        first = (PLAYERS[0], SERVICE, head.encode() + big[1])
    try:
        alone = _stream(port, [mail("help", 0)])
        big_one = threading.Thread(target=_stream, args=(port, [first]))
        big_one.start()
        time.sleep(0.01)  # the big one is being received or processed
        behind = _stream(port, [mail("help", 2)])
        big_one.join()
    finally:
        server.stop()
        server.handler.close()
        svc.close()
    return alone, behind


def mail(work: Path, quick: bool) -> list[Row]:
    register_games()
    count = 60 if quick else 1_200
    rows = []
    targets: list[tuple[str, str | None, str]] = [
        ("SQLite", None, "full"),
        ("SQLite, PBEM_SQLITE_SYNCHRONOUS=normal", None, "normal"),
    ]
    database = _postgres_database()
    if database:
        targets.append(("PostgreSQL", database[0], "full"))
    try:
        for label, url, synchronous in targets:
            rate = _gateway_rate(work / label.split(",")[0] / synchronous, url, count, synchronous)
            pbem, bare = rate["pbem"], rate["bare"]
            rows.append(
                Row(
                    "mail",
                    f"mail in -> decided, stored, signed, reply intent queued, 250 ({label}) vs bare aiosmtpd",
                    f"{count} move mails, 1 connection each, turns of 25",
                    f"{pbem:,.0f} mails/s",
                    f"{bare:,.0f} mails/s",
                    bare / pbem,
                    f"bare mails/s / pbem mails/s; pbem at {pbem / bare:.0%} of bare",
                )
            )
            for name, what in (
                ("floor", "a handler that only stores each mail with one commit before its 250"),
                ("minimal", "a minimal gateway: the floor served as pbem is, the mail read, one checkpoint signed"),
            ):
                rows.append(
                    Row(
                        "mail",
                        f"  {what} ({label}) vs bare aiosmtpd",
                        "the same mails, in the same turns",
                        f"{rate[name]:,.0f} mails/s",
                        f"{bare:,.0f} mails/s",
                        bare / rate[name],
                        f"bare / {name}; {name} at {rate[name] / bare:.0%} of bare, pbem at "
                        f"{pbem / rate[name]:.0%} of it",
                    )
                )
            rows.append(
                Row(
                    "mail",
                    f"follower: replies and notices queued ({label}) vs mails in",
                    f"{count} move mails",
                    f"{rate['followed']:,.0f} mails/s",
                    f"{pbem:,.0f} mails/s",
                    pbem / rate["followed"],
                    "in mails/s / followed mails/s",
                )
            )
    finally:
        if database:
            database[1]()
    if not database:
        rows.append(Row("mail", "PostgreSQL: not reachable on 127.0.0.1:5432, not measured", "-", "-", "-", 0.0, "-"))
    per_move, per_floor = _move_and_floor(work / "floor", 50 if quick else 1_000)
    rows.append(
        Row(
            "mail",
            "a move through the service vs its floor (SQLite append+commit + Ed25519 signature)",
            "long-pig, SQLite",
            ms(per_move),
            ms(per_floor),
            per_move / per_floor,
            "move / floor",
        )
    )
    alone, behind = _big_mail_delay(work / "big")
    rows.append(
        Row(
            "mail",
            "a small mail's 250 right after a 256 KiB junk mail vs alone",
            "SQLite",
            ms(behind),
            ms(alone),
            behind / alone,
            "behind / alone (bar: behind < 1 s)",
        )
    )
    for name, big in _hostile_mails().items():
        alone, behind = _big_mail_delay(work / "big" / str(len(rows)), big)
        rows.append(
            Row(
                "mail",
                f"a small mail's 250 right after a mail of {name} vs alone",
                "SQLite",
                ms(behind),
                ms(alone),
                behind / alone,
                "behind / alone (bar: behind < 1 s)",
            )
        )
    small, large = (10, 40) if quick else (100, 1000)
    idle_small, idle_large = _idle_round(work / "idle-small", small), _idle_round(work / "idle-large", large)
    rows.append(
        Row(
            "mail",
            f"idle worker round, {large} vs {small} finished games",
            "SQLite",
            ms(idle_large),
            ms(idle_small),
            idle_large / idle_small,
            f"{large} games / {small} games",
        )
    )
    return rows


def _postgres_database() -> tuple[str, Callable[[], None]] | None:
    try:
        import psycopg

        admin = psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True, connect_timeout=3)
    except Exception:  # any failure: PostgreSQL is not available here
        return None
    name = f"pbem_bench_{random.randrange(16**8):08x}"
    admin.execute(f'CREATE DATABASE "{name}"')

    def drop() -> None:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()

    return f"postgresql://postgres@127.0.0.1:5432/{name}", drop


# -- web -------------------------------------------------------------------------------------
# Each site runs as the deployment runs it (deploy/systemd/pbem-web.service): gunicorn, 2 worker
# processes of 4 threads, in processes of their own, so the clients' threads below never take the
# servers' interpreter lock. The module is written into the work folder for gunicorn to import.
SITES = """\
from flask import Flask

from benchmarks.longgame import register_games

register_games()  # the benchmark's own games (Long Pig) are known to the workers too


def pbem_site() -> Flask:
    from pbem.web import site

    return site()  # as deployed: with its followers (the list, the ratings, the warmer)


def pbem_site_unwarmed() -> Flask:
    from pbem.web import create_app

    return create_app()  # the control: no follower warms the pages after a move


def bare_site() -> Flask:
    bare = Flask("bare")
    bare.add_url_rule("/", "bare", lambda: "ok")
    return bare
"""


def _gunicorn(work: Path, factory: str) -> tuple[subprocess.Popen[bytes], int]:
    port = _free_port()
    (work / "bench_sites.py").write_text(SITES)
    env = {
        **os.environ,
        "PBEM_HOME": str(work),
        "PYTHONPATH": os.pathsep.join([str(work), str(ROOT)]),
        # published where it is served, as deployed: the links in mails name the host visitors ask
        "PBEM_BASE_URL": f"http://127.0.0.1:{port}",
    }
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "--workers",
            "2",
            "--threads",
            "4",
            "--bind",
            f"127.0.0.1:{port}",
            "--log-level",
            "warning",
            f"bench_sites:{factory}()",
        ],
        env=env,
        cwd=work,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return server, port
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise RuntimeError(f"gunicorn for {factory} did not listen on port {port}")


def _load(port: int, paths: list[str], clients: int, per_client: int, every: bool = False) -> list[float]:
    """Latencies of ``clients`` concurrent clients, each asking ``per_client`` of ``paths`` (at
    random; with ``every``, each path once) in turn on one kept-alive connection, as a browser
    or nginx would."""
    latencies: list[float] = []
    lock = threading.Lock()

    def client(number: int) -> None:
        chooser = random.Random(number)
        mine = []
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            asked = paths if every else [chooser.choice(paths) for _ in range(per_client)]
            for path in asked:
                start = time.perf_counter()
                connection.request("GET", path)
                response = connection.getresponse()
                response.read()
                mine.append(time.perf_counter() - start)
                if response.status != 200:
                    raise RuntimeError(f"{path} answered {response.status}")
        finally:
            connection.close()
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    expected = clients * (len(paths) if every else per_client)
    if len(latencies) != expected:
        raise RuntimeError(f"a client failed: {len(latencies)} of {expected} answers")
    return latencies


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def created_games(svc: GameService, count: int, chunk: int = 500, first: str | None = None, prefix: str = "") -> None:
    """``count`` games just created (no player joined yet), of every offered type in turn, with
    their first signed checkpoint, saved ``chunk`` to a transaction: a big store, fast. ``first``:
    the address of every game's first seat; ``prefix``: before each game's number."""
    from pbem.ledger import entries as log
    from pbem.ledger.notes import Checkpoint, sign_checkpoint
    from pbem.service.service import seat_names
    from pbem.service.store import GameRecord

    specs = [spec for name, spec in sorted(catalog().items()) if name not in ("hidden-pig", "long-pig")]
    signer = svc.keys.signer()
    seed = bytes(32)
    records = []
    for number in range(count):
        spec = specs[number % len(specs)]
        emails = [f"p{seat}.{prefix}{number}@bench.example" for seat in range(spec.min_players)]
        emails[0] = first or emails[0]
        game_id = f"{spec.name}-{prefix}bench{number:06d}"
        day, hour, minute, second = 1 + number // 86400 % 28, number // 3600 % 24, number // 60 % 60, number % 60
        moment = f"2026-01-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}+00:00"
        entry, private = log.created(
            game_id,
            moment,
            spec.name,
            spec.rules_version,
            spec.normalize_options({}, len(emails)),
            seat_names(emails),
            emails,
            seed,
            "test",
            seed_commitment(seed),
        )
        note = sign_checkpoint(Checkpoint(svc.origin(game_id), 1, leaf_hash(canonical_bytes(entry))), signer)
        records.append(GameRecord(game_id, [entry], [private], note))
        if len(records) == chunk:
            svc.store.save(*records)
            records = []
    if records:
        svc.store.save(*records)


def _one_move(svc: GameService, game_id: str) -> int:
    """One move of the running long game (hold, or roll when holding is not legal); its version."""
    game = svc.game(game_id)
    email = game.emails[game.spec.to_move(svc.state(game))[0]]
    if not svc.submit(game_id, email, "hold").ok and not svc.submit(game_id, email, "roll").ok:
        raise RuntimeError(f"no move of {game_id} was legal")
    return svc.game(game_id).version


def _get(port: int, path: str) -> float:
    """One request on a new connection, as a player following a link in a mail."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        start = time.perf_counter()
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        took = time.perf_counter() - start
        if response.status != 200:
            raise RuntimeError(f"{path} answered {response.status}")
        return took
    finally:
        connection.close()


AFTER_A_MOVE = {  # the pages a move's visitors ask for, by kind (the first is the one its mail links)
    "turn N page (the move's: the mail's link)": "/games/{game}/turn/{version}",
    "game page": "/games/{game}",
    "history page (newest)": "/games/{game}/history",
    "history entry (the move's)": "/games/{game}/history/{version}",
    "export.json": "/games/{game}/export.json",
    "games list /": "/",
}


def _after_moves(work: Path, port: int, game_id: str, moves: int, settle: float, warmed: bool = True) -> list[Row]:
    """First request of each page kind after each of ``moves`` moves (made ``settle`` seconds
    before, as a turn mail reaches its player), against the same page asked again at once (kept)."""
    for _ in range(4):  # the followers' first catch-up (the ratings verify the finished game) done first
        _get(port, "/players")
    svc = service_at(work)
    first: dict[str, list[float]] = {kind: [] for kind in AFTER_A_MOVE}
    kept: dict[str, list[float]] = {kind: [] for kind in AFTER_A_MOVE}
    try:
        for _ in range(moves):
            version = _one_move(svc, game_id)
            time.sleep(settle)
            for kind, path in AFTER_A_MOVE.items():
                first[kind].append(_get(port, path.format(game=game_id, version=version)))
            for kind, path in AFTER_A_MOVE.items():
                for _ in range(2):  # both workers: gunicorn hands new connections to either
                    kept[kind].append(_get(port, path.format(game=game_id, version=version)))
    finally:
        svc.close()
    rows = []
    for kind in AFTER_A_MOVE:
        f95, k95 = _percentile(first[kind], 0.95), _percentile(kept[kind], 0.95)
        rows.append(
            Row(
                "web",
                f"first request after a move{'' if warmed else ' (control: no warmer)'}, {kind}: p50 / p95 vs "
                "the kept page p95 (one client)",
                f"{moves} moves, asked {settle:.1f} s after each",
                f"{ms(_percentile(first[kind], 0.5))} / {ms(f95)}",
                f"{ms(_percentile(kept[kind], 0.5))} / {ms(k95)}",
                f95 / k95,
                "first p95 / kept p95 (bar: at most 2x)",
            )
        )
    return rows


def web(work: Path, quick: bool) -> list[Row]:
    """Page latency under 8 concurrent clients on loopback, next to a bare Flask route served the
    same way (gunicorn as deployed, see ``_gunicorn``) and measured in alternating rounds (so
    both see the same machine load): a finished long game (any turn, any history page, any
    entry) and the games list of a store of 10,000 games (any page)."""
    from pbem.web import create_app
    from pbem.web.history import PAGE_SIZE

    register_games()
    svc = service_at(work)
    built = build(svc, 300 if quick else 1_000, seed=9, finish=True)
    running = build(svc, 300 if quick else 1_000, seed=11).game_id  # moved during the run
    many = 1_000 if quick else 10_000
    started = time.perf_counter()
    created_games(svc, many)
    made = time.perf_counter() - started
    app = create_app(svc)  # only to project the summary view once; the servers read it
    started = time.perf_counter()
    app.extensions["pbem.summaries"].catch_up_all()
    followed = time.perf_counter() - started
    game = built.game_id
    chooser = random.Random(3)
    version = built.entries
    list_pages = -(-(many + 1) // 50)
    pages = {
        "game page": [f"/games/{game}"],
        "turn N page (any N)": [f"/games/{game}/turn/{chooser.randint(1, version)}" for _ in range(200)],
        "history page (any page)": [f"/games/{game}/history?page={p}" for p in range(1, -(-version // PAGE_SIZE) + 1)],
        "history entry (any N)": [f"/games/{game}/history/{chooser.randint(1, version)}" for _ in range(200)],
        f"games list / ({many:,} games, any page, filters)": [
            f"/?page={chooser.randint(1, list_pages)}" for _ in range(40)
        ]
        + ["/", "/?status=running", "/?game=kingsburg", "/?game=kingsburg&status=running&page=2"],
        "export.json (built once per version)": [f"/games/{game}/export.json"],
        "/health": ["/health"],
    }
    svc.close()
    moves = 6 if quick else 30
    control, control_port = _gunicorn(work, "pbem_site_unwarmed")  # alone, before the others start
    try:
        after_rows = _after_moves(work, control_port, running, moves, 1.0, warmed=False)
    finally:
        control.terminate()
        control.wait(timeout=30)
    server, port = _gunicorn(work, "pbem_site")
    bare_server, bare_port = _gunicorn(work, "bare_site")
    clients, per_client, rounds = (4, 6, 1) if quick else (8, 25, 3)
    rows = [
        Row(
            "web",
            "store for the list: games created, then projected into the summary view",
            f"{many:,} games",
            f"{ms(followed)} to project",
            f"{ms(made)} to create",
            followed / made,
            "projection time / creation time",
        )
    ]
    try:
        rows += _after_moves(work, port, running, moves, 1.0) + after_rows
        for label, paths in pages.items():
            # Each page's first request renders it (the site keeps it per game version): those
            # are timed apart, one client, before the load asks for the kept pages. Each of the
            # two workers keeps its own pages, so a round of every path warms the other one.
            first = [_load(port, [path], 1, 1)[0] for path in dict.fromkeys(paths)]
            distinct = list(dict.fromkeys(paths))
            for _ in range(3):  # every client asks every path, on new connections each round,
                for offset in range(0, len(distinct), 25):  # which gunicorn spreads over its workers
                    _load(port, distinct[offset : offset + 25], clients, 25, every=True)
            base: list[float] = []
            latencies: list[float] = []
            for _ in range(rounds):  # alternated, so a burst of load elsewhere hits both sides alike
                base += _load(bare_port, ["/"], clients, per_client)
                latencies += _load(port, paths, clients, per_client)
            alone, bare_alone = _load(port, paths, 1, 3 * per_client), _load(bare_port, ["/"], 1, 3 * per_client)
            p50, p95 = _percentile(latencies, 0.5), _percentile(latencies, 0.95)
            b50, b95 = _percentile(base, 0.5), _percentile(base, 0.95)
            rows.append(
                Row(
                    "web",
                    f"{label}: p50 / p95 (one client: p50; first request p95) vs bare Flask route",
                    f"{version:,} entries, {clients} clients",
                    f"{ms(p50)} / {ms(p95)} ({ms(_percentile(alone, 0.5))}; {ms(_percentile(first, 0.95))})",
                    f"{ms(b50)} / {ms(b95)} ({ms(_percentile(bare_alone, 0.5))})",
                    p95 / b95,
                    "pbem p95 / bare p95",
                )
            )
    finally:
        for process in (server, bare_server):
            process.terminate()
            process.wait(timeout=30)
    return rows


# -- tamper ----------------------------------------------------------------------------------
def tamper(work: Path, quick: bool) -> list[Row]:
    """Detection, not speed: every kind of change to an export, truncation to every signed
    size, and a rollback and a fork at every entry, each checked by ``verify`` as a player
    holding one receipt (of the replaced entry) or the latest checkpoint would."""
    from tests.faults.tamper import census
    from tests.ops.helpers import finished_game

    register_games()
    svc = service_at(work)
    games = [("hidden-pig finished", finished_game(svc, "hidden-pig", 3, seed=4))]
    running = svc.create("hidden-pig", PLAYERS, {"rounds": "3"}, seed=b"\x08" * 32)
    for player in PLAYERS:
        svc.join(running, player)
    for _ in range(4):
        game = svc.game(running)
        svc.submit(running, game.emails[game.spec.to_move(svc.state(game))[0]], "hold")
    games.append(("hidden-pig running", running))
    if not quick:
        games.append(("kingsburg finished", finished_game(svc, "kingsburg", 2, seed=2)))
    rows = []
    for name, game_id in games:
        for case, (tried, found, verdicts) in census(svc, game_id).items():
            rows.append(
                Row(
                    "tamper",
                    f"{name}: {case}",
                    f"{tried:,} tried",
                    f"{found:,} detected",
                    f"{tried:,}",
                    found / tried,
                    f"detected / tried; said: {', '.join(sorted(verdicts))}",
                )
            )
    svc.close()
    return rows


SECTIONS: dict[str, Callable[[Path, bool], list[Row]]] = {
    "past-state": past_state,
    "storage": storage,
    "verify": verify,
    "games": games,
    "mail": mail,
    "web": web,
    "tamper": tamper,
}
