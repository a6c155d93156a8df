"""Writes the reply corpus: ``*.eml`` and ``expectations.json`` beside this file.

    .venv/bin/python -m tests.mailgateway.corpus.make_corpus

Each mail is a player's answer to pbem's "your turn" mail of a Kingsburg game in year 1, the
King's aid, when every player takes one good: written the way a client lays a reply out (Gmail,
Outlook desktop and web, Apple Mail and the iPhone, Thunderbird; plain text, HTML-only and
multipart; quoted-printable, base64 and 8-bit; format=flowed; UTF-8, windows-1250 and
ISO-8859-2), top-posted, bottom-posted or inline, with greetings, sign-offs, bare names,
signatures, client footers and commands written without diacritics. The quoted original holds
the ready-to-send lines of all three goods, so a reader that takes a quoted line for a command
applies the wrong good. A few mails are genuinely unclear and must change nothing.

``To`` holds ``{{ADDRESS}}``, replaced by the sender's private address when the test sends the
mail. ``expectations.json`` says, per mail, the good that must be applied (or none), phrases the
reply must hold and lines the reply must list as not read. ``test_corpus.py`` checks that this
script writes exactly the files kept in the repository.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from email import policy
from email.charset import BASE64, QP, Charset
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.utils import formataddr
from pathlib import Path

HERE = Path(__file__).parent
SERVICE = "pbem@example.org"
QUOTED_ADDRESS = "pbem+kingsburg-0a1b2c3d.k7xq2m4dr5t6y3ab@example.org"  # the game the quote came from
GOODS = ("gold", "wood", "stone")


@dataclass(frozen=True)
class Language:
    code: str
    take: str
    goods: dict[str, str]
    plain_goods: dict[str, str]  # the goods written without diacritics
    plain_take: str
    moves: str  # the word that lists the legal moves
    names: tuple[str, ...]
    greetings: tuple[str, ...]
    closings: tuple[str, ...]
    footers: tuple[str, ...]
    wrote: dict[str, str]  # client -> attribution line
    outlook: dict[str, str]
    original: tuple[str, ...]  # pbem's mail, as quoted
    applied: str
    refused: str
    nothing: str
    not_read: str
    unclear: tuple[str, ...]  # lines that are no command, between two commands


CS = Language(
    code="cs",
    take="vezmi",
    goods={"gold": "zlato", "wood": "dřevo", "stone": "kámen"},
    plain_goods={"gold": "zlato", "wood": "drevo", "stone": "kamen"},
    plain_take="vezmi",
    moves="tahy",
    names=(
        "Petra Svobodová", "Jan Novák", "Tereza Dvořáková", "Lukáš Černý", "Eva Procházková", "Martin Kučera",
        "Jana Veselá", "Tomáš Horák", "Lenka Marková", "Jakub Pokorný", "Zuzana Králová", "Ondřej Růžička",
        "Kateřina Benešová", "Vojtěch Fiala", "Markéta Šťastná", "Jiří Sedláček", "Barbora Doležalová",
        "Radek Zeman", "Veronika Kolářová", "Michal Navrátil", "Hana Čermáková", "Pavel Urban", "Alena Vaňková",
        "Filip Blažek", "Klára Kříženecká", "Roman Kopecký", "Simona Holubová", "David Matějka", "Ivana Šimková",
        "Adam Hájek", "Monika Říhová", "Petr Bartoš", "Lucie Jelínková", "Marek Štěpánek", "Romana Malá",
        "Daniel Vlček", "Irena Pospíšilová", "Karel Machala", "Šárka Hrubá", "Libor Koubek", "Dana Kratochvílová",
        "Stanislav Jireš", "Věra Nováková", "Josef Šebesta", "Renata Čechová", "Aleš Vávra", "Gabriela Mach",
        "Milan Tichý", "Olga Bílková", "Zdeněk Musil",
    ),
    greetings=("Ahoj,", "Dobrý den,", "Zdravím všechny!", "Ahoj Bobe,", "Čau,", "Ahoj všichni, tady je můj tah:"),
    closings=("Díky", "S pozdravem", "Měj se!", "Díky a hezký den", "Zdravím"),
    footers=("Odesláno z iPhonu", "Odesláno z mého telefonu Samsung Galaxy", "Odesláno z Pošty pro Windows"),
    wrote={
        "gmail": f"po 5. 1. 2026 v 12:00 odesílatel pbem <{QUOTED_ADDRESS}> napsal:",
        "thunderbird": "Dne 05. 01. 26 v 12:00 pbem napsal(a):",
        "apple": f"Dne 5. 1. 2026 v 12:00, pbem <{QUOTED_ADDRESS}> napsal(a):",
    },
    outlook={
        "separator": "-----Původní zpráva-----",
        "from": "Od",
        "sent": "Odesláno",
        "to": "Komu",
        "subject": "Předmět",
        "date": "pondělí 5. ledna 2026 12:00",
    },
    original=(
        "Jste na tahu ve hře Kingsburg.",
        "",
        "== Kingsburg - hra kingsburg-0a1b2c3d, tah 4 ==",
        "",
        "Vaše rozhodnutí: Rok 1, Královská pomoc: vyberte si jednu surovinu od krále.",
        "Odpovězte jedním z těchto řádků (více řádků se zahraje popořadě):",
        "  vezmi zlato",
        "  vezmi dřevo",
        "  vezmi kámen",
        "",
        f"Vaše soukromá adresa (odpovědi jdou na ni): {QUOTED_ADDRESS}",
    ),
    applied="Vaše tahy byly provedeny.",
    refused="Nic nebylo provedeno",
    nothing="Ve vaší zprávě nebyl nalezen žádný příkaz",
    not_read="Nečteno jako příkazy:",
    unclear=("nebo možná radši", "hmm, nevím", "to je jedno"),
)  # fmt: skip

PL = Language(
    code="pl",
    take="weź",
    goods={"gold": "złoto", "wood": "drewno", "stone": "kamień"},
    plain_goods={"gold": "zloto", "wood": "drewno", "stone": "kamien"},
    plain_take="wez",
    moves="ruchy",
    names=(
        "Jan Kowalski", "Anna Nowak", "Piotr Wiśniewski", "Katarzyna Wójcik", "Tomasz Kowalczyk", "Magdalena Kamińska",
        "Paweł Lewandowski", "Agnieszka Zielińska", "Michał Szymański", "Małgorzata Woźniak", "Krzysztof Dąbrowski",
        "Joanna Kozłowska", "Łukasz Jankowski", "Ewa Mazur", "Marcin Kwiatkowski", "Barbara Krawczyk",
        "Grzegorz Piotrowski", "Zofia Grabowska", "Jakub Nowakowski", "Aleksandra Pawłowska", "Rafał Michalski",
        "Dorota Król", "Mateusz Wieczorek", "Beata Jabłońska", "Kamil Wróbel", "Natalia Majewska", "Adam Olszewski",
        "Monika Stępień", "Sebastian Malinowski", "Justyna Jaworska", "Wojciech Adamczyk", "Iwona Dudek",
        "Dariusz Nowicki", "Renata Pawlak", "Jacek Górski", "Elżbieta Witkowska", "Artur Walczak", "Karolina Sikora",
        "Bartosz Baran", "Marta Rutkowska", "Robert Michalak", "Halina Szewczyk", "Damian Ostrowski",
        "Patrycja Tomaszewska", "Sławomir Pietrzak", "Urszula Duda", "Przemysław Zalewski", "Danuta Wróblewska",
        "Szymon Jasiński", "Żaneta Marciniak",
    ),
    greetings=("Cześć,", "Dzień dobry,", "Cześć wszystkim!", "Witam,", "Hej Bob,", "Siema, oto mój ruch:"),
    closings=("Pozdrawiam", "Dzięki", "Na razie!", "Miłego dnia", "Pozdrowienia"),
    footers=("Wysłane z iPhone'a", "Wysłano z aplikacji Poczta dla Windows", "Wysłane z mojego Galaxy"),
    wrote={
        "gmail": f"pon., 5 sty 2026 o 12:00 pbem <{QUOTED_ADDRESS}> napisał(a):",
        "thunderbird": "W dniu 5.01.2026 o 12:00, pbem pisze:",
        "apple": f"Wiadomość napisana przez pbem <{QUOTED_ADDRESS}> w dniu 5 sty 2026, o godz. 12:00:",
    },
    outlook={
        "separator": "-----Wiadomość oryginalna-----",
        "from": "Od",
        "sent": "Wysłano",
        "to": "Do",
        "subject": "Temat",
        "date": "poniedziałek, 5 stycznia 2026 12:00",
    },
    original=(
        "Twoja kolej w grze Kingsburg.",
        "",
        "== Kingsburg - gra kingsburg-0a1b2c3d, tura 4 ==",
        "",
        "Twoja decyzja: Rok 1, Pomoc Króla: wybierz jeden surowiec od Króla.",
        "Odpowiedz jednym z tych wierszy (kilka wierszy zostanie zagranych po kolei):",
        "  weź złoto",
        "  weź drewno",
        "  weź kamień",
        "",
        f"Twój prywatny adres (tam idą odpowiedzi): {QUOTED_ADDRESS}",
    ),
    applied="Twoje ruchy zostały wykonane.",
    refused="Nic nie zostało wykonane",
    nothing="W twojej wiadomości nie znaleziono żadnego polecenia",
    not_read="Nie odczytano jako poleceń:",
    unclear=("albo może jednak", "hmm, nie wiem", "wszystko jedno"),
)  # fmt: skip

EN = Language(
    code="en",
    take="take",
    goods={"gold": "gold", "wood": "wood", "stone": "stone"},
    plain_goods={"gold": "gold", "wood": "wood", "stone": "stone"},
    plain_take="take",
    moves="moves",
    names=(
        "Ann Baker", "Bob Carter", "Claire Dunn", "David Ellis", "Emma Foster", "Frank Green", "Grace Hill",
        "Henry Irwin", "Isla James", "Jack King", "Kate Lewis", "Liam Moore", "Mia Norris", "Noah Owen",
        "Olivia Price", "Peter Quinn", "Rose Reed", "Sam Shaw", "Tara Todd", "Uma Vance", "Victor Wade",
        "Wendy Young", "Xavier Zane", "Yvonne Abbott", "Zach Bishop", "Alice Cole", "Ben Dixon", "Chloe Evans",
        "Dan Fisher", "Ella Grant", "Finn Hayes", "Gemma Hunt", "Harry Jones", "Ivy Knight", "Jake Lane",
        "Lily Mason", "Max Nash", "Nora Oakes", "Oscar Page", "Poppy Rhodes", "Quentin Stone", "Ruby Turner",
        "Simon Upton", "Tess Vaughan", "Ursula West", "Vince York", "Will Adams", "Zoe Brooks", "Alan Clark",
        "Beth Doyle",
    ),
    greetings=("Hi,", "Hello all,", "Hi Bob,", "Good morning!", "Hey,", "Hi all, here is my move:"),
    closings=("Thanks", "Cheers", "Best regards", "Have a nice day!", "See you"),
    footers=("Sent from my iPhone", "Get Outlook for Android", "Sent from Mail for Windows"),
    wrote={
        "gmail": f"On Mon, Jan 5, 2026 at 12:00 PM pbem <{QUOTED_ADDRESS}> wrote:",
        "thunderbird": "On 1/5/26 12:00 PM, pbem wrote:",
        "apple": f"On 5 Jan 2026, at 12:00, pbem <{QUOTED_ADDRESS}> wrote:",
    },
    outlook={
        "separator": "-----Original Message-----",
        "from": "From",
        "sent": "Sent",
        "to": "To",
        "subject": "Subject",
        "date": "Monday, January 5, 2026 12:00 PM",
    },
    original=(
        "It is your turn in Kingsburg.",
        "",
        "== Kingsburg - game kingsburg-0a1b2c3d, turn 4 ==",
        "",
        "Your decision: Year 1, King's aid: choose one good from the King.",
        "Reply with one of these lines (several lines are played in order):",
        "  take gold",
        "  take wood",
        "  take stone",
        "",
        f"Your private address (replies go there): {QUOTED_ADDRESS}",
    ),
    applied="Your moves were applied.",
    refused="Nothing was applied",
    nothing="No command was found in your mail",
    not_read="Not read as commands:",
    unclear=("or maybe rather", "hmm, not sure", "whatever"),
)  # fmt: skip


@dataclass
class Mail:
    """What one corpus mail says, before a client lays it out."""

    lang: Language
    sender: str  # "Name <address>"
    address: str
    good: str | None  # the good the mail must apply (None: nothing)
    above: list[str] = field(default_factory=list)  # greeting lines
    commands: list[str] = field(default_factory=list)
    below: list[str] = field(default_factory=list)  # sign-off, name, footer lines
    signature: list[str] = field(default_factory=list)  # after "-- "
    footer: str | None = None
    reply: list[str] = field(default_factory=list)
    not_read: list[str] = field(default_factory=list)


def ascii_local(name: str) -> str:
    table = str.maketrans(
        "áčďéěíňóřšťúůýžąćęłńóśźżÁČĎÉĚÍŇÓŘŠŤÚŮÝŽĄĆĘŁŃÓŚŹŻ", "acdeeinorstuuyzacelnoszzACDEEINORSTUUYZACELNOSZZ"
    )
    return ".".join(name.translate(table).lower().split())


def body_lines(mail: Mail) -> list[str]:
    lines = [*mail.above, *([""] if mail.above else []), *mail.commands]
    if mail.below:
        lines += ["", *mail.below]
    if mail.signature:
        lines += ["", "-- ", *mail.signature]
    if mail.footer:
        lines += ["", mail.footer]
    return lines


def quoted(lang: Language) -> list[str]:
    return [">" + (" " + line if line else "") for line in lang.original]


# -- layouts: each returns the MIME message of one client's reply -----------------------------
def plain_part(text: str, charset: str, encoding: str, flowed: bool = False) -> MIMEText:
    part = MIMEText("", "plain")
    del part["Content-Transfer-Encoding"]
    cs = Charset(charset)
    cs.body_encoding = {"qp": QP, "base64": BASE64, "8bit": None}[encoding]
    part.set_payload(text, cs)
    if flowed:
        part.set_param("format", "flowed")
    return part


def html_part(markup: str, charset: str = "utf-8", encoding: str = "qp") -> MIMEText:
    part = MIMEText("", "html")
    del part["Content-Transfer-Encoding"]
    cs = Charset(charset)
    cs.body_encoding = QP if encoding == "qp" else BASE64
    part.set_payload(markup, cs)
    return part


def flowed(lines: list[str], width: int = 40) -> str:
    """Lines as format=flowed text: long lines broken at spaces, each broken line ending in a space."""
    out: list[str] = []
    for line in lines:
        depth = len(line) - len(line.lstrip(">"))
        prefix = ">" * depth + (" " if depth else "")
        rest = line[depth:].removeprefix(" ") if depth else line
        while len(rest) > width and " " in rest[:width]:
            cut = rest.rfind(" ", 0, width)
            out.append(prefix + rest[: cut + 1])
            rest = rest[cut + 1 :]
        out.append(prefix + rest)
    return "\n".join(out)


def esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def html_lines(lines: list[str]) -> str:
    return "".join(f"<div>{esc(line) if line.strip() else '<br>'}</div>" for line in lines)


def gmail(mail: Mail, bottom: bool = False) -> MIMEMultipart:
    lang = mail.lang
    own = body_lines(mail)
    attribution = lang.wrote["gmail"]
    text = [*own, "", attribution, "", *quoted(lang)] if not bottom else [attribution, "", *quoted(lang), "", *own]
    sig_html = ""
    own_html = [*mail.above, *([""] if mail.above else []), *mail.commands, *([""] if mail.below else []), *mail.below]
    if mail.signature:
        sig_html = (
            '<div><br></div><span class="gmail_signature_prefix">-- </span><br><div dir="ltr" class="gmail_signature">'
            + "<br>".join(esc(s) for s in mail.signature)
            + "</div>"
        )
    if mail.footer:
        own_html += ["", mail.footer]
    quote_html = (
        f'<div class="gmail_quote gmail_quote_container"><div dir="ltr" class="gmail_attr">{esc(attribution)}<br></div>'
        '<blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;'
        'border-left:1px solid rgb(204,204,204);padding-left:1ex">'
        + "<br>".join(esc(line) for line in lang.original)
        + "</blockquote></div>"
    )
    mine = f'<div dir="ltr">{html_lines(own_html)}{sig_html}</div>'
    markup = (quote_html + mine) if bottom else (mine + "<br>" + quote_html)
    message = MIMEMultipart("alternative")
    message.attach(plain_part("\n".join(text), "utf-8", "qp"))
    message.attach(html_part(markup))
    return message


def outlook_desktop(mail: Mail, charset: str = "windows-1250") -> MIMEMultipart:
    lang, o = mail.lang, mail.lang.outlook
    head = [
        f"{o['from']}: pbem <{QUOTED_ADDRESS}>",
        f"{o['sent']}: {o['date']}",
        f"{o['to']}: {mail.sender}",
        f"{o['subject']}: [pbem] kingsburg-0a1b2c3d",
    ]
    text = [*body_lines(mail), "", o["separator"], *head, "", *lang.original]
    border = '<div style="border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm">'
    markup = (
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset='
        + charset
        + '"><style>p.MsoNormal{margin:0cm}</style></head>'
        '<body lang="CS"><div class="WordSection1">'
        + "".join(f'<p class="MsoNormal">{esc(line) or "&nbsp;"}</p>' for line in body_lines(mail))
        + f"<div>{border}"
        + "".join(f'<p class="MsoNormal"><b>{esc(h.split(":", 1)[0])}:</b>{esc(h.split(":", 1)[1])}</p>' for h in head)
        + "</div></div>"
        + "".join(f'<p class="MsoNormal">{esc(line) or "&nbsp;"}</p>' for line in lang.original)
        + "</div></body></html>"
    )
    message = MIMEMultipart("alternative")
    message.attach(plain_part("\n".join(text), charset, "qp"))
    message.attach(html_part(markup, charset, "qp"))
    return message


def outlook_web(mail: Mail, html_only: bool = False) -> MIMEText | MIMEMultipart:
    lang, o = mail.lang, mail.lang.outlook
    head = (
        f"<b>{o['from']}:</b> pbem &lt;{QUOTED_ADDRESS}&gt;<br><b>{o['sent']}:</b> {esc(o['date'])}<br>"
        f"<b>{o['to']}:</b> {esc(mail.sender)}<br><b>{o['subject']}:</b> [pbem] kingsburg-0a1b2c3d"
    )
    markup = (
        '<html><body><div style="font-family: Aptos, sans-serif; font-size: 12pt;">'
        + html_lines(body_lines(mail))
        + '</div><div id="appendonsend"></div><hr style="display:inline-block;width:98%" tabindex="-1">'
        + '<div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif" style="font-size:11pt">'
        + f"{head}</font><div>&nbsp;</div></div>"
        + f"<div>{html_lines(list(lang.original))}</div></body></html>"
    )
    if html_only:
        return html_part(markup, "utf-8", "base64")
    text = [
        *body_lines(mail),
        "",
        "________________________________",
        f"{o['from']}: pbem <{QUOTED_ADDRESS}>",
        f"{o['sent']}: {o['date']}",
        "",
        *lang.original,
    ]
    message = MIMEMultipart("alternative")
    message.attach(plain_part("\n".join(text), "utf-8", "base64"))
    message.attach(html_part(markup, "utf-8", "base64"))
    return message


def apple(mail: Mail, bottom: bool = False) -> MIMEText:
    """Apple Mail and the iPhone: plain text, quoted-printable, the footer above the quote."""
    lang = mail.lang
    own = body_lines(mail)
    attribution = lang.wrote["apple"]
    lines = [*own, "", attribution, "", *quoted(lang)] if not bottom else [attribution, "", *quoted(lang), "", *own]
    return plain_part("\n".join(lines), "utf-8", "qp")


def thunderbird(mail: Mail, bottom: bool = True, charset: str = "utf-8", inline: bool = False) -> MIMEText:
    """Thunderbird: plain text, format=flowed, 8bit; bottom-posted by default."""
    lang = mail.lang
    attribution = lang.wrote["thunderbird"]
    own = body_lines(mail)
    if inline:
        q = quoted(lang)
        lines = [attribution, *q[:5], "", *own[: len(mail.above) + 1], *q[5:9], "", *own[len(mail.above) + 1 :]]
    elif bottom:
        lines = [attribution, *quoted(lang), "", *own]
    else:
        lines = [*own, "", attribution, *quoted(lang)]
    return plain_part(flowed(lines), charset, "8bit", flowed=True)


LAYOUTS = (
    ("gmail-top", lambda m: gmail(m)),
    ("gmail-bottom", lambda m: gmail(m, bottom=True)),
    ("outlook-desktop", lambda m: outlook_desktop(m)),
    ("outlook-desktop-iso", lambda m: outlook_desktop(m, "iso-8859-2")),
    ("outlook-web", lambda m: outlook_web(m)),
    ("outlook-web-html-only", lambda m: outlook_web(m, html_only=True)),
    ("apple-top", lambda m: apple(m)),
    ("apple-bottom", lambda m: apple(m, bottom=True)),
    ("thunderbird-bottom", lambda m: thunderbird(m)),
    ("thunderbird-top-iso", lambda m: thunderbird(m, bottom=False, charset="iso-8859-2")),
    ("thunderbird-inline", lambda m: thunderbird(m, inline=True)),
    ("thunderbird-bottom-1250", lambda m: thunderbird(m, charset="windows-1250")),
)


def compose(rng: random.Random, lang: Language, n: int) -> Mail:
    """The n-th mail of a language: which good, and what is written around the command."""
    name = lang.names[n % len(lang.names)]
    address = f"{ascii_local(name)}.{n}@example.{'com' if lang.code == 'en' else lang.code}"
    good = GOODS[n % 3]
    mail = Mail(lang, f"{name} <{address}>", address, good)
    take, goods = (lang.plain_take, lang.plain_goods) if n % 4 == 1 else (lang.take, lang.goods)
    command = f"{take} {goods[good]}"
    variant = n % 6
    if variant == 1:
        command = command[0].upper() + command[1:] + "."  # capital letter and a full stop
    elif variant == 3:
        command = "  " + command.replace(" ", "   ") + "  "
    mail.commands = [command]
    if n % 5 == 2:
        mail.commands.append(lang.moves)  # a mail command after the move
    if n % 2 == 0:
        mail.above = [rng.choice(lang.greetings)]
        mail.not_read.append(mail.above[0])
    first = name.split()[0]
    if n % 3 != 1:
        closing = rng.choice(lang.closings)
        mail.below = [closing + ("," if n % 2 and closing[-1].isalpha() else ""), first]
        mail.not_read += mail.below
    else:
        mail.below = [first]
        mail.not_read += [first]
    if n % 7 == 3:
        mail.below = []
        mail.signature = [name, "+420 603 123 456" if lang.code == "cs" else "tel. 600 100 200"]
        mail.not_read = [*mail.above, *mail.signature]
    if n % 5 == 4:
        mail.footer = lang.footers[n % len(lang.footers)]
        mail.not_read.append(mail.footer)
    mail.reply = [lang.applied, lang.not_read] if mail.not_read else [lang.applied]
    return mail


def unclear(lang: Language, n: int) -> Mail:
    """A mail whose meaning is not clear: it must change nothing and say so."""
    name = lang.names[(n + 17) % len(lang.names)]
    address = f"{ascii_local(name)}.u{n}@example.{'com' if lang.code == 'en' else lang.code}"
    mail = Mail(lang, f"{name} <{address}>", address, None)
    kind = n % 3
    if kind == 0:  # a line between two moves that is none
        mail.commands = [f"{lang.take} {lang.goods['wood']}", lang.unclear[n % 3], f"{lang.take} {lang.goods['stone']}"]
        mail.reply = [lang.refused]
    elif kind == 1:  # two goods where one is due: the second is refused, so neither is applied
        mail.commands = [f"{lang.take} {lang.goods['gold']}", f"{lang.take} {lang.goods['wood']}"]
        mail.reply = [lang.refused]
    else:  # no command at all: a greeting and a question
        mail.above = [lang.greetings[0]]
        mail.below = [lang.closings[0], name.split()[0]]
        mail.commands = []
        mail.reply = [lang.nothing, lang.not_read, "  " + lang.original[6].strip()]
    return mail


def message_of(mail: Mail, layout: str, build, n: int) -> bytes:
    message = build(mail)
    if message.is_multipart():
        message.set_boundary(f"==pbem-corpus-{mail.lang.code}-{n:03d}==")
    name, address = mail.sender[:-1].split(" <")
    message["From"] = formataddr((name, address), charset="utf-8")
    message["To"] = "{{ADDRESS}}"
    subject = {"cs": "jste na tahu", "pl": "twoja kolej", "en": "your turn"}[mail.lang.code]
    message["Subject"] = "Re: [pbem] kingsburg-0a1b2c3d: " + subject
    message["Date"] = "Mon, 05 Jan 2026 12:30:00 +0100"
    message["Message-ID"] = f"<corpus-{mail.lang.code}-{n:03d}-{layout}@client.example>"
    message["In-Reply-To"] = "<n12/reply@example.org>"
    return message.as_bytes(policy=policy.SMTP)


def corpus() -> tuple[dict[str, bytes], list[dict[str, object]]]:
    files: dict[str, bytes] = {}
    expectations: list[dict[str, object]] = []
    for lang in (CS, PL, EN):
        rng = random.Random(f"corpus-{lang.code}")
        for n in range(54):
            mail = unclear(lang, n // 18) if n % 18 == 17 else compose(rng, lang, n)
            layout, build = LAYOUTS[n % len(LAYOUTS)]
            name = f"{lang.code}-{n:03d}-{layout}.eml"
            files[name] = message_of(mail, layout, build, n)
            expectations.append(
                {
                    "file": name,
                    "lang": lang.code,
                    "sender": mail.address,
                    "good": mail.good,
                    "reply": mail.reply,
                    "not_read": [" ".join(line.split()) for line in mail.not_read],
                }
            )
    return files, expectations


def expectations_text(expectations: list[dict[str, object]]) -> str:
    return json.dumps(expectations, ensure_ascii=False, indent=1) + "\n"


def main() -> None:
    files, expectations = corpus()
    for old in HERE.glob("*.eml"):
        old.unlink()
    for name, raw in files.items():
        (HERE / name).write_bytes(raw)
    (HERE / "expectations.json").write_text(expectations_text(expectations), encoding="utf-8")
    print(f"{len(files)} mails written to {HERE}")


if __name__ == "__main__":
    main()
