"""The command line, end to end: a new game played to the end, exported and verified."""

import json

import pytest
from click.testing import CliRunner

from pbem.cli import main


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_HOME", str(tmp_path / "home"))
    runner = CliRunner()

    def invoke(*args):
        return runner.invoke(main, list(args), catch_exceptions=False)

    return invoke


def in_each_language(names: tuple[str, ...], **said: tuple) -> pytest.MarkDecorator:
    """A test run under PBEM_LANG=en, cs and pl (its argument ``lang``), with what each says
    (``names``: the test's other arguments, one value each)."""
    return pytest.mark.parametrize(("lang", *names), [(lang, *said[lang]) for lang in ("en", "cs", "pl")])


def _new(run, *extra):
    result = run("new", "hidden-pig", "--player", "ann@example.org", "--player", "bob@example.org", *extra)
    assert result.exit_code == 0, result.output
    return result.output.strip()


def test_catalog_lists_games_with_player_counts(run):
    result = run("catalog")
    assert "hidden-pig: Hidden Pig (test game) (2-4 players)" in result.output
    assert "--option rounds=3" in result.output


def test_new_prints_only_the_game_id(run):
    game_id = _new(run)
    assert game_id.startswith("hidden-pig-") and "\n" not in game_id


def test_new_autoplay_export_verify(run, tmp_path):
    game_id = _new(run, "--seed", "00" * 32)
    assert "is over" in run("autoplay", game_id, "--seed", "4").output
    shown = json.loads(run("show", game_id, "--json").output)
    assert {"id", "game", "version", "over", "waiting_for", "standings"} <= set(shown)
    assert shown["over"] is True and len(shown["standings"]) == 2
    exported = tmp_path / "game.json"
    assert run("export", game_id, "-o", str(exported)).exit_code == 0
    result = run("verify", str(exported))
    assert result.exit_code == 0 and result.output.startswith("valid:")
    assert json.loads(exported.read_text())["entries"][0]["seed_source"] == "test"

    data = bytearray(exported.read_bytes())
    spot = data.index(b'"command":"') + len(b'"command":"')
    data[spot : spot + 4] = b"hold" if bytes(data[spot : spot + 4]) == b"roll" else b"roll"
    exported.write_bytes(bytes(data))
    result = run("verify", str(exported))
    assert result.exit_code == 1 and "INVALID: checkpoint" in result.output


def test_move_show_and_history(run):
    game_id = _new(run, "--seed", "01" * 32)
    run("join", game_id, "--as", "ann@example.org", "--nonce", "hello")
    assert "version 4" in run("join", game_id, "--as", "bob@example.org").output
    waiting = json.loads(run("show", game_id, "--json").output)["waiting_for"][0]["name"]
    mover = f"{waiting}@example.org"
    assert run("move", game_id, "--as", mover, "hold").exit_code == 0
    refused = run("move", game_id, "--as", mover, "hold")
    assert refused.exit_code == 2 and "It is not" in refused.output and "nothing was applied" in refused.output
    assert "turn 4 of 5" in run("show", game_id, "--at", "4").output
    history = run("history", game_id).output
    assert "started" in history and "moved" in history
    assert "   5 moved " in history  # the turn that show --at, mails and web pages name


def test_history_numbers_entries_as_turns(run):
    game_id = _new(run, "--seed", "01" * 32)
    assert run("history", game_id).output.startswith("   1 created")


def test_history_numbers_turns_as_the_mails_do(run):
    """A message advances no turn: `pbem history` numbered entries by their place in the log
    and called turn 5 of the mails and pages "6" after a table message; it numbers them as
    they do (the message shares the number of the turn it was said at)."""
    game_id = _new(run, "--seed", "01" * 32)
    for email in ("ann@example.org", "bob@example.org"):
        run("join", game_id, "--as", email)
    assert run("tell", game_id, "--as", "ann@example.org", "--all", "good luck").exit_code == 0
    waiting = json.loads(run("show", game_id, "--json").output)["waiting_for"][0]["name"]
    assert run("move", game_id, "--as", f"{waiting}@example.org", "hold").exit_code == 0
    history = run("history", game_id).output
    assert "   4 said ann" in history and "   5 moved " in history and "   6 " not in history


def _rename(game_id, email, name):
    """The `name` command of a private address (the CLI has none): a `named` entry."""
    from pbem.cli.core import service

    svc = service()
    work = svc.work()
    assert work.run(game_id, svc.name_plan(email, name)).ok
    work.commit()


def test_history_names_a_renamed_seat_by_its_newest_name(run):
    """docs/mail.md "Names": the CLI's history named each seat as the game was created and
    said nothing at the rename; like the pages and the mails, it shows every seat by its newest
    name at every turn, and the rename as "bob is now called Robert." (the first name)."""
    game_id = _new(run, "--seed", "01" * 32)
    for email in ("ann@example.org", "bob@example.org"):
        run("join", game_id, "--as", email)
    assert "   3 joined bob " in run("history", game_id).output  # positive control: not renamed yet
    _rename(game_id, "bob@example.org", "Robert")
    history = run("history", game_id).output
    assert "   3 joined Robert " in history and "joined bob" not in history
    assert "bob is now called Robert." in history
    assert "   2 joined ann " in history


