"""One language per player, everywhere (issue 27).

A whole game of each game is played by mail in Czech and in Polish, from the creator's ``new ...
lang=`` at the service address to the final standings, with what people send besides moves: the
service commands in their own words, a move before the start, a move out of turn, a line that is
no move, a move after the end, and an observer. A scan of every mail sent (subject and text)
finds no English sentence: ``ENGLISH`` lists the English words and phrases the service writes,
none of which a Czech or Polish sentence holds. The positive controls run the same scan over an
English mail and over the service's sentences as they were before they were translated.

The golden files ``golden/service/LANG/`` show the creator's mails and the refusals the service
layer writes (not started, not your turn) in English, Czech and Polish.
"""

from __future__ import annotations

import email
import os
import re
from email import policy
from email.message import EmailMessage
from pathlib import Path

import pytest

from tests.mailgateway.conftest import SERVICE, address_of, make_mail
from tests.mailgateway.playbook import decision_lines, stable, text_of
from tests.mailgateway.test_golden_mail import mail_settings, replacements  # noqa: F401 (no pictures: a fixture)

ANN, BOB, EVE = "ann@example.net", "bob@example.com", "eve@example.org"
GAMES = ("kingsburg", "kingdom-builder", "warriors-traders", "ruse-and-bruise")
GOLDEN = Path(__file__).with_name("golden") / "service"
MAX_MOVES = 3000
# The service commands in each language's words (docs/mail.md, "Commands").
WORDS = {
    "en": {"new": "new", "join": "join", "history": "history", "status": "status", "legal": "moves",
           "watch": "watch", "confirm": "confirm", "catalog": "catalog", "help": "help", "games": "games"},
    "cs": {"new": "nová", "join": "připojit", "history": "historie", "status": "stav", "legal": "tahy",
           "watch": "sledovat", "confirm": "potvrdit", "catalog": "katalog", "help": "pomoc", "games": "hry"},
    "pl": {"new": "nowa", "join": "dołącz", "history": "historia", "status": "stan", "legal": "ruchy",
           "watch": "obserwuj", "confirm": "potwierdź", "catalog": "katalog", "help": "pomoc", "games": "gry"},
}  # fmt: skip
# English words and phrases of the service's sentences that no Czech or Polish sentence holds
# (whole words, lower case or capitalised: "OR" is a Kingdom Builder location, "her" and "to"
# are Czech and Polish words and so are left out).
ENGLISH = (
    "the", "is", "not", "your", "you", "was", "were", "and", "with", "has", "have", "will", "send", "turn",
    "game", "moved", "joined", "started", "applied", "refused", "rejected", "waiting", "next", "nothing",
    "reply", "answer", "created", "over", "won", "of", "for", "are", "this", "from", "or", "it", "at", "its",
    "his", "their", "does", "did", "every", "only", "more", "than", "which", "when", "what", "who", "been",
    "left", "round", "here", "there", "player", "players", "move", "moves", "choose", "take", "give", "pass",
    "build", "draw", "play", "buy", "sell", "score", "points", "lines", "line", "mail", "deadline", "legal",
    "instead", "again", "already", "join", "joins", "help", "recruit", "resign", "resigned",
)  # fmt: skip
SCAN = re.compile(rf"(?<![\w'-])({'|'.join(w + '|' + w.capitalize() for w in ENGLISH)})(?![\w'-])")


# Lines that are English on purpose: the help's note that the English command words work too,
# and the test suite's own games in the catalog (Hidden Pig, and Long Pig when another test in the
# same worker has registered the benchmarks' long game).
MEANT = re.compile(r"^ *(\((Anglická slova|Angielskie słowa) .*|(hidden|long)-pig: .*)$", re.MULTILINE)


def readable(text: str) -> str:
    """What a reader reads as sentences: without addresses, links, game ids, the receipt's file
    name and command (``pbem check-receipt receipt.json``), the option lines of the catalog,
    whose keys and values are what one types (``map=west [west|east]``), and ``MEANT``."""
    text = MEANT.sub("", re.sub(r"^ *\S+=\S+ \[[^\]]*\] ", "", text, flags=re.MULTILINE))
    return re.sub(r"\S+@\S+|https?://\S+|\b[a-z]+(-[a-z]+)*-[0-9a-f]{8}\b|pbem check-receipt receipt\.json", " ", text)


def english_in(msg: EmailMessage) -> list[str]:
    """The lines of a mail's subject and text that hold an English word of ``ENGLISH``."""
    lines = f"{msg['Subject']}\n{text_of(msg)}".split("\n")
    return [line for line in lines if SCAN.search(readable(line))]


