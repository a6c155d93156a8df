"""The command language of mail: one command per line, English, Czech or Polish keywords (with
or without diacritics, in any case). Pure functions."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from pbem import i18n
from pbem.games.speech import N_, _
from pbem.games.text import fold
from pbem.mailroom import clocks

# canonical name -> keywords (compared without diacritics, lower case)
KEYWORDS: dict[str, tuple[str, ...]] = {
    "help": ("help", "pomoc", "napoveda", "?"),
    "catalog": ("catalog", "catalogue", "katalog", "nabidka", "oferta"),
    "games": ("games", "hry", "partie", "gry"),
    "new": ("new", "nova", "novy", "zalozit", "nowa", "nowy", "utworz", "zaloz"),
    "join": ("join", "pripojit", "prihlasit", "dolacz", "dolaczam"),
    "status": ("status", "stav", "stan"),
    "history": ("history", "historie", "historia"),
    "subscribe": ("subscribe", "watch", "odebirat", "sledovat", "obserwuj", "subskrybuj"),
    "unsubscribe": ("unsubscribe", "unwatch", "neodebirat", "nesledovat", "nieobserwuj", "wypisz", "odsubskrybuj"),
    "language": ("language", "lang", "jazyk", "jezyk"),
    "pictures": ("pictures", "images", "obrazky", "obrazki"),
    "receipts": ("receipts", "receipt", "potvrzeni", "potwierdzenia", "potwierdzenie"),  # off | on | daily
    "name": ("name", "jmeno", "imie"),  # the name you go by in the games created from now on
    "absence": ("absence", "away", "nepritomnost", "dovolena", "nieobecnosc", "urlop"),
    "resign": ("resign", "vzdat", "vzdavam", "poddaj", "poddaje", "rezygnuje"),
    "template": ("template", "turnfile", "sablona", "formular", "szablon", "formularz"),
    "confirm": ("confirm", "potvrdit", "potvrzuji", "potwierdz", "potwierdzam"),
    "rotate": ("rotate", "newaddress", "novaadresa", "zmenitadresu", "nowyadres", "zmienadres"),
    "legal": ("moves", "legal", "tahy", "ruchy"),  # every legal move now (a mail lists only the first few)
    # the time zone your weekends are counted in (``časové pásmo``, ``strefa czasowa``: two words)
    "timezone": ("timezone", "tz", "casovepasmo", "pasmo", "strefaczasowa", "strefa"),
    # the people at a table (pbem/mailroom/people.py)
    "rematch": ("rematch", "odveta", "rewanz"),
    "undo": ("undo", "zpet", "cofnij"),
    "substitute": ("substitute", "nahradnik", "zastepca"),
    "propose": ("propose", "navrh", "navrhuji", "proponuje", "propozycja"),
    "accept": ("accept", "prijmout", "akceptuj"),
    "decline": ("decline", "reject", "odmitnout", "odmitam", "odrzuc", "odrzucam"),  # a vote against a proposal
}
# The keywords that are only Czech or only Polish (``pomoc`` and ``katalog`` are both): a mail
# to the service address from somebody who chose no language is answered in the language of
# its words.
WORD_LANGUAGES: dict[str, str] = {
    word: lang
    for lang, words in (
        (
            "cs",
            """napoveda nabidka hry partie nova novy zalozit pripojit prihlasit stav historie odebirat sledovat
            neodebirat nesledovat jazyk obrazky nepritomnost dovolena vzdat vzdavam sablona formular potvrdit
            potvrzuji novaadresa zmenitadresu tahy jmeno casove casovepasmo pasmo odveta zpet nahradnik navrh
            navrhuji prijmout odmitnout odmitam""",
        ),
        (
            "pl",
            """oferta gry nowa nowy utworz zaloz dolacz dolaczam stan historia obserwuj subskrybuj nieobserwuj
            wypisz odsubskrybuj jezyk obrazki nieobecnosc urlop poddaj poddaje rezygnuje szablon formularz
            potwierdz potwierdzam nowyadres zmienadres ruchy imie strefa strefaczasowa rewanz cofnij zastepca
            proponuje propozycja akceptuj odrzuc odrzucam""",
        ),
        (
            "en",
            """help catalog catalogue games new join status history subscribe watch unsubscribe unwatch language
            lang pictures images absence away resign template turnfile confirm rotate newaddress moves legal name
            timezone tz rematch undo substitute propose accept decline reject""",
        ),
    )
    for word in words.split()
}
ABSENCE_USAGE = N_("absence YYYY-MM-DD YYYY-MM-DD, or absence off")
# The words of ``absence off``.
ABSENCE_OFF = ("off", "none", "zrusit", "konec", "koniec", "wylacz", "brak")
LOOKUP = {word: name for name, words in KEYWORDS.items() for word in words}
# an address's standing settings: each adds an event to a mail record, and one sent to the
# service address is confirmed first (``pbem.mailroom.desk``)
SETTINGS = ("language", "pictures", "receipts", "name", "absence", "timezone", "subscribe", "unsubscribe")
# commands that make sense on a seat's private address, besides the game's own commands
SEAT_COMMANDS = (
    "help",
    "join",
    "status",
    "history",
    "resign",
    "template",
    *SETTINGS,
    "rotate",
    "legal",
    "rematch",
    "undo",
    "substitute",
    "propose",
    "accept",
    "decline",
)
# Seat commands that a game may also use as a move (Warriors & Traders' ``accept OFFER``): the
# game's reading of such a line comes first.
GAME_FIRST = ("accept", "decline")
TIMEZONE_USAGE = N_("timezone AREA/CITY, as the tz database names it (e.g. timezone Europe/Prague)")
LANGUAGES = i18n.LANGUAGES
LANGUAGE_WORDS = i18n.LANGUAGE_WORDS
SUBJECT_PREFIX = re.compile(r"^\s*((re|fw|fwd|aw|odp|tr|wg|sv|pd|pf|vs)\s*:\s*)+", re.IGNORECASE)
GAME_TAG = re.compile(r"^\s*[a-z][a-z0-9-]*-[0-9a-f]{6,}:\s*", re.IGNORECASE)  # "kingsburg-4449cbf6: "


@dataclass(frozen=True)
class Command:
    name: str  # a key of KEYWORDS
    args: tuple[str, ...]
    text: str  # the line as written


def plain(word: str) -> str:
    """Lower case without diacritics ("Připojit" -> "pripojit", "Dołącz" -> "dolacz")."""
    return fold(word)


def parse_command(line: str) -> Command | None:
    """The mail command on a line, or None when its first word is no keyword."""
    words = line.split()
    if not words:
        return None
    if len(words) > 1 and LOOKUP.get(plain(words[0] + words[1]).rstrip(":")):  # časové pásmo
        return Command(LOOKUP[plain(words[0] + words[1]).rstrip(":")], tuple(words[2:]), line)
    name = LOOKUP.get(plain(words[0]).rstrip(":"))
    return Command(name, tuple(words[1:]), line) if name else None


def subject_command(subject: str) -> str:
    """A subject without Re:/Fwd: prefixes and our own "[pbem ...]" tag."""
    text = SUBJECT_PREFIX.sub("", subject or "")
    text = re.sub(r"^\s*\[[^\]]*\]\s*", "", text)
    return text.strip()


def plain_subject(subject: str) -> str:
    """An incoming subject without any "Re:", "[pbem]" or "GAME:" layers, however many a
    chain of replies stacked up, so the subject of our answer never grows."""
    previous = None
    while subject != previous:
        previous = subject
        subject = GAME_TAG.sub("", subject_command(subject))
    return subject[:60]


def words_language(commands: list[Command]) -> str | None:
    """The language a mail's commands are written in: the first keyword that belongs to one
    language only; ``language cs`` is asked in the language it names."""
    for command in commands:
        if command.name == "language" and command.args and language_of(command.args[0]):
            return language_of(command.args[0])
        found = WORD_LANGUAGES.get(plain(command.text.split()[0]).rstrip(":")) if command.text.split() else None
        if found:
            return found
    return None


DAILY_WORDS = frozenset({"daily", "denne", "codziennie", "dziennie"})  # compared without diacritics


def watch_daily(name: str, rest: Sequence[str]) -> bool:
    """Whether ``subscribe GAME`` asks for one digest a day (``daily``, ``denně``,
    ``codziennie``) rather than one per turn; anything else after the game is refused."""
    words = [plain(word) for word in rest]
    if not words:
        return False
    if name == "subscribe" and len(words) == 1 and words[0] in DAILY_WORDS:
        return True
    raise ValueError(_("subscribe GAME or subscribe GAME daily") if name == "subscribe" else _("unsubscribe GAME"))


def language_of(word: str) -> str | None:
    return LANGUAGE_WORDS.get(plain(word))


# "pictures off" in the three languages (compared without diacritics): obrázky vypnout, obrazki wyłącz
PICTURE_WORDS = {
    "on": True,
    "off": False,
    "yes": True,
    "no": False,
    "zapnout": True,
    "vypnout": False,
    "zapnuto": True,
    "vypnuto": False,
    "ano": True,
    "ne": False,
    "wlacz": True,
    "wylacz": False,
    "tak": True,
    "nie": False,
}


def pictures_of(args: tuple[str, ...]) -> bool | None:
    """``pictures on`` / ``pictures off`` (and their Czech and Polish words) as True or False;
    None when the line says neither."""
    return PICTURE_WORDS.get(plain(args[0]).replace("ł", "l")) if len(args) == 1 else None


RECEIPT_CHOICES = ("on", "off", "daily")  # one receipt per mail (the default), none, one a day
RECEIPTS_USAGE = N_("receipts on, receipts off or receipts daily")


def receipts_of(args: tuple[str, ...]) -> str | None:
    """``receipts on|off|daily`` (``potvrzení zapnout|vypnout|denně``, ``potwierdzenia
    włącz|wyłącz|codziennie``) as one of ``RECEIPT_CHOICES``; None when the line says none."""
    if len(args) != 1:
        return None
    word = plain(args[0]).replace("ł", "l")
    if word in DAILY_WORDS:
        return "daily"
    on = PICTURE_WORDS.get(word)
    return None if on is None else "on" if on else "off"


@dataclass(frozen=True)
class NewGame:
    game_type: str
    players: tuple[str, ...]
    options: dict[str, str]
    mail_options: dict[str, str]  # deadline, deadline.PHASE, reminder, policy, robot-after


MAIL_OPTIONS = (
    "deadline",
    "reminder",
    "policy",
    "robot-after",
    "lang",
    "clock",
    "weekend",
    "vacation",
    "addresses",
    "start-within",
)
START_WITHIN_RANGE = (1, 90)  # days a game may wait for its players to join (pbem.mailroom.expiry)
TEXT_OPTIONS = ("policy", "lang", "clock", "weekend", "addresses")  # stored as text; the others are numbers
# addresses=shown: each player's mail lists the other players' addresses (the creator's choice; hidden by default)
ADDRESS_WORDS = {"shown": "shown", "show": "shown", "hidden": "hidden", "hide": "hidden"}
VACATION_RANGE = (0, 366)  # days of absence a seat may take per game and year
# Bounds of what a mail may ask for (docs/mail.md, "Limits"): a stored value outside them
# could stop the scheduler for every game, so they are checked when the line is read.
HOURS_RANGE = (1, 60 * 24)  # a deadline: 1 hour to 60 days
REMINDER_RANGE = (0, 60 * 24)
MISSES_RANGE = (0, 20)
MAX_ABSENCES = 20  # periods kept per address
MAX_NEW_PER_DAY = 10  # games one address may create by mail in a day
MAX_ABSENCE_DAYS = 366
MAX_DAYS_AHEAD = 2 * 366  # an absence starts and ends within two years of today


def parse_new(args: tuple[str, ...]) -> NewGame:
    """``new GAME a@x b@y [key=value ...]``; keys deadline (hours), deadline.WORD (hours in
    phases whose name contains WORD), reminder (hours), policy (wait|default), robot-after
    (misses) and lang (the language of mail to players who chose none) are the gateway's;
    other keys are the game's options."""
    if not args:
        raise ValueError(_("say which game: new GAME player@example.org ..."))
    players: list[str] = []
    options: dict[str, str] = {}
    mail_options: dict[str, str] = {}
    for arg in args[1:]:
        key, equals, value = arg.partition("=")
        if equals:
            base = key.split(".", 1)[0].lower()
            (mail_options if base in MAIL_OPTIONS else options)[key.lower() if base in MAIL_OPTIONS else key] = value
        elif "@" in arg:
            players.append(arg.strip("<>,;").lower())
        else:
            raise ValueError(_("{word} is neither a mail address nor KEY=VALUE", word=repr(arg)))
    for key, value in list(mail_options.items()):
        mail_options[key] = _mail_option(key, value)
    return NewGame(args[0].lower(), tuple(players), options, mail_options)


