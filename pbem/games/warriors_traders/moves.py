"""Orders as text, in English, Czech and Polish: ``format_move`` gives the canonical English line
and ``parse_move`` reads any of the three (diacritics optional), resolving short forms against
the legal moves. ``say_move`` writes an order in the words of the language spoken now (the
glossary's Czech and Polish words), and ``parse_move`` reads it back."""

from __future__ import annotations

from collections.abc import Callable

from pbem.games.base import ErrorCode, GameError, illegal, invalid, syntax
from pbem.games.text import _, fold, pgettext, resolve
from pbem.games.warriors_traders import rules, words
from pbem.games.warriors_traders.data import ARMY_KINDS, RESOURCES, TRACKS
from pbem.games.warriors_traders.maneuvers import remaining
from pbem.games.warriors_traders.state import State, bundle, bundle_text

VERBS = {
    "develop": "develop",
    "rozvoj": "develop",
    "rozvin": "develop",
    "build": "build",
    "postav": "build",
    "fort": "fort",
    "pevnost": "fort",
    "upgrade": "upgrade",
    "reinforce": "upgrade",
    "posil": "upgrade",
    "war": "war",
    "valka": "war",
    "pass": "pass",
    "nic": "pass",
    "pas": "pass",
    "done": "done",
    "hotovo": "done",
    "konec": "done",
    "shift": "shift",
    "presun": "shift",
    "bank": "bank",
    "banka": "bank",
    "route": "route",
    "cesta": "route",
    "offer": "offer",
    "nabidka": "offer",
    "accept": "accept",
    "prijmi": "accept",
    "decline": "decline",
    "odmitni": "decline",
    "buy": "buy",
    "kup": "buy",
    "peace": "peace",
    "mir": "peace",
    "move": "move",
    "tah": "move",
    "pohyb": "move",
    "princess": "princess",
    "princezna": "princess",
    "unify": "unify",
    "sjednoceni": "unify",
    "sjednot": "unify",
    "hit": "hit",
    "zasah": "hit",
    "poskozeni": "hit",
    "auto": "auto",
    "automaticky": "auto",
    "refuge": "refuge",
    "ustup": "refuge",
    "starve": "starve",
    "nekrmit": "starve",
    "nenakrm": "starve",
    "hladovi": "starve",
    # Polish (pbem/games/warriors_traders/glossary.json), folded
    "rozwin": "develop",
    "rozwoj": "develop",
    "zbuduj": "build",
    "buduj": "build",
    "twierdza": "fort",
    "wzmocnij": "upgrade",
    "wojna": "war",
    "pasuj": "pass",
    "gotowe": "done",
    "koniec": "done",
    "przesun": "shift",
    "szlak": "route",
    "oferta": "offer",
    "przyjmij": "accept",
    "odrzuc": "decline",
    "pokoj": "peace",
    "ruch": "move",
    "idz": "move",
    "ksiezniczka": "princess",
    "zjednocz": "unify",
    "zjednoczenie": "unify",
    "cios": "hit",
    "traf": "hit",
    "automatycznie": "auto",
    "odwrot": "refuge",
    "gloduj": "starve",
    "niekarm": "starve",
}
WORDS = {
    "produkce": "production",
    "obchod": "trade",
    "vojenstvi": "military",
    "pechota": "infantry",
    "pesak": "infantry",
    "lukostrelci": "archer",
    "lukostrelec": "archer",
    "archers": "archer",
    "jizda": "cavalry",
    "jezdec": "cavalry",
    "jidlo": "food",
    "vyrobky": "goods",
    "zbrane": "weapons",
    "zbran": "weapons",
    "weapon": "weapons",
    "zlato": "gold",
    "produkcja": "production",
    "handel": "trade",
    "wojsko": "military",
    "wojskowosc": "military",
    "piechota": "infantry",
    "piechur": "infantry",
    "lucznicy": "archer",
    "lucznik": "archer",
    "jazda": "cavalry",
    "jezdziec": "cavalry",
    "zywnosc": "food",
    "jedzenie": "food",
    "towary": "goods",
    "towar": "goods",
    "bron": "weapons",
    "zloto": "gold",
}
NOT_SUPPORTED: dict[str, Callable[[], str]] = {
    "disband": lambda: _("Armies cannot be disbanded; 'starve UNIT' leaves one unfed: it dies at the next feeding."),
    "variant": lambda: _(
        "The revised rules' optional variants (variable turn order, 3-player rules) are not "
        "part of the first edition and are not implemented."
    ),
}
LABELS: dict[str, Callable[[], str]] = {
    "track": lambda: pgettext("warriors-traders label", "track"),
    "kind of army": lambda: pgettext("warriors-traders label", "kind of army"),
    "province": lambda: pgettext("warriors-traders label", "province"),
    "country": lambda: pgettext("warriors-traders label", "country"),
    "resource": lambda: pgettext("warriors-traders label", "resource"),
    "unit": lambda: pgettext("warriors-traders label", "unit"),
    "count": lambda: pgettext("warriors-traders label", "count"),
    "offer": lambda: pgettext("warriors-traders label", "offer"),
    "amount": lambda: pgettext("warriors-traders label", "amount"),
}


