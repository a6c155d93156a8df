"""People's names for seats (pbem/service/names.py): cleaned, bounded, unique within a game."""

from __future__ import annotations

from pbem.service.names import MAX_NAME, clean_name, seat_names


def test_a_name_is_kept_as_written():
    assert clean_name("Jan Novák") == "Jan Novák" and clean_name("Łucja Żak-Wójcik") == "Łucja Żak-Wójcik"


def test_a_name_has_no_control_characters_and_no_address():
    assert clean_name("Jan\x00 \u202eNovák\r\n") == "Jan Novák"  # NUL, a bidirectional override, CR LF
    assert clean_name('"Eve" <eve@evil.example>') == "Eve eveevil.example"
    assert clean_name(" \x07 ") is None and clean_name("") is None and clean_name(None) is None


def test_a_long_name_is_cut_at_a_space_within_the_cap():
    name = clean_name("Jan " + "Novák " * 20)
    assert name is not None and len(name) <= MAX_NAME and name.endswith("Novák")
    assert clean_name("x" * 500) == "x" * MAX_NAME


def test_two_seats_never_share_a_name():
    emails = ["jan@a.cz", "jan.novak@b.cz", "petra@c.cz", "jan@d.cz"]
    names = seat_names(emails, ["Jan", "jan", None, None])
    assert names == ["Jan", "jan (2)", "petra", "jan-4"]
    assert len({n.casefold() for n in names}) == len(names)


def test_without_names_seats_are_the_local_parts():
    assert seat_names(["ann@x.org", "bob@y.org"]) == ["ann", "bob"]
