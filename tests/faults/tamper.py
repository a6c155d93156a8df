"""Walking an export: every value path, and a change for each kind of value."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from typing import Any

Path = tuple[Any, ...]
PLACE = re.compile(
    r"^(format|game|origin|keys|entries|checkpoints|openings|file|byte \d+|"
    r"entry \d+( \([^()]*\))?(, (fact|draw) \d+)?|checkpoint \d+|opening \d+)$"
)


def value_paths(value: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from value_paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from value_paths(item, (*path, index))


def changes(value: Any) -> Iterator[tuple[str, Any]]:
    """Each kind of change that fits the value: scalars are altered, lists grow and shrink,
    objects gain a field."""
    if isinstance(value, bool):
        yield "flipped", not value
    elif isinstance(value, int):
        yield "plus one", value + 1
        yield "negated", -value - 1
    elif isinstance(value, str):
        yield "appended", value + "x"
        if value:
            yield "first character changed", ("0" if value[0] != "0" else "1") + value[1:]
    elif value is None:
        yield "null to 0", 0
    elif isinstance(value, list):
        yield "item added", [*value, copy.deepcopy(value[-1]) if value else 0]
        if value:
            yield "last item removed", value[:-1]
        if len(value) > 1:
            yield "first two swapped", [value[1], value[0], *value[2:]]
    elif isinstance(value, dict):
        yield "field added", {**value, "tampered": 1}
        for key in list(value)[:1]:
            yield f"field {key!r} removed", {k: v for k, v in value.items() if k != key}


def replaced(document: dict[str, Any], path: Path, value: Any) -> dict[str, Any]:
    changed = copy.deepcopy(document)
    target = changed
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return changed


def all_changes(document: dict[str, Any]) -> list[tuple[Path, str, Any]]:
    return [
        (path, kind, new)
        for path, value in value_paths(document)
        if path
        for kind, new in changes(value)
        if new != value
    ]


def names_the_place(path: Path, where: str, message: str) -> bool:
    """The error's place is a known one and fits the changed path: a change to entry i (or
    its opening) is named by entry i or the first later entry that no longer fits, or by the
    first checkpoint whose signed root covers entry i (its message names the span of entries
    it covers anew)."""
    if not PLACE.match(where):
        return False
    if path[0] in ("entries", "openings") and len(path) > 1:
        index = path[1]
        named = re.match(r"(entry|opening) (\d+)", where)
        if named:  # checks run in log order: a change is noticed at the entry or after it
            return int(named.group(2)) >= index
        span = re.search(r"entry (\d+) or an earlier|entries (\d+) to (\d+)", message)
        if where.startswith("checkpoint") and span:
            low = int(span.group(1) or span.group(2))
            high = int(span.group(1) or span.group(3))
            return low <= index <= high
        return where in ("entries", "openings")
    if path[0] == "checkpoints" and len(path) > 1:
        return where in (f"checkpoint {path[1]}", "checkpoints")
    return True


def resigned_log(document: dict[str, Any], entries: list[dict[str, Any]], signer: Any) -> dict[str, Any]:
    """The export a dishonest server holding the signing key would publish for ``entries``:
    checkpoints at the old sizes that still fit, and one over the whole log, all signed."""
    from pbem.ledger.canonical import canonical_bytes
    from pbem.ledger.merkle import leaf_hash, prefix_roots
    from pbem.ledger.notes import Checkpoint, sign_checkpoint

    sizes = sorted({item["size"] for item in document["checkpoints"] if item["size"] < len(entries)} | {len(entries)})
    roots = prefix_roots([leaf_hash(canonical_bytes(entry)) for entry in entries], sizes)
    checkpoints = [
        {"size": size, "note": sign_checkpoint(Checkpoint(document["origin"], size, roots[size]), signer)}
        for size in sizes
    ]
    openings = document.get("openings") if entries[-1]["kind"] == "ended" else None  # as a running game
    return {
        **copy.deepcopy(document),
        "entries": copy.deepcopy(entries),
        "checkpoints": checkpoints,
        "openings": copy.deepcopy(openings),
    }


def truncated(document: dict[str, Any], size: int) -> dict[str, Any]:
    """The export cut back to its signed checkpoint of ``size`` entries (no new signature)."""
    entries = copy.deepcopy(document["entries"][:size])
    return {
        **copy.deepcopy(document),
        "entries": entries,
        "checkpoints": [item for item in document["checkpoints"] if item["size"] <= size],
        "openings": copy.deepcopy(document.get("openings")) if entries[-1]["kind"] == "ended" else None,
    }


def rewritten_move(document: dict[str, Any], index: int, signer: Any, extra: int = 0) -> dict[str, Any]:
    """The log rolled back to before entry ``index``, which is replaced by another (its time
    moved on a second), then ``extra`` copies of it appended: a rollback when ``extra`` is 0,
    a fork that grew past the original when more."""
    from datetime import datetime, timedelta

    entries = copy.deepcopy(document["entries"][: index + 1])
    later = datetime.fromisoformat(entries[index]["time"]) + timedelta(seconds=1)
    entries[index]["time"] = later.isoformat(timespec="seconds")
    for number in range(extra):
        entries.append({**copy.deepcopy(entries[index]), "index": index + 1 + number})
    return resigned_log(document, entries, signer)


def kind_of(path: Path, change: str) -> tuple[Path, str]:
    """A change's kind: the place (indexes generalised, two levels deep) and how it changed."""
    return tuple("*" if isinstance(p, int) else p for p in path[:3]), change