def _label(label: str) -> str:
    return LABELS[label]() if label in LABELS else label


NOT_SUPPORTED.update({"rozpustit": NOT_SUPPORTED["disband"]})
FILLER = {"for", "za", "vp", "vb", "body", "bodu", "pz", "punkty", "punktow", "to", "do", "x"}
OFFER_SPLIT = {"for", "za"}
OFFER_FILLER = {"and", "a", "i", "+"}  # "5 food and 2 goods", "5 jídlo a 2 výrobky", "5 żywność i 2 towary"
SEPARATOR = "|"
USAGE = {
    "develop": "develop TRACK",
    "build": "build ARMY PROVINCE",
    "fort": "fort PROVINCE",
    "upgrade": "upgrade UNIT ARMY",
    "war": "war COUNTRY",
    "shift": "shift FROM_TRACK TO_TRACK",
    "bank": "bank GIVE GET [COUNT]",
    "route": "route COUNTRY",
    "offer": "offer COUNTRY N GIVE [N GIVE ...] for N GET [N GET ...]",
    "accept": "accept OFFER",
    "decline": "decline OFFER",
    "buy": "buy [COUNT] vp",
    "peace": "peace COUNTRY",
    "move": "move UNIT PROVINCE",
    "refuge": "refuge PROVINCE",
    "princess": "princess UNIT PROVINCE",
    "hit": "hit UNIT [AMOUNT]",
    "starve": "starve UNIT",
}


def format_move(move: tuple) -> str:
    verb = move[0]
    if verb == "bank":
        return f"bank {move[1]} {move[2]} {move[3]}"
    if verb == "offer":
        return f"offer {move[1]} {bundle_text(move[2])} for {bundle_text(move[3])}"
    if verb == "buy":
        return f"buy {move[1]} vp"
    return " ".join(str(part) for part in move)


