"""A log's time never runs backwards: the service keeps it monotonic, verify checks it."""

import pytest

from pbem.config import Settings
from pbem.ledger.entries import not_before
from pbem.ledger.verify import VerificationError, verify_export
from pbem.service.service import GameService
from tests.faults.tamper import resigned_log
from tests.service.helpers import ANN, started_pig


class SettableClock:
    def __init__(self, now: str):
        self.now = now

    def __call__(self) -> str:
        return self.now


def test_an_entry_never_gets_a_time_before_the_previous():
    previous = {"time": "2030-01-10T00:00:00+00:00"}
    assert not_before({"time": "2030-01-01T00:00:00+00:00"}, previous)["time"] == previous["time"]
    assert not_before({"time": "2030-01-11T00:00:00+00:00"}, previous)["time"] == "2030-01-11T00:00:00+00:00"
    assert not_before({"time": "2030-01-10T01:00:00+01:00"}, previous)["time"] == "2030-01-10T01:00:00+01:00"


def test_a_clock_set_back_does_not_move_the_log_back(tmp_path):
    clock = SettableClock("2030-01-10T00:00:00+00:00")
    service = GameService(Settings(home=tmp_path / "home"), clock=clock)
    game_id = started_pig(service)
    clock.now = "2029-12-31T00:00:00+00:00"  # ten days back
    service.submit(game_id, ANN, ["hold"])
    times = [entry["time"] for entry in service.game(game_id).entries]
    assert times[-1] == "2030-01-10T00:00:00+00:00"
    verify_export(service.export(game_id))
    service.close()


def test_verify_refuses_a_signed_log_whose_time_runs_backwards(tmp_path):
    service = GameService(Settings(home=tmp_path / "home"), clock=SettableClock("2030-01-10T00:00:00+00:00"))
    game_id = started_pig(service)
    service.submit(game_id, ANN, ["hold"])
    document = service.export(game_id)
    entries = [dict(entry) for entry in document["entries"]]
    entries[4]["time"] = "2029-12-31T00:00:00+00:00"
    backwards = resigned_log(document, entries, service.keys.signer())  # signed by the server itself
    with pytest.raises(VerificationError) as caught:
        verify_export(backwards)
    assert caught.value.where.startswith("entry 4") and "backwards" in caught.value.what
    service.close()