class Players:
    """Ann, Bob and Eve (an observer) at their mail: what each has received."""

    def __init__(self, gw, transport, clock):
        self.gw, self.transport, self.clock = gw, transport, clock
        self.seen = 0
        self.latest: dict[str, EmailMessage] = {}
        self.mails: list[tuple[str, EmailMessage]] = []

    def deliver(self) -> list[EmailMessage]:
        self.gw.work()
        new = [
            (to, email.message_from_bytes(raw, policy=policy.default))
            for _, to, raw in self.transport.sent[self.seen :]
        ]
        self.seen = len(self.transport.sent)
        for to, msg in new:
            self.latest[to] = msg
        self.mails += new
        return [msg for _, msg in new]

    def send(self, sender: str, to: str, body: str) -> list[EmailMessage]:
        self.clock.advance(seconds=20)
        self.gw.receive(make_mail(sender, to, body, subject="pbem"))
        return self.deliver()

    def at_game(self, sender: str, game_id: str, body: str) -> list[EmailMessage]:
        return self.send(sender, address_of(self.gw, game_id, sender), body)

    def next_move(self) -> tuple[str, str]:
        for player in (ANN, BOB):
            msg = self.latest.get(player)
            lines = decision_lines(text_of(msg)) if msg is not None else []
            if lines:
                return player, lines[0]
        raise AssertionError("nobody is asked for a move")


def begin(gw, transport, clock, game: str, lang: str) -> tuple[Players, str]:
    """The creator's ``new`` at the service address (neither player chose a language)."""
    table = Players(gw, transport, clock)
    table.send(ANN, SERVICE, f"{WORDS[lang]['new']} {game} {ANN} {BOB} lang={lang}")
    (game_id,) = gw.service.game_ids()
    return table, game_id


def play_by_mail(gw, transport, clock, game: str, lang: str) -> Players:
    words = WORDS[lang]
    table, game_id = begin(gw, transport, clock, game, lang)
    table.at_game(ANN, game_id, "xyzzy")  # before the start
    (asked,) = table.send(EVE, SERVICE, f"{words['watch']} {game_id}")
    token = re.search(r"^ +\S+ ([0-9a-f]{12})\s*$", text_of(asked), re.MULTILINE)
    table.send(EVE, SERVICE, f"{words['confirm']} {token.group(1)}")
    table.at_game(ANN, game_id, f"{words['join']} ann-nonce")
    table.at_game(BOB, game_id, f"{words['join']} bob-nonce")
    for command in ("history", "status", "legal", "help"):
        table.at_game(BOB, game_id, words[command])
    # "katalog" and "pomoc" are Czech and Polish alike: "hry" / "gry" says which
    table.send(BOB, SERVICE, "\n".join(words[command] for command in ("games", "catalog", "help")))
    player, line = table.next_move()
    table.at_game(BOB if player == ANN else ANN, game_id, line)  # out of turn, or before the other's turn
    table.at_game(player, game_id, f"{line}\nxyzzy")  # a line that is no move stops the batch
    for hours in (37, 12):  # the reminder 12 hours before the 48-hour deadline, then the deadline
        clock.advance(hours=hours)
        table.deliver()
    for someone in (ANN, BOB):  # what to decide now (a notice of a missed deadline lists no moves)
        table.at_game(someone, game_id, words["status"])
    for _ in range(MAX_MOVES):
        if gw.service.game(game_id).ended:
            break
        player, line = table.next_move()
        table.at_game(player, game_id, line)
    assert gw.service.game(game_id).ended
    table.at_game(ANN, game_id, line)  # after the end
    table.at_game(ANN, game_id, words["history"])
    return table


@pytest.fixture
def fixed_game(monkeypatch):
    """The same game id and server seed on every run (they are in the golden files' dice)."""
    monkeypatch.setattr("pbem.service.service.secrets.token_hex", lambda n: "0a1b2c3d")
    monkeypatch.setattr("pbem.service.service.new_seed", lambda: bytes(range(32)))


@pytest.mark.parametrize("lang", ("cs", "pl"))
@pytest.mark.parametrize("game", GAMES)
def test_a_whole_game_by_mail_in_czech_or_polish_writes_no_english_sentence(
    gw, transport, clock, fixed_game, game, lang
):
    table = play_by_mail(gw, transport, clock, game, lang)
    kinds = {msg["X-Pbem-Kind"] for _, msg in table.mails}
    assert {"invitation", "reply", "started", "turn", "watch", "reminder", "ended"} <= kinds
    assert kinds & {"deadline", "missed"}
    assert {to for to, _ in table.mails} == {ANN, BOB, EVE}
    leaks = {f"mail {n} to {to} ({msg['X-Pbem-Kind']})": english_in(msg) for n, (to, msg) in enumerate(table.mails)}
    leaks = {mail: lines for mail, lines in leaks.items() if lines}
    assert not leaks, leaks


