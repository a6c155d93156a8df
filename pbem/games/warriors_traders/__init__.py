"""Warriors & Traders (Andrei Novac, NSKN 2011; Czech "Válečníci a obchodníci", first edition).

A pure game package: rules data in ``data/``, the state in ``state.py``, the phases in
``flow.py`` (maintenance, end of turn), ``trade.py``, ``development.py``, ``maneuvers.py`` and
``battle.py``, victory points in ``scoring.py``, orders in ``moves.py``, pictures in
``render.py``. See docs/games/warriors-traders.md.
"""

from pbem.games.warriors_traders.spec import SPEC, WarriorsTraders

__all__ = ["SPEC", "WarriorsTraders"]