def _mail_option(key: str, value: str) -> str:
    """One of the gateway's options at ``new``, checked and as stored."""
    if key == "policy":
        if value not in ("wait", "default"):
            raise ValueError(_("policy is wait or default"))
        return value
    if key == "lang":
        language = language_of(value)
        if language is None:
            raise ValueError(_("lang is en, cs or pl"))
        return language
    if key == "addresses":
        word = plain(value)
        on = PICTURE_WORDS.get(word)  # addresses=on / off work too
        shown = ADDRESS_WORDS.get(word) or (None if on is None else "shown" if on else "hidden")
        if shown is None:
            raise ValueError(_("addresses is shown or hidden"))
        return shown
    if key.split(".", 1)[0] in ("clock", "weekend", "vacation"):
        return _time_option(key, value)
    _check_number(key, value)
    return value


def _time_option(key: str, value: str) -> str:
    """The options of correspondence clocks and vacations (``pbem.mailroom.clocks``)."""
    if key == "clock":
        bank, move = clocks.parse_clock(value)
        return f"{bank}+{move}"
    if key == "clock.max":
        return str(clocks.parse_clock_max(value))
    if key == "weekend":
        if plain(value) not in PICTURE_WORDS:
            raise ValueError(_("weekend is on or off"))
        return "on" if PICTURE_WORDS[plain(value)] else "off"
    if key == "vacation":
        low, high = VACATION_RANGE
        if not (value.isascii() and value.isdigit() and len(value) <= 3 and low <= int(value) <= high):
            raise ValueError(
                _("vacation takes a whole number of days from {low} to {high}, not {value}").format(
                    low=low, high=high, value=repr(value[:20])
                )
            )
        return value
    raise ValueError(_("{key} is no option of clocks: clock=BANK+MOVE, clock.max=, weekend=off").format(key=key[:20]))