def test_the_scan_finds_the_english_of_an_english_game(gw, transport, clock, fixed_game):
    """The positive control: the same beginning in English, where the scan must find English."""
    table, game_id = begin(gw, transport, clock, "kingsburg", "en")
    table.at_game(ANN, game_id, "xyzzy")
    table.at_game(ANN, game_id, "join")
    assert all(english_in(msg) for _, msg in table.mails)


# The service's sentences as they were before they were translated (issue 27): the scan finds each.
UNTRANSLATED = (
    "It is not ann's turn; waiting for bob.",
    "Game kingsburg-0a1b2c3d is over.",
    "Game kingsburg-0a1b2c3d has not started: waiting for bob to join.",
    "provedeno: join",
    "3. joined bob",
    "4: moved ann influences advisor 6 (Alchemist) with 6.",
    "Dále: recruit.",
    "To make sure this mail came from you, this is done only when you answer: reply with the line",
    "board side: west (Western Europe) or east (Eastern Europe); both maps are approximations",
    'i jeszcze 7: wyślij "moves"',
    'pbem - wyślij "help" na pbem@example.org',
)


@pytest.mark.parametrize("sentence", UNTRANSLATED)
def test_the_scan_finds_each_sentence_the_service_wrote_in_english(sentence):
    msg = EmailMessage()
    msg["Subject"] = "[pbem] kingsburg-0a1b2c3d: odpověď"
    msg.set_content(f"Odpověď na vaši zprávu.\n\n  {sentence}\n")
    assert english_in(msg)


# -- golden mails of the creator and of the service layer's refusals, in three languages --------
def service_mails(gw, transport, clock, lang: str) -> dict[str, EmailMessage]:
    words = WORDS[lang]
    table, game_id = begin(gw, transport, clock, "kingsburg", lang)
    to_ann = [msg for to, msg in table.mails if to == ANN]
    mails = {
        "creator-answer": next(m for m in to_ann if m["X-Pbem-Kind"] == "reply"),
        "creator-invitation": next(m for m in to_ann if m["X-Pbem-Kind"] == "invitation"),
    }
    table.at_game(ANN, game_id, f"{words['join']} ann-nonce")
    (mails["not-started"],) = table.at_game(ANN, game_id, "xyzzy")
    table.at_game(BOB, game_id, f"{words['join']} bob-nonce")
    player, line = table.next_move()
    table.at_game(player, game_id, line)
    (mails["not-your-turn"],) = table.at_game(player, game_id, line)
    return mails


@pytest.mark.parametrize("lang", ("en", "cs", "pl"))
def test_the_creators_mails_and_the_service_layers_refusals_match_their_golden_files(
    gw, transport, clock, fixed_game, lang
):
    mails = service_mails(gw, transport, clock, lang)
    (game_id,) = gw.service.game_ids()
    names = replacements(gw, game_id, "kingsburg")
    for kind, msg in mails.items():
        text = stable(msg, names)
        path = GOLDEN / lang / f"{kind}.txt"
        if os.environ.get("PBEM_UPDATE_GOLDEN") == "1":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        assert text == path.read_text(encoding="utf-8"), f"{path} differs"
    if lang != "en":
        assert not [line for msg in mails.values() for line in english_in(msg)]


# -- the language of a mail to the service address from somebody who chose none ----------------
@pytest.mark.parametrize(
    ("body", "said"),
    (
        ("hry", "Odpověď na vaši zprávu."),
        ("gry", "Odpowiedź na twoją wiadomość."),
        ("games", "The answer to your mail."),
        ("pomoc", "The answer to your mail."),  # Czech and Polish alike: no language to take
        ("pomoc\nstan", "Odpowiedź na twoją wiadomość."),
    ),
)
def test_the_service_address_answers_in_the_language_of_the_words_it_was_sent(gw, transport, body, said):
    gw.receive(make_mail(EVE, SERVICE, body))
    gw.work()
    (reply,) = transport.to(EVE)
    assert text_of(reply).startswith(said)


@pytest.mark.parametrize(("body", "asked"), (("language pl", "Aby mieć pewność"), ("jazyk cs", "Abychom měli jistotu")))
def test_a_language_is_confirmed_in_the_language_asked_for(gw, transport, body, asked):
    gw.receive(make_mail(EVE, SERVICE, body))
    gw.work()
    (reply,) = transport.to(EVE)
    assert asked in text_of(reply), text_of(reply)


def test_a_chosen_language_wins_over_the_words(gw, transport):
    from tests.mailgateway.conftest import confirmed

    confirmed(gw, transport, EVE, "language pl")
    transport.clear()
    gw.receive(make_mail(EVE, SERVICE, "hry"))
    gw.work()
    (reply,) = transport.to(EVE)
    assert text_of(reply).startswith("Odpowiedź na twoją wiadomość.")
