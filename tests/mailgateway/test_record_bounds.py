"""Issue 28, item 5: the mail records (a seat's keys, an address's settings, a game's
observers) are read again for every later mail, so one mail may change them only a few times
and they are snapshotted like the games: a mail of a hundred ``rotate`` or ``language`` lines
cannot make every later mail of the game slower. Through real SMTP."""

from __future__ import annotations

from pbem.mailroom.desk import MAX_RECORD_CHANGES
from pbem.mailroom.records import Correspondent
from tests.mailgateway.conftest import address_of, make_mail, started_pig, text_of

ANN, BOB = "ann@example.com", "bob@example.com"


def test_one_mail_changes_the_mail_records_at_most_five_times(gw, smtp, transport):
    game_id = started_pig(gw, transport, [ANN, BOB])
    address = address_of(gw, game_id, ANN)
    assert gw.service.seat_keys(game_id) is None  # no seat's address was ever rotated
    body = "rotate\n" * 30 + "subscribe\nunsubscribe\n" * 15 + "language cs\nlanguage en\n" * 10
    assert smtp(make_mail(ANN, address, body), ANN, address) == 250
    gw.work()
    keys = gw.service.seat_keys(game_id)
    assert keys.generations == {"0": 5} and MAX_RECORD_CHANGES == 5  # five rotations, then refusals
    assert gw.service.record(Correspondent.create_id(ANN)) is None  # no language line got through
    (reply,) = transport.to(ANN)
    assert "at most 5 lines that change settings" in " ".join(text_of(reply).split())


def test_mail_records_are_snapshotted_so_they_load_in_bounded_time(gw, smtp, transport):
    game_id = started_pig(gw, transport, [ANN, BOB])
    address = address_of(gw, game_id, ANN)
    for _ in range(8):  # 40 changes of ann's settings, five a mail
        smtp(make_mail(ANN, address, "pictures off\npictures on\n" * 2 + "pictures off"), ANN, address)
    gw.work()
    person_id = Correspondent.create_id(ANN)
    assert gw.service.record(person_id).version == 41  # registered, then 40 changes
    snapshots = list(gw.service.store.snapshots.get(person_id))
    interval = gw.service.store.record_interval
    assert interval < 41 and snapshots  # loading it reads the newest snapshot and fewer events than the interval
    assert 41 - interval < snapshots[-1].originator_version <= 41