def _check_number(key: str, value: str) -> None:
    if key == "start-within":
        low, high = START_WITHIN_RANGE
        if not (value.isascii() and value.isdigit() and len(value) <= 3 and low <= int(value) <= high):
            raise ValueError(
                _("start-within takes a whole number of days from {low} to {high}, not {value}").format(
                    low=low, high=high, value=repr(value[:20])
                )
            )
        return
    low, high = MISSES_RANGE if key == "robot-after" else REMINDER_RANGE if key == "reminder" else HOURS_RANGE
    if not (value.isascii() and value.isdigit() and len(value) <= 6 and low <= int(value) <= high):
        said = (
            _("{key} takes a whole number of misses from {low} to {high}, not {value}")
            if key == "robot-after"
            else _("{key} takes a whole number of hours from {low} to {high}, not {value}")
        )
        raise ValueError(said.format(key=key, low=low, high=high, value=repr(value[:20])))


def parse_absence(args: tuple[str, ...], today: date | None = None) -> tuple[str, str] | None:
    """``absence FROM TO`` (ISO dates, inclusive) or ``absence off`` (None). With ``today``
    both dates must lie within two years of it; a period is at most a year long."""
    if len(args) == 1 and plain(args[0]) in ABSENCE_OFF:
        return None
    if len(args) != 2:
        raise ValueError(_(ABSENCE_USAGE))
    try:
        start, end = (date.fromisoformat(a) for a in args if len(a) == 10)
    except ValueError:
        raise ValueError(_(ABSENCE_USAGE)) from None
    if end < start:
        raise ValueError(_("the absence ends before it starts"))
    if (end - start).days >= MAX_ABSENCE_DAYS:
        raise ValueError(_("an absence is at most {n} days long", n=MAX_ABSENCE_DAYS))
    if today is not None and (abs((start - today).days) > MAX_DAYS_AHEAD or abs((end - today).days) > MAX_DAYS_AHEAD):
        raise ValueError(_("an absence must lie within two years of today"))
    return start.isoformat(), end.isoformat()
