"""The development phase: the five actions, special actions (University, Master trader,
Voivode), moving one token between tracks, and war declarations."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pbem.games.text import _
from pbem.games.warriors_traders import words
from pbem.games.warriors_traders.data import ARMY_KINDS, MAX_TOKENS, RESOURCES, RULES, TRACKS
from pbem.games.warriors_traders.state import (
    State,
    Unit,
    allied,
    can_build_kind,
    country_seat,
    has_ability,
    owner,
    pieces_on_board,
    played_by,
    team,
    unit,
)

ACTIONS = ("develop", "build", "fort", "upgrade", "war")
LEVEL_NAMES = ("I", "II", "III", "IV", "V", "VI", "VII")


def cost_text(cost: dict[str, int]) -> str:
    return words.amounts(cost)


def _afford(state: State, seat: int, cost: dict[str, int]) -> str | None:
    player = state.players[seat]
    short = [words.amount(r, n - player.has(r)) for r, n in cost.items() if player.has(r) < n]
    return _("That costs {cost} and you lack {short}.", cost=cost_text(cost), short=", ".join(short)) if short else None


def action_cost(state: State, move: tuple) -> dict[str, int]:
    if move[0] == "build":
        return dict(RULES.unit(move[1]).get("cost", {}))
    if move[0] == "fort":
        return dict(RULES.unit("fort")["cost"])
    if move[0] == "upgrade":
        u = unit(state, move[1])
        steps = ARMY_KINDS.index(move[2]) - ARMY_KINDS.index(u.kind) if u else 0
        return {"goods": RULES.raw["units"]["upgrade_goods_per_step"] * steps}
    return {}


def why_not_action(state: State, seat: int, move: tuple, extra_gold: int = 0) -> str | None:
    """None when the action ``move`` is allowed for ``seat`` now, else the reason."""
    checks = {
        "develop": _why_not_develop,
        "war": _why_not_war,
        "build": _why_not_build,
        "fort": _why_not_fort,
        "upgrade": _why_not_upgrade,
    }
    reason = checks[move[0]](state, seat, move)
    if reason:
        return reason
    cost = action_cost(state, move)
    if extra_gold:
        cost["gold"] = cost.get("gold", 0) + extra_gold
    return _afford(state, seat, cost)


def _placeable(state: State, seat: int, province: str, allies_ok: bool) -> bool:
    holder = owner(state, province)
    return holder == seat or (allies_ok and holder is not None and allied(state, seat, holder))


def _why_not_build(state: State, seat: int, move: tuple) -> str | None:
    kind, province = move[1], move[2]
    if not can_build_kind(state, seat, kind):
        need = {"archer": "III", "cavalry": LEVEL_NAMES[state.config.cavalry_level - 1]}[kind]
        return _("Building {army} needs military level {level}.", army=words.unit(kind), level=need)
    if pieces_on_board(state, seat, kind) >= RULES.unit(kind)["pieces"]:
        return _("All your {army} pieces are on the board.", army=words.unit(kind))
    if province not in state.gmap.provinces:
        return _("There is no province {province}.", province=repr(province))
    if not _placeable(state, seat, province, state.config.alliance):
        return (
            _("{province} is not your province or an ally's.", province=province)
            if state.config.alliance
            else _("{province} is not your province.", province=province)
        )
    return None


def _why_not_fort(state: State, seat: int, move: tuple) -> str | None:
    province = move[1]
    if not has_ability(state, seat, "masonry"):
        return _("Building a fort needs Masonry (production IV).")
    if province not in state.gmap.provinces or owner(state, province) != seat:
        return _("{province} is not your province.", province=province)
    forts = sum(1 for u in state.units if u.province == province and u.kind == "fort")
    if forts >= RULES.unit("fort")["max_per_province"]:
        return _("{province} already has two forts.", province=province)
    if pieces_on_board(state, seat, "fort") >= RULES.unit("fort")["pieces"]:
        return _("All your forts are on the board.")
    return None


def _why_not_upgrade(state: State, seat: int, move: tuple) -> str | None:
    unit_id, kind = move[1], move[2]
    if not has_ability(state, seat, "reinforcements"):
        return _("Reinforcing an army needs Reinforcements (production V).")
    u = unit(state, unit_id)
    if (
        u is None
        or not u.is_army
        or u.owner < 0
        or not (u.owner == seat or (state.config.alliance and allied(state, seat, u.owner)))
    ):
        return (
            _("Unit {unit} is not your army or an ally's.", unit=unit_id)
            if state.config.alliance
            else _("Unit {unit} is not your army.", unit=unit_id)
        )
    if ARMY_KINDS.index(kind) <= ARMY_KINDS.index(u.kind):
        return _(
            "Unit {unit} is already {army}; it can only become a stronger army.", unit=unit_id, army=words.unit(u.kind)
        )
    if pieces_on_board(state, u.owner, kind) >= RULES.unit(kind)["pieces"]:
        return _("All {army} pieces of that colour are on the board.", army=words.unit(kind))
    return None


def _why_not_develop(state: State, seat: int, move: tuple) -> str | None:
    if state.players[seat].tokens[TRACKS.index(move[1])] >= MAX_TOKENS:
        return _("Your {track} track is full.", track=words.track(move[1]))
    return None


def _why_not_war(state: State, seat: int, move: tuple) -> str | None:
    country = move[1]
    target = country_seat(state, country)
    if target is None:
        return _("No player plays {country}.", country=repr(country))
    if target == seat:
        return _("You cannot declare war on yourself.")
    if allied(state, seat, target):
        return _("You cannot declare war on your ally.")
    return None


def action_facts(state: State, seat: int, move: tuple, source: str) -> list[dict[str, Any]]:
    """The fact of one action already checked; ``source`` says which action slot paid for it."""
    kind = move[0]
    paid = action_cost(state, move)
    if source == "master_trader":
        paid["gold"] = paid.get("gold", 0) + RULES.value("master_trader_gold")
    paid = {r: paid[r] for r in RESOURCES if paid.get(r)}
    base = {"seat": seat, "source": source, "paid": paid}
    if kind == "develop":
        return [{"kind": "TrackDeveloped", **base, "track": move[1]}]
    if kind == "war":
        target = played_by(state, move[1])
        return [
            {
                "kind": "WarDeclared",
                **base,
                "against": target,
                "teams": sorted([team(state, seat), team(state, target)]),
            }
        ]
    if kind == "build":
        return [{"kind": "ArmyBuilt", **base, "unit": state.next_unit, "army": move[1], "province": move[2]}]
    if kind == "fort":
        return [{"kind": "FortBuilt", **base, "unit": state.next_unit, "province": move[1]}]
    return [{"kind": "ArmyUpgraded", **base, "unit": move[1], "army": move[2]}]


def specials_left(state: State, seat: int) -> list[str]:
    """Special action slots still open this turn, in the order the engine spends them."""
    used = state.players[seat].specials_used
    slots = [("university", "university"), ("voivode", "voivode"), ("master_trader", "master_trader")]
    return [name for name, ability in slots if name not in used and has_ability(state, seat, ability)]


def special_slot(state: State, seat: int, move: tuple) -> str | None:
    """Which special slot pays for ``move``: Voivode only declares war; University is free;
    Master trader costs 5 gold. Free slots are used first."""
    left = specials_left(state, seat)
    if move[0] == "war" and "voivode" in left:
        return "voivode"
    if "university" in left:
        return "university"
    if "master_trader" in left:
        return "master_trader"
    return None


def why_not_special(state: State, seat: int, move: tuple) -> str | None:
    slot = special_slot(state, seat, move)
    if slot is None:
        return _("You have no special action left for that (Voivode only declares war).")
    extra = RULES.value("master_trader_gold") if slot == "master_trader" else 0
    return why_not_action(state, seat, move, extra)


def why_not_shift(state: State, seat: int, source: str, target: str) -> str | None:
    tokens = state.players[seat].tokens
    if source == target:
        return _("Move the token to a different track.")
    if tokens[TRACKS.index(source)] == 0:
        return _("Your {track} track has no token to move.", track=words.track(source))
    if tokens[TRACKS.index(target)] >= MAX_TOKENS:
        return _("Your {track} track is full.", track=words.track(target))
    return None


def action_candidates(state: State, seat: int) -> Iterator[tuple]:
    """Every action move worth checking for ``seat`` (filtered by the callers), one at a time:
    ``has_choice`` stops at the first legal one, before the builds are even listed."""
    yield from (("develop", t) for t in TRACKS)
    places = [p for p in state.gmap.provinces if _placeable(state, seat, p, state.config.alliance)]
    yield from (("build", k, p) for k in ARMY_KINDS for p in places)
    yield from (("fort", p) for p in places if owner(state, p) == seat)
    for u in state.units:
        if _may_upgrade(state, seat, u):
            yield from (("upgrade", u.id, k) for k in ARMY_KINDS[ARMY_KINDS.index(u.kind) + 1 :])
    yield from (("war", state.players[s].country) for s in state.seats if not allied(state, seat, s))


def _may_upgrade(state: State, seat: int, u: Unit) -> bool:
    """Whether the army is the seat's own, or an ally's with the option alliance."""
    return u.is_army and u.owner >= 0 and allied(state, seat, u.owner) and (u.owner == seat or state.config.alliance)
