"""Kingdom Builder (Donald X. Vaccarino, Queen Games 2011) for 2-4 players. See
docs/games/kingdom-builder.md for commands, coordinates and rules decisions."""

from .spec import SPEC, KingdomBuilder

__all__ = ["SPEC", "KingdomBuilder"]
