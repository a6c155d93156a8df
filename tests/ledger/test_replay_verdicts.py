"""What verify says when the rules replay disagrees with a finished game: rules that draw
otherwise give "other facts"; only draws that do not re-derive from the seed are "not fair"."""

from __future__ import annotations

import pytest

from pbem.games import catalog
from pbem.ledger.verify import VerificationError, verify_export
from tests.ops.helpers import finished_game, service_at


def _rolling_twice(decide):
    def decide_with_an_extra_die(self, state, seat, move, rng):
        if move == "roll":
            rng.randint(1, 6)  # a changed rule: one more die drawn before the one that counts
        return decide(self, state, seat, move, rng)

    return decide_with_an_extra_die


def test_rules_that_draw_otherwise_give_other_facts_not_an_unfair_die(tmp_path, monkeypatch):
    svc = service_at(tmp_path)
    # test seeds: their draws are bound to the seed alone, not to the (random) game id; four
    # games, as re-deriving a die with a wrong binding still matches by chance one time in six
    documents = [svc.export(finished_game(svc, "hidden-pig", seed=seed)) for seed in range(1, 5)]
    svc.close()
    for document in documents:
        assert document["entries"][0]["seed_source"] == "test"
        verify_export(document)  # positive control: each verifies with the rules it was played by

    spec_type = type(catalog()["hidden-pig"])
    monkeypatch.setattr(spec_type, "decide", _rolling_twice(spec_type.decide))
    for document in documents:
        with pytest.raises(VerificationError) as refused:
            verify_export(document)
        assert "gives other facts" in refused.value.what
        assert "not fair" not in str(refused.value)
