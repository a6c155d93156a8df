"""The chaos test (issue 28): four games by mail on PostgreSQL, over real SMTP, while a stream of
hostile mail arrives between the honest moves: NUL bytes, international and broken addresses,
forged mail, bombs (too many lines, too many parts, too large), loops (automatic replies, our
own address, bounces without a tag). Every honest move is answered within two worker rounds;
every hostile mail is answered once, dropped by a documented rule (docs/mail.md, "Loops" and
"Limits"), or becomes a dead letter; none is refused with a temporary failure, and none stops
another."""

from __future__ import annotations

import random
import smtplib
from email import message_from_bytes, policy
from email.message import EmailMessage

from mailgateway.gateway import Gateway
from mailgateway.sender import PermanentFailure
from mailgateway.smtp import controller
from pbem.config import Settings
from pbem.mailroom.addresses import seat_address
from pbem.mailroom.settings import MailSettings
from pbem.service.service import GameService
from tests.mailgateway.conftest import Clock, Memory, free_port

SERVICE = "pbem@example.org"
GAMES = {
    "kingsburg": ["ann@example.net", "bob@example.net", "cy@example.net"],
    "kingdom-builder": ["dee@example.net", "eve@example.net"],
    "warriors-traders": ["fay@example.net", "gus@example.net", "hal@example.net"],
    "ruse-and-bruise": ["ivy@example.net", "jon@example.net", "kim@example.net"],
}
ROUNDS = 4


class Relay(Memory):
    """Delivers like a relay without SMTPUTF8: a non-ASCII local part is refused for good."""

    def send(self, key: str, to: str, message: bytes) -> None:
        if not to.split("@", 1)[0].isascii():
            raise PermanentFailure(f"the relay does not offer SMTPUTF8, which {to!r} needs")
        super().send(key, to, message)


def _mail(sender: str, to: str, body: str, mid: str, **headers: str) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = headers.pop("Subject", "moves")
    msg["Message-ID"] = f"<{mid}@chaos.example>"
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    msg.set_content(body)
    return bytes(msg)


def _hostile(n: int, victim: str, seat: str) -> list[tuple[str, str, bytes, str]]:
    """Round ``n``'s hostile mail: (envelope sender, recipient, bytes, what must become of it)."""
    h = f"h{n}"
    parts = "".join(f"--b\r\nContent-Type: text/plain\r\n\r\npart {i}\r\n" for i in range(300))
    many_parts = (
        f"From: mallory@example.com\r\nTo: {SERVICE}\r\nSubject: parts\r\nMessage-ID: <{h}-parts@chaos.example>\r\n"
        'MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n' + parts + "--b--\r\n"
    ).encode()
    punycode = (
        f"From: mallory@example.com\r\nTo: {SERVICE}\r\nSubject: =?utf-8?q?nul=00here?=\r\n"
        f"Message-ID: <{h}-punycode@chaos.example>\r\nMIME-Version: 1.0\r\n"
        "Content-Type: text/plain; charset=punycode\r\n\r\n" + ("help-" * 190 + "\r\n") * 220
    ).encode()
    return [
        ("mallory@example.com", SERVICE, punycode, "answered"),
        (
            "mallory@example.com",
            SERVICE,
            _mail("mallory@example.com", SERVICE, "new kingsburg mallory@example.com x\x00y@example.org", f"{h}-nul"),
            "answered",
        ),
        (
            "mallory@example.com",
            SERVICE,
            _mail("mallory@example.com", SERVICE, f"new kingsburg mallory@example.com ä{n}@ü.example", f"{h}-intl"),
            "answered",
        ),
        (victim, SERVICE, _mail(victim, SERVICE, "help", f"{h}-forged-help"), "answered"),
        # a stranger at a game's address is not answered (no backscatter; docs/mail.md, the start)
        ("mallory@example.com", seat, _mail("mallory@example.com", seat, "pass", f"{h}-forged-move"), "dropped"),
        # a player of the game with a wrong token is told it changed nothing
        (victim, seat, _mail(victim, seat, "pass", f"{h}-wrong-token"), "answered"),
        (
            "mallory@example.com",
            SERVICE,
            _mail("mallory@example.com", SERVICE, "help\n" * 500, f"{h}-lines"),
            "answered",
        ),
        ("mallory@example.com", SERVICE, many_parts, "answered"),
        (
            "mallory@example.com",
            SERVICE,
            _mail("mallory@example.com", SERVICE, "x" * 280_000, f"{h}-large"),
            "answered",
        ),
        (
            "mallory@example.com",
            SERVICE,
            _mail("mallory@example.com", SERVICE, "help", f"{h}-auto", Auto_Submitted="auto-replied"),
            "dropped",
        ),
        (
            "mallory@example.com",
            SERVICE,
            _mail("mallory@example.com", SERVICE, "help", f"{h}-vacation", Subject="Out of office: moves"),
            "dropped",
        ),
        (SERVICE, SERVICE, _mail(SERVICE, SERVICE, "help", f"{h}-own"), "dropped"),
        ("", SERVICE, _mail("mailer-daemon@example.com", SERVICE, "help", f"{h}-daemon"), "dropped"),
    ]


