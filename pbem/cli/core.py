"""Commands that play and the server's key: new, join, move, tell, turn, template, resign,
autoplay, key (the commands that only read are in pbem/cli/reading.py).

``new``, ``join``, ``move`` and ``autoplay`` change games that a running gateway (``pbem
serve``) mails about. When a relay is configured (``PBEM_SMTP_RELAY``) those mails reach real
people, so these commands warn and need ``--yes`` (send) or ``--no-mail`` (switch the game's
mail off: no invitations, notices or deadlines)."""

from __future__ import annotations

import functools
import json
import random
import string
import sys
from collections.abc import Callable
from typing import Any, BinaryIO, NoReturn

import click

from pbem import i18n
from pbem.cli.progress import Progress, TerminalProgress
from pbem.games.base import ErrorCode, GameError
from pbem.ledger.notes import VerifierKey
from pbem.mailroom import expiry
from pbem.mailroom.news import breakdown
from pbem.mailroom.records import GameClock
from pbem.mailroom.settings import MailSettings
from pbem.service.service import GameService, Outcome, check_open
from pbem.service.turnfile import turn_file_header

MAIL_OFF = {"mail": "off", "deadline": 0}  # the rules of a game played without mail


def service() -> GameService:
    """The service of a command: with the mail follower's record of each game's size as the
    witness its first load of a game checks (as the gateway's does), so no writer, the command
    line included, signs a move on a game whose newest events were removed (the game is frozen
    and the command refused instead)."""
    from pbem.mailroom.queue import views_for

    svc = GameService()
    svc.head_of = views_for(svc).head
    return svc


def _(message: str, **values: object) -> str:
    """A message for players in the CLI's language (PBEM_LANG, else the locale; pbem/i18n.py)."""
    text = i18n.cli().gettext(message)
    return text % values if values else text


def in_cli_language(command: Callable[..., None]) -> Callable[..., None]:
    """A command whose game texts (a refusal's legal moves, a view) are in the CLI's language,
    as its own messages are: a player who set PBEM_LANG=cs reads the moves to send in Czech."""

    @functools.wraps(command)
    def spoken(*args: Any, **kwargs: Any) -> None:
        with i18n.speaking(i18n.cli_language()):
            command(*args, **kwargs)

    return spoken


def _fail(error: GameError) -> NoReturn:
    click.echo(_("error (%(code)s): %(reason)s", code=error.code.value, reason=error.message), err=True)
    if error.legal:
        click.echo(_("legal now: %(moves)s", moves="; ".join(error.legal)), err=True)
    sys.exit(2)


def _report(outcome: Outcome) -> None:
    if outcome.error:
        _fail(outcome.error)
    for line in outcome.lines:
        if line.status == "applied" and outcome.ok:
            click.echo(_("applied: %(line)s", line=line.text))
        elif line.status == "applied":  # a good line of a refused batch: checked, never stored
            label = _("line %(number)s: ", number=line.line) if line.line else ""
            click.echo(
                _("not applied: %(label)s%(line)r: fine, but another line was refused", label=label, line=line.text),
                err=True,
            )
        else:
            error = line.error
            label = _("line %(number)s: ", number=line.line) if line.line else ""
            status = {"rejected": _("rejected"), "skipped": _("skipped")}.get(line.status, line.status)
            click.echo(f"{status}: {label}{line.text!r}: {error.message if error else ''}", err=True)
            if error and error.legal:
                click.echo("  " + _("legal now: %(moves)s", moves="; ".join(error.legal)), err=True)
    click.echo(f"version {outcome.version}")
    if not outcome.ok:
        click.echo(_("nothing was applied"), err=True)
        sys.exit(2)


def mail_choice(command: Any) -> Any:
    """``--yes`` / ``--no-mail`` on a command whose game changes may be mailed."""
    command = click.option(
        "--no-mail", is_flag=True, help="switch this game's mail off (no invitations, notices or deadlines)"
    )(command)
    return click.option("--yes", "-y", is_flag=True, help="mail may go out through the relay: go ahead")(command)


