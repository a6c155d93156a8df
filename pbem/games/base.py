"""The contract every game implements, and the one error family.

A game is a pure package under ``pbem/games/<name>/`` exporting ``SPEC``, an instance of a
``GameSpec`` subclass. Nothing here does I/O, reads a clock or uses global randomness; the
service passes an ``Rng`` whose outcomes it records. Nothing in ``pbem/games`` imports
eventsourcing.

Data at the boundary is JSON-plain (str, int, bool, None, list, dict; never float):

* a *fact* is a dict with a ``"kind"`` key naming what happened in the past tense
  (``"DiceRolled"``). A fact may carry one secret part under ``"secret"``:
  ``{"to": [seat, ...], "data": {...}}``. ``evolve`` reads the data; every public output
  replaces it by a salted commitment, and only the seats in ``to`` see it before the end.
* a *move* is whatever the game likes, as long as ``parse_move(format_move(m)) == m`` and
  moves compare by value. The service stores ``format_move(move)``.
* a *view* is a JSON-plain dict: what one seat (or the public, ``viewer=None``) may see.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any, Generic, Protocol, TypeVar

from pbem.games.speech import N_, _

Fact = dict[str, Any]
Move = Any  # for code that handles every game alike (the service, the registry)
State = Any
T = TypeVar("T")
StateT = TypeVar("StateT")  # one game's state type
MoveT = TypeVar("MoveT")  # one game's move type


class ErrorCode(StrEnum):
    """Stable codes for every way a command can be refused (shown to players and in JSON)."""

    SYNTAX = "syntax"  # the text is not a command of this game at all
    INVALID = "invalid"  # a command, but its arguments make no sense (unknown card, bad number)
    ILLEGAL = "illegal"  # well formed, but the rules forbid it now
    AMBIGUOUS = "ambiguous"  # the text matches more than one legal move
    NOT_YOUR_TURN = "not-your-turn"
    GAME_OVER = "game-over"
    STALE = "stale"  # the command answers an older version of the game
    UNKNOWN_GAME = "unknown-game"
    NOT_A_PLAYER = "not-a-player"
    NOT_STARTED = "not-started"  # seats are still waiting for their players to join
    FROZEN = "frozen"  # the stored game does not match its signed history; the operator must look


class GameError(Exception):
    """A refused command. ``message`` is a sentence for a person; ``legal`` lists what is
    legal instead (formatted commands), when that helps."""

    def __init__(self, code: ErrorCode, message: str, legal: Sequence[str] = ()):
        super().__init__(message)
        self.code = ErrorCode(code)
        self.message = message
        self.legal = list(legal)
        self.more = 0  # legal moves beyond those in ``legal`` (the service shows the first few)

    def __str__(self) -> str:
        return self.message

    def to_dict(self) -> dict[str, Any]:
        shown = {"code": self.code.value, "message": self.message, "legal": self.legal}
        return shown | {"more": self.more} if self.more else shown


def illegal(message: str, legal: Sequence[str] = ()) -> GameError:
    return GameError(ErrorCode.ILLEGAL, message, legal)


def syntax(message: str, legal: Sequence[str] = ()) -> GameError:
    return GameError(ErrorCode.SYNTAX, message, legal)


def invalid(message: str, legal: Sequence[str] = ()) -> GameError:
    return GameError(ErrorCode.INVALID, message, legal)


class Rng(Protocol):
    """The only randomness a game may use. Every outcome is recorded by the service."""

    def randint(self, low: int, high: int) -> int:
        """A uniform integer with low <= n <= high."""
        ...

    def shuffle(self, items: Sequence[T]) -> list[T]:
        """A new list: a uniform permutation of ``items``."""
        ...

    def choice(self, items: Sequence[T]) -> T: ...


class RngBase(ABC):
    """``shuffle`` and ``choice`` built on ``randint`` alone, so that a recorded transcript of
    ``randint`` calls re-derives every shuffle and choice."""

    @abstractmethod
    def randint(self, low: int, high: int) -> int:
        """A uniform integer with low <= n <= high."""

    def shuffle(self, items: Sequence[T]) -> list[T]:
        return fisher_yates(self, items)

    def choice(self, items: Sequence[T]) -> T:
        if not items:
            raise ValueError("choice from an empty sequence")
        return items[self.randint(0, len(items) - 1)]


class SeededRng(RngBase):
    """An ``Rng`` from a seed, for tests, bots and tools. The service uses its own HMAC-derived
    rng (``pbem.ledger.fairness.DrawRng``)."""

    def __init__(self, seed: int | str = 0):
        self._random = random.Random(seed)

    def randint(self, low: int, high: int) -> int:
        return self._random.randint(low, high)


def fisher_yates(rng: Rng, items: Sequence[T]) -> list[T]:
    """The one shuffle every rng uses."""
    result = list(items)
    for i in range(len(result) - 1, 0, -1):
        j = rng.randint(0, i)
        result[i], result[j] = result[j], result[i]
    return result


@dataclass(frozen=True)
class Option:
    """A game option, given as ``--option KEY=VALUE``; values arrive as text."""

    key: str
    help: str
    default: str
    choices: tuple[str, ...] = ()  # empty: any text that ``parse`` accepts

    def parse(self, text: str) -> str:
        if self.choices and text not in self.choices:
            raise invalid(
                _(
                    "Option {key}={value} is not allowed; choose one of {choices}.",
                    key=self.key,
                    value=repr(text),
                    choices=", ".join(self.choices),
                )
            )
        return text

    def to_dict(self) -> dict[str, Any]:
        # the help in the language spoken now (marked N_ where the game defines it); {key} in it
        # is the option's key
        said = _(self.help, key=self.key)
        return {"key": self.key, "help": said, "default": self.default, "choices": list(self.choices)}


# Options of the table rather than of a game's rules: every game has them, the rules never
# read them (the service does). ``press``: who may talk (docs/mail.md, "Press"): ``all``,
# private and table messages; ``public``, table messages only, which observers read too;
# ``none``, no messages.
PRESS_CHOICES = ("all", "public", "none")
TABLE_OPTIONS = (
    Option(
        "press",
        N_(
            "messages between players: all (private and to the table), public (to the table only,"
            " observers read them too) or none"
        ),
        "all",
        PRESS_CHOICES,
    ),
)


@dataclass(frozen=True)
class Standing:
    """One seat's place at the end. Rank 1 wins; equal ranks share the place."""

    seat: int
    rank: int
    score: int
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "rank": self.rank, "score": self.score, "details": self.details}


