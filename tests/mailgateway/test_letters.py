"""Splitting replies as the clients write them (``mailgateway.letters``): one test per rule.
The corpus (test_corpus.py) sends whole mails of every client over SMTP."""

from __future__ import annotations

import time

from mailgateway import letters
from mailgateway.letters import MAX_READ_LINES, Kind, html_to_text, split_text

QUOTE = "> It is your turn in Kingsburg.\n> Reply with one of these lines:\n>   take gold\n>   take wood\n"


def test_quoted_lines_are_not_written():
    assert split_text("take gold\n" + QUOTE).written == ("take gold",)


def test_top_posting_under_an_english_attribution():
    text = f"take gold\n\nOn Mon, Jan 5, 2026 at 12:00 PM pbem <pbem@example.org> wrote:\n\n{QUOTE}"
    split = split_text(text)
    assert split.written == ("take gold",)
    assert split.of(Kind.ATTRIBUTION) == ("On Mon, Jan 5, 2026 at 12:00 PM pbem <pbem@example.org> wrote:",)


def test_bottom_posting_under_czech_and_polish_attributions():
    for attribution in (
        "Dne 05. 01. 26 v 12:00 pbem napsal(a):",
        "po 5. 1. 2026 v 12:00 odesílatel pbem <pbem@example.org> napsal:",
        "W dniu 5.01.2026 o 12:00, pbem pisze:",
        "pon., 5 sty 2026 o 12:00 pbem <pbem@example.org> napisał(a):",
        "Wiadomość napisana przez pbem <pbem@example.org> w dniu 5 sty 2026, o godz. 12:00:",
    ):
        assert split_text(f"{attribution}\n{QUOTE}\nvezmi dřevo\n").written == ("vezmi dřevo",), attribution


def test_an_attribution_wrapped_over_two_lines():
    text = (
        f"take gold\n\nOn Mon, Jan 5, 2026 at 12:00 PM pbem <pbem+kingsburg-0a1b2c3d.k7xq@example.org>\nwrote:\n{QUOTE}"
    )
    assert split_text(text).written == ("take gold",)


def test_inline_posting_keeps_every_answer():
    text = "On Mon, Jan 5, 2026 Ann wrote:\n> Your decision: take a good\ntake gold\n> and then?\nmoves\n"
    assert split_text(text).written == ("take gold", "moves")


def test_an_attribution_over_an_unquoted_original_ends_the_new_text():
    """The quoted mail holds ready-to-send move lines: unquoted, they must never be read."""
    text = "take gold\nOn Mon, Jan 5, 2026 pbem wrote:\nReply with one of these lines:\n  take wood\n"
    assert split_text(text).written == ("take gold",)


def test_outlook_separators_and_header_blocks_in_three_languages():
    for head in (
        "-----Original Message-----\nFrom: pbem\nSent: Monday",
        "-----Původní zpráva-----\nOd: pbem\nOdesláno: pondělí",
        "-----Wiadomość oryginalna-----\nOd: pbem\nWysłano: poniedziałek",
        "________________________________\nOd: pbem <pbem@example.org>\nOdesláno: 5. ledna 2026 12:00",
        "From: pbem <pbem@example.org>\nSent: Monday, January 5, 2026 12:00 PM\nTo: Ann",
        "Od: pbem <pbem@example.org>\nWysłano: poniedziałek, 5 stycznia 2026 12:00\nDo: Jan",
    ):
        text = f"take gold\n\n{head}\nSubject: your turn\n\nReply with one of these lines:\n  take wood\n"
        assert split_text(text).written == ("take gold",), head


def test_the_signature_after_the_delimiter_is_unread():
    split = split_text("take gold\n-- \nAnn Example\nwww.example.net\n")
    assert split.written == ("take gold",)
    assert split.unread == ("Ann Example", "www.example.net")


def test_a_signature_ends_at_the_quote():
    split = split_text("take gold\n-- \nAnn\n\nOn Monday pbem wrote:\n> x\nmoves\n")
    assert split.written == ("take gold", "moves")


