"""Moves: what is legal now, their canonical text, and reading English, Czech, Polish or
German commands.

``play KING 3`` (``hraj král 3``, ``zagraj król 3``, ``spiele König 3``), ``tuck QUEEN``
(``zasuň královna``, ``wsuń królowa``), ``swap 2`` (``vyměň 2``, ``zamień 2``) and ``pass``
(``pas``). Columns are numbered from 1, left to right. Card names are English, Czech, Polish or
German, without accents if you like, and may be shortened as long as the short form still
means one card you can play. ``format_move`` writes the canonical English text (stored),
``say_move`` the reader's words.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pbem.games.base import invalid, syntax
from pbem.games.text import _, fold_key, pgettext, resolve

from .cards import CARD_IDS, CARDS, CardType, match_cards
from .state import GameState

PLAY, TUCK, SWAP, PASS = "play", "tuck", "swap", "pass"

VERBS = {
    "play": PLAY,
    "hraj": PLAY,
    "zahraj": PLAY,
    "poloz": PLAY,
    "zagraj": PLAY,
    "graj": PLAY,
    "spiel": PLAY,
    "spiele": PLAY,
    "lege": PLAY,
    "tuck": TUCK,
    "zasun": TUCK,
    "schovej": TUCK,
    "hide": TUCK,
    "wsun": TUCK,
    "schowaj": TUCK,
    "verstecke": TUCK,
    "verstecken": TUCK,
    "swap": SWAP,
    "vymen": SWAP,
    "exchange": SWAP,
    "zamien": SWAP,
    "wymien": SWAP,
    "tausche": SWAP,
    "tauschen": SWAP,
    "pass": PASS,
    "pas": PASS,
    "no": PASS,
    "ne": PASS,
    "nic": PASS,
    "decline": PASS,
    "keep": PASS,
    "nie": PASS,
    "pasuj": PASS,
    "passe": PASS,
    "passen": PASS,
    "nein": PASS,
}

_ORDER = {card: index for index, card in enumerate(CARD_IDS)}


@dataclass(frozen=True)
class Move:
    kind: str  # play / tuck / swap / pass
    card: str | None = None
    column: int | None = None  # 1-based, as players write it


def legal_moves(state: GameState, seat: int) -> list[Move]:
    if state.finished:
        return []
    pending = state.pending
    if pending is not None:
        if seat != pending.seat:
            return []
        if pending.kind == "cloak":
            return [Move(TUCK, card) for card in _sorted(state.hands[seat])] + [Move(PASS)]
        others = [i + 1 for i in range(len(state.columns)) if i != pending.column]
        return [Move(SWAP, column=i) for i in others] + [Move(PASS)]
    if seat != state.turn:
        return []
    open_columns = [i + 1 for i, column in enumerate(state.columns) if not column.closed]
    return [Move(PLAY, card, i) for card in _sorted(state.hands[seat]) for i in open_columns]


def _sorted(hand: tuple[str, ...]) -> list[str]:
    return sorted(hand, key=_ORDER.__getitem__)


def _card(move: Move) -> CardType:
    assert move.card is not None, f"a {move.kind} move names no card"
    return CARDS[move.card]


def format_move(move: Move) -> str:
    if move.kind == PLAY:
        return f"play {_card(move).token} {move.column}"
    if move.kind == TUCK:
        return f"tuck {_card(move).token}"
    if move.kind == SWAP:
        return f"swap {move.column}"
    return "pass"


def spoken(word: str) -> str:
    """A command word as a player of the language spoken now types it."""
    words = {
        PLAY: lambda: pgettext("ruse and bruise command", "play"),
        TUCK: lambda: pgettext("ruse and bruise command", "tuck"),
        SWAP: lambda: pgettext("ruse and bruise command", "swap"),
        PASS: lambda: pgettext("ruse and bruise command", "pass"),
    }
    return words[word]() if word in words else word


def say_move(move: Move) -> str:
    """The move in the reader's words (``hraj KRÁL 3``); ``parse`` reads it back."""
    if move.kind == PLAY:
        return f"{spoken(PLAY)} {_card(move).spoken_token} {move.column}"
    if move.kind == TUCK:
        return f"{spoken(TUCK)} {_card(move).spoken_token}"
    if move.kind == SWAP:
        return f"{spoken(SWAP)} {move.column}"
    return spoken(PASS)


def _example() -> str:
    return repr(say_move(Move(PLAY, "king", 3)))


def public_text(move: Move) -> str:
    """What everybody may read of a move: face-down cards stay unnamed."""
    if move.kind == PLAY:
        return f"a card to column {move.column}"
    if move.kind == TUCK:
        return "a card under the Cloak"
    return format_move(move)


# The legal moves in the reader's words, for an error: said only when a text is refused.
LegalTexts = Callable[[], list[str]]


