"""``evolve``: the pure fold of one fact into the state. Never random, never refuses a fact
the game made. Facts that change a seat's stock carry ``seat`` and ``delta``; that part is
applied generically, the rest by one small function per kind."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pbem.games.base import secret_data, update
from pbem.games.kingsburg.data import COURT_SPOTS, SOLDIER_TOKENS
from pbem.games.kingsburg.state import Placement, Player, State, apply_delta, with_player

Fact = dict[str, Any]
HANDLERS: dict[str, Callable[[State, Fact], State]] = {}

# kinds whose whole effect is their ``delta``
DELTA_ONLY = {
    "GuildGoldTaken",
    "KingsRewardGiven",
    "InnTokenTaken",
    "EmbassyScored",
    "CathedralScored",
    "TokensScored",
    "BestDefenderRewarded",
}


def on(*kinds: str):
    def register(fn: Callable[[State, Fact], State]):
        for kind in kinds:
            HANDLERS[kind] = fn
        return fn

    return register


def evolve(state: State | None, fact: Fact) -> State:
    kind = fact["kind"]
    if kind == "GameStarted":
        return _started(fact)
    assert state is not None
    if "delta" in fact:
        seat = fact["seat"]
        state = with_player(state, seat, apply_delta(state.players[seat], fact["delta"]))
    if kind in DELTA_ONLY:
        return state
    if kind not in HANDLERS:
        raise ValueError(f"unknown Kingsburg fact {kind!r}")
    return HANDLERS[kind](state, fact)


def _started(fact: Fact) -> State:
    options = fact["options"]
    tokens = SOLDIER_TOKENS if options["reinforcements"] == "tokens" else ()
    players = tuple(Player(tokens=tokens) for _ in range(fact["players"]))
    return State(
        players, options["reinforcements"], options["demons"], order=tuple(fact["order"]), phase="aid", step="start"
    )


def _player(state: State, seat: int, **changes: Any) -> State:
    return with_player(state, seat, update(state.players[seat], **changes))


def _all_players(state: State, fn: Callable[[Player], Player]) -> State:
    return update(state, players=tuple(fn(p) for p in state.players))


def _without(seats: tuple[int, ...], seat: int) -> tuple[int, ...]:
    return tuple(s for s in seats if s != seat)


# -- flow ----------------------------------------------------------------------------------------
@on("EnemyDeckPrepared")
def _deck(state: State, fact: Fact) -> State:
    return update(state, deck=tuple(secret_data(fact)["deck"]))


@on("PhaseBegan")
def _phase(state: State, fact: Fact) -> State:
    return update(state, phase=fact["phase"], step="start", cursor=-1, pending=(), built=0)


@on("StepBegan")
def _step(state: State, fact: Fact) -> State:
    return update(
        state, step=fact["step"], pending=tuple(fact.get("pending", ())), cursor=fact.get("cursor", -1), built=0
    )


@on("YearEnded")
def _year_ended(state: State, fact: Fact) -> State:
    state = _all_players(state, lambda p: update(p, peeks=()))
    return update(state, year=state.year + 1, phase="aid", step="start", enemy=None)


@on("GameEnded")
def _game_ended(state: State, fact: Fact) -> State:
    return update(state, over=True, phase="end", step="", pending=(), cursor=-1)


# -- King's aid, reward, envoy ---------------------------------------------------------------------
@on("AidGranted")
def _aid(state: State, fact: Fact) -> State:
    return update(state, aid=fact["seat"])


@on("AidTied")
def _aid_tied(state: State, fact: Fact) -> State:
    return update(state, step="choose", pending=tuple(fact["seats"]))


@on("AidTaken", "TownHallUsed", "TownHallSkipped", "RerollsKept")
def _answered(state: State, fact: Fact) -> State:
    if fact["kind"] == "RerollsKept":
        state = _player(state, fact["seat"], rerolls_done=True)
    return update(state, pending=_without(state.pending, fact["seat"]))


@on("EnvoyReturned")
def _envoy_back(state: State, fact: Fact) -> State:
    return update(state, envoy=None)


@on("EnvoyAwarded")
def _envoy(state: State, fact: Fact) -> State:
    return update(state, envoy=fact["seat"])


# -- productive seasons ----------------------------------------------------------------------------
@on("NeutralDiceRolled")
def _neutral(state: State, fact: Fact) -> State:
    court = list(state.court)
    for group in fact["groups"]:
        court[group["advisor"]] = (Placement(-1, tuple(group["dice"])),)
    return update(state, court=tuple(court))


@on("DiceRolled")
def _rolled(state: State, fact: Fact) -> State:
    players = tuple(
        update(p, dice=tuple(d), white=tuple(w))
        for p, d, w in zip(state.players, fact["dice"], fact["white"], strict=False)
    )
    return update(state, players=players, step="reroll")


@on("DiceRerolled")
def _rerolled(state: State, fact: Fact) -> State:
    used = {"statue_used": True} if fact["building"] == "statue" else {"chapel_used": True}
    return _player(state, fact["seat"], dice=tuple(fact["dice"]), white=tuple(fact["white"]), **used)


@on("TurnOrderSet")
def _order(state: State, fact: Fact) -> State:
    return update(state, order=tuple(fact["order"]), step="influence", cursor=0)


def _next_influencer(state: State) -> int:
    n = len(state.order)
    for k in range(1, n + 1):
        i = (state.cursor + k) % n
        if not state.players[state.order[i]].passed:
            return i
    return -1


def _take_out(hand: tuple[int, ...], used: list[int]) -> tuple[int, ...]:
    rest = list(hand)
    for die in used:
        rest.remove(die)
    return tuple(rest)


@on("AdvisorInfluenced")
def _influenced(state: State, fact: Fact) -> State:
    seat, advisor = fact["seat"], fact["advisor"]
    p = state.players[seat]
    choice = tuple(fact["choice"]) if fact.get("choice") is not None else None
    group = Placement(seat, tuple(fact["dice"]), tuple(fact["white"]), fact["plus2"], fact["envoy"], choice)
    court = list(state.court)
    court[advisor] = court[advisor] + (group,)
    p = update(
        p,
        dice=_take_out(p.dice, fact["dice"]),
        white=_take_out(p.white, fact["white"]),
        market_used=p.market_used or fact["market"],
    )
    state = with_player(state, seat, p)
    state = update(state, court=tuple(court), envoy=None if fact["envoy"] else state.envoy)
    return update(state, cursor=_next_influencer(state))


@on("InfluencePassed")
def _passed(state: State, fact: Fact) -> State:
    state = _player(state, fact["seat"], passed=True)
    return update(state, cursor=_next_influencer(state))


@on("GiftsBegan")
def _gifts(state: State, fact: Fact) -> State:
    queue = tuple(
        (advisor, g.seat, g.choice) for advisor, groups in enumerate(state.court) for g in groups if g.seat >= 0
    )
    return update(state, step="gifts", gifts=queue)


@on("GiftReceived", "GiftDeclined")
def _gift(state: State, fact: Fact) -> State:
    key = (fact["advisor"], fact["seat"])
    gifts = list(state.gifts)
    index = next(i for i, g in enumerate(gifts) if g[:2] == key)
    del gifts[index]
    return update(state, gifts=tuple(gifts))


@on("CardPeeked")
def _peeked(state: State, fact: Fact) -> State:
    seat = fact["seat"]
    card = secret_data(fact)["card"]
    return _player(state, seat, peeks=(*state.players[seat].peeks, card))


@on("BuildingBuilt")
def _built(state: State, fact: Fact) -> State:
    seat = fact["seat"]
    p = state.players[seat]
    state = with_player(state, seat, update(p, buildings=p.buildings | {fact["building"]}))
    envoy = None if fact["envoy"] else state.envoy
    built = state.built + 1
    if envoy == seat and built == 1:
        return update(state, envoy=envoy, built=built)  # the envoy allows a second building
    return update(state, envoy=envoy, built=0, cursor=state.cursor + 1)


@on("BuildPassed", "SoldiersRecruited", "RecruitPassed")
def _turn_done(state: State, fact: Fact) -> State:
    return update(state, cursor=state.cursor + 1, built=0)


@on("SeasonEnded")
def _season_ended(state: State, fact: Fact) -> State:
    state = _all_players(
        state,
        lambda p: update(
            p,
            dice=(),
            white=(),
            statue_used=False,
            chapel_used=False,
            rerolls_done=False,
            market_used=False,
            passed=False,
        ),
    )
    aid = None if fact["season"] == "spring" else state.aid
    return update(state, court=((),) * COURT_SPOTS, gifts=(), aid=aid, cursor=-1, pending=())


# -- winter ----------------------------------------------------------------------------------------
@on("EnemyRevealed")
def _enemy(state: State, fact: Fact) -> State:
    return update(state, enemy=fact["card"], deck=state.deck[1:])


@on("ReinforcementsRolled")
def _reinforced(state: State, fact: Fact) -> State:
    n = fact["soldiers"]
    return update(_all_players(state, lambda p: update(p, soldiers=p.soldiers + n)), step="battle")


@on("TokenChosen")
def _token(state: State, fact: Fact) -> State:
    state = _player(state, fact["seat"], token=secret_data(fact)["token"])
    return update(state, pending=_without(state.pending, fact["seat"]))


@on("TokensRevealed")
def _tokens(state: State, fact: Fact) -> State:
    players = []
    for p, t in zip(state.players, fact["tokens"], strict=False):
        rest = list(p.tokens)
        rest.remove(t)
        players.append(update(p, soldiers=p.soldiers + t, tokens=tuple(rest), token=None))
    return update(state, players=tuple(players), step="battle")


@on("BattleFought")
def _battle(state: State, fact: Fact) -> State:
    seat = fact["seat"]
    p = state.players[seat]
    return _player(
        state,
        seat,
        buildings=p.buildings - set(fact["destroyed"]),
        owed_lose=fact.get("owe_lose", 0),
        owed_take=fact.get("owe_take", 0),
    )


@on("GoodsLost", "SpoilsTaken")
def _settled(state: State, fact: Fact) -> State:
    return _player(state, fact["seat"], owed_lose=0, owed_take=0)


@on("SoldiersDismissed")
def _dismissed(state: State, fact: Fact) -> State:
    return _all_players(state, lambda p: update(p, soldiers=0))