def rank_by(seats_keys: Mapping[int, tuple]) -> dict[int, int]:
    """Competition ranking ("1224"): higher keys rank first, equal keys share a rank."""
    ordered = sorted(seats_keys.items(), key=lambda kv: kv[1], reverse=True)
    ranks: dict[int, int] = {}
    for position, (seat, key) in enumerate(ordered, start=1):
        previous = ordered[position - 2] if position > 1 else None
        ranks[seat] = ranks[previous[0]] if previous and previous[1] == key else position
    return ranks


def evolve_all(evolve: Callable[[Any, Fact], Any], state: Any, facts: Iterable[Fact]) -> Any:
    """``state`` after each fact in turn: the fold every game's ``decide`` and tests use."""
    for fact in facts:
        state = evolve(state, fact)
    return state


_FIELD_NAMES: dict[type, frozenset[str]] = {}  # a dataclass's field names, looked up once per class


def update(obj: T, **changes: Any) -> T:
    """``dataclasses.replace(obj, **changes)`` for the games' frozen dataclasses, without
    re-running ``__init__``: every fact of a replay makes a new state, and ``replace`` (which
    walks the fields and calls ``__init__``) was the largest share of the engines' time. The
    result is equal field for field; it is only for dataclasses without ``__post_init__``,
    ``init=False`` fields or cached attributes (none in the games), since those would see the
    copied ``__dict__``. A name that is not a field is refused, as ``replace`` refuses it."""
    kind: type[Any] = type(obj)
    names = _FIELD_NAMES.get(kind)
    if names is None:
        names = _FIELD_NAMES[kind] = frozenset(f.name for f in fields(kind))
    if not changes.keys() <= names:
        raise TypeError(f"{kind.__name__} has no field {', '.join(sorted(changes.keys() - names))}")
    values = obj.__dict__.copy()
    values.update(changes)
    new = object.__new__(kind)
    object.__setattr__(new, "__dict__", values)  # frozen: past the dataclass's own __setattr__
    return new


