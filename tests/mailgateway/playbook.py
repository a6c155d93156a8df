"""Reading mails as a player does: the ready-to-send lines of "Your decision", the sections a
player mail must have, and a stable text of a mail for golden files."""

from __future__ import annotations

from email.message import EmailMessage

DECISION_HEADS = ("Reply with one of these lines", "Odpovězte jedním z těchto řádků", "Odpowiedz jednym z tych wierszy")
SINCE_HEADS = ("Since your last mail:", "Od vaší poslední zprávy:", "Od twojej ostatniej wiadomości:")
MORE_WORDS = ("and ", "a další ", "a dalších ", "i jeszcze ")


def text_of(msg: EmailMessage) -> str:
    return msg.get_body(("plain",)).get_content().replace("\r\n", "\n")


def decision_lines(text: str) -> list[str]:
    """The moves a mail offers under "Your decision", as a player would copy them."""
    lines = text.split("\n")
    start = next((n for n, line in enumerate(lines) if line.startswith(DECISION_HEADS)), None)
    if start is None:
        return []
    while start + 1 < len(lines) and not lines[start].rstrip().endswith(":"):
        start += 1  # a heading longer than a line goes on to the next (the text part's 72 characters)
    moves = []
    for line in lines[start + 1 :]:
        if not line.startswith("  ") or line.strip().startswith(MORE_WORDS):
            break
        moves.append(line.strip())
    return moves


def has_since(text: str) -> bool:
    return any(head in text for head in SINCE_HEADS)


def state_of(msg: EmailMessage) -> str:
    """What a mail says it is and where its game stands (the header ``X-Pbem-State``), with
    its first letter as in the middle of a sentence: "your turn - Turn 5 (...)"."""
    state = str(msg["X-Pbem-State"] or "").strip()
    return state[:1].lower() + state[1:]


def stable(msg: EmailMessage, replacements: dict[str, str]) -> str:
    """Headers a player sees and the plain text, with the game's random id and the seats'
    secret tokens replaced, for golden files."""
    # a folded header starts its value on the next line; mail clients (and RFC 5322's unfolding)
    # drop that line break, but Python's parser keeps the space it leaves
    head = "".join(
        f"{name}: {str(msg[name]).lstrip()}\n"
        for name in ("Subject", "X-Pbem-State", "From", "Reply-To", "To")
        if msg[name]
    )
    attachments = [part.get_filename() for part in msg.iter_attachments()]
    if attachments:
        head += f"Attachments: {', '.join(attachments)}\n"
    out = head + "\n" + text_of(msg)
    for old, new in replacements.items():
        out = out.replace(old, new)
    return out