class _Reader:
    def __init__(self, state: State, words: list[str], text: str):
        self.state, self.words, self.text = state, words, text

    def fail(self, what: str) -> GameError:
        return invalid(_("In {text}: {what}.", text=repr(self.text), what=what))

    def take(self) -> str | None:
        return self.words.pop(0) if self.words else None

    def choice(self, options, label: str) -> str | None:
        word = self.take()
        if word is None:
            return None
        word = WORDS.get(word, word)
        if word in options:
            return word
        hits = [o for o in options if o.startswith(word)]
        if len(hits) == 1:
            return hits[0]
        raise self.fail(
            _(
                "{word} is not a {label} ({options})",
                word=repr(word),
                label=_label(label),
                options=", ".join(_key_word(o) for o in options),
            )
        )

    def number(self, label: str) -> int | None:
        word = self.take()
        if word is None:
            return None
        if not word.isdigit():
            raise self.fail(_("{word} is not a number ({label})", word=repr(word), label=_label(label)))
        return int(word)

    def named(self, kind: str) -> str | None:
        word = self.take()
        if word is None:
            return None
        table: dict[str, tuple[str, ...]]
        if kind == "province":
            provinces = self.state.gmap.provinces
            table = {pid: (pid, pid.split("_", 1)[-1], fold(p.name)) for pid, p in provinces.items()}
        else:
            table = {c.id: (c.id, fold(c.name)) for c in self.state.gmap.countries}
        exact = [key for key, names in table.items() if word in names]
        if exact:
            return exact[0]
        hits = [key for key, names in table.items() if any(n.startswith(word) for n in names)]
        if len(hits) == 1:
            return hits[0]
        if hits:
            raise GameError(
                ErrorCode.AMBIGUOUS,
                _(
                    "In {text}: {word} could be {options}.",
                    text=repr(self.text),
                    word=repr(word),
                    options=", ".join(hits),
                ),
                hits,
            )
        raise self.fail(_("there is no {label} {word} on this map", label=_label(kind), word=repr(word)))


def _pattern(reader: _Reader, verb: str) -> tuple:
    r = reader
    arms, res = ARMY_KINDS, RESOURCES
    readers: dict[str, Callable[[], tuple]] = {
        "develop": lambda: (r.choice(TRACKS, "track"),),
        "build": lambda: (r.choice(arms, "kind of army"), r.named("province")),
        "fort": lambda: (r.named("province"),),
        "upgrade": lambda: (r.number("unit"), r.choice(arms, "kind of army")),
        "war": lambda: (r.named("country"),),
        "peace": lambda: (r.named("country"),),
        "route": lambda: (r.named("country"),),
        "shift": lambda: (r.choice(TRACKS, "track"), r.choice(TRACKS, "track")),
        "bank": lambda: (r.choice(res, "resource"), r.choice(res, "resource"), r.number("count") or 1),
        "offer": lambda: _offer(r),
        "accept": lambda: (r.number("offer"),),
        "decline": lambda: (r.number("offer"),),
        "buy": lambda: (r.number("count") or 1,),
        "move": lambda: (r.number("unit"), r.named("province")),
        "princess": lambda: (r.number("unit"), r.named("province")),
        "hit": lambda: (r.number("unit"), r.number("amount")),
        "refuge": lambda: (r.named("province"),),
        "starve": lambda: (r.number("unit"),),
    }
    args = readers[verb]() if verb in readers else ()
    if reader.words:
        raise reader.fail(
            _(
                "unexpected {words}; write {usage}",
                words=repr(" ".join(reader.words)),
                usage=say_text(USAGE.get(verb, verb)),
            )
        )
    return (verb, *args)


def _offer(r: _Reader) -> tuple:
    """``offer COUNTRY N RES [N RES ...] for N RES [N RES ...]``: any resources on either side."""
    country = r.named("country")
    if SEPARATOR not in r.words:
        raise r.fail(_("write offer COUNTRY N RESOURCE [N RESOURCE ...] for N RESOURCE [N RESOURCE ...]"))
    cut = r.words.index(SEPARATOR)
    give_words, get_words = r.words[:cut], r.words[cut + 1 :]
    r.words = give_words
    give = _bundle(r)
    r.words = get_words
    get = _bundle(r)
    return (country, give, get)


def _bundle(r: _Reader) -> tuple[tuple[str, int], ...]:
    amounts: dict[str, int] = {}
    while r.words:
        n = r.number("amount")
        resource = r.choice(RESOURCES, "resource")
        if resource is None:
            raise r.fail(_("each amount needs its resource, e.g. 5 food"))
        amounts[resource] = amounts.get(resource, 0) + (n or 0)
    if not amounts:
        raise r.fail(_("name at least one amount and resource on each side of 'for'"))
    return bundle(amounts)


