"""``update``, the games' fast ``dataclasses.replace``: the same value, never a shared one."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil

import pytest

import pbem.games
from pbem.games.base import update
from pbem.games.kingsburg.state import Player
from pbem.games.warriors_traders.state import Unit


@pytest.mark.parametrize(
    "before, changes",
    [
        (Player(gold=3, buildings=frozenset({"statue"})), {"wood": 2, "passed": True}),
        (Unit(7, 1, "infantry", "w_paris"), {"province": "w_rouen", "ap": 0, "engaged": False}),
        (Unit(7, 1, "infantry", "w_paris", damage=2), {}),
    ],
)
def test_update_equals_replace_and_leaves_the_original_alone(before, changes):
    original = dataclasses.replace(before)
    after = update(before, **changes)
    assert after == dataclasses.replace(before, **changes)
    assert type(after) is type(before) and hash(after) == hash(dataclasses.replace(before, **changes))
    assert before == original  # the old version is unchanged
    assert after.__dict__ is not before.__dict__


def test_update_refuses_a_name_that_is_not_a_field_as_replace_does():
    with pytest.raises(TypeError, match="wod"):
        update(Player(), wod=1)
    with pytest.raises(TypeError):
        dataclasses.replace(Player(), wod=1)  # type: ignore[call-arg]


def test_update_keeps_the_frozen_dataclass_frozen():
    after = update(Player(), gold=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        after.gold = 2  # type: ignore[misc]


def test_no_game_dataclass_relies_on_init_so_update_may_skip_it():
    # ``update`` copies the fields instead of calling ``__init__``: a ``__post_init__`` or an
    # ``init=False`` field in any of the games' dataclasses would make it differ from ``replace``.
    checked = 0
    for info in pkgutil.walk_packages(pbem.games.__path__, "pbem.games."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == module.__name__:
                assert not hasattr(value, "__post_init__"), value
                assert all(f.init for f in dataclasses.fields(value)), value
                checked += 1
    assert checked > 20