def check_mail(svc: GameService, yes: bool, no_mail: bool, game_id: str | None = None) -> None:
    """Warn when a running gateway would mail real people about this change, and stop unless
    the user chose: ``--yes``, ``--no-mail``, or "y" at the prompt of a terminal. A game whose
    mail is already off needs no choice."""
    if yes or no_mail or (game_id and mail_is_off(svc, game_id)):
        return
    relay = MailSettings.from_env(svc.settings.home).relay
    if relay is None:
        return
    click.echo(
        f"warning: PBEM_SMTP_RELAY is set ({relay[0]}:{relay[1]}): a running gateway will mail the "
        "players of this game through it.",
        err=True,
    )
    if sys.stdin.isatty() and click.confirm("Send mail to them?", err=True):
        return
    click.echo("Nothing done. Add --yes to send the mail, or --no-mail to play this game without mail.", err=True)
    sys.exit(2)


def mail_is_off(svc: GameService, game_id: str) -> bool:
    clock = svc.work().find(GameClock.create_id(game_id, {}))
    return bool(clock and clock.rules.get("mail") == "off")


def silence(svc: GameService, game_id: str) -> None:
    """Switch a game's mail off (``--no-mail``), before the change that would be mailed."""
    work = svc.work()
    clock = work.find(GameClock.create_id(game_id, {}))
    if clock is None:
        work.add(GameClock(game_id, dict(MAIL_OFF)))
    elif any(clock.rules.get(key) != value for key, value in MAIL_OFF.items()):
        clock.change(dict(MAIL_OFF))
        work.add(clock)
    work.commit()


def _prepared(game_id: str, yes: bool, no_mail: bool) -> GameService:
    """The service for a change of a game from the command line, after the mail choice
    (``check_mail``); with ``--no-mail`` the game's mail is switched off first (an unknown game
    is refused before anything is stored)."""
    svc = service()
    check_mail(svc, yes, no_mail, game_id)
    if no_mail:
        try:
            svc.game(game_id)
            silence(svc, game_id)
        except GameError as error:
            _fail(error)
    return svc


def _change(
    game_id: str, yes: bool, no_mail: bool, command: Callable[[GameService], Outcome]
) -> tuple[GameService, Outcome]:
    """A change of a game from the command line (``_prepared``), reported, with the service
    it was made through; a refusal ends the command with its reason."""
    svc = _prepared(game_id, yes, no_mail)
    try:
        outcome = command(svc)
        _report(outcome)
    except GameError as error:
        _fail(error)
    return svc, outcome


MAX_SEED_DIGITS = 128  # 64 bytes: twice the size of a server seed


def _seed_bytes(text: str | None) -> bytes | None:
    """The bytes of a ``--seed``: hex digits, two per byte, saying what is wrong otherwise."""
    if text is None:
        return None
    digits = text.strip()
    if not digits:
        raise click.BadParameter("the seed is empty: give hex digits, two per byte (e.g. 00ff)", param_hint="--seed")
    if len(digits) > MAX_SEED_DIGITS:
        raise click.BadParameter(f"the seed has more than {MAX_SEED_DIGITS} hex digits", param_hint="--seed")
    stray = next((ch for ch in digits if ch not in string.hexdigits), None)
    if stray is not None:
        raise click.BadParameter(
            f"{stray!r} in {digits!r} is not a hex digit (0-9, a-f): two hex digits per byte", param_hint="--seed"
        )
    if len(digits) % 2:
        raise click.BadParameter(
            f"{digits!r} has an odd number of hex digits ({len(digits)}): each byte is two digits, "
            f"so add one (e.g. {digits + '0'!r} or {'0' + digits!r})",
            param_hint="--seed",
        )
    return bytes.fromhex(digits)


def _parse_options(pairs: tuple[str, ...]) -> dict[str, str]:
    options = {}
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if not equals:
            raise click.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="--option")
        options[key.strip()] = value.strip()
    return options


@click.command()
@click.argument("game")
@click.option("--player", "players", multiple=True, required=True, help="a seat's mail address (repeat)")
@click.option("--option", "options", multiple=True, help="KEY=VALUE game option (repeat)")
@click.option("--seed", help="hex seed, FOR TESTS AND DEMOS ONLY: the game is marked as test-seeded")
@mail_choice
def new(
    game: str, players: tuple[str, ...], options: tuple[str, ...], seed: str | None, yes: bool, no_mail: bool
) -> None:
    """Create a game; prints its id. Each player must then join."""
    seed_bytes = _seed_bytes(seed)
    svc = service()
    check_mail(svc, yes, no_mail)
    try:
        if no_mail:  # the game and its mail rule in one transaction: no invitation can slip out
            work = svc.work()
            game_id = svc.new_game(work, game, players, _parse_options(options), seed_bytes)
            work.add(GameClock(game_id, dict(MAIL_OFF)))
            work.commit()
            click.echo(game_id)
        else:  # with its expiry: a game that never starts expires (pbem.mailroom.expiry)
            work = svc.work()
            game_id = svc.new_game(work, game, players, _parse_options(options), seed_bytes)
            work.add(GameClock(game_id, expiry.with_default({})))
            work.commit()
            click.echo(game_id)
    except GameError as error:
        _fail(error)


