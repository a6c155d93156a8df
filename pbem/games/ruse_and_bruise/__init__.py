"""Ruse & Bruise (Kabale und Hiebe, Czech "Královské rošády"; Lutz Stepponat, Hans im Glück 2006).

Rules: ../shared/seeds/001_1aa13310cfe53526.txt; card data and open questions:
../shared/games/ruse_and_bruise/. Decisions are documented in docs/games/ruse-and-bruise.md.
"""

from .spec import RuseAndBruise

SPEC = RuseAndBruise()

__all__ = ["SPEC", "RuseAndBruise"]