def test_verify_rejects_a_file_that_is_not_an_export(run, tmp_path):
    junk = tmp_path / "junk.json"
    junk.write_text("{}\n")
    result = run("verify", str(junk))
    assert result.exit_code == 1 and "INVALID" in result.output


def test_key_prints_a_verifier_key_that_parses(run):
    from pbem.ledger.notes import VerifierKey

    text = run("key").output.strip()
    assert VerifierKey.parse(text).name == "pbem.localhost"


def test_a_refused_turn_file_prints_no_line_as_applied(run, tmp_path):
    game_id = _new(run, "--seed", "02" * 32)
    run("join", game_id, "--as", "ann@example.org")
    run("join", game_id, "--as", "bob@example.org")
    mover = json.loads(run("show", game_id, "--json").output)["waiting_for"][0]["name"] + "@example.org"
    turn = tmp_path / "turn.txt"
    turn.write_text(f"game: {game_id}\nplayer: {mover}\nhold\nfly\n")
    result = run("turn", str(turn), "--as", mover)
    assert result.exit_code == 2 and "nothing was applied" in result.output
    assert "applied: hold" not in result.output.replace("not applied:", "")
    assert "not applied: line 3: 'hold'" in result.output


def test_autoplay_stops_after_max_moves_and_says_the_game_is_not_over(run):
    game_id = _new(run, "--seed", "03" * 32)
    result = run("autoplay", game_id, "--max-moves", "3")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("3 moves;") and "is not over" in result.output
    assert "is over" in run("autoplay", game_id, "--seed", "1").output


def test_docs_cli_lists_every_command():
    from pathlib import Path

    from pbem.cli import main as group

    page = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text(encoding="utf-8")
    missing = [name for name in group.commands if f"`pbem {name}" not in page]
    assert missing == [] and "`pbem --version`" in page


@pytest.mark.parametrize(
    ("env", "words"),
    [
        ({"PBEM_LANG": "cs"}, ("(2-4 hráči)", "nic nebylo provedeno")),
        ({"PBEM_LANG": "", "LANG": "pl_PL.UTF-8"}, ("(2-4 graczy)", "nic nie zostało wykonane")),
    ],
)
def test_messages_for_players_follow_the_language_setting(run, monkeypatch, env, words):
    game_id = _new(run, "--seed", "01" * 32)
    run("join", game_id, "--as", "ann@example.org")
    run("join", game_id, "--as", "bob@example.org")
    waiting = json.loads(run("show", game_id, "--json").output)["waiting_for"][0]["name"]
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    catalog_line, nothing = words
    assert catalog_line in run("catalog").output
    refused = run("move", game_id, "--as", f"{waiting}@example.org", "xyzzy")
    assert refused.exit_code == 2 and nothing in refused.output


def test_move_stops_at_a_play_that_reveals_a_card_and_skips_the_rest(run):
    """docs/cli.md: a command that turns up something hidden ends the batch; it is applied, the
    commands after it are listed as skipped (exit 0), since the player has not seen the card yet."""
    ann, bob = "ann@example.org", "bob@example.org"
    game_id = run("new", "ruse-and-bruise", "--player", ann, "--player", bob, "--seed", "07" * 32).output.strip()
    for player in (ann, bob):
        assert run("join", game_id, "--as", player).exit_code == 0

    def hand(player):
        return json.loads(run("show", game_id, "--as", player, "--json").output)["view"]["hand"]

    assert run("move", game_id, "--as", ann, f"play {hand(ann)[0].replace('_', '-')} 1").exit_code == 0
    version = json.loads(run("show", game_id, "--json").output)["version"]
    first, second = (card.replace("_", "-") for card in hand(bob)[:2])
    result = run("move", game_id, "--as", bob, f"play {first} 1", f"play {second} 2")
    assert result.exit_code == 0, result.output
    assert f"applied: play {first} 1" in result.output
    assert f"skipped: line 2: 'play {second} 2'" in result.output and "nothing was applied" not in result.output
    assert json.loads(run("show", game_id, "--json").output)["version"] == version + 1
    assert second.replace("-", "_") in hand(bob)


def test_tell_writes_a_receipt_that_check_receipt_proves(run, tmp_path):
    game_id = _new(run, "--seed", "00" * 32)
    for email in ("ann@example.org", "bob@example.org"):
        assert run("join", game_id, "--as", email).exit_code == 0
    held = tmp_path / "receipt.json"
    told = run("tell", game_id, "--as", "ann@example.org", "--to", "bob", "--receipt", str(held), "psst, heron-58")
    assert told.exit_code == 0, told.output
    checked = run("check-receipt", str(held))
    assert checked.exit_code == 0, checked.output
    assert "said, seat 0 to seats [1]: 'psst, heron-58'" in checked.output
    exported = tmp_path / "game.json"
    run("export", game_id, "-o", str(exported))
    assert "heron-58" not in exported.read_text()
    assert run("verify", str(exported)).exit_code == 0
    refused = run("tell", game_id, "--as", "ann@example.org", "--to", "zed", "hi")
    assert refused.exit_code == 2 and "no player 'zed'" in refused.output
    both = run("tell", game_id, "--as", "ann@example.org", "--all", "--to", "bob", "hi")
    assert both.exit_code == 2 and "--to NAME" in both.output


