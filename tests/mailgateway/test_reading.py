"""Reading a letter into commands (``pbem.mailroom.reading``): what is forgiven at the edges,
what still stops a batch, and where the subject counts. One test per rule."""

from __future__ import annotations

from pbem.mailroom import commands as cmd
from pbem.mailroom.reading import NotRead, Order, normal, read_letter, sender_names

MOVES = {"take gold", "take wood", "vezmi dřevo", "weź drewno", "roll", "hold"}


def recognise(line: str) -> cmd.Command | Order | None:
    command = cmd.parse_command(line)
    if command is not None and command.name in cmd.SEAT_COMMANDS:
        return command
    return Order(line) if line.lower() in MOVES or line.startswith("take ") else None


def texts(reading) -> list[str]:
    return [c.text for c in reading.commands]


def test_a_greeting_above_the_commands_is_not_read_and_listed():
    reading = read_letter(["Ahoj,", "vezmi dřevo"], recognise)
    assert texts(reading) == ["vezmi dřevo"]
    assert reading.not_read == (NotRead("Ahoj,", "greeting"),)


def test_greetings_in_three_languages():
    for line in ("Hi Bob,", "Dobrý den", "Cześć wszystkim!", "Witam", "Dear all", "Here is my move:"):
        assert texts(read_letter([line, "take gold"], recognise)) == ["take gold"], line


def test_a_sign_off_and_a_bare_name_below_the_commands_are_not_read():
    reading = read_letter(["take gold", "Díky!", "Petra"], recognise)
    assert texts(reading) == ["take gold"]
    assert reading.not_read == (NotRead("Díky!", "sign-off"), NotRead("Petra", "name"))


def test_a_lower_case_name_counts_when_it_is_the_senders():
    names = sender_names("petra.svobodova@example.cz")
    assert texts(read_letter(["take gold", "petra"], recognise, names=names)) == ["take gold"]
    assert texts(read_letter(["take gold", "karel"], recognise, names=names)) == ["take gold", "karel"]


def test_a_bad_line_between_commands_stays_a_command_and_stops_the_batch():
    assert texts(read_letter(["take gold", "tkae wood", "take wood"], recognise)) == [
        "take gold",
        "tkae wood",
        "take wood",
    ]


def test_a_mistyped_command_alone_is_read_so_its_error_is_answered():
    reading = read_letter(["tkae gold"], recognise)
    assert reading.commands == (Order("tkae gold"),) and reading.not_read == ()


def test_a_mail_of_greetings_only_has_no_command():
    reading = read_letter(["Ahoj,", "nevím, co teď?", "Petra"], recognise)
    assert reading.commands == () and len(reading.not_read) == 3


def test_case_spaces_and_a_trailing_full_stop_never_matter():
    assert normal("  take   gold.  ") == "take gold"
    assert normal("take gold...") == "take gold..."  # an ellipsis is no full stop
    assert texts(read_letter(["Take  Gold."], recognise)) == ["Take Gold"]


def test_service_words_in_czech_and_polish_without_diacritics():
    for line, name in (
        ("nová kingsburg", "new"),
        ("nowa kingsburg", "new"),
        ("dołącz", "join"),
        ("dolacz", "join"),
        ("připojit", "join"),
        ("język pl", "language"),
        ("jezyk pl", "language"),
        ("potwierdź abc", "confirm"),
        ("tahy", "legal"),
        ("ruchy", "legal"),
        ("stan", "status"),
        ("historia g", "history"),
        ("szablon", "template"),
        ("poddaję", "resign"),
        ("nieobecność off", "absence"),
        ("obserwuj g", "subscribe"),
        ("gry", "games"),
    ):
        command = cmd.parse_command(line)
        assert command is not None and command.name == name, line


def test_the_subject_is_read_when_the_body_has_no_command():
    reading = read_letter(["Ahoj"], recognise, subject="Re: [pbem] kingsburg-0a1b2c3d: take gold")
    assert reading.from_subject and texts(reading) == ["take gold"]


def test_a_subject_that_is_no_command_is_not_read():
    reading = read_letter([], recognise, subject="Re: [pbem] kingsburg-0a1b2c3d: your turn - Turn 4")
    assert reading.commands == () and not reading.from_subject


def test_pbems_own_subject_is_never_read_as_a_command():
    for subject in (
        "Re: [pbem] kingsburg-0a1b2c3d: moves applied - Turn 5 (year 1, King's aid: cho...)",
        "Re: [pbem] kingsburg-0a1b2c3d: tahy provedeny - tah 5",
        "Odp: [pbem] kingsburg-0a1b2c3d: ruchy wykonane - tura 5 (rok 1)",
    ):
        assert read_letter(["Ahoj"], recognise, subject=subject).commands == (), subject


def test_a_closing_signature_is_not_read_unless_a_command_follows():
    reading = read_letter(["take gold", "S pozdravem,", "Acme s.r.o.", "+420 123 456"], recognise, closing_at=1)
    assert texts(reading) == ["take gold"]
    assert [n.why for n in reading.not_read] == ["signature", "signature", "signature"]
    reading = read_letter(["Thanks, here is my move:", "take gold"], recognise, closing_at=0)
    assert texts(reading) == ["take gold"]


def test_unread_signature_lines_and_attachments_are_listed():
    reading = read_letter(
        ["take gold"], recognise, unread=["Ann Smith"], footers=["Sent from my iPhone"], attachments=["photo.jpg"]
    )
    assert reading.not_read == (
        NotRead("Ann Smith", "signature"),
        NotRead("Sent from my iPhone", "footer"),
        NotRead("photo.jpg", "attachment"),
    )