def test_client_footers_in_three_languages():
    for footer in (
        "Sent from my iPhone",
        "Get Outlook for Android",
        "Odesláno z iPhonu",
        "Odesláno z mého telefonu Samsung",
        "Wysłane z iPhone'a",
        "Wysłano z aplikacji Poczta dla Windows",
    ):
        split = split_text(f"take gold\n\n{footer}\n")
        assert split.written == ("take gold",) and split.footers == (footer,), footer


def test_a_closing_found_by_the_library_is_marked_for_the_reader():
    split = split_text("take gold\n\nS pozdravem,\nPetra Svobodová\nAcme s.r.o.\n")
    assert split.written == ("take gold", "S pozdravem,", "Petra Svobodová", "Acme s.r.o.")
    assert split.closing_at == 1


def test_html_blockquote_and_gmail_quote_are_quotes():
    markup = (
        '<div dir="ltr">vezmi dřevo</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">'
        "po 5. 1. 2026 v 12:00 odesílatel pbem &lt;pbem@example.org&gt; napsal:<br></div>"
        '<blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex">Odpovězte jedním z těchto řádků:<br>'
        "vezmi zlato<br></blockquote></div>"
    )
    assert split_text(html_to_text(markup)).written == ("vezmi dřevo",)


def test_html_outlook_appended_original_is_a_quote():
    markup = (
        '<div>weź drewno</div><div id="appendonsend"></div><hr style="display:inline-block;width:98%">'
        '<div id="divRplyFwdMsg" dir="ltr"><b>Od:</b> pbem<br><b>Wysłane:</b> poniedziałek</div>'
        "<div>Odpowiedz jednym z tych wierszy:<br>weź złoto</div>"
    )
    assert split_text(html_to_text(markup)).written == ("weź drewno",)


def test_html_outlook_desktop_bordered_header_is_a_quote():
    markup = (
        '<p class="MsoNormal">take gold</p><div style="border:none;border-top:solid #E1E1E1 1.0pt;'
        'padding:3.0pt 0cm 0cm 0cm"><p class="MsoNormal"><b>From:</b> pbem</p></div><p>take wood</p>'
    )
    assert split_text(html_to_text(markup)).written == ("take gold",)


def test_html_signature_elements_are_unread():
    markup = '<div>take gold</div><div class="gmail_signature">Ann Example<br>Prague</div>'
    split = split_text(html_to_text(markup))
    assert split.written == ("take gold",) and "Ann Example" in split.unread


def test_bottom_posting_in_html_keeps_the_text_below_the_quote():
    markup = (
        '<div class="moz-cite-prefix">Dne 05. 01. 26 v 12:00 pbem napsal(a):<br></div>'
        '<blockquote type="cite">Jste na tahu.<br>vezmi zlato</blockquote><p>vezmi kámen</p>'
    )
    assert split_text(html_to_text(markup)).written == ("vezmi kámen",)


def test_reading_is_bounded_in_lines_and_time():
    """Each line is matched by anchored patterns over at most MAX_SCAN_CHARS characters, and
    the library sees a bounded copy: a hostile body costs about what a long honest one does."""
    hostile = "\n".join(["On " * 400, "Dne " * 300, "W dniu " * 200, "", "- " * 500, "From: x"] * 2000)
    started = time.perf_counter()
    split = split_text(hostile)
    assert len(split.lines) <= MAX_READ_LINES
    assert time.perf_counter() - started < 30  # a backstop; docs/mail.md has the measured worst case


def test_no_pattern_matches_a_blank_line():
    """A blank line is passed over before the patterns are tried (only a signature goes on
    over it): that holds only while none of them matches an empty line."""
    patterns = (
        letters._ORIGINAL,
        letters._FROM_HEADER,
        letters._ATTRIBUTION,
        letters._OPENER,
        letters._SIGNATURE_MARK,
        letters._FOOTER,
    )
    assert [pattern.match("") for pattern in patterns] == [None] * len(patterns)
    assert split_text("-- \nAnn\n\nann@example.net\n").unread == ("Ann", "ann@example.net")
