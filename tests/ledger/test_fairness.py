"""Commit-reveal randomness: derived, unbiased, recorded and re-derivable."""

import hashlib
import hmac
from collections import Counter

import pytest

from pbem.ledger import fairness
from pbem.ledger.canonical import NotCanonical, canonical_bytes
from pbem.ledger.commitments import commit, new_salt, public_fact

SEED = bytes(range(32))


def test_seed_commitment_is_sha256_of_the_seed():
    assert fairness.seed_commitment(SEED) == hashlib.sha256(SEED).hexdigest()


def test_same_seed_nonces_and_position_give_the_same_draws():
    a = fairness.DrawRng(SEED, "g", [[0, "x"]], 5)
    b = fairness.DrawRng(SEED, "g", [[0, "x"]], 5)
    assert [a.randint(1, 6) for _ in range(50)] == [b.randint(1, 6) for _ in range(50)]


@pytest.mark.parametrize("change", ["nonce", "position", "game"])
def test_a_nonce_or_position_or_game_changes_the_draws(change):
    base = dict(seed=SEED, game_id="g", nonces=[[0, "x"]], index=5)
    other = dict(base)
    other[{"nonce": "nonces", "position": "index", "game": "game_id"}[change]] = {
        "nonce": [[0, "y"]],
        "position": 6,
        "game": "h",
    }[change]
    a, b = fairness.DrawRng(**base), fairness.DrawRng(**other)
    assert [a.randint(1, 6) for _ in range(30)] != [b.randint(1, 6) for _ in range(30)]


def test_dice_are_uniform():
    rng = fairness.DrawRng(SEED, "g", [], 1)
    counts = Counter(rng.randint(1, 6) for _ in range(60_000))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    # Each face within 5% of 10,000 (about 5 standard deviations): a modulo bias would not pass
    # for large spans, and a broken mapping would not pass at all.
    assert all(9_500 <= n <= 10_500 for n in counts.values()), counts


def test_rejection_sampling_discards_words_that_would_bias():
    rng = fairness.DrawRng(SEED, "g", [], 1)
    limit = (1 << 64) - (1 << 64) % 3
    words = iter([limit + 1, limit, 7])  # the first two lie in the biased tail
    rng._next_word = lambda: next(words)
    assert rng.randint(0, 2) == 7 % 3


def test_transcript_records_every_draw_and_rederives():
    rng = fairness.DrawRng(SEED, "g", [[1, "n"]], 3)
    deck = rng.shuffle(list(range(10)))
    roll = rng.randint(1, 6)
    assert sorted(deck) == list(range(10))
    assert rng.transcript[-1] == [1, 6, roll]
    assert fairness.rederive(SEED, "g", [[1, "n"]], 3, rng.transcript) is None


def test_rederive_names_the_first_forged_draw():
    rng = fairness.DrawRng(SEED, "g", [], 3)
    for _ in range(5):
        rng.randint(1, 6)
    forged = [list(d) for d in rng.transcript]
    forged[2][2] = forged[2][2] % 6 + 1
    assert fairness.rederive(SEED, "g", [], 3, forged) == 2


def test_canonical_bytes_sort_keys_and_refuse_floats():
    assert canonical_bytes({"b": 1, "a": "č"}) == '{"a":"č","b":1}'.encode()
    with pytest.raises(NotCanonical):
        canonical_bytes({"a": 1.5})


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        0,
        "",
        [],
        {},
        {"a": [1, {"b": None, "c": [True, "x"]}]},
        [[[]]],
        1.5,
        {"a": [1, {"b": 2.0}]},
        {1: "x"},
        {"a": {("t",): 1}},
        (1, 2),
        [1, (2,)],
        {"a": b"x"},
        [set()],
    ],
)
def test_the_quick_check_refuses_what_the_worded_check_refuses_with_the_same_words(value):
    from pbem.ledger.canonical import _check, _plain, check_canonical

    try:
        _check(value, "$")
    except NotCanonical as worded:
        assert not _plain(value)
        with pytest.raises(NotCanonical) as refused:
            check_canonical(value)
        assert str(refused.value) == str(worded)
    else:
        assert _plain(value)
        check_canonical(value)


def test_commitment_hides_the_value_and_binds_it():
    salt = new_salt()
    fact = {"kind": "CardDealt", "secret": {"to": [0], "data": {"card": 7}}}
    public = public_fact(fact, salt)
    assert set(public["secret"]) == {"to", "commitment"} and "card" not in str(public)
    assert public["secret"]["commitment"] == commit(salt, {"card": 7})
    assert commit(salt, {"card": 8}) != commit(salt, {"card": 7})
    assert commit(new_salt(), {"card": 7}) != commit(salt, {"card": 7})


@pytest.mark.parametrize("nonces", [[], [[0, "x"], [2, "žluť"]]])
def test_each_block_is_the_hmac_of_the_documented_message(nonces):
    # HMAC-SHA256(seed, canonical(["pbem-draw/1", scope, nonces, index, block])), read as four
    # 64-bit words per block, whatever shortcut builds the message
    rng = fairness.DrawRng(SEED, "g", nonces, 7)
    words = [rng._next_word() for _ in range(4 * 3)]
    expected = []
    for block in range(3):
        message = canonical_bytes(["pbem-draw/1", "g", nonces, 7, block])
        digest = hmac.new(SEED, message, hashlib.sha256).digest()
        expected += [int.from_bytes(digest[i : i + 8], "big") for i in range(0, 32, 8)]
    assert words == expected
