"""Fuzzing (hypothesis) of every way text gets in: each game's command parser, turn files, the
mail parser and the gateway, and the web routes. Bad input gets a GameError (or a refused
outcome, or a 4xx page), never an unhandled exception, and changes nothing."""

from __future__ import annotations

import copy
import logging
import os
import string
from email.errors import HeaderParseError
from email.message import EmailMessage

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from mailgateway.gateway import Gateway
from mailgateway.parse import parse_message
from pbem.games import catalog
from pbem.games.base import GameError
from pbem.games.simulate import play_random
from pbem.mailroom.addresses import seat_address
from pbem.mailroom.settings import MailSettings
from pbem.service.turnfile import parse_turn_file
from tests.faults.conftest import LONG, scale
from tests.ops.helpers import PLAYERS, finished_game, service_at

# The short form is derandomized, so that CI runs the same examples every time; the long form
# (python -m benchmarks.faults) searches afresh.
FUZZ = settings(
    max_examples=scale(60, 2000),
    deadline=None,
    database=None,
    derandomize=not LONG,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
WORDS = st.sampled_from(
    [
        "roll",
        "hold",
        "take",
        "build",
        "pass",
        "play",
        "with",
        "on",
        "to",
        "1",
        "0",
        "-1",
        "99999999999999999999",
        "#",
        ":",
        "\x00",
        "é",
        "ř",
        "\u202e",
        " ",
        "\t",
        "\n",
        "game:",
        "version: 3",
        "player:",
        "phase:",
        "help",
        "join",
        "resign",
    ]
)


def _mutants(legal: list[str]) -> st.SearchStrategy[str]:
    """Texts near the legal ones: cut, doubled, upper-cased, with words spliced in."""
    base = st.sampled_from(legal or ["pass"])
    return st.one_of(
        base.map(str.upper),
        st.tuples(base, st.integers(0, 40)).map(lambda t: t[0][: t[1]]),
        st.tuples(base, WORDS).map(lambda t: f"{t[0]} {t[1]}"),
        st.tuples(WORDS, base).map(lambda t: f"{t[0]} {t[1]}"),
        base.map(lambda t: t.replace(" ", "  ").replace("1", "7")),
    )


TEXTS = st.one_of(
    st.text(max_size=60), st.lists(WORDS, max_size=8).map(" ".join), st.text(alphabet=string.printable, max_size=30)
)


def _states(spec, count: int = 6):
    """States met in a seeded random game, with the seat to move (and one that is not)."""
    kept = []
    play = play_random(
        spec, max(2, spec.min_players), seed=11, on_step=lambda before, seat, move, facts, after: kept.append(before)
    )
    step = max(1, len(kept) // count)
    return [s for s in kept[::step][:count] if spec.to_move(s)] + [play.state]


@pytest.mark.parametrize("name", sorted(catalog()))
def test_parse_move_refuses_with_game_errors_only(name):
    spec = catalog()[name]
    cases = []
    for state in _states(spec):
        seats = range(max(2, spec.min_players))
        cases += [(state, seat, spec.legal_texts(state, seat) if spec.to_move(state) else []) for seat in seats]

    @FUZZ
    @given(data=st.data())
    def check(data):
        state, seat, legal = data.draw(st.sampled_from(cases))
        text = data.draw(st.one_of(TEXTS, _mutants(legal)))
        before = copy.deepcopy(state)
        try:
            spec.parse_move(state, seat, text)
        except GameError as error:
            assert error.message
        assert state == before

    check()


def test_kingsburg_influence_advisor_zero_is_a_game_error():
    spec = catalog()["kingsburg"]
    kept = []
    play_random(spec, 2, seed=11, on_step=lambda before, seat, move, facts, after: kept.append((before, seat)))
    for state, seat in kept[:60]:  # found by the fuzzer: this used to raise KeyError
        with pytest.raises(GameError):
            spec.parse_move(state, seat, "influence 0 envoy")


def test_turn_file_parser_never_raises():
    @FUZZ
    @given(st.one_of(TEXTS, st.lists(st.one_of(WORDS, st.text(max_size=20)), max_size=12).map("\n".join)))
    def check(text):
        turn = parse_turn_file(text)
        assert all(isinstance(n, int) for n, _ in turn.orders + turn.problems)

    check()


def test_bad_turn_files_and_commands_change_nothing(tmp_path):
    svc = service_at(tmp_path)
    games: list[str] = []

    def game_in_play():
        """The game under fuzz; a long run plays one to its end, and then starts the next."""
        if games:
            game = svc.game(games[-1])
            if game.spec.to_move(svc.state(game)):
                return game
        game_id = svc.create("hidden-pig", PLAYERS[:2], {"rounds": "5"}, seed=bytes([9 + len(games)]) * 32)
        for player in PLAYERS[:2]:
            svc.join(game_id, player)
        games.append(game_id)
        return svc.game(game_id)

    @FUZZ
    @given(
        body=st.one_of(TEXTS, st.lists(st.one_of(WORDS, TEXTS), max_size=6).map("\n".join)),
        header=st.booleans(),
        version=st.one_of(st.none(), st.integers(-3, 40).map(str), st.text(max_size=4)),
    )
    def check(body, header, version):
        game = game_in_play()
        game_id = game.id
        seat = game.spec.to_move(svc.state(game))[0]
        player = game.emails[seat]
        head = f"game: {game_id}\nplayer: {player}\n" + (f"version: {version}\n" if version is not None else "")
        text = head + body if header else body
        outcome = svc.submit_turn_file(text, player) if header else svc.submit(game_id, player, body)
        after = svc.game(game_id)
        if not outcome.ok:
            assert after.version == game.version and after.entries == game.entries
        else:
            assert after.version == outcome.version > game.version

    check()


def _mail(sender: str, to: str, subject: str, body: str, extra: dict[str, str]) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    for key, value in extra.items():
        msg[key] = value
    msg.set_content(body)
    return bytes(msg)


HEADER_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=40)


def test_mail_parser_never_raises():
    @FUZZ
    @given(
        raw=st.one_of(
            st.binary(max_size=400),
            st.lists(
                st.one_of(
                    st.sampled_from(
                        [
                            b"From: ",
                            b"To: ",
                            b"Subject: ",
                            b"Message-ID: <",
                            b"Content-Type: multipart/mixed; boundary=x",
                            b"Content-Transfer-Encoding: base64",
                            b"--x",
                            b"\r\n",
                            b"\n\n",
                            b"=?utf-8?b?",
                            b"?=",
                            b"@",
                            b">",
                        ]
                    ),
                    st.binary(max_size=20),
                ),
                max_size=30,
            ).map(b"".join),
        )
    )
    def check(raw):
        inbound = parse_message(raw, "x@example.org", ("pbem@example.org",), "pbem@example.org", 262_144)
        assert inbound.key and isinstance(inbound.lines, tuple)

    check()


# found by the fuzzer above and fixed in the gateway: malformed address headers (an unclosed
# '<', an empty group) used to crash the standard library's header parser
@pytest.mark.parametrize("raw", [b"From:<", b"From: <\r\n\r\nroll", b'Subject: x\r\nTo: "a" <\r\n\r\n', b"From::;\x00"])
def test_malformed_address_headers_are_parsed(raw):
    inbound = parse_message(raw, None, ("pbem@example.org",), "pbem@example.org", 262_144)
    assert inbound.key.startswith("sha256:")


# found by the long fuzz of the gateway below, in its own mail builder: the email package raises
# IndexError when a message is given "Message-ID: <"; the gateway reads such a mail from its
# bytes, keys it by its hash (the id is not one) and reads its command
@pytest.mark.parametrize(
    "raw",
    [
        b"Message-ID: <\r\n\r\nhold",
        b"From: a@example.org\r\nMessage-ID: <\r\nIn-Reply-To: <\r\nReferences: <\r\n\r\nhold",
    ],
)
def test_a_message_id_the_email_package_cannot_build_is_read(raw):
    inbound = parse_message(raw, "x@example.org", ("pbem@example.org",), "pbem@example.org", 262_144)
    assert inbound.key.startswith("sha256:") and inbound.lines == ("hold",)


def test_gateway_survives_fuzzed_mail_and_spoofs_change_nothing(tmp_path):
    svc = service_at(tmp_path)
    game_id = svc.create("hidden-pig", PLAYERS[:2], {"rounds": "5"}, seed=b"\x0a" * 32)
    for player in PLAYERS[:2]:
        svc.join(game_id, player)
    sent = []

    class Memory:
        def send(self, key, to, message):
            sent.append(key)

    gw = Gateway(svc, MailSettings(address="pbem@example.org", maildir=tmp_path / "maildir"), transport=Memory())
    seat = seat_address("pbem@example.org", game_id, svc.seat_token(game_id, 0))
    wrong = seat_address("pbem@example.org", game_id, "a" * 16)
    version = svc.game(game_id).version

    @FUZZ
    @given(
        sender=st.sampled_from(["mallory@example.org", PLAYERS[1], "", "not an address"]),
        to=st.sampled_from([wrong, "pbem@example.org", seat.replace("+", "-"), "other@example.org"]),
        subject=HEADER_TEXT,
        body=st.one_of(TEXTS, st.just("roll"), st.just("hold")),
        extra=st.dictionaries(
            st.sampled_from(
                ["Message-ID", "In-Reply-To", "Auto-Submitted", "Precedence", "Content-Language", "References"]
            ),
            HEADER_TEXT,
            max_size=3,
        ),
    )
    def check(sender, to, subject, body, extra):
        try:
            raw = _mail(sender, to, subject, body, extra)
        except (ValueError, TypeError, IndexError, HeaderParseError):
            # the test's own message builder (the email package's EmailMessage) refuses some
            # headers; "Message-ID: <" even raises IndexError inside its parser. The gateway
            # reads such a mail from its bytes without failing (test below)
            return
        assert gw.receive(raw, sender or None, (to,)) in ("processed", "duplicate", "ignored")
        game = svc.game(game_id)
        assert game.version == version, "a mail that is not from the seat's secret address moved"

    check()
    gw.work()  # every processed mail gets its reply queued and sent without an error


def test_web_routes_answer_without_server_errors(tmp_path):
    from pbem.web import create_app

    svc = service_at(tmp_path)
    game_id = finished_game(svc, seed=4)
    token = svc.seat_token(game_id, 0)
    client = create_app(svc, {"TESTING": True}).test_client()
    rules = [r.rule for r in client.application.url_map.iter_rules() if "static" not in r.rule]
    pieces = st.one_of(
        st.just(game_id),
        st.just(token),
        st.text(max_size=12),
        st.integers(-5, 10**12).map(str),
        st.sampled_from(["..", "%2e%2e", "%00", "<script>", "'", "\\", "0", "-1", "17"]),
    )

    @FUZZ
    @given(rule=st.sampled_from(rules), data=st.data(), query=st.sampled_from(["", "?lang=cs", "?lang=xx", "?at=-1"]))
    def check(rule, data, query):
        path = rule
        for name in ("game_id", "token", "int:turn", "int:index", "int:old", "int:new"):
            if f"<{name}>" in path:
                piece = data.draw(pieces)
                path = path.replace(f"<{name}>", "".join(c for c in piece if c not in "/?#") or "x")
        response = client.get(path + query)
        assert response.status_code < 500, (path, response.status_code)

    check()
    assert client.get(f"/games/{game_id}").status_code == 200
    assert client.post(f"/games/{game_id}").status_code == 405


# the bar: >= 5,000 in the default run, 100,000 in the long one; PBEM_LONG_PORT_MAILS
# lowers the long one (.ci/run, so the whole run stays well under an hour on two cores), never
# below the default run's count
PORT_MAILS = scale(5000, max(5000, min(100_000, int(os.environ.get("PBEM_LONG_PORT_MAILS", "100000")))))
# The mails are thrown in shards, each at a fresh service with its own examples, so that
# pytest-xdist can spread them over its workers; together they make PORT_MAILS.
PORT_SHARDS = 4
MAIL_WORDS = st.sampled_from(
    [
        "new hidden-pig",
        "absence 2026-01-01 2026-01-02",
        "absence off",
        "language cs",
        "subscribe",
        "unsubscribe",
        "confirm 0123456789ab",
        "status",
        "history",
        "games",
        "catalog",
        "help",
        "join",
        "resign",
        "rotate",
        "template",
        "hold",
        "roll",
        "deadline=2",
        "deadline=99999999",
        "x@example.org",
        "mallory@example.org",
    ]
)


@pytest.mark.parametrize("shard", range(PORT_SHARDS))
def test_the_port_under_fuzzed_mail_changes_nothing_on_refusal_and_bounds_its_output(tmp_path, shard):
    """Generated mails, commands and turn files through the gateway and its port: no unhandled
    exception, no state change by a refused mail, no reply over the size cap, and no mail to an
    address that is neither in a game nor a sender."""
    svc = service_at(tmp_path)
    game_id = svc.create("hidden-pig", PLAYERS[:2], {"rounds": "5"}, seed=b"\x0b" * 32)
    for player in PLAYERS[:2]:
        svc.join(game_id, player)
    sent: list[tuple[str, bytes]] = []

    class Memory:
        def send(self, key, to, message):
            sent.append((to, message))

    gw = Gateway(
        svc,
        MailSettings(address="pbem@example.org", maildir=tmp_path / "maildir", replies_per_hour=10**9),
        transport=Memory(),
    )
    seats = [seat_address("pbem@example.org", game_id, svc.seat_token(game_id, s)) for s in range(2)]
    senders = set(PLAYERS[:2]) | {"mallory@example.org"}
    counter = iter(range(10**9))

    @settings(
        max_examples=PORT_MAILS // PORT_SHARDS,
        deadline=None,
        database=None,
        derandomize=not LONG,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @seed(None if LONG else shard)  # the short form repeats the same examples; each shard its own
    @given(
        seat=st.integers(0, 1),
        forged=st.booleans(),
        to=st.sampled_from(["seat", "service", "wrong"]),
        lines=st.lists(st.one_of(MAIL_WORDS, st.lists(MAIL_WORDS, max_size=4).map(" ".join), TEXTS), max_size=6),
        turn_file=st.booleans(),
        version=st.one_of(st.integers(-5, 400).map(str), st.sampled_from(["²", "x", ""])),
    )
    def check(seat, forged, to, lines, turn_file, version):
        sender = "mallory@example.org" if forged else PLAYERS[seat]
        address = {"seat": seats[seat], "service": "pbem@example.org", "wrong": seats[seat][:-3] + "aaa"}[to]
        body = "\n".join(lines)
        if turn_file:
            body = f"game: {game_id}\nplayer: {PLAYERS[seat]}\nversion: {version}\n\n{body}"
        raw = _mail(sender, address, "moves", body, {"Message-ID": f"<fuzz-{next(counter)}@example.org>"})
        before = svc.game(game_id).version
        assert gw.receive(raw, sender, (address,)) in ("processed", "duplicate", "ignored")
        after = svc.game(game_id).version
        if after != before:  # only an authenticated mail with an applied command may move the game
            assert not forged and to == "seat"

    class Internal(logging.Handler):  # the gateway answers a bug instead of raising: count those
        def __init__(self) -> None:
            super().__init__(logging.ERROR)
            self.seen: list[str] = []

        def emit(self, record: logging.LogRecord) -> None:
            if "could not be processed" in record.getMessage():
                self.seen.append(record.getMessage())

    internal = Internal()
    logging.getLogger("pbem.mail").addHandler(internal)
    try:
        check()
    finally:
        logging.getLogger("pbem.mail").removeHandler(internal)
    assert internal.seen == [], "a mail hit an error in the server (it was answered, but it is a bug)"
    assert next(counter) >= PORT_MAILS // PORT_SHARDS, "hypothesis stopped before the bar's number of mails"
    for _ in range(50):
        before = len(sent)
        gw.work()
        if len(sent) == before:
            break
    players = {email for other in svc.game_ids() for email in svc.game(other).emails}  # games made by `new` too
    for to, message in sent:
        assert to in players | senders, f"a mail went to {to}, who is neither a player nor a sender"
        assert len(message) < 200_000  # the text is capped at 64 KiB (plus the HTML alternative)
    assert gw.mailroom.dead_letters() == []
