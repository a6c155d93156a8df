"""Exports verify offline; any changed byte or value is caught and named."""

import json

import pytest

from pbem.cli.core import play_to_end
from pbem.ledger.notes import SignerKey, VerifierKey
from pbem.ledger.verify import VerificationError, export_bytes, verify_bytes, verify_export
from pbem.service.service import GameService
from tests.service.helpers import started_pig


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    from pbem.config import Settings

    service = GameService(Settings(home=tmp_path_factory.mktemp("home")))
    game_id = started_pig(service, seed=None)
    play_to_end(service, game_id, seed=3)
    return service, game_id, service.export(game_id)


def _paths(value, path=()):
    """Every scalar in a JSON document, as a path of keys and indexes."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*path, index))
    else:
        yield path


def _changed(document, path):
    copy = json.loads(json.dumps(document))
    target = copy
    for step in path[:-1]:
        target = target[step]
    old = target[path[-1]]
    if isinstance(old, bool):
        new = not old
    elif isinstance(old, int):
        new = old + 1
    elif isinstance(old, str):
        new = old[:-1] + ("0" if old[-1:] != "0" else "1") if old else "x"
    else:
        new = "x"
    target[path[-1]] = new
    return copy


def test_a_finished_game_verifies_completely(finished):
    _, _, document = finished
    report = verify_bytes(export_bytes(document))
    assert report.ended
    text = " ".join(report.checked)
    for claim in ("checkpoints", "seed", "hidden facts", "random draws", "replaying"):
        assert claim in text


def test_a_running_game_verifies_its_chain_and_says_what_waits_for_the_end(tmp_path):
    from pbem.config import Settings

    service = GameService(Settings(home=tmp_path))
    game_id = started_pig(service)
    report = verify_bytes(export_bytes(service.export(game_id)))
    assert not report.ended
    assert any("has not ended" in line for line in report.not_checked)


def test_every_changed_value_in_an_export_is_detected_and_placed(finished):
    _, _, document = finished
    paths = list(_paths(document))
    assert len(paths) > 100
    for path in paths:
        with pytest.raises(VerificationError) as failure:
            verify_export(_changed(document, path))
        assert failure.value.where, path


def test_a_changed_entry_is_named_by_the_checkpoint_that_covers_it(finished):
    _, _, document = finished
    changed = _changed(document, ("entries", 6, "time"))
    with pytest.raises(VerificationError) as failure:
        verify_export(changed)
    assert "entry 6" in str(failure.value) and "checkpoint" in failure.value.where


def test_a_changed_opening_is_named(finished):
    _, _, document = finished
    index = next(i for i, e in enumerate(document["entries"]) if e["kind"] == "started")
    changed = _changed(document, ("openings", index, "facts", 1, "secret", "data", "card"))
    with pytest.raises(VerificationError) as failure:
        verify_export(changed)
    assert f"entry {index}" in failure.value.where and "fact 1" in failure.value.where


def test_every_changed_byte_is_detected(finished):
    _, _, document = finished
    data = export_bytes(document)
    for offset in range(0, len(data), max(1, len(data) // 400)):
        forged = bytearray(data)
        forged[offset] = (forged[offset] + 1) % 256
        with pytest.raises(VerificationError):
            verify_bytes(bytes(forged))


def test_a_foreign_key_is_not_trusted(finished):
    _, _, document = finished
    stranger = SignerKey.generate("pbem.localhost").verifier
    with pytest.raises(VerificationError, match="signature"):
        verify_export(document, [stranger])


def test_the_servers_published_key_is_trusted(finished):
    service, _, document = finished
    report = verify_export(document, [VerifierKey.parse(str(service.keys.signer().verifier))])
    assert report.ended and not report.not_checked


def test_old_keys_still_verify_after_rotation(tmp_path):
    from pbem.config import Settings

    service = GameService(Settings(home=tmp_path))
    game_id = started_pig(service)
    old = service.keys.signer().verifier
    new = service.keys.rotate().verifier
    service.submit(game_id, service.game(game_id).emails[0], ["hold"])
    document = service.export(game_id)
    assert {str(old), str(new)} <= set(document["keys"])
    verify_bytes(export_bytes(document))