@in_each_language(
    ("one", "more"),
    en=("1 entry, 1 checkpoint", "4 entries, 3 checkpoints"),
    cs=("1 záznam, 1 kontrolní bod", "4 záznamy, 3 kontrolní body"),
    pl=("1 wpis, 1 punkt kontrolny", "4 wpisy, 3 punkty kontrolne"),
)
def test_verify_counts_entries_and_checkpoints_in_their_plural_forms(run, monkeypatch, tmp_path, lang, one, more):
    """docs/cli.md: `pbem verify` said "1 checkpoints"; the counts come from the catalogs, in
    the plural form of each number (three forms in Czech and Polish)."""
    game_id = _new(run, "--seed", "01" * 32)
    export = tmp_path / "game.json"
    monkeypatch.setenv("PBEM_LANG", lang)
    run("export", game_id, "--output", str(export))
    assert one in run("verify", str(export)).output
    for player in ("ann@example.org", "bob@example.org"):
        run("join", game_id, "--as", player)
    run("export", game_id, "--output", str(export))
    said = run("verify", str(export)).output
    assert more in said and "1 checkpoints" not in said


@in_each_language(
    ("said",),
    en=(("  checked: the entries' times never run backwards", "  not checked: the game has not ended"),),
    cs=(("  ověřeno: časy záznamů nikdy nejdou pozpátku", "  neověřeno: hra ještě neskončila"),),
    pl=(("  sprawdzono: czasy wpisów nigdy się nie cofają", "  nie sprawdzono: gra jeszcze się nie skończyła"),),
)
def test_verify_says_what_it_checked_in_the_cli_language(run, monkeypatch, tmp_path, lang, said):
    """`pbem verify` printed its "checked:" and "not checked:" lines in English under
    PBEM_LANG=cs and pl; they come from the catalogs (English is the positive control), and an
    ended game's lines too (its replay, draws and hidden facts)."""
    monkeypatch.setenv("PBEM_LANG", lang)
    running = _new(run, "--seed", "02" * 32)
    ended = _new(run, "--seed", "00" * 32)
    run("autoplay", ended, "--seed", "4")
    for game_id in (running, ended):
        run("export", game_id, "--output", str(tmp_path / f"{game_id}.json"))
    output = run("verify", str(tmp_path / f"{running}.json")).output
    output += run("verify", str(tmp_path / f"{ended}.json")).output
    assert all(line in output for line in said), output
    if lang != "en":
        english = ("checked:", "entries form", "signatures were", "hidden facts", "random draws", "replaying")
        assert not [word for word in english if word in output], output


@in_each_language(
    ("one", "two"),
    en=("1 game exported to", "2 games exported to"),
    cs=("1 hra exportována do", "2 hry exportovány do"),
    pl=("1 gra wyeksportowana do", "2 gry wyeksportowane do"),
)
def test_export_all_counts_the_games_in_their_plural_form(run, monkeypatch, tmp_path, lang, one, two):
    """`pbem export-all` said "1 games exported"; the count comes from the catalogs."""
    monkeypatch.setenv("PBEM_LANG", lang)
    _new(run)
    assert one in run("export-all", str(tmp_path / "one")).output
    _new(run)
    said = run("export-all", str(tmp_path / "two")).output
    assert two in said and "2 game " not in said


@pytest.mark.parametrize(("lang", "legal"), [("cs", "nyní lze: vezmi zlato"), ("pl", "dozwolone teraz: weź złoto")])
def test_a_refused_move_lists_the_legal_moves_in_the_players_language(run, monkeypatch, lang, legal):
    """With PBEM_LANG=cs a refusal listed the legal moves in English: they are said as the
    player writes them (the English list is the positive control)."""
    ann, bob = "ann@example.org", "bob@example.org"
    game_id = run("new", "kingsburg", "--player", ann, "--player", bob, "--seed", "07" * 32).output.strip()
    for player in (ann, bob):
        run("join", game_id, "--as", player)
    waiting = json.loads(run("show", game_id, "--json").output)["waiting_for"][0]["name"]
    english = run("move", game_id, "--as", f"{waiting}@example.org", "xyzzy")
    assert "legal now: take gold" in english.output
    monkeypatch.setenv("PBEM_LANG", lang)
    refused = run("move", game_id, "--as", f"{waiting}@example.org", "xyzzy")
    assert refused.exit_code == 2 and legal in refused.output and "take gold" not in refused.output
