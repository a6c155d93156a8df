"""The contract of mail-parser-reply as pbem uses it (``mailgateway.replyparser``), checked
against the pinned version: what the adapter asks of the library must keep answering so."""

from __future__ import annotations

import time
from importlib.metadata import version
from pathlib import Path

from mailgateway import replyparser
from mailgateway.parse import parse_message
from mailgateway.replyparser import Cuts, cuts


def pinned() -> str:
    lock = Path(__file__).resolve().parents[2] / "constraints.txt"
    return next(
        line.split("==")[1].strip() for line in lock.read_text().splitlines() if line.startswith("mail-parser-reply==")
    )


def test_the_installed_library_is_the_pinned_version():
    assert version("mail-parser-reply") == pinned()


def test_a_czech_closing_with_a_comma_starts_the_signature():
    assert cuts(["vezmi dřevo", "", "S pozdravem,", "Petra Svobodová", "Acme s.r.o."]) == Cuts(signature=2)


def test_a_polish_closing_starts_the_signature():
    assert cuts(["weź drewno", "Pozdrawiam serdecznie", "Jan Kowalski", "tel. 600 100 200"]) == Cuts(signature=1)


def test_an_english_closing_starts_the_signature():
    assert cuts(["take gold", "Best regards,", "Ann"]).signature == 1


def test_the_phone_footers_the_library_knows_are_a_signature():
    assert cuts(["take gold", "Sent from my iPhone"]).signature == 1
    assert cuts(["vezmi zlato", "Odesláno z mého iPhonu"]).signature == 1
    assert cuts(["weź złoto", "Wysłano z mojego telefonu"]).signature == 1
    # the apostrophe of "iPhone'a" is beyond it: mailgateway.letters knows that footer itself
    assert cuts(["weź złoto", "Wysłano z iPhone'a"]).signature is None


def test_a_text_that_starts_like_a_signature_is_no_signature():
    assert cuts(["Thanks, here is my move:", "take gold"]).signature is None


def test_commands_alone_have_no_cut():
    assert cuts(["take gold", "influence 8 with 5 3", "build J1", "hraj MORDÝŘ 1", "zagraj SKRYTOBÓJCA 2"]) == Cuts()


def test_an_outlook_header_block_in_czech_and_polish_is_a_header():
    czech = ["vezmi dřevo", "Od: pbem <pbem@example.org>", "Odesláno: pondělí 5. ledna 2026 12:00", "Komu: Petra"]
    assert cuts(czech).header == 1
    polish = ["weź drewno", "Od: pbem <pbem@example.org>", "Wysłano: poniedziałek, 5 stycznia 2026 12:00"]
    assert cuts(polish).header == 1


def test_indexes_count_the_callers_lines_with_blank_lines():
    assert cuts(["", "take gold", "", "", "S pozdravem,", "Petra"]).signature == 4


def test_the_library_sees_a_bounded_copy():
    """20,000 blank lines took the library more than a minute; the adapter drops blank lines
    and keeps MAX_LINES lines of MAX_CHARS characters, so any input costs about the same."""
    hostile = ["On " * 700] * 2000 + [""] * 20000
    started = time.perf_counter()
    cuts(hostile)
    assert replyparser.MAX_LINES * replyparser.MAX_CHARS <= 12_000
    assert time.perf_counter() - started < 30  # a backstop only; docs/mail.md has the measured worst case


def test_one_line_is_cut_as_the_library_cuts_it():
    """One line skips the library unless the library's header expression finds a header in
    it: every line of the reply corpus alone, and lines the library takes for headers, are
    cut as the library cuts them."""
    corpus = sorted((Path(__file__).with_name("corpus")).glob("*.eml"))
    lines = {line for path in corpus for line in parse_message(path.read_bytes()).text.splitlines() if line.strip()}
    headers = ["-----Original Message-----  ", "Od: pbem <pbem@example.org>", "On Mon, 5 Jan 2026, Ann wrote:"]
    lines |= {*headers, "S pozdravem,", "Sent from my iPhone", "hold", "  build J1  "}
    assert len(lines) > 300
    for line in sorted(lines):
        assert cuts([line]) == replyparser.by_library(replyparser._kept([line])), line
    # the header lines go the library's way (a header alone is no cut: nothing precedes it)
    assert all(replyparser._HEADER_REGEX.search(line.strip()) for line in headers)