@click.command()
@click.argument("game_id")
@click.option("--as", "email", required=True, help="the joining player's mail address")
@click.option("--nonce", help="any text: your contribution to the game's randomness")
@mail_choice
@in_cli_language
def join(game_id: str, email: str, nonce: str | None, yes: bool, no_mail: bool) -> None:
    """Take your seat in a game (the game starts when every seat has joined)."""
    _change(game_id, yes, no_mail, lambda svc: svc.join(game_id, email, nonce))


@click.command()
@click.argument("game_id")
@click.option("--as", "email", required=True)
@click.option("--version", "expected", type=int, help="refuse as stale unless the game is at this version")
@click.argument("commands", nargs=-1, required=True)
@mail_choice
@in_cli_language
def move(game_id: str, email: str, expected: int | None, commands: tuple[str, ...], yes: bool, no_mail: bool) -> None:
    """Apply commands in order: nothing if one is refused; a draw or a reveal ends the batch."""
    _change(game_id, yes, no_mail, lambda svc: svc.submit(game_id, email, list(commands), "cli", expected))


@click.command()
@click.argument("game_id")
@click.option("--as", "email", required=True, help="the writing player's mail address")
@click.option("--to", "names", multiple=True, help="a player's name (repeat for several)")
@click.option("--all", "table", is_flag=True, help="to the whole table")
@click.option("--receipt", type=click.Path(dir_okay=False, writable=True), help="write your receipt of it here")
@click.argument("text")
@mail_choice
@in_cli_language
def tell(
    game_id: str,
    email: str,
    names: tuple[str, ...],
    table: bool,
    receipt: str | None,
    text: str,
    yes: bool,
    no_mail: bool,
) -> None:
    """Send a message to other players (--to NAME) or to the whole table (--all): an entry of
    the game's signed log; a private one is readable only by its sender and recipients."""
    if table == bool(names):
        raise click.UsageError("name the recipients with --to NAME, or write to everyone with --all")
    to = "all" if table else list(names)
    svc, outcome = _change(game_id, yes, no_mail, lambda svc: svc.say(game_id, email, to, text))
    if receipt:
        held = svc.receipt(game_id, outcome.version - 1, viewer=email)
        with open(receipt, "w", encoding="utf-8") as out:
            json.dump(held, out, indent=1, ensure_ascii=False)


@click.command()
@click.argument("file", type=click.File("rb"))
@click.option("--as", "email", required=True)
@in_cli_language
def turn(file: BinaryIO, email: str) -> None:
    """Submit a turn file (checked whole; every error is listed)."""
    try:
        _report(service().submit_turn_file(_turn_text(file.read()), email, "turnfile"))
    except GameError as error:
        _fail(error)