def _order_words(text: str) -> list[str]:
    """The order's words without the filler; an offer's "for" / "za" becomes the separator of
    its two sides."""
    raw = fold(text).replace(",", " ").split()
    offer = bool(raw) and VERBS.get(raw[0]) == "offer"  # "for" / "za" parts an offer's two sides
    words = [
        SEPARATOR if offer and w in OFFER_SPLIT else w for w in raw if w not in FILLER or (offer and w in OFFER_SPLIT)
    ]
    return [w for w in words if not (offer and w in OFFER_FILLER)]


def _completed(state: State, seat: int, pattern: tuple) -> tuple:
    """The pattern with what the words may leave out: "hit UNIT" is all the damage left, and
    "pass" and "done" both close the seat's part of a step."""
    if pattern[0] == "hit" and pattern[2] is None and state.battle is not None:
        return ("hit", pattern[1], remaining(state.battle, seat))
    closing = rules.trivial_move(state, seat)
    if pattern in (("pass",), ("done",)) and closing in (("pass",), ("done",)):
        return closing
    return pattern


def parse_move(state: State, seat: int, text: str, legal_texts: Callable[[], list[str]]) -> tuple:
    words = _order_words(text)
    if words and words[0] in NOT_SUPPORTED:
        raise invalid(f"{text.strip()!r}: {NOT_SUPPORTED[words[0]]()}", legal_texts())
    if not words or words[0] not in VERBS:
        raise syntax(_("{text} is not a Warriors & Traders order.", text=repr(text.strip())), legal_texts())
    reader = _Reader(state, words[1:], text.strip())
    pattern = _completed(state, seat, _pattern(reader, VERBS[words[0]]))
    if None not in pattern:
        reason = rules.why_not(state, seat, pattern)
        if reason:
            raise illegal(_("{text} is not legal now: {reason}", text=repr(text.strip()), reason=reason), legal_texts())
        return pattern
    matches = [
        m
        for m in rules.legal(state, seat)
        if len(m) == len(pattern) and all(p is None or p == v for p, v in zip(pattern, m, strict=False))
    ]
    why = "" if matches else _("no order of yours fits it in {step}", step=rules.phase_name(state))
    return resolve(text, matches, format_move, legal=legal_texts(), why=why, hint="say which")


def _key_word(key: str) -> str:
    """A track, kind of army or resource in the reader's words (the English key otherwise)."""
    if key in TRACKS:
        return words.track(key)
    if key in ARMY_KINDS:
        return words.unit(key)
    if key in RESOURCES:
        return words.resource(key)
    return key


def say_text(text: str) -> str:
    """A canonical order (``format_move``'s English) in the words of the language spoken now:
    the verb, tracks, kinds of army, resources and "for"/"vp" are the glossary's; numbers,
    provinces and countries stay as they are. ``parse_move`` reads the result back."""
    parts = text.split()
    if not parts or parts[0] not in VERBS.values():
        return text
    said = [words.command(parts[0])]
    said += [words.command(part) if part in ("for", "vp") else _key_word(part) for part in parts[1:]]
    return " ".join(said)


def say_move(move: tuple) -> str:
    return say_text(format_move(move))


# one example of each order, for the reply to "help"
EXAMPLES = (
    "develop trade",
    "build infantry w_paris",
    "fort w_paris",
    "upgrade 12 archer",
    "war england",
    "shift trade military",
    "bank food gold 1",
    "route england",
    "offer england 2 food for 1 gold",
    "accept 1",
    "decline 1",
    "buy 1 vp",
    "peace england",
    "move 12 w_paris",
    "princess 3 w_paris",
    "unify",
    "refuge w_paris",
    "hit 12 2",
    "starve 12",
    "done",
    "pass",
    "auto",
)
