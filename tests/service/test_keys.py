"""The server's keys when several processes start at once on one home (three gateways and the
web site, say): each makes the keys it finds missing, and all must end with the same ones."""

from __future__ import annotations

import stat
import threading

from pbem.service.keys import KeyRing, create_once


def _at_once(count: int, work) -> list:
    """``work(i)`` in ``count`` threads released together; their results in order."""
    start = threading.Barrier(count)
    results: list = [None] * count

    def run(number: int) -> None:
        start.wait()
        results[number] = work(number)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return results


def test_create_once_keeps_the_first_content(tmp_path):
    path = tmp_path / "secret.key"
    assert create_once(path, b"first") is True
    assert create_once(path, b"second") is False
    assert path.read_bytes() == b"first"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["secret.key"]  # no temporary file left


def test_servers_starting_at_once_share_one_seat_token_secret(tmp_path):
    secrets = _at_once(8, lambda _: KeyRing(tmp_path, "pbem.test").token_secret())
    assert len(set(secrets)) == 1 and len(secrets[0]) == 32
    assert (tmp_path / "keys" / "seat-tokens.key").read_bytes() == secrets[0]
    assert sorted(p.name for p in (tmp_path / "keys").iterdir()) == ["seat-tokens.key"]


def test_servers_starting_at_once_sign_with_one_key_and_list_it_once(tmp_path):
    verifiers = _at_once(8, lambda _: str(KeyRing(tmp_path, "pbem.test").signer().verifier))
    assert len(set(verifiers)) == 1
    listed = (tmp_path / "keys" / "verifiers.txt").read_text(encoding="utf-8").splitlines()
    assert listed == [verifiers[0]]
    assert str(KeyRing(tmp_path, "pbem.test").signer().verifier) == verifiers[0]  # as a later start reads it
    assert {stat.S_IMODE(p.stat().st_mode) for p in (tmp_path / "keys").iterdir() if p.suffix == ".pem"} == {0o600}