def replace_at(items: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    """A copy of ``items`` with ``items[index]`` replaced: how frozen states change one seat's entry."""
    return (*items[:index], value, *items[index + 1 :])


SECRET = "secret"


def secret(to: Sequence[int], data: Mapping[str, Any]) -> dict[str, Any]:
    """The secret part of a fact: ``data`` seen only by the seats in ``to`` until the end."""
    return {"to": sorted(set(to)), "data": dict(data)}


def secret_data(fact: Fact) -> dict[str, Any]:
    """The data of a fact's secret part (empty when it has none)."""
    return fact.get(SECRET, {}).get("data", {})


def can_see(fact: Fact, viewer: int | None) -> bool:
    """Whether ``viewer`` (a seat, or None for the public) may read the fact's secret part."""
    part = fact.get(SECRET)
    return part is None or (viewer is not None and viewer in part["to"])


class GameSpec(ABC, Generic[StateT, MoveT]):
    """One game's rules. Subclass it with the game's own types, ``class Kingsburg(GameSpec[State,
    Move])``, fill in the metadata, and export ``SPEC``; mypy then checks every method against
    those types. Code that serves every game alike holds an ``AnySpec``."""

    name: str = ""  # registry name, e.g. "kingsburg"
    title: str = ""
    min_players: int = 2
    max_players: int = 2
    options: tuple[Option, ...] = ()
    rules_version: str = "1"  # bump when a rules fix would change how old commands resolve
    # Commands that only end a seat's turn ("end", "done"). When a turn has already ended by
    # itself earlier in the same mail or turn file, such a trailing command is ignored
    # instead of failing the whole batch as "not your turn".
    turn_end_words: tuple[str, ...] = ()

    # -- options ---------------------------------------------------------------------------
    @property
    def all_options(self) -> tuple[Option, ...]:
        """The game's own options and the table's (``TABLE_OPTIONS``)."""
        return (*self.options, *TABLE_OPTIONS)

    def normalize_options(self, raw: Mapping[str, str], players: int) -> dict[str, str]:
        """Every option with its value, defaults filled in; raises ``GameError`` (invalid)."""
        known = {option.key: option for option in self.all_options}
        unknown = sorted(set(raw) - set(known))
        if unknown:
            names = ", ".join(known) or _("none")
            raise invalid(
                _(
                    "Unknown option {option} for {game}; options are: {names}.",
                    option=repr(unknown[0]),
                    game=self.name,
                    names=names,
                )
            )
        return {key: option.parse(raw.get(key, option.default)) for key, option in known.items()}

    def settings(self, players: int, options: Mapping[str, str]) -> dict[str, str]:
        """What every ``setup`` starts with: the player count checked and the options
        normalised. The service normalises before storing the game; doing it again here keeps
        ``setup`` safe to call directly (tests, tools), and normalised options stay the same."""
        self.check_players(players)
        table = {option.key for option in TABLE_OPTIONS}
        # the rules never see the table's options, so a game's facts (which may record its
        # options) are the same as before the table had any: old games replay unchanged
        return {key: value for key, value in self.normalize_options(options, players).items() if key not in table}

    def check_players(self, players: int) -> None:
        if not self.min_players <= players <= self.max_players:
            raise invalid(
                _(
                    "{title} is for {low} to {high} players, not {players}.",
                    title=self.title,
                    low=self.min_players,
                    high=self.max_players,
                    players=players,
                )
            )

    # -- the rules -------------------------------------------------------------------------
    @abstractmethod
    def setup(self, players: int, options: Mapping[str, str], rng: Rng) -> list[Fact]:
        """The opening facts. The first fact creates the state from ``None`` in ``evolve``."""

    @abstractmethod
    def evolve(self, state: StateT | None, fact: Fact) -> StateT:
        """Pure fold: a new state; never random, never raises for a fact this game produced."""

    @abstractmethod
    def to_move(self, state: StateT) -> list[int]:
        """Seats whose input the game needs now (several during simultaneous choices); [] at the end."""

    @abstractmethod
    def legal_moves(self, state: StateT, seat: int) -> list[MoveT]:
        """Every legal move of ``seat`` now. Keep moves small (one step of a turn) so this
        stays enumerable; a turn of several steps is several moves."""

    @abstractmethod
    def parse_move(self, state: StateT, seat: int, text: str) -> MoveT:
        """Resolve text against the legal moves; raise syntax / invalid / illegal / ambiguous."""

    @abstractmethod
    def format_move(self, move: MoveT) -> str:
        """Canonical text of a move; ``parse_move`` of it gives the same move back."""

    @abstractmethod
    def decide(self, state: StateT, seat: int, move: MoveT, rng: Rng) -> list[Fact]:
        """The facts a legal move causes (including automatic follow-ups and draws);
        raises ``GameError`` if the move is not legal now."""

    def decide_and_fold(self, state: StateT, seat: int, move: MoveT, rng: Rng) -> tuple[list[Fact], StateT]:
        """``decide``, and the state after its facts (``evolve`` of each in turn). A game whose
        ``decide`` folds its facts anyway, to find the automatic follow-ups, returns the state
        it has (see ``FoldingGameSpec``), so that a replay does not fold every fact twice."""
        facts = self.decide(state, seat, move, rng)
        return facts, evolve_all(self.evolve, state, facts)

    @abstractmethod
    def outcome(self, state: StateT) -> list[Standing] | None:
        """The final standings once the game is over, else None."""

    @abstractmethod
    def view(self, state: StateT, viewer: int | None) -> dict[str, Any]:
        """What ``viewer`` may see (None: the public). Never another seat's secrets."""

    # -- presentation and helpers, with sensible defaults -----------------------------------
    def render_text(self, view: Mapping[str, Any], names: Sequence[str]) -> str:
        """A plain-text picture of a view, for mail replies and the CLI."""
        import json

        return json.dumps(view, indent=2, ensure_ascii=False, sort_keys=True)

    def render_svg(self, view: Mapping[str, Any], names: Sequence[str]) -> str | None:
        """An SVG picture of the board for the web site, or None."""
        return None

    def render_narrow_svg(self, view: Mapping[str, Any], names: Sequence[str]) -> str | None:
        """The board drawn for a narrow screen (a phone; the picture in a mail): at most
        ``NARROW_WIDTH`` units wide, and no text under ``NARROW_TEXT`` units, so shown across a
        phone its words stay readable (docs/game-contract.md). None: the game draws no such
        picture, and ``render_svg`` is shown instead."""
        return None

    def render_mail_svg(self, view: Mapping[str, Any], names: Sequence[str]) -> str | None:
        """The board picture of a mail (drawn as a PNG for every mail that hands a player the
        turn): the narrow picture, less what the mail's text says beside it in words and what
        the rules fix (a list under a map, the printed costs), since each word drawn costs
        time for every mail. None: the mail shows the narrow picture, else ``render_svg``."""
        return self.render_narrow_svg(view, names)

    def mail_caption(self, view: Mapping[str, Any], names: Sequence[str]) -> list[str]:
        """The lines of the board that ``render_mail_svg`` leaves to words (a title, the
        players' counters): the HTML part shows them above the picture, as text, which costs
        nothing to draw and reflows on a phone. Default: none."""
        return []

    def describe_fact(self, fact: Fact, names: Sequence[str]) -> str:
        """One line of history for a (possibly redacted) fact."""
        # Sorted, so the line does not depend on how the fact's fields were ordered when stored
        # (an imported game's facts arrive in canonical, sorted order).
        fields = ", ".join(f"{k}={fact[k]}" for k in sorted(fact) if k not in ("kind", SECRET))
        return f"{fact['kind']}: {fields}" if fields else fact["kind"]

    def say_move(self, move: MoveT) -> str:
        """A move as the reader of the current language writes it (``speaking``, in
        ``pbem.games.text``): what mails and pages offer, and ``parse_move`` accepts it back.
        The default, for games whose commands are the same in every language, is the
        canonical text."""
        return self.format_move(move)

    def say_command(self, text: str) -> str:
        """A stored command (canonical text, ``format_move``) in the reader's words, for
        histories; a text that is no move of this game is shown as it is."""
        return text

    def score_label(self, key: str) -> str:
        """The reader's word for a key of a ``Standing``'s details (a scoring breakdown)."""
        return key.replace("_", " ")

    def command_examples(self) -> list[str]:
        """One example of each of the game's commands, in the words of the language spoken now
        (for the reply to ``help``: the words a player may send)."""
        return []

    def score_item(self, item: str) -> str:
        """The reader's words for an entry of a list in a ``Standing``'s details (a goal card won)."""
        return item

    def public_move_text(self, state: StateT, seat: int, move: MoveT) -> str:
        """What the public history shows of a move; override when the move itself is secret
        (a card played face down). When it differs from ``format_move`` the full command is
        kept under a commitment until the end."""
        return self.format_move(move)

    def random_move(self, state: StateT, seat: int, rng: random.Random) -> MoveT:
        """A uniformly random legal move, for robots and the conformance suite."""
        moves = self.legal_moves(state, seat)
        return moves[rng.randrange(len(moves))]

    def default_move(self, state: StateT, seat: int) -> MoveT | None:
        """What a seat does when it misses a deadline (pass, keep, ...), or None if no
        sensible default exists."""
        return None

    def phase_label(self, state: StateT) -> str:
        """A short name of where the game is ("year 2, summer"; "turn 3, trade"). A turn file
        that names a phase is refused as stale when it differs."""
        return ""

    def turn_template(self, state: StateT, seat: int, names: Sequence[str]) -> str:
        """The body of a pre-filled turn file for ``seat``: comment lines (starting with
        ``#``) describing the options, and order lines or examples."""
        lines = [
            f"# {self.title}: {self.phase_label(state)}".rstrip(": "),
            "# " + _("one command per line; legal now:"),
        ]
        return "\n".join(lines + [f"# {text}" for text in self.legal_texts(state, seat)]) + "\n"

    def end_of_turn_file(self, state: StateT, seat: int) -> MoveT | None:
        """A move applied after the last order of a turn file when ``seat`` still has to
        move (e.g. "done"), so a file always completes the seat's part of the phase. The core
        applies it only while the seat still faces the decision the file was written for
        (``decision``): a file never closes a step its author has not seen."""
        return None

    def decision(self, state: StateT, seat: int) -> str:
        """Names the decision ``seat`` faces now, precisely enough that two different
        decisions never share a name (the second action vs the first, one battle's damage vs
        the next one's). A turn file closes only the decision it began with. The default, the
        phase label, suits games whose label changes with every step."""
        return self.phase_label(state)

    def reveals(self, state: StateT, seat: int, facts: Sequence[Fact]) -> bool:
        """Whether ``facts`` (what one command caused, from ``state`` on) show ``seat``
        something that was hidden from it: a face-down card turned up, a card drawn or looked
        at, secret choices opened. Such a command ends a batch as a draw does: the commands
        after it were written without that knowledge, and neither their effect nor a refusal
        of them may depend on it. Every game with hidden information overrides this; the
        default is for games without any."""
        return False

    def decision_text(self, state: StateT, seat: int, names: Sequence[str]) -> str:
        """The decision ``seat`` faces now, in one sentence, for mails ("Choose which gift of
        the Merchant (advisor 4) to take"). Override to name the advisor, card or building."""
        phase = self.phase_label(state)
        return (
            _("{phase}: choose your move.", phase=f"{phase[:1].upper()}{phase[1:]}")
            if phase
            else _("Choose your move.")
        )

    def seat_word(self, state: StateT, seat: int) -> str | None:
        """The word this game's moves use where they name ``seat``'s player (Warriors & Traders:
        the seat's country), so a player may write the name instead (``parse_named`` in
        pbem/games/text.py); None when no move names a player."""
        return None

    def legal_texts(self, state: StateT, seat: int, limit: int = 40) -> list[str]:
        """Legal moves for error messages and hints, as the reader writes them (``say_move``)."""
        return [self.say_move(move) for move in self.legal_moves(state, seat)[:limit]]


class FoldingGameSpec(GameSpec[StateT, MoveT]):
    """A game whose moves are decided by folding their facts one by one (the automatic
    follow-ups depend on the state each fact leaves): it implements ``decide_and_fold``, and
    ``decide`` is that without the state."""

    @abstractmethod
    def decide_and_fold(self, state: StateT, seat: int, move: MoveT, rng: Rng) -> tuple[list[Fact], StateT]:
        """The facts a legal move causes, and the state after them (what ``evolve`` of each
        in turn gives); raises ``GameError`` if the move is not legal now."""

    def decide(self, state: StateT, seat: int, move: MoveT, rng: Rng) -> list[Fact]:
        return self.decide_and_fold(state, seat, move, rng)[0]


AnySpec = GameSpec[Any, Any]  # a game not known until run time (the registry, the service)