def _verb(words: list[str], text: str, legal_texts: LegalTexts) -> tuple[str, list[str]]:
    """The command word's meaning and the words after it; a command of numbers without a
    command word plays a card."""
    kind = VERBS.get(fold_key(words[0]))
    if kind is not None:
        return kind, words[1:]
    if not any(word.isdigit() for word in words):
        raise syntax(
            _(
                "{text} is not a Ruse & Bruise command; write for example {example}.",
                text=repr(text.strip()),
                example=_example(),
            ),
            legal_texts(),
        )
    return PLAY, words


def _candidates(kind: str, rest: list[str], text: str, state: GameState, legal_texts: LegalTexts) -> list[Move]:
    """The moves the words may mean, before they are checked against the legal moves."""
    numbers = [word for word in rest if word.isdigit()]
    names = [word for word in rest if not word.isdigit()]
    if kind == PASS:
        if rest:
            raise syntax(
                _("{word} takes nothing after it, not {rest}.", word=repr(spoken(PASS)), rest=repr(" ".join(rest))),
                legal_texts(),
            )
        return [Move(PASS)]
    if kind == SWAP:
        return [Move(SWAP, column=_one_column(text, numbers, names, state, legal_texts))]
    cards = _cards(text, names, legal_texts)
    if kind == TUCK:
        if numbers:
            raise syntax(
                _("{text}: {word} names only a card, no column.", text=repr(text.strip()), word=repr(spoken(TUCK))),
                legal_texts(),
            )
        return [Move(TUCK, card) for card in cards]
    column = _one_column(text, numbers, [], state, legal_texts)
    return [Move(PLAY, card, column) for card in cards]


def parse(state: GameState, seat: int, text: str, legal_texts: LegalTexts) -> Move:
    words = text.replace(",", " ").split()
    if not words:
        raise syntax(_("The command is empty; write for example {example}.", example=_example()), legal_texts())
    legal = legal_moves(state, seat)
    kind, rest = _verb(words, text, legal_texts)
    candidates = _candidates(kind, rest, text, state, legal_texts)
    return _pick(text, candidates, legal, legal_texts, state, seat)


def _one_column(text: str, numbers: list[str], extra: list[str], state: GameState, legal_texts: LegalTexts) -> int:
    if len(numbers) != 1 or extra:
        raise syntax(_("{text} needs exactly one column number.", text=repr(text.strip())), legal_texts())
    column = int(numbers[0])
    if not 1 <= column <= len(state.columns):
        raise invalid(
            _(
                "{text}: there is no column {column}; the columns are 1 to {count}.",
                text=repr(text.strip()),
                column=column,
                count=len(state.columns),
            ),
            legal_texts(),
        )
    return column


def _cards(text: str, names: list[str], legal_texts: LegalTexts) -> set[str]:
    if not names:
        raise syntax(_("{text} does not name a card.", text=repr(text.strip())), legal_texts())
    cards = match_cards(" ".join(names))
    if not cards:
        raise invalid(
            _("{text}: there is no card called {name}.", text=repr(text.strip()), name=repr(" ".join(names))),
            legal_texts(),
        )
    return cards


def _pick(
    text: str, candidates: list[Move], legal: list[Move], legal_texts: LegalTexts, state: GameState, seat: int
) -> Move:
    """Resolve the candidates against the legal moves: none is illegal, several ambiguous."""
    matches = [move for move in candidates if move in legal]
    why = "" if matches else _why_none(state, seat, candidates, legal)
    # the legal moves in words are only needed to refuse the text (none or several fit)
    legal_said = legal_texts() if len(matches) != 1 else []
    return resolve(text, matches, say_move, legal=legal_said, why=why, hint=_("write more of the card name"))


def _why_none(state: GameState, seat: int, candidates: list[Move], legal: list[Move]) -> str:
    if not legal:
        return _("it is not your move")
    if len(candidates) > 1:
        names = _(" or ").join(sorted(_card(move).name for move in candidates))
        return _("no card you can use now is called that ({names})", names=names)
    return _reason(state, seat, candidates[0])


def _reason(state: GameState, seat: int, move: Move) -> str:
    pending = state.pending
    if pending is not None and move.kind == PLAY:
        return _(
            "first answer the {card} choice in column {column}",
            card=CARDS[pending.kind].name,
            column=pending.column + 1,
        )
    if pending is None and move.kind != PLAY:
        return _("there is no Cloak or Traitor choice to answer")
    if pending is not None and move.kind == TUCK and pending.kind != "cloak":
        return _("the open choice is the Traitor's swap, not a Cloak")
    if pending is not None and move.kind == SWAP and pending.kind != "traitor":
        return _("the open choice is the Cloak, not a Traitor's swap")
    if move.kind == SWAP:
        return _("column {column} is the Traitor's own column", column=move.column)
    if move.card not in state.hands[seat]:
        return _("you hold no {card}", card=_card(move).name)
    return _("column {column} is closed by a Storm", column=move.column)