def _turn_text(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise GameError(
            ErrorCode.SYNTAX,
            f"The turn file is not UTF-8 text (byte {raw[error.start]:#04x} at "
            f"position {error.start}); save it as UTF-8 and submit it again.",
        ) from None


@click.command()
@click.argument("game_id")
@click.option("--as", "email", required=True)
def template(game_id: str, email: str) -> None:
    """Print a pre-filled turn file for a player."""
    svc = service()
    try:
        game = svc.game(game_id)
        seat = game.seat_of(email)
        state = svc.state(game)
        check_open(game, state)
    except GameError as error:
        _fail(error)
    click.echo(turn_file_header(game.id, email, game.version, game.spec.phase_label(state)), nl=False)
    click.echo(game.spec.turn_template(state, seat, game.names), nl=False)


@click.command()
@click.argument("game_id")
@click.option("--as", "email", required=True)
@in_cli_language
def resign(game_id: str, email: str) -> None:
    """Leave a game; the house robot plays your seat to the end."""
    try:
        _report(service().resign(game_id, email))
    except GameError as error:
        _fail(error)


@click.command()
@click.argument("game_id")
@click.option("--seed", type=int, default=0, help="seed of the random players' choices")
@click.option("--max-moves", type=click.IntRange(min=0), default=100_000, help="stop after this many moves")
@mail_choice
def autoplay(game_id: str, seed: int, max_moves: int, yes: bool, no_mail: bool) -> None:
    """Play seeded random legal moves for every seat to the end (tests, demos, benchmarks)."""
    svc = _prepared(game_id, yes, no_mail)
    try:
        with TerminalProgress("playing") as progress:
            moves = play_moves(svc, game_id, seed, max_moves, progress)
    except GameError as error:
        _fail(error)
    summary = svc.summary(game_id)
    over = "is over" if summary["over"] else "is not over"
    click.echo(f"{moves} moves; game {game_id} {over} at version {summary['version']}")
    for line in standings_lines(summary):
        click.echo(line)


def standings_lines(summary: dict[str, Any]) -> list[str]:
    """The winner and the final standings with each player's scoring breakdown."""
    standings = sorted(summary.get("standings") or [], key=lambda s: s["rank"])
    if not standings:
        return []
    names = summary["seats"]
    winners = [names[s["seat"]] for s in standings if s["rank"] == 1]
    lines = [f"winner: {' and '.join(winners)}"]
    for s in standings:
        detail = breakdown(s.get("details") or {})
        lines.append(f"  {s['rank']}. {names[s['seat']]}: {s['score']}" + (f" ({detail})" if detail else ""))
    return lines


def play_to_end(svc: GameService, game_id: str, seed: int = 0, max_moves: int = 100_000) -> int:
    """Join every seat still missing, then play random legal moves until the game ends;
    RuntimeError if it has not ended after ``max_moves``."""
    count = play_moves(svc, game_id, seed, max_moves)
    game = svc.game(game_id)
    if not game.ended and game.spec.to_move(svc.state(game)):
        raise RuntimeError(f"game {game_id} did not end within {max_moves} moves")
    return count


def play_moves(
    svc: GameService, game_id: str, seed: int = 0, max_moves: int = 100_000, progress: Progress | None = None
) -> int:
    """Join every seat still missing, then play random legal moves until the game ends or
    ``max_moves`` were played; the number played (each told to ``progress``)."""
    chooser = random.Random(seed)
    game = svc.game(game_id)
    for seat, email in enumerate(game.emails):
        if seat not in game.joined and not game.started:
            svc.join(game_id, email)
    for count in range(max_moves):
        game = svc.game(game_id)
        state = svc.state(game)
        waiting = [] if game.ended else game.spec.to_move(state)
        if not waiting:
            return count
        seat = waiting[chooser.randrange(len(waiting))]
        move = game.spec.random_move(state, seat, chooser)
        outcome = svc.submit(game_id, game.emails[seat], [game.spec.format_move(move)], "autoplay")
        if not outcome.ok:
            raise RuntimeError(f"autoplay move refused: {outcome.to_dict()}")
        if progress is not None:
            progress(count + 1, None)
    return max_moves


@click.group(invoke_without_command=True)
@click.option("--rotate", is_flag=True, help="the same as `pbem key rotate`")
@click.pass_context
def key(ctx: click.Context, rotate: bool) -> None:
    """Print the server's public verifier key (creating the key on first use); rotate or
    revoke keys with the subcommands."""
    if ctx.invoked_subcommand is None:
        keys = service().keys
        click.echo(keys.rotate().verifier if rotate else keys.signer().verifier)


@key.command("rotate")
def key_rotate() -> None:
    """Make a new signing key; the old public key stays valid for what it signed."""
    click.echo(service().keys.rotate().verifier)


@key.command("revoke")
@click.option(
    "--since", required=True, help="ISO 8601 time from which the key is not trusted (when it may have leaked)"
)
@click.argument("verifier", required=False)
def key_revoke(since: str, verifier: str | None) -> None:
    """Revoke a key (default: the current one, after rotating to a new one). Signatures it
    made at or after SINCE are reported by verify; the list is published at /keys and in
    every export."""
    try:
        revoked = service().keys.revoke(since, VerifierKey.parse(verifier) if verifier else None)
    except ValueError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(1)
    click.echo(f"revoked {revoked.key} since {revoked.since}")
    click.echo(f"signing now with {service().keys.signer().verifier}")


def register(group: click.Group) -> None:
    for command in (new, join, move, tell, turn, template, resign, autoplay, key):
        group.add_command(command)