def _send(port: int, sender: str, to: str, raw: bytes) -> int:
    raw = raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")  # smtplib sends bytes as they are
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        try:
            client.sendmail(sender, [to], raw)
        except smtplib.SMTPDataError as error:
            return error.smtp_code
        except smtplib.SMTPSenderRefused as error:
            return error.smtp_code
    return 250


def _answers(relay: Relay) -> dict[str, int]:
    counts: dict[str, int] = {}
    for _, _, raw in relay.sent:
        key = str(message_from_bytes(raw, policy=policy.default)["In-Reply-To"])
        counts[key] = counts.get(key, 0) + 1
    return counts


def test_four_games_by_mail_under_a_stream_of_hostile_mail(tmp_path, postgres_url):
    clock = Clock()
    service = GameService(Settings(home=tmp_path / "home", database_url=postgres_url))
    relay = Relay()
    mail = MailSettings(address=SERVICE, maildir=tmp_path / "maildir", replies_per_hour=1_000_000)
    gw = Gateway(service, mail, clock=clock, transport=relay)
    port = free_port()
    server = controller(gw, "127.0.0.1", port)
    server.start()
    chooser = random.Random(28)
    try:
        games = {}
        for number, (game_type, players) in enumerate(GAMES.items()):
            games[game_type] = service.create(game_type, players, {}, seed=bytes([number + 1]) * 32)
            for player in players:
                service.join(games[game_type], player)
        gw.work()
        fates: dict[str, str] = {}
        for n in range(ROUNDS):
            honest = []
            hostile = iter(_hostile(n, "ann@example.net", _a_seat(service, games["kingsburg"])))
            for game_type, game_id in games.items():
                mid = _honest_move(service, game_id, chooser, port, f"r{n}-{game_type}")
                if mid:
                    honest.append(mid)
                for sender, to, raw, fate in _take(hostile, 3):
                    mid = str(message_from_bytes(raw, policy=policy.compat32)["Message-ID"])
                    assert _send(port, sender, to, raw) == 250, f"{mid} was not accepted for good"
                    fates[mid] = fate
            for sender, to, raw, fate in hostile:
                mid = str(message_from_bytes(raw, policy=policy.compat32)["Message-ID"])
                assert _send(port, sender, to, raw) == 250, f"{mid} was not accepted for good"
                fates[mid] = fate
            for _ in range(2):  # two worker rounds at most
                gw.work()
            answers = _answers(relay)
            missing = [mid for mid in honest if answers.get(mid, 0) != 1]
            assert not missing, f"round {n}: honest moves not answered once within two rounds: {missing}"
        gw.work()
        answers = _answers(relay)
        dead = {letter.to for letter in gw.mailroom.dead_letters()}
        for mid, fate in fates.items():
            if fate == "answered":
                assert answers.get(mid, 0) == 1, f"{mid} should be answered once, was {answers.get(mid, 0)}"
            else:
                assert answers.get(mid, 0) == 0, f"{mid} should be dropped by its rule"
        assert dead and all(not address.split("@")[0].isascii() for address in dead)
    finally:
        server.stop()
        server.handler.close()
        service.close()


def _take(items, count: int) -> list:
    return [item for _, item in zip(range(count), items, strict=False)]


def _a_seat(service: GameService, game_id: str) -> str:
    """A seat's address with a guessed token: a forged move."""
    return seat_address(SERVICE, game_id, "guessedtoken0000")


def _honest_move(service: GameService, game_id: str, chooser: random.Random, port: int, mid: str) -> str | None:
    """A waited player's legal move by mail; its Message-ID (None: the game waits on nobody)."""
    game = service.game(game_id)
    state = service.state(game)
    waited = list(game.spec.to_move(state)) if state is not None and not game.ended else []
    if not waited:
        return None
    seat = chooser.choice(waited)
    move = chooser.choice(game.spec.legal_texts(state, seat, limit=200))
    player = game.emails[seat]
    to = seat_address(SERVICE, game_id, service.seat_token(game_id, seat))
    assert _send(port, player, to, _mail(player, to, move, mid)) == 250
    return f"<{mid}@chaos.example>"
