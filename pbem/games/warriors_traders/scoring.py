"""Victory points: provinces, standing forts, kills, bought VP, titles; thresholds; standings."""

from __future__ import annotations

from typing import Any

from pbem.games.base import Standing, rank_by
from pbem.games.warriors_traders.data import RULES, TRACKS
from pbem.games.warriors_traders.state import State


def title_holders(state: State) -> dict[str, int | None]:
    """Each title goes to the one player furthest along its track (tokens count, so partial
    progress towards the next level counts, FAQ L996-999); a tie leaves it unawarded."""
    holders: dict[str, int | None] = {}
    for index, track in enumerate(TRACKS):
        tokens = [p.tokens[index] for p in state.players]
        best = max(tokens)
        holders[track] = tokens.index(best) if tokens.count(best) == 1 else None
    return holders


def vp_sources(state: State, seat: int) -> dict[str, int]:
    player = state.players[seat]
    gmap = state.gmap
    provinces = sum(gmap.provinces[p].vp for p, o in zip(gmap.provinces, state.owners, strict=False) if o == seat)
    forts = sum(1 for u in state.units if u.owner == seat and u.kind == "fort")
    titles = sum(1 for holder in title_holders(state).values() if holder == seat)
    return {
        "provinces": provinces,
        "forts": forts * RULES.unit("fort")["standing_vp"],
        "kills": player.kills,
        "bought": player.bought,
        "titles": titles * RULES.value("title_vp"),
    }


def vp(state: State, seat: int) -> int:
    return sum(vp_sources(state, seat).values())


def team_vp(state: State) -> dict[int, int]:
    totals: dict[int, int] = {}
    for seat, player in enumerate(state.players):
        totals[player.team] = totals.get(player.team, 0) + vp(state, seat)
    return totals


def alliance_format(state: State) -> str:
    sizes: dict[int, int] = {}
    for player in state.players:
        sizes[player.team] = sizes.get(player.team, 0) + 1
    return "v".join(str(n) for n in sorted(sizes.values(), reverse=True))


def threshold(state: State) -> int:
    if state.config.alliance:
        return RULES.value("thresholds_alliance")[alliance_format(state)]
    return RULES.value("thresholds_free_for_all")[str(len(state.players))]


def threshold_reached(state: State) -> bool:
    """Reaching the table's number at the end of a turn ends the game (FAQ L1000-1004)."""
    return max(team_vp(state).values()) >= threshold(state)


def standings(state: State) -> list[Standing]:
    totals = team_vp(state)
    ranks = rank_by({p.team: (v,) for p, v in ((state.players[s], totals[state.players[s].team]) for s in state.seats)})
    out = []
    for seat, player in enumerate(state.players):
        details: dict[str, Any] = {"country": player.country, "sources": vp_sources(state, seat)}
        if state.config.alliance:
            details["team"] = player.team + 1
            details["team_vp"] = totals[player.team]
        out.append(Standing(seat, ranks[player.team], vp(state, seat), details))
    return out
