"""Card facts of Ruse & Bruise, read once from ``cards.json`` in this package.

Numbers are kept in *half points* (the Assassin counts 9.5), so every sum stays an integer;
``show_halves`` turns them back into text for people.
"""

from __future__ import annotations

from dataclasses import dataclass

from pbem.games.tables import load_table
from pbem.games.text import fold_key, named, named_in

_DATA = load_table(__package__, "cards.json")


@dataclass(frozen=True)
class CardType:
    """One of the 25 influence cards every colour owns once."""

    id: str
    en: str
    cs: str
    pl: str
    de: str
    aliases: tuple[str, ...]
    halves: int | None  # printed number in half points; None for the Doppelganger
    own_suit_halves: int | None  # specialists: the number under a goal card of their suit
    suit: str | None
    kind: str  # plain / specialist / on_reveal / scoring

    def printed_halves(self, goal_suit: str) -> int | None:
        """The printed number, with the specialist's suit number when the goal suit matches."""
        if self.suit is not None and self.suit == goal_suit:
            return self.own_suit_halves
        return self.halves

    @property
    def token(self) -> str:
        """Canonical command word: ``KING``, ``FENCING-MASTER``."""
        return self.en.upper().replace(" ", "-")

    @property
    def name(self) -> str:
        """The card's name in the language spoken now (the rulebook's)."""
        return named({"en": self.en, "cs": self.cs, "pl": self.pl}, self.en)

    @property
    def spoken_token(self) -> str:
        """The command word in the language spoken now: ``KRÁL``, ``TOMCIO-PALUCH``."""
        return self.name.upper().replace(" ", "-")


def _halves(value: float | int | None) -> int | None:
    return None if value is None else round(value * 2)


CARDS: dict[str, CardType] = {
    raw["id"]: CardType(
        id=raw["id"],
        en=raw["en"],
        cs=raw["cs"],
        pl=raw["pl"],
        de=raw["de"],
        aliases=tuple(raw.get("aliases", ())),
        halves=_halves(raw["value"]),
        own_suit_halves=_halves(raw.get("value_own_suit")),
        suit=raw.get("suit"),
        kind=raw["kind"],
    )
    for raw in _DATA["influence_cards"]
}
CARD_IDS: tuple[str, ...] = tuple(CARDS)
DECK_SIZE = len(CARD_IDS)

HAND_SIZE: int = _DATA["hand_size"]
ROUNDS: int = _DATA["rounds"]
GOALS_PER_PLAYER: int = _DATA["goal_cards_per_player"]
DRAGON_HALVES: int = 2 * _DATA["dragon_reduction"]
WIZARD_MIN_HALVES: int = 2 * _DATA["wizard_removes_at_least"]
WITCH_MAX_HALVES: int = 2 * _DATA["witch_removes_at_most"]
HERMIT_STEP_HALVES: int = 2 * _DATA["hermit_per_other_card"]
GIANT_STEP_HALVES: int = 2 * _DATA["little_giant_per_other_card"]
ROMEO_WITH_JULIET_HALVES: int = 2 * _DATA["romeo_with_own_juliet"]

SUITS: dict[str, dict[str, str]] = {raw["id"]: raw for raw in _DATA["suits"]}


@dataclass(frozen=True)
class GoalCard:
    id: str
    suit: str
    value: int


def _goal_cards() -> dict[str, GoalCard]:
    goals: dict[str, GoalCard] = {}
    for suit in SUITS:
        seen: dict[int, int] = {}
        for value in _DATA["goal_values_per_suit"]:
            seen[value] = seen.get(value, 0) + 1
            suffix = "" if _DATA["goal_values_per_suit"].count(value) == 1 else "abcdef"[seen[value] - 1]
            goal_id = f"{suit}-{value}{suffix}"
            goals[goal_id] = GoalCard(goal_id, suit, value)
    return goals


GOALS: dict[str, GoalCard] = _goal_cards()
GOAL_IDS: tuple[str, ...] = tuple(GOALS)


def show_halves(halves: int | None) -> str:
    """``19`` -> ``"9½"``; ``None`` -> ``"-"``."""
    if halves is None:
        return "-"
    whole, half = divmod(abs(halves), 2)
    sign = "-" if halves < 0 else ""
    return f"{sign}{whole}½" if half else f"{sign}{whole}"


def goal_text(goal_id: str) -> str:
    goal = GOALS[goal_id]
    return f"{suit_name(goal.suit)} {goal.value}"


def suit_name(suit: str) -> str:
    return named_in(SUITS, suit)


def _name_index() -> dict[str, str]:
    index: dict[str, str] = {}
    for card in CARDS.values():
        for name in (card.id, card.en, card.cs, card.pl, card.de, *card.aliases):
            index[fold_key(name)] = card.id
    return index


NAMES: dict[str, str] = _name_index()


def match_cards(text: str) -> set[str]:
    """Card ids a (possibly abbreviated) name may mean: an exact name wins, otherwise every
    card with a name starting with the text."""
    key = fold_key(text)
    if not key:
        return set()
    if key in NAMES:
        return {NAMES[key]}
    return {card for name, card in NAMES.items() if name.startswith(key)}
