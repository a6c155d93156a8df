"""Key lifecycle: rotation keeps old signatures valid; a revoked key's signatures after its
revocation time are reported, and a log only they vouch for is refused."""

import json

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.config import Settings
from pbem.ledger.verify import VerificationError, export_bytes, verify_export
from pbem.service.service import GameService
from pbem.web import create_app
from tests.faults.tamper import resigned_log
from tests.service.helpers import ANN, BOB, started_pig


class Clock:
    def __init__(self):
        self.day = 1

    def __call__(self) -> str:
        return f"2030-01-{self.day:02d}T00:00:00+00:00"


@pytest.fixture
def served(tmp_path):
    clock = Clock()
    service = GameService(Settings(home=tmp_path / "home"), clock=clock)
    game_id = started_pig(service)  # entries of day 1
    clock.day = 5
    service.submit(game_id, ANN, ["hold"])
    yield service, game_id, clock
    service.close()


def test_revoking_the_current_key_rotates_first(served):
    service, _, _ = served
    old = service.keys.signer().verifier
    revocation = service.keys.revoke("2030-01-03T00:00:00+00:00")
    assert revocation.key == old and service.keys.signer().verifier != old
    assert service.keys.revocations() == [revocation] and old in service.keys.verifiers()


def test_a_time_that_is_not_iso_is_refused(served):
    service, _, _ = served
    with pytest.raises(ValueError):
        service.keys.revoke("last tuesday")
    assert service.keys.revocations() == []


def test_signatures_before_the_revocation_stay_valid(served):
    service, game_id, _ = served
    service.keys.revoke("2030-01-10T00:00:00+00:00")
    document = service.export(game_id)
    assert document["revocations"][0]["since"] == "2030-01-10T00:00:00+00:00"
    assert verify_export(document).revoked == []


def test_a_log_vouched_for_only_by_a_revoked_key_is_refused(served):
    service, game_id, _ = served
    service.keys.revoke("2030-01-03T00:00:00+00:00")
    with pytest.raises(VerificationError) as caught:
        verify_export(service.export(game_id))
    assert "revoked since 2030-01-03" in caught.value.what


def test_a_forgery_with_the_leaked_key_is_refused(served):
    service, game_id, _ = served
    leaked = service.keys.signer()
    service.keys.revoke("2030-01-03T00:00:00+00:00")
    document = service.export(game_id)
    forged_entries = [dict(e) for e in document["entries"]]
    forged_entries[4]["command"] = "roll"
    with pytest.raises(VerificationError, match="revoked"):
        verify_export(resigned_log(document, forged_entries, leaked))


def test_a_later_good_signature_covers_earlier_revoked_ones(served):
    service, game_id, clock = served
    service.keys.revoke("2030-01-03T00:00:00+00:00")
    clock.day = 6
    service.submit(game_id, BOB, ["hold"])  # signed with the new key
    report = verify_export(service.export(game_id))
    assert len(report.revoked) == 1 and "size 5" in report.revoked[0]


def test_verify_takes_the_published_revocations(served, tmp_path):
    service, game_id, _ = served
    service.keys.revoke("2030-01-03T00:00:00+00:00")
    document = service.export(game_id)
    del document["revocations"]  # a forger leaves them out of the export
    export = tmp_path / "export.json"
    export.write_bytes(export_bytes(document))
    assert CliRunner().invoke(main, ["verify", str(export)]).exit_code == 0
    published = create_app(service).test_client().get("/keys/revoked.txt").get_data(as_text=True)
    revoked = tmp_path / "revoked.txt"
    revoked.write_text(published)
    result = CliRunner().invoke(main, ["verify", str(export), "--revoked", str(revoked)])
    assert result.exit_code == 1 and "revoked since 2030-01-03" in result.output


def test_keys_json_and_page_show_revocations(served):
    service, _, _ = served
    revocation = service.keys.revoke("2030-01-03T00:00:00+00:00")
    client = create_app(service).test_client()
    assert json.loads(client.get("/keys.json").data)["revoked"] == [revocation.to_dict()]
    assert "revoked since 2030-01-03" in client.get("/keys").get_data(as_text=True)


def test_pbem_key_rotate_and_revoke(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_HOME", str(tmp_path / "home"))
    first = CliRunner().invoke(main, ["key"]).output.strip()
    second = CliRunner().invoke(main, ["key", "rotate"]).output.strip()
    assert first != second
    result = CliRunner().invoke(main, ["key", "revoke", "--since", "2030-01-03T00:00:00+00:00", first])
    assert result.exit_code == 0 and f"revoked {first}" in result.output
    assert CliRunner().invoke(main, ["key"]).output.strip() == second
