"""Composing outgoing mail from a model (a JSON-plain dict) with the Jinja2 templates in
``templates/mail/``: pure functions, no store access.

One template of each part for every language: ``state.txt`` (one line: what the mail is and where its game
stands), ``body.txt`` (the
plain text) and ``body.html`` (the HTML alternative), their words through gettext, rendered
in the model's ``lang`` (pbem/i18n.py; one environment per language, made once, so a mail
never loads a catalog or compiles a template). The model's ``kind`` says which mail
it is: reply, invitation, started, turn, ended, robot, deadline, missed, reminder, watch,
refused, wrong-address, limited.

The text part is the canonical one: every line at most ``TEXT_WIDTH`` characters (a line with
a URL aside), so it reads on a phone as written. The HTML part is built from the same model:
the answers to the mail's commands as paragraphs, the game as headings, lists (the decision's
moves one per line, ready to copy), a table of the standings and links; the board is a PNG
picture (``mailgateway/picture.py``) inline in the HTML part (``multipart/related``, found by
its Content-ID) when the model carries one (``pbem/mailroom/pictures.py``).

A game's subject is the same in every mail of the game's life, ``[pbem] TITLE — NAMES`` (the
names its seats were created with), so mail clients that thread by subject keep the game in one
conversation; it is at most ``SUBJECT_MAX`` characters, never cut inside a word (the last names
give way to "+2"). What the mail is and where the game stands ("your turn - Turn 5 (...)") is
the header ``X-Pbem-State`` and the first line of the text, where a phone's preview shows it.
Every mail about a game also names the game's thread id for the player in ``References``, so
clients that thread by references keep the game together too.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import textwrap
from collections.abc import Callable
from datetime import datetime
from email.header import Header
from email.utils import format_datetime
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from jinja2 import ChainableUndefined, Environment, FileSystemLoader, select_autoescape
from jinja2.utils import urlize
from markupsafe import Markup

from mailgateway import mime
from mailgateway.picture import Picture, picture_of
from pbem import i18n
from pbem.mailroom.pictures import unpacked

TEMPLATES = Path(str(files("pbem.templates")))  # templates/ in the checkout, package data in the wheel
LANGUAGES = i18n.LANGUAGES
SUBJECT_MAX = 60  # what a phone's inbox shows of a subject, about
TEXT_WIDTH = 72  # characters of a line of the text part (a line with a URL or a command may be longer)
# The text template marks a line a player may copy as a command (``| command``): it is never
# broken, since half a move is no move; the mark goes before the mail is sent.
COMMAND_MARK = "\x1e"
MAX_STATE = 200  # characters of the state line (a phase is a sentence at most)
URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S", re.IGNORECASE)


@lru_cache(maxsize=len(LANGUAGES))
def environment(lang: str = i18n.DEFAULT) -> Environment:
    """The templates' environment with ``lang``'s catalog installed (``_``, ``ngettext``)."""
    catalog = i18n.translations(lang)
    env = Environment(
        loader=TranslatedLoader(str(TEMPLATES), catalog.gettext),
        autoescape=select_autoescape(["html"]),
        undefined=ChainableUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.globals.update(gettext_functions(catalog))
    env.filters["command"] = lambda line: COMMAND_MARK + str(line)
    return env


CONSTANT_MESSAGE = re.compile(r"""\{\{ _\(("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\) \}\}""")


class TranslatedLoader(FileSystemLoader):
    """Templates with each ``{{ _("constant") }}`` already translated, once per language when
    the template is loaded, so composing a mail calls gettext only for messages with values."""

    def __init__(self, folder: str, gettext: Any):
        super().__init__(folder)
        self.gettext = gettext

    def get_source(self, environment: Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        source, filename, uptodate = super().get_source(environment, template)
        return CONSTANT_MESSAGE.sub(self._constant, source), filename, uptodate

    def _constant(self, match: re.Match[str]) -> str:
        return "{{ " + repr(self.gettext(ast.literal_eval(match.group(1)))) + " }}"


def gettext_functions(catalog: Any) -> dict[str, Any]:
    """``_``, ``gettext``, ``ngettext`` and ``pgettext`` for the templates: plain functions (not
    Jinja's i18n extension, whose per-call context handling doubled the time of a mail) that
    fill named placeholders only when given values, as Flask-Babel's do. Their results are
    plain text, so the HTML template escapes them."""
    gettext, ngettext, pgettext = catalog.gettext, catalog.ngettext, catalog.pgettext

    def translate(message: str, **values: Any) -> str:
        text = str(gettext(message))
        return text % values if values else text

    def plural(singular: str, plural_: str, num: int, **values: Any) -> str:
        return str(ngettext(singular, plural_, num) % {"num": num, **values})

    def in_context(context: str, message: str, **values: Any) -> str:
        text = str(pgettext(context, message))
        return text % values if values else text

    return {"_": translate, "gettext": translate, "ngettext": plural, "pgettext": in_context}


def render(model: dict[str, Any], picture: Picture | None = None, cid: str = "") -> tuple[str, str, str]:
    """(subject, text, html) for a model; the HTML shows ``picture`` as ``cid:CID``."""
    subject, _, text, html = rendered(model, picture, cid)
    return subject, text, html


def rendered(model: dict[str, Any], picture: Picture | None = None, cid: str = "") -> tuple[str, str, str, str]:
    """(subject, state, text, html) for a model."""
    subject, state = subject_and_state(model)
    env = environment(i18n.known(model.get("lang")))
    body = env.get_template("mail/body.txt")
    text = capped(wrapped(body.render(m=model, state=state)))
    answers = capped(wrapped(body.render(m=model, bare=True)))  # the same without the game and signature
    html = env.get_template("mail/body.html").render(
        m=model, state=state, answers=paragraphs(answers), picture=picture, cid=cid
    )
    return subject, state, text, html


def subject_and_state(model: dict[str, Any]) -> tuple[str, str]:
    """The subject of a model's mail and its state line ("Your turn - Turn 5 (...)"). A mail
    about a game has the game's one subject; any other says what it is after "[pbem]"."""
    env = environment(i18n.known(model.get("lang")))
    state = " ".join(env.get_template("mail/state.txt").render(m=model).split())[:MAX_STATE]
    game = model.get("game")
    if not any(state.startswith(name) for name in (game or {}).get("seats") or []):
        state = state[:1].upper() + state[1:]  # a name stays as its player writes it
    if game:
        return game_subject(str(game.get("title", "")), game.get("table") or game.get("seats") or []), state
    return within_words(f"[pbem] {state}"), state


def game_subject(title: str, names: list[str], limit: int = SUBJECT_MAX) -> str:
    """``[pbem] TITLE — NAMES`` within ``limit`` characters: as many names as fit, in seat
    order, and "+N" for the others; a title that leaves room for none is cut at a space."""
    head = within_words(f"[pbem] {title}", limit)
    for shown in range(len(names), -1, -1):
        rest = len(names) - shown
        table = ", ".join(names[:shown]) + (f" +{rest}" if rest else "")
        subject = f"{head} — {table.strip()}"
        if len(subject) <= limit:
            return subject
    return head


def within_words(text: str, limit: int = SUBJECT_MAX) -> str:
    """``text`` within ``limit`` characters, cut at a space (with "..."), never inside a word;
    only a word longer than half the limit is cut after all."""
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit - 2)
    return (text[:cut] if cut > limit // 2 else text[: limit - 3]).rstrip(" ,;:-") + "..."


def wrapped(text: str, width: int = TEXT_WIDTH) -> str:
    """``text`` with every line at most ``width`` characters, broken at spaces: the lines after
    the first of an indented line are indented two more, so a list item or a board's line stays
    one block; a line with a URL stays whole (a broken URL is no link), as do a command
    (``COMMAND_MARK``: a copied half would be no command) and a word longer than the width
    (an address)."""
    lines: list[str] = []
    for marked in text.split("\n"):
        line = marked.replace(COMMAND_MARK, "")  # one a sender wrote into their text counts for nothing
        body = line.lstrip(" ")
        indent = line[: len(line) - len(body)]
        if len(line) <= width or URL.search(line) or marked.startswith(indent + COMMAND_MARK):
            lines.append(line)
            continue
        lines += textwrap.wrap(
            body,
            width=width,
            initial_indent=indent,
            subsequent_indent=indent + "  " if indent or body.startswith("- ") else "",
            break_long_words=False,
            break_on_hyphens=False,
        ) or [line]
    return "\n".join(lines)


def paragraphs(text: str) -> Markup:
    """Plain text as HTML paragraphs (one per block between blank lines, its lines and their
    indentation kept, links made links), for the answers in a mail's HTML part."""
    blocks = [block.strip("\n") for block in re.split(r"\n[ \t]*\n", text) if block.strip()]
    return Markup("\n").join(
        Markup('<p style="white-space: pre-wrap; margin: 0 0 1em;">{}</p>').format(
            Markup(urlize(block, rel="noopener", target=None))
        )
        for block in blocks
    )


MAX_TEXT = 64 * 1024  # characters of a mail's text; the rest is cut, and the mail says so


def capped(text: str) -> str:
    if len(text) <= MAX_TEXT:
        return text
    return text[:MAX_TEXT].rsplit("\n", 1)[0] + "\n\n[... cut here: the answer was longer than 64 KiB]\n"


def reference_chain(thread: str | None, theirs: tuple[str, ...] | list[str], in_reply_to: str | None) -> list[str]:
    """The ``References`` of a mail: the game's thread id, the last ones the player's mail
    named, and the mail it answers (RFC 5322 section 3.6.4)."""
    chain = [thread] if thread else []
    chain += [ref for ref in list(theirs)[-8:] if ref not in chain]
    if in_reply_to and in_reply_to not in chain:
        chain.append(in_reply_to)
    return chain


def message_id(key: str, domain: str) -> str:
    return f"<{hashlib.sha256(key.encode()).hexdigest()[:32]}@{domain}>"


def subject_value(subject: str, name: str = "Subject") -> str:
    """The value of the Subject header (or another of free text) with every space of a
    non-ASCII subject kept. The stdlib folds a long one into an encoded word per word, and
    RFC 2047 drops the space between two encoded words, so "Královská výpomoc" reached players
    as "Královskávýpomoc". Here the ASCII words before the first other one stay plain, and the
    rest is one run of encoded words (``Header`` encodes the spaces inside them), on lines
    joined by ``"\\n "`` that are kept as they are (``mailgateway.mime.header``)."""
    if subject.isascii():
        return subject
    first = next(index for index, char in enumerate(subject) if not char.isascii())
    cut = subject.rfind(" ", 0, first)
    plain, rest = (subject[:cut], subject[cut + 1 :]) if cut > 0 else ("", subject)
    # without plain words the first encoded word follows "Name: ", on a line of at most 76 characters
    encoded = Header(rest, "utf-8", maxlinelen=76, header_name=None if plain else name).encode(linesep="\n")
    return f"{plain}\n {encoded}" if plain else encoded


def _from_name(model: dict[str, Any]) -> str:
    """Who a mail is from, as a mail client lists it: a message's sender by name."""
    if model.get("kind") == "press":
        return f"{(model.get('extra') or {}).get('sender_name', '')} (pbem)".strip()
    return "pbem"


def build(
    model: dict[str, Any],
    key: str,
    to: str,
    sender: str,
    now: datetime,
    in_reply_to: str | None = None,
    references: tuple[str, ...] | list[str] = (),
    attachment: dict[str, Any] | None = None,
    thread: str | None = None,
) -> bytes:
    """The whole message, as it goes to the relay (``mailgateway.mime``: CRLF line ends).
    Replies carry ``Auto-Submitted: auto-replied`` and the thread headers; notices
    ``auto-generated`` (RFC 3834). A model whose game carries a picture gets it as a PNG inline
    in the HTML part (ValueError when it cannot be drawn: the sender makes the mail a dead
    letter, to be sent again)."""
    domain = sender.split("@", 1)[1]
    packed = (model.get("game") or {}).get("picture")
    picture = picture_of(unpacked(packed)) if packed else None
    cid = f"board.{hashlib.sha256(key.encode()).hexdigest()[:24]}@{domain}"
    subject, state, text, html = rendered(model, picture, cid)
    headers = [
        ("From", mime.mailbox(_from_name(model), sender)),
        ("Reply-To", sender),
        ("To", mime.recipient(to)),
        ("Subject", subject_value(subject)),
        ("Date", format_datetime(now)),
        ("Message-ID", message_id(key, domain)),
        ("Auto-Submitted", "auto-replied" if in_reply_to else "auto-generated"),
        ("X-Auto-Response-Suppress", "All"),
        ("X-Loop", sender.split("+", 1)[0].split("@", 1)[0] + "@" + domain),
        ("X-Pbem-Kind", mime.encoded(str(model.get("kind", "")))),  # for mail filters: reply, turn, ...
        ("X-Pbem-State", subject_value(state, "X-Pbem-State")),  # what the subject no longer says
    ]
    if in_reply_to:
        headers.append(("In-Reply-To", in_reply_to))
    chain = reference_chain(thread, references, in_reply_to)
    if chain:
        headers.append(("References", " ".join(chain)))
    headers.append(("MIME-Version", "1.0"))
    html_part = mime.text_part(html, "html")
    if picture is not None:
        image = mime.binary_part(
            picture.png,
            "image/png",
            [("Content-Disposition", 'inline; filename="board.png"'), ("Content-ID", f"<{cid}>")],
        )
        html_part = mime.multipart(key, "related", [html_part, image])
    language = [("Content-Language", mime.encoded(str(model.get("lang", "en"))))]
    parts = [mime.text_part(text, "plain"), html_part]
    if attachment is None:
        return mime.head(headers) + mime.multipart(key, "alternative", parts, language)
    receipt = mime.binary_part(
        json.dumps(attachment, indent=2, sort_keys=True).encode(),
        "application/json",
        [("Content-Disposition", 'attachment; filename="receipt.json"')],
    )
    mixed = [mime.multipart(key, "alternative", parts), receipt]
    return mime.head(headers) + mime.multipart(key, "mixed", mixed, language)