def detection(document: dict[str, Any], held: list[tuple[str, Any]]) -> str | None:
    """What ``pbem verify --receipts`` says of ``document`` for a player holding ``held``: the
    refusal, the verdict against what they hold, or None when it passes."""
    from pbem.ledger.consistency import compare, read_held
    from pbem.ledger.notes import VerifierKey
    from pbem.ledger.verify import VerificationError, export_bytes, verify_bytes

    try:
        verify_bytes(export_bytes(document))
    except VerificationError as error:
        return f"refused ({error.where})"
    keys = [VerifierKey.parse(k) for k in document["keys"]]
    findings = compare(document, read_held(held, keys).held, keys)
    return findings[0].verdict if findings else None


def census(service: Any, game_id: str) -> dict[str, tuple[int, int, set[str]]]:
    """Every kind of tampering with one game's export, each checked as a player holding one
    receipt or the latest checkpoint would: {case: (tried, detected, verdicts)}."""
    document = service.export(game_id)
    latest = [("latest checkpoint", service.game(game_id).checkpoint_at())]
    signer = service.keys.signer()
    results: dict[str, tuple[int, int, set[str]]] = {}

    def tally(case: str, outcome: str | None) -> None:
        tried, found, verdicts = results.get(case, (0, 0, set()))
        verdict = outcome.split(" (")[0] if outcome else None
        results[case] = (tried + 1, found + (outcome is not None), verdicts | ({verdict} if verdict else set()))

    kinds: dict[tuple[Path, str], tuple[Path, Any]] = {}
    for path, change, new in all_changes(document):
        kinds.setdefault(kind_of(path, change), (path, new))
    for path, new in kinds.values():
        tally("kinds of change to a value (place x change)", detection(replaced(document, path, new), latest))
    for item in document["checkpoints"][:-1]:
        tally("truncation to an earlier signed checkpoint", detection(truncated(document, item["size"]), latest))
    for index in range(1, len(document["entries"])):
        signed = min(item["size"] for item in document["checkpoints"] if item["size"] > index)
        receipt = [("receipt", service.receipt(game_id, index, signed))]  # as the reply mail carried it
        tally("rollback: entry replaced at its index", detection(rewritten_move(document, index, signer), receipt))
        if document["entries"][index]["kind"] == "moved":  # the forged log grows on with moves
            forked = rewritten_move(document, index, signer, extra=2)
            tally("fork: a move replaced, log grown on", detection(forked, receipt))
    return results
