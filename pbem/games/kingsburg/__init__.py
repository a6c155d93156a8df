"""Kingsburg (Chiarvesio, Iennaco 2007) for 2-5 players: the complete base game with both
variants of the Czech rulebook. The rules reference is docs/games/kingsburg.md."""

from pbem.games.kingsburg.game import SPEC, Kingsburg

__all__ = ["SPEC", "Kingsburg"]
