"""``pbem witness URL...``: watch games' signed checkpoints, co-sign those that extend what
was seen before, and raise the alarm with proof at a split view."""

from __future__ import annotations

import json
import socket
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import click

from pbem.ledger.notes import NoteError, SignerKey, VerifierKey
from pbem.ledger.witness import Observation, Seen, cosign, observe
from pbem.service.witnesses import WitnessFolder, published


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=15) as response:  # the site's public pages only
        body: bytes = response.read()
        return body.decode("utf-8")


def _site(game_url: str) -> str:
    return game_url.split("/games/", 1)[0]


def _proof_fetcher(urls: dict[str, str]) -> Callable[[str, int, int], list[bytes]]:
    def fetch(origin: str, old: int, new: int) -> list[bytes]:
        document = json.loads(_get(f"{urls[origin]}/proofs/consistency/{old}/{new}.json"))
        return [bytes.fromhex(p) for p in document["path"]]

    return fetch


@click.command("witness")
@click.argument("urls", nargs=-1, required=True)
@click.option(
    "--dir",
    "folder",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("pbem-witness"),
    show_default=True,
    help="the witness's own store and published cosignatures",
)
@click.option("--name", default=None, help="the witness's key name on first run (default: witness.<host name>)")
@click.option(
    "--key",
    "keys",
    multiple=True,
    help="the log's verifier key (repeat); default: the site's /keys.txt on first contact",
)
@click.option(
    "--peer",
    "peers",
    multiple=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="another witness's published folder: its cosigned checkpoints are compared with ours",
)
def witness(
    urls: tuple[str, ...], folder: Path, name: str | None, keys: tuple[str, ...], peers: tuple[Path, ...]
) -> None:
    """Fetch each game's latest checkpoint (URL is a game's page, e.g. https://site/games/ID),
    check it extends the one seen before (RFC 9162 consistency proof), co-sign it and publish
    the cosignature in DIR/cosigned/. Exit 1 when a split view is found; the evidence is
    printed and kept in DIR/alarms/."""
    store = WitnessFolder(folder)
    signer = store.signer(name or f"witness.{socket.gethostname()}")
    state, log_keys, sources = store.load()
    trusted = [VerifierKey.parse(k) for k in keys]
    alarms = 0
    for url in (u.rstrip("/") for u in urls):
        seen = _fetched(url, trusted, log_keys, state, sources)
        if seen is not None:
            alarms += _record(store, signer, state, seen)
    for peer in peers:
        for seen in _peer_alarms(peer, state, log_keys, sources):
            alarms += _record(store, signer, state, seen)
    store.save(state, log_keys, sources)
    sys.exit(1 if alarms else 0)


def _fetched(
    url: str,
    trusted: list[VerifierKey],
    log_keys: dict[str, list[VerifierKey]],
    state: dict[str, Seen],
    sources: dict[str, str],
) -> Observation | None:
    """The site's latest checkpoint held against the one seen before (its log's keys and
    source noted), or None when it could not be fetched or read (said on stderr)."""
    try:
        note = _get(f"{url}/checkpoint")
        origin = note.split("\n", 1)[0]
        known = (
            log_keys.get(origin) or trusted or [VerifierKey.parse(k) for k in _get(f"{_site(url)}/keys.txt").split()]
        )
        sources[origin] = url
        seen = observe(state.get(origin), note, known, _proof_fetcher(sources))
    except (OSError, ValueError, NoteError) as error:
        click.echo(f"error: {url}: {error}", err=True)
        return None
    log_keys[origin] = known
    return seen


def _peer_alarms(
    peer: Path, state: dict[str, Seen], log_keys: dict[str, list[VerifierKey]], sources: dict[str, str]
) -> list[Observation]:
    """The split views another witness's published cosignatures show against ours (a peer's
    view only raises alarms; we co-sign what we fetched)."""
    found = []
    for peer_note in published(peer):
        origin = peer_note.split("\n", 1)[0]
        if origin not in state:
            continue
        try:
            seen = observe(state[origin], peer_note, log_keys[origin], _proof_fetcher(sources))
        except NoteError as error:
            click.echo(f"error: {peer}: {error}", err=True)
            continue
        if seen.alarm:
            seen.explanation += f" (the other one was co-signed by the witness at {peer})"
            found.append(seen)
    return found


def _record(store: WitnessFolder, signer: SignerKey, state: dict[str, Seen], seen: Observation) -> int:
    now = int(time.time())
    if seen.alarm:
        report = seen.report()
        path = store.alarm(seen.origin, report, now)
        click.echo(f"{report}(evidence kept in {path})")
        return 1
    if seen.status in ("new", "grew") and seen.seen is not None:
        state[seen.origin] = seen.seen
        store.publish(seen.origin, cosign(seen.seen.note, signer, now))
    click.echo(seen.report())
    return 0


def register(group: click.Group) -> None:
    group.add_command(witness)
