"""Czech and English for the web site's own words (game texts come from the games).

The language is chosen by ``?lang=cs|en`` (kept in the page's links) or else by the browser's
Accept-Language header; English is the default.
"""

from __future__ import annotations

from flask import g, request

LANGUAGES = ("en", "cs")
DEFAULT = "en"

# key: (English, Czech)
WORDS: dict[str, tuple[str, str]] = {
    "site": ("pbem: board games by mail", "pbem: deskové hry poštou"),
    "skip": ("Skip to content", "Přeskočit na obsah"),
    "games": ("Games", "Hry"),
    "verify": ("Verify a game", "Ověřit hru"),
    "keys": ("Public keys", "Veřejné klíče"),
    "language": ("Language", "Jazyk"),
    "all_types": ("all game types", "všechny druhy her"),
    "game_type": ("Game type", "Druh hry"),
    "status": ("Status", "Stav"),
    "any_status": ("running and finished", "běžící i skončené"),
    "running": ("running", "běží"),
    "finished": ("finished", "skončila"),
    "waiting_join": ("waiting for players", "čeká na hráče"),
    "filter": ("Show", "Zobrazit"),
    "no_games": ("No games match.", "Žádná hra neodpovídá."),
    "game": ("Game", "Hra"),
    "players": ("Players", "Hráči"),
    "turn": ("Turn", "Tah"),
    "version": ("Version", "Verze"),
    "whose_move": ("Whose move", "Kdo je na tahu"),
    "phase": ("Phase", "Fáze"),
    "deadline": ("Deadline", "Termín"),
    "none": ("none", "žádný"),
    "nobody": ("nobody", "nikdo"),
    "robot": ("robot", "robot"),
    "board": ("Board", "Hrací plán"),
    "board_alt": ("Board of %s at turn %s", "Hrací plán hry %s v tahu %s"),
    "text_version": ("The board as text", "Hrací plán jako text"),
    "standings": ("Final standings", "Konečné pořadí"),
    "rank": ("Rank", "Pořadí"),
    "player": ("Player", "Hráč"),
    "score": ("Score", "Body"),
    "scores_in_board": ("Scores are shown on the board above.", "Body jsou vidět na hracím plánu výše."),
    "checkpoint": ("Latest signed checkpoint", "Poslední podepsaný kontrolní bod"),
    "checkpoint_help": (
        "The server signs the Merkle root of the game's log after every accepted move. "
        "Keep this note: a later export must be consistent with it.",
        "Server po každém přijatém tahu podepíše kořen Merkleova stromu záznamu hry. "
        "Uschovejte si tuto poznámku: každý pozdější export s ní musí být konzistentní."),
    "history": ("History", "Historie"),
    "replay": ("Replay", "Přehrát"),
    "downloads": ("Downloads", "Ke stažení"),
    "export": ("Export (JSON)", "Export (JSON)"),
    "checkpoints": ("All checkpoints (JSON)", "Všechny kontrolní body (JSON)"),
    "checkpoint_txt": ("Latest checkpoint (signed note)", "Poslední kontrolní bod (podepsaná poznámka)"),
    "inclusion": ("Inclusion proof", "Důkaz zahrnutí"),
    "feed": ("News feed (Atom)", "Novinky (Atom)"),
    "inclusion_of": ("Inclusion proof of entry %s", "Důkaz zahrnutí záznamu %s"),
    "consistency": ("Consistency proof", "Důkaz konzistence"),
    "consistency_from": ("Consistency proof from turn %s to now", "Důkaz konzistence od tahu %s po dnešek"),
    "state_at": ("State after turn %s", "Stav po tahu %s"),
    "first": ("First", "První"),
    "previous": ("Previous", "Předchozí"),
    "next": ("Next", "Další"),
    "last": ("Last", "Poslední"),
    "turn_of": ("turn %s of %s", "tah %s z %s"),
    "latest": ("latest", "poslední"),
    "entry": ("Entry", "Záznam"),
    "kind": ("What", "Co"),
    "command": ("Command", "Příkaz"),
    "facts": ("Facts", "Události"),
    "leaf_hash": ("Leaf hash", "Hash listu"),
    "signature": ("Signed checkpoint", "Podepsaný kontrolní bod"),
    "state_after": ("the state after it (turn %s)", "stav po něm (tah %s)"),
    "since": ("What happened since turn", "Co se stalo od tahu"),
    "since_title": ("What happened since turn %s", "Co se stalo od tahu %s"),
    "whole_history": ("Whole history", "Celá historie"),
    "nothing_since": ("Nothing has happened since then.", "Od té doby se nic nestalo."),
    "kind_created": ("game created", "hra založena"),
    "kind_joined": ("joined", "přistoupil(a)"),
    "kind_started": ("game started", "hra začala"),
    "kind_moved": ("moved", "táhl(a)"),
    "kind_resigned": ("handed to the robot", "předáno robotovi"),
    "kind_ended": ("game ended", "hra skončila"),
    "seed_revealed": ("Seed revealed: %s", "Odhalené semínko: %s"),
    "hidden_committed": ("hidden until the end (committed)", "skryto do konce (závazek)"),
    "private_title": ("Your private view", "Váš soukromý pohled"),
    "private_help": (
        "This page is for %s only: it shows your hand and what you have looked at. "
        "Do not share its address.",
        "Tato stránka je jen pro hráče %s: ukazuje vaše karty a to, co jste viděl(a). "
        "Její adresu nikomu nedávejte."),
    "your_secrets": ("What only you have seen", "Co jste viděl(a) jen vy"),
    "no_secrets": ("Nothing secret so far.", "Zatím nic tajného."),
    "your_history": ("History as you see it", "Historie, jak ji vidíte vy"),
    "since_your_move": ("What happened since your last move", "Co se stalo od vašeho posledního tahu"),
    "public_page": ("Public page of this game", "Veřejná stránka této hry"),
    "verify_title": ("How to verify a game offline", "Jak hru ověřit offline"),
    "keys_title": ("The server's public keys", "Veřejné klíče serveru"),
    "revoked_since": ("revoked since %s", "zneplatněn od %s"),
    "keys_help": (
        "Every checkpoint is signed with one of these Ed25519 keys (signed-note format). "
        "Older keys stay listed so old checkpoints remain verifiable.",
        "Každý kontrolní bod je podepsán jedním z těchto klíčů Ed25519 (formát signed note). "
        "Starší klíče zůstávají v seznamu, aby šly ověřit i staré kontrolní body."),
    "download_txt": ("as text", "jako text"),
    "download_json": ("as JSON", "jako JSON"),
    "not_found": ("Not found", "Nenalezeno"),
    "not_found_help": ("There is no such game, turn or page.", "Taková hra, tah ani stránka neexistuje."),
    "bad_request": ("Bad request", "Chybný požadavek"),
    "method_not_allowed": ("This site is read-only", "Tento web je jen pro čtení"),
    "method_help": (
        "Moves are sent by mail, turn file or the command line, never through this site.",
        "Tahy se posílají poštou, souborem s tahem nebo z příkazové řádky, nikdy přes tento web."),
    "back_to_games": ("Back to the list of games", "Zpět na seznam her"),
    "over": ("The game is over.", "Hra skončila."),
    "test_seed": ("This game uses a fixed test seed: it is a demo, not a fair game.",
                  "Tato hra používá pevné testovací semínko: je to ukázka, ne férová hra."),
    "last_activity": ("Last activity", "Naposledy"),
    "page_of": ("page %s of %s", "strana %s z %s"),
    "pages": ("Pages", "Stránky"),
    "newer": ("Newer", "Novější"),
    "older": ("Older", "Starší"),
    "log_index": ("Index in the log (for proofs)", "Pořadí v záznamu (pro důkazy)"),
    "your_move": ("It is your move: %s", "Jste na tahu: %s"),
    "move": ("your move", "váš tah"),
    "moves_to_copy": ("Legal now: send one of these lines in a mail to your game address (one command a line).",
                      "Nyní povoleno: pošlete jeden z těchto řádků poštou na adresu své hry (jeden příkaz na řádek)."),
    "replay_keys": ("Keys ← and → step through the turns.", "Klávesy ← a → listují tahy."),
    "details": ("details", "podrobnosti"),
    "newest_first": ("Newest first.", "Nejnovější nahoře."),
    "oldest_first": ("In the order it happened.", "V pořadí, jak se to stalo."),
    "nonce": ("Nonce", "Příspěvek k náhodě"),
    "footer": ("Read-only. Every page can be checked against the signed log.",
               "Jen pro čtení. Každou stránku lze ověřit proti podepsanému záznamu."),
}


def choose_language() -> tuple[str, bool]:
    """The page's language and whether it was chosen explicitly in the URL."""
    asked = request.args.get("lang", "")
    if asked in LANGUAGES:
        return asked, True
    best = request.accept_languages.best_match(LANGUAGES, default=DEFAULT)
    return best or DEFAULT, False


def t(key: str, *args: object) -> str:
    pair = WORDS.get(key)
    if pair is None:  # an entry kind a newer core added: show its own name
        return key.removeprefix("kind_")
    english, czech = pair
    text = czech if getattr(g, "lang", DEFAULT) == "cs" else english
    return text % args if args else text
