"""What a seat (or the public) sees: everything on the table, except damage a seat has
assigned in a battle that is not resolved yet (only that seat sees it)."""

from __future__ import annotations

from typing import Any

from pbem.games.warriors_traders import rules, scoring
from pbem.games.warriors_traders.data import RESOURCES, TRACKS
from pbem.games.warriors_traders.state import State, level, track_value


def _player(state: State, seat: int, viewer: int | None) -> dict[str, Any]:
    p = state.players[seat]
    if state.phase == "setup" and viewer != seat:
        # starting tokens are placed in secret until everybody has placed them
        return {
            "seat": seat,
            "country": p.country,
            "country_name": state.gmap.country(p.country).name,
            "team": p.team,
            "stock": dict(zip(RESOURCES, p.stock, strict=False)),
            "tokens_placed": p.placed,
            "hidden": True,
        }
    return {
        "seat": seat,
        "country": p.country,
        "country_name": state.gmap.country(p.country).name,
        "team": p.team,
        "stock": dict(zip(RESOURCES, p.stock, strict=False)),
        "tokens": dict(zip(TRACKS, p.tokens, strict=False)),
        "levels": {t: level(n) for t, n in zip(TRACKS, p.tokens, strict=False)},
        "action_points": track_value(state, seat, "military", "military_action_points"),
        "bank_ratio": track_value(state, seat, "trade", "trade_bank_ratio"),
        "vp": scoring.vp(state, seat),
        "vp_sources": scoring.vp_sources(state, seat),
        "routes": [state.players[b].country for a, b in state.routes if a == seat],
        "unified": p.unified,
        "specials_used": list(p.specials_used),
    }


def _battle(state: State, viewer: int | None) -> dict[str, Any] | None:
    b = state.battle
    if b is None:
        return None
    own = [[s, u, n] for s, u, n in b.hits if s == viewer]
    return {
        "province": b.province,
        "attacker": b.attacker,
        "defender": b.defender,
        "attackers": list(b.attackers),
        "defenders": list(b.defenders),
        "damage": list(b.damage),
        "your_hits": own,
        "waiting_for": rules.to_move(state),
    }


def view(state: State, viewer: int | None, label: str) -> dict[str, Any]:
    gmap = state.gmap
    return {
        "map": gmap.name,
        "map_title": gmap.title,
        "approximate_data": True,
        "turn": state.turn,
        "phase": state.phase,
        "step": rules.current_step(state),
        "label": label,
        "to_move": rules.to_move(state),
        "alliance": state.config.alliance,
        "threshold": scoring.threshold(state),
        "titles": {} if state.phase == "setup" else scoring.title_holders(state),
        "players": [_player(state, s, viewer) for s in state.seats],
        "provinces": [
            {"id": pid, "name": p.name, "country": p.country, "type": p.type, "owner": state.owners[gmap.index[pid]]}
            for pid, p in gmap.provinces.items()
        ],
        "units": [
            {
                "id": u.id,
                "owner": u.owner,
                "kind": u.kind,
                "province": u.province,
                "damage": u.damage,
                "retreated": u.retreated,
                "ap": u.ap,
                "engaged": u.engaged,
            }
            for u in state.units
        ],
        "wars": [{"teams": list(w.teams), "since": w.start, "damaged": w.damaged} for w in state.wars],
        "offers": [
            {"id": o.id, "from": o.seat, "to": o.to, "give": dict(o.give), "get": dict(o.get)} for o in state.offers
        ],
        "peace_proposals": [list(p) for p in state.peace],
        "battle": _battle(state, viewer),
        "queue": [[step, seat] for step, seat in state.queue],
        "refuges": [[seat, province] for seat, province in state.refuges],
        "unfed": list(state.unfed),
    }
