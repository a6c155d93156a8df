"""The board picture in the mails that hand a player the turn or end a game, the HTML part
built from the mail's content, and the text part's 72-character lines."""

from __future__ import annotations

import re
import struct
import zlib
from html import escape

import markupsafe
import pytest

from mailgateway import compose
from mailgateway.picture import MAX_PNG_BYTES, picture_of
from pbem.games import get_spec
from pbem.games.base import SeededRng
from pbem.games.kingsburg import mailboard
from pbem.games.kingsburg.board import _colour
from pbem.games.simulate import fold
from pbem.mailroom.pictures import board_svg, packed, unpacked
from tests.mailgateway.conftest import SERVICE, address_of, confirmed, make_mail, text_of

GAMES = ("kingsburg", "kingdom-builder", "warriors-traders", "ruse-and-bruise")
PLAYERS = ["ann@example.net", "bob@example.com"]
# the games whose two seats see different boards at the start (a hand, a hidden card)
HIDDEN = ("kingdom-builder", "ruse-and-bruise")


def started(gw, transport, name: str) -> str:
    game_id = gw.service.create(name, PLAYERS, {}, seed=bytes(range(32)))
    for player in PLAYERS:
        gw.service.join(game_id, player)
    gw.work()
    return game_id


def decoded_png(data: bytes) -> tuple[int, int]:
    """Width and height of a PNG whose chunks' checksums hold and whose pixels inflate to
    the size its header says (8-bit colour types only, as mailgateway.picture writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, chunks = 8, []
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        (crc,) = struct.unpack(">I", data[position + 8 + length : position + 12 + length])
        assert zlib.crc32(kind + body) == crc, kind
        chunks.append((kind, body))
        position += 12 + length
    assert chunks[0][0] == b"IHDR" and chunks[-1][0] == b"IEND"
    width, height, depth, colour = struct.unpack(">IIBB", chunks[0][1][:10])
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour]
    pixels = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    assert depth == 8 and len(pixels) == height * (1 + width * channels)
    return width, height


def parts(msg) -> dict[str, object]:
    return {part.get_content_type(): part for part in msg.walk() if not part.is_multipart()}


def assert_lines_fit(text: str) -> None:
    long = [line for line in text.splitlines() if len(line) > compose.TEXT_WIDTH and "://" not in line]
    assert not long, long


@pytest.mark.parametrize("name", GAMES)
def test_a_turn_mail_carries_the_board_as_the_seat_sees_it(gw, transport, name):
    game_id = started(gw, transport, name)
    game = gw.service.game(game_id)
    state = gw.service.state(game)
    spec = game.spec
    seat = spec.to_move(state)[0]
    (mail,) = [m for m in transport.to(PLAYERS[seat]) if m["X-Pbem-Kind"] == "started"]
    found = parts(mail)
    png = found["image/png"].get_content()
    assert 0 < len(png) <= MAX_PNG_BYTES
    width, height = decoded_png(png)
    assert width >= 240 and height > 0
    # the picture of this seat's view, not the public one nor the other seat's
    own = picture_of(board_svg(spec, spec.view(state, seat), game.names))
    assert own is not None and own.png == png
    other = board_svg(spec, spec.view(state, 1 - seat), game.names)
    if name in HIDDEN:  # positive control: the other seat's board shows what this one must not
        assert picture_of(other).png != png
        secret = set(re.findall(r">([^<>]+)</", other)) - set(
            re.findall(r">([^<>]+)</", board_svg(spec, spec.view(state, seat), game.names))
        )
        assert secret
    html = found["text/html"].get_content()
    cid = found["image/png"]["Content-ID"].strip("<>")
    assert f'src="cid:{cid}"' in html
    assert "<pre" not in html
    assert_lines_fit(text_of(mail))


@pytest.mark.parametrize("name", GAMES)
def test_the_mail_at_the_end_carries_the_final_board(gw, transport, name):
    game_id = started(gw, transport, name)
    from pbem.cli.core import play_to_end

    play_to_end(gw.service, game_id, seed=2)
    transport.clear()
    gw.work()
    ended = [m for m in transport.sent if b"X-Pbem-Kind: ended" in m[2]]
    assert ended
    for _, _, raw in ended:
        import email
        from email import policy

        msg = email.message_from_bytes(raw, policy=policy.default)
        assert "image/png" in parts(msg)
        assert_lines_fit(text_of(msg))


def test_mails_that_hand_no_turn_carry_no_picture(gw, transport):
    game_id = started(gw, transport, "kingsburg")
    game = gw.service.game(game_id)
    waiting = set(game.spec.to_move(gw.service.state(game)))
    idle = [PLAYERS[s] for s in range(2) if s not in waiting]
    for player in idle:
        (mail,) = [m for m in transport.to(player) if m["X-Pbem-Kind"] == "started"]
        assert "image/png" not in parts(mail)


@pytest.mark.parametrize(
    ("off", "on"),
    [("pictures off", "pictures on"), ("obrázky vypnout", "obrázky zapnout"), ("obrazki wyłącz", "obrazki włącz")],
)
def test_pictures_off_is_a_standing_setting_in_three_languages(gw, transport, off, on):
    player = PLAYERS[0]
    confirmed(gw, transport, player, off)
    answer = text_of(transport.to(player)[-1])
    assert "Board pictures in your mail: off" in " ".join(answer.split())
    game_id = started(gw, transport, "ruse-and-bruise")
    mails = [m for m in transport.to(player) if m["X-Pbem-Kind"] == "started"]
    assert mails and all("image/png" not in parts(m) for m in mails)
    # at the game's private address it takes effect at once, no confirmation asked
    transport.clear()
    gw.receive(make_mail(player, address_of(gw, game_id, player), on))
    gw.work()
    reply = [m for m in transport.to(player) if m["In-Reply-To"]][-1]
    assert "Board pictures in your mail: on." in " ".join(text_of(reply).split())


def test_a_bad_pictures_line_is_refused_and_changes_nothing(gw, transport):
    gw.receive(make_mail(PLAYERS[0], SERVICE, "pictures sometimes"))
    gw.work()
    assert "pictures on or pictures off" in text_of(transport.to(PLAYERS[0])[-1])


def test_a_picture_that_cannot_be_drawn_makes_a_dead_letter(gw, transport):
    game_id = started(gw, transport, "kingsburg")
    model = {"kind": "turn", "lang": "en", "service": SERVICE, "game": {"id": game_id, "picture": packed("<svg")}}
    with pytest.raises(ValueError):
        compose.build(model, "k", PLAYERS[0], SERVICE, gw.clock())


def test_packed_pictures_are_bounded():
    assert unpacked(packed("<svg/>")) == "<svg/>"
    with pytest.raises(ValueError):
        unpacked("not base64!")
    with pytest.raises(ValueError):
        unpacked(packed("x" * 3_000_000))


def test_long_lines_are_broken_at_spaces_and_urls_stay_whole():
    text = "  - " + "word " * 30 + "\nSee https://example.org/" + "a" * 80 + "\n" + "b" * 90
    lines = compose.wrapped(text).split("\n")
    assert all(len(line) <= 72 for line in lines[:-2])
    assert lines[0].startswith("  - word") and all(line.startswith("    word") for line in lines[1:-2])
    assert lines[-2].startswith("See https://") and lines[-1] == "b" * 90


def test_a_line_marked_as_a_command_is_never_broken_and_loses_its_mark():
    move = "build infantry w_toulouse " + " ".join(f"w_province_{n}" for n in range(6))  # 110 characters
    text = compose.wrapped(f"  {compose.COMMAND_MARK}{move}\n  {move}")
    kept, broken = text.split("\n", 1)
    assert kept == f"  {move}" and compose.COMMAND_MARK not in text
    assert broken != f"  {move}" and all(len(line) <= 72 for line in broken.split("\n"))  # the control


def test_a_mark_inside_a_senders_line_keeps_nothing_whole():
    line = "> " + "word " * 20 + compose.COMMAND_MARK + "word " * 10
    assert all(len(part) <= 72 and compose.COMMAND_MARK not in part for part in compose.wrapped(line).split("\n"))


MOVE = "build infantry " + " ".join(["w_toulouse"] * 8)  # 102 characters


def test_every_move_offered_in_a_mail_is_one_whole_line():
    model = {
        "kind": "turn",
        "lang": "en",
        "service": SERVICE,
        "game": {
            "id": "warriors-traders-0a1b2c3d",
            "title": "Warriors & Traders",
            "turn": 3,
            "started": True,
            "over": False,
            "your_turn": True,
            "since": [],
            "waiting": [],
            "seats": ["ann", "bob"],
            "decision": {"sentence": "build", "moves": [MOVE], "more": 0},
        },
    }
    _, text, _ = compose.render(model)
    assert f"\n  {MOVE}\n" in text


def test_every_golden_mail_keeps_its_lines_within_72_characters():
    """The text part of every kind of mail, of every game, in each language (the golden files:
    headers, a blank line, the text)."""
    from pathlib import Path

    golden = sorted((Path(__file__).with_name("golden")).rglob("*.txt"))
    assert len(golden) > 100
    for path in golden:
        body = path.read_text(encoding="utf-8").split("\n\n", 1)[1]
        long = [line for line in body.splitlines() if len(line) > compose.TEXT_WIDTH and "://" not in line]
        assert not long, (path, long)


@pytest.mark.parametrize(
    ("name", "printed"),
    [
        ("warriors-traders", "[ireland]"),
        ("kingsburg", "2g / 3 VP"),
        ("kingdom-builder", "Kingdom cards:"),
        ("ruse-and-bruise", "goals won:"),
    ],
)
def test_the_mail_picture_leaves_out_the_words_the_text_part_says(gw, transport, name, printed):
    """Each word drawn costs time for every mail: a mail's picture is the narrow board less
    the lists the text part has (W&T's provinces, Kingdom Builder's cards, the goals won)
    and Kingsburg's printed costs; the narrow board on the web keeps them (the positive
    control)."""
    game = gw.service.game(started(gw, transport, name))
    view = game.spec.view(gw.service.state(game), 0)
    narrow = game.spec.render_narrow_svg(view, game.names)
    mail = board_svg(game.spec, view, game.names)
    assert printed in narrow and printed not in mail
    assert mail == game.spec.render_mail_svg(view, game.names)
    assert own_height(mail) < own_height(narrow)


def own_height(svg: str) -> float:
    return float(re.search(r'viewBox="0 0 [0-9.]+ ([0-9.]+)"', svg).group(1))


@pytest.mark.parametrize("name", ["kingsburg", "warriors-traders"])
def test_the_lines_above_the_board_are_words_beside_the_mail_picture(gw, transport, name):
    """Kingsburg's and W&T's mail pictures leave the lines above the narrow board (the title,
    the facts, the players' counters) to the HTML part, as text above the picture: the
    picture's title is not drawn in it (the narrow board on the web draws it: the positive
    control), and every line is in the HTML before the picture."""
    game_id = started(gw, transport, name)
    game = gw.service.game(game_id)
    state = gw.service.state(game)
    seat = game.spec.to_move(state)[0]
    view = game.spec.view(state, seat)
    caption = game.spec.mail_caption(view, game.names)
    assert len(caption) >= 2
    title = caption[0].split(" - ")[0].split(" — ")[0]
    assert escape(title) in game.spec.render_narrow_svg(view, game.names)
    assert escape(title) not in board_svg(game.spec, view, game.names)
    (mail,) = [m for m in transport.to(PLAYERS[seat]) if m["X-Pbem-Kind"] == "started"]
    html = parts(mail)["text/html"].get_content()
    picture_at = html.index("<img")
    for line in caption:
        shown = html.find(str(markupsafe.escape(line)))  # as the template escapes it
        assert 0 <= shown < picture_at, line


def test_a_game_without_a_caption_shows_no_words_above_its_picture(gw, transport):
    game = gw.service.game(started(gw, transport, "ruse-and-bruise"))
    view = game.spec.view(gw.service.state(game), 0)
    assert game.spec.mail_caption(view, game.names) == []


def test_kingsburg_mail_grid_marks_each_building_in_each_builders_colour():
    """One building grid for all players: a building built by a seat has a bar in that
    seat's colour; one nobody built has none (and the names are drawn once)."""
    spec = get_spec("kingsburg")
    state = fold(spec, spec.setup(3, {}, SeededRng(1)))
    view = dict(spec.view(state, 0))
    players = [dict(p) for p in view["players"]]
    players[0]["buildings"], players[2]["buildings"] = ["statue", "chapel"], ["chapel"]
    view["players"] = players
    svg = mailboard.render_mail_svg(view, ["a", "b", "c"])
    bar = r'<rect x="[0-9.]+" y="[0-9.]+" width="[0-9.]+" height="6" fill="(#[0-9a-f]+)"/>'
    colours = re.findall(bar, svg)
    assert colours.count(_colour(0)) == 2 and colours.count(_colour(2)) == 1
    assert _colour(1) not in colours
    assert svg.count(">Statue<") == 1
