"""The status row: ``status`` at the service address for a player in 10, 100 and 1,000 games,
answered from the read models (docs/benchmarks.md, "status at the service address").

Two timings per size, in one store holding every size's games (1,110 games of the player
sizes plus the others' seats): the answer alone (the player's games read and their lines made,
a new follower round each time, so nothing is kept from the call before), and the whole mail
(received, stored, its reply built by the follower and composed for the transport)."""

from __future__ import annotations

from collections.abc import Callable
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

from benchmarks.measure import SERVICE, Row, created_games, interleaved, ms, service_at
from mailgateway.gateway import Gateway
from pbem.mailroom.replies import answer
from pbem.mailroom.settings import MailSettings

SIZES = (10, 100, 1_000)


def _player(size: int) -> str:
    return f"ann.{size}@bench.example"


class _Keep:
    def send(self, key: str, to: str, message: object) -> None:
        pass


def _status_mail(sender: str) -> bytes:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, SERVICE, "status"
    message["Message-ID"] = make_msgid(domain="bench.example")
    message.set_content("status\n")
    return message.as_bytes()


def status(work: Path, quick: bool) -> list[Row]:
    svc = service_at(work)
    for size in SIZES:
        created_games(svc, size, first=_player(size), prefix=f"s{size}-")
    gw = Gateway(
        svc, MailSettings(address=SERVICE, maildir=work / "maildir", replies_per_hour=10**9), transport=_Keep()
    )
    gw.work()  # the followers' first catch-up (the read models and the invitations), not timed
    outbox = gw.mailroom.outbox
    answers: dict[str, Callable[[], Any]] = {}
    mails: dict[str, Callable[[], Any]] = {}
    listed: dict[int, int] = {}
    for size in SIZES:
        email = _player(size)
        shown = answer(outbox, outbox.round(), {"action": "status"}, email, "en")
        assert len(shown["games"]) + shown["more"] == size, shown.get("more")
        listed[size] = len(shown["games"])

        def one_answer(email: str = email) -> None:
            answer(outbox, outbox.round(), {"action": "status"}, email, "en")

        def one_mail(email: str = email) -> None:
            gw.receive(_status_mail(email))
            gw.work()

        answers[str(size)], mails[str(size)] = one_answer, one_mail
    # the sizes take turns, round after round, so that the machine's load falls on each alike
    timings = (interleaved(answers, 0.5 if quick else 2.0), interleaved(mails, 0.5 if quick else 3.0))
    svc.close()
    rows = []
    for (label, meaning), timed in zip(
        (
            ("the answer: the player's games read and listed (a new round each time)", "bar: at most 5 ms"),
            ("the whole mail: received, stored, reply built, composed and handed over", "the mail's cost besides"),
        ),
        timings,
        strict=True,
    ):
        rows += [
            Row(
                "status",
                f"status at the service address, {label}",
                f"{size:,} games of the player, {listed[size]} listed",
                ms(timed[str(size)]),
                ms(timed[str(SIZES[0])]),
                timed[str(size)] / timed[str(SIZES[0])],
                f"time / time at {SIZES[0]} games (flat: about 1x beyond the lines listed; {meaning})",
            )
            for size in SIZES
        ]
    return rows
