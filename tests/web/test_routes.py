"""Every route of the web site through the Flask test client: pages for every game type,
downloads that verify, the error paths, caching, languages."""

from __future__ import annotations

import base64
import json
import re
from datetime import datetime, timedelta
from email.utils import format_datetime, parsedate_to_datetime

import pytest

from pbem.games import catalog
from pbem.games.text import name_seats
from pbem.ledger.merkle import verify_consistency, verify_inclusion
from pbem.ledger.notes import VerifierKey, verify_checkpoint
from pbem.ledger.verify import export_bytes, verify_bytes
from tests.web.htmlcheck import html_errors

GAME_TYPES = sorted(catalog())
KINDS = ("finished", "running", "waiting")


def page(client, url, status=200, **kwargs):
    response = client.get(url, **kwargs)
    response.get_data()
    response.close()  # static files are streamed from an open file
    assert response.status_code == status, (url, response.status_code, response.get_data(as_text=True)[:500])
    if response.mimetype == "text/html":
        errors = html_errors(response.get_data(as_text=True))
        assert not errors, (url, errors)
        scripts = re.findall(r"<script[^>]*>", response.get_data(as_text=True))
        # every page works without JavaScript: the only script is the replay's keys, from a file
        assert set(scripts) <= {'<script src="/static/replay.js" defer>'}, scripts
    return response


def pick(games, kind, name):
    return getattr(games, kind)[name]


@pytest.mark.parametrize("name", GAME_TYPES)
@pytest.mark.parametrize("kind", KINDS)
def test_every_page_of_every_game(client, games, kind, name):
    game_id = pick(games, kind, name)
    game = games.service.game(game_id)
    token = games.service.seat_token(game_id, 0)
    base = f"/games/{game_id}"
    last = game.version
    html = [
        base,
        f"{base}/history",
        f"{base}/history?since={last}",
        f"{base}/history?since=0",
        f"{base}/turn/1",
        f"{base}/history/{last}",
        f"{base}/seat/{token}/history/{last}",
        f"{base}/turn/{last}",
        f"{base}/seat/{token}",
        f"{base}/seat/{token}/history",
        f"{base}/seat/{token}/history?since=0",
        f"{base}/seat/{token}/turn/{last}",
    ]
    for url in html:
        body = page(client, url).get_data(as_text=True)
        assert game.spec.title.replace("&", "&amp;") in body
    from xml.etree import ElementTree

    assert ElementTree.fromstring(page(client, f"{base}/feed.atom").data) is not None
    for url in (
        f"{base}/export.json",
        f"{base}/checkpoints.json",
        f"{base}/proofs/inclusion/0.json",
        f"{base}/proofs/consistency/1/{game.version}.json",
    ):
        assert json.loads(page(client, url).data)
    assert page(client, f"{base}/checkpoint.txt").mimetype == "text/plain"
    has_svg = game.started and game.spec.render_svg(games.service.summary(game_id)["view"], game.names) is not None
    for url in (
        f"{base}/board.svg",
        f"{base}/turn/{last}/board.svg",
        f"{base}/seat/{token}/board.svg",
        f"{base}/seat/{token}/turn/{last}/board.svg",
    ):
        response = page(client, url, 200 if has_svg else 404)
        if has_svg:
            assert response.mimetype == "image/svg+xml"
            assert response.get_data(as_text=True).lstrip().startswith("<svg")


def test_site_pages(client, games):
    for url in ("/", "/verify", "/keys", "/?status=running", "/?status=finished", "/?game=hidden-pig"):
        page(client, url)
    for url in ("/keys.txt", "/keys.json", "/health", "/static/style.css"):
        page(client, url)


def test_games_list_filters(client, games):
    every = page(client, "/").get_data(as_text=True)
    for ids in (games.finished, games.running, games.waiting):
        for game_id in ids.values():
            assert game_id in every
    finished = page(client, "/?status=finished").get_data(as_text=True)
    running = page(client, "/?status=running").get_data(as_text=True)
    for name in GAME_TYPES:
        assert games.finished[name] in finished and games.finished[name] not in running
        assert games.waiting[name] in running and games.waiting[name] not in finished
    one = page(client, f"/?game={GAME_TYPES[0]}&status=finished").get_data(as_text=True)
    assert games.finished[GAME_TYPES[0]] in one
    assert all(games.finished[other] not in one for other in GAME_TYPES[1:])
    assert "selected" in one


def test_game_page_shows_turn_board_and_checkpoint(client, games):
    game_id = games.running["hidden-pig"]
    game = games.service.game(game_id)
    body = page(client, f"/games/{game_id}").get_data(as_text=True)
    waiting = [game.names[s] for s in game.spec.to_move(games.service.state(game))]
    assert re.search(r"Whose move</dt><dd>" + re.escape(", ".join(waiting)), body)
    assert game.checkpoint_at() in body.replace("&#43;", "+")
    # Hidden Pig draws no SVG: the text board stands in for it
    assert '<pre class="text-board"' in body and "<img" not in body
    board = page(client, f"/games/{games.running['kingdom-builder']}").get_data(as_text=True)
    assert re.search(
        r'<img src="/games/[^"]+/board.svg" alt="Board of Kingdom Builder at turn \d+" '
        r'width="\d+" height="\d+">',
        board,
    )


def test_deadline_comes_from_the_applications_clock(tmp_path):
    """The game page asks the clock; the list shows the deadline its view kept when it
    projected the game's latest event (the list itself asks no clock)."""
    from datetime import datetime, timedelta, timezone

    from pbem.cli.core import play_moves
    from pbem.config import Settings
    from pbem.service.service import GameService
    from pbem.web import create_app

    asked = []

    def deadline(game, version, seat):
        asked.append((game.id, version, seat))
        return datetime(2031, 5, 6, 9, 8, tzinfo=timezone(timedelta(hours=2)))  # 07:08 UTC

    service = GameService(Settings(home=tmp_path))
    try:
        game_id = service.create("kingsburg", ["a@example.org", "b@example.org"], seed=bytes([7]) * 32)
        done = service.create("hidden-pig", ["a@example.org", "b@example.org"], seed=bytes([7]) * 32)
        play_moves(service, game_id, seed=1, max_moves=2)
        play_moves(service, done, seed=1)
        client = create_app(service, {"PBEM_DEADLINE": deadline}).test_client()
        body = page(client, f"/games/{game_id}").get_data(as_text=True)
        assert '<dt>Deadline</dt><dd><time datetime="2031-05-06T09:08:00+02:00">' in body
        assert asked and all(a[0] == game_id and a[1] == service.game(game_id).version for a in asked)
        asked.clear()
        page(client, f"/games/{game_id}")
        assert asked == []  # nothing stored since: the clock is not asked again
        service.create("kingsburg", ["c@example.org", "d@example.org"])  # the store moves (an absence would)
        page(client, f"/games/{game_id}")
        assert asked
        listed = page(client, "/").get_data(as_text=True)
        assert (
            '<td data-label="Deadline"><time datetime="2031-05-06T07:08:00+00:00">2031-05-06 07:08 UTC</time>' in listed
        )
        asked.clear()
        again = page(client, "/?status=running").get_data(as_text=True)
        assert asked == [] and "2031-05-06 07:08 UTC" in again  # from the view: no clock asked
        assert "2031-05-06" not in page(client, f"/games/{done}").get_data(as_text=True)
        assert listed.count("2031-05-06 07:08 UTC") == 1  # the finished game has none
    finally:
        service.close()


def test_finished_game_shows_standings(client, games):
    game_id = games.finished["hidden-pig"]
    game = games.service.game(game_id)
    body = page(client, f"/games/{game_id}").get_data(as_text=True)
    assert "Final standings" in body
    for standing in game.standings():
        assert f'<th scope="row">{game.names[standing.seat]}</th><td>{standing.score}</td>' in body


def test_history_pages_hold_fifty_entries_newest_first_each_with_one_details_link(client, games):
    game_id = games.finished["kingsburg"]
    version = games.service.game(game_id).version
    assert version > 50
    seen = []
    pages = -(-version // 50)
    for number in range(1, pages + 1):
        body = page(client, f"/games/{game_id}/history?page={number}").get_data(as_text=True)
        shown = [int(i) for i in re.findall(r'<li id="turn-(\d+)">', body)]
        assert shown == sorted(shown, reverse=True) and len(shown) == min(50, version - len(seen))
        for index in shown:
            assert body.count(f'href="/games/{game_id}/history/{index}"') == 1
        assert ('rel="next"' in body) == (number < pages)
        seen += shown
    assert seen == list(range(version, 0, -1))
    page(client, f"/games/{game_id}/history?page={pages + 1}", 404)
    page(client, f"/games/{game_id}/history?page=0", 404)
    forward = page(client, f"/games/{game_id}/history?since=0&page=2").get_data(as_text=True)
    assert [int(i) for i in re.findall(r'<li id="turn-(\d+)">', forward)] == list(range(51, min(101, version + 1)))


def test_an_entrys_permalink_has_its_hash_checkpoint_proof_and_state(client, games):
    game_id = games.finished["ruse-and-bruise"]
    rows = games.service.history(game_id)
    listed = page(client, f"/games/{game_id}/history").get_data(as_text=True)
    for row in rows:
        body = page(client, f"/games/{game_id}/history/{row['index'] + 1}").get_data(as_text=True)
        assert row["leaf_hash"] in body
        assert f'href="/games/{game_id}/turn/{row["index"] + 1}"' in body
        assert f'href="/games/{game_id}/proofs/inclusion/{row["index"]}.json"' in body
        if row["checkpoint"]:
            assert row["checkpoint"].split("\n\n")[1].split(" ")[-1].strip() in body
        assert row["leaf_hash"] not in listed  # the list stays compact
    page(client, f"/games/{game_id}/history/{len(rows) + 1}", 404)
    page(client, f"/games/{game_id}/history/0", 404)


def test_history_since_shows_only_later_entries(client, games):
    game_id = games.finished["kingdom-builder"]
    version = games.service.game(game_id).version
    since = version - 4
    body = page(client, f"/games/{game_id}/history?since={since}").get_data(as_text=True)
    assert f'id="turn-{since + 1}"' in body and f'id="turn-{version}"' in body
    assert f'id="turn-{since}"' not in body
    assert f"/proofs/consistency/{since}/{version}.json" in body  # from the tree the player saw at turn N
    nothing = page(client, f"/games/{game_id}/history?since={version}").get_data(as_text=True)
    assert "Nothing has happened since then." in nothing


def test_replay_navigation(client, games):
    game_id = games.finished["hidden-pig"]
    last = games.service.game(game_id).version
    first = page(client, f"/games/{game_id}/turn/1").get_data(as_text=True)
    assert 'rel="prev"' not in first and 'rel="first"' not in first
    assert f'href="/games/{game_id}/turn/2" rel="next"' in first
    assert f'href="/games/{game_id}/turn/{last}" rel="last"' in first
    middle = page(client, f"/games/{game_id}/turn/5").get_data(as_text=True)
    for target, rel in ((1, "first"), (4, "prev"), (6, "next"), (last, "last")):
        assert f'href="/games/{game_id}/turn/{target}" rel="{rel}"' in middle
    end = page(client, f"/games/{game_id}/turn/{last}").get_data(as_text=True)
    assert 'rel="next"' not in end and "Final standings" in end


def test_turn_n_is_the_game_at_version_n_as_mails_number_it(client, games):
    game_id = games.finished["hidden-pig"]
    spec = games.service.game(game_id).spec
    game = games.service.game(game_id)
    for turn in range(1, game.version + 1):
        body = page(client, f"/games/{game_id}/turn/{turn}").get_data(as_text=True)
        assert f"<title>State after turn {turn} ·" in body
        summary = games.service.summary(game_id, turn)  # the version a mail names
        if summary["view"] is not None:
            text = spec.render_text(summary["view"], game.names)
            assert text.replace("&", "&amp;").replace('"', "&#34;") in body


def test_private_view_shows_only_the_seats_own_secrets(client, games):
    game_id = games.running["hidden-pig"]
    game = games.service.game(game_id)
    state = games.service.state(game)
    for seat in range(len(game.names)):
        token = games.service.seat_token(game_id, seat)
        response = page(client, f"/games/{game_id}/seat/{token}")
        body = response.get_data(as_text=True)
        assert f"card: {state.cards[seat]}" in body
        assert response.headers["Cache-Control"] == "private, no-store"
        assert response.headers["Referrer-Policy"] == "no-referrer"
        assert "noindex" in response.headers["X-Robots-Tag"]
        history = page(client, f"/games/{game_id}/seat/{token}/history").get_data(as_text=True)
        assert f"card: {state.cards[seat]}" in history
    public = page(client, f"/games/{game_id}/history").get_data(as_text=True)
    assert "card: " not in public


def test_private_page_links_to_what_happened_since_the_seats_last_move(client, games):
    game_id = games.running["ruse-and-bruise"]
    game = games.service.game(game_id)
    moved = [e for e in game.entries if e["kind"] == "moved"]
    seat = moved[-1]["seat"]
    token = games.service.seat_token(game_id, seat)
    body = page(client, f"/games/{game_id}/seat/{token}").get_data(as_text=True)
    assert f'/seat/{token}/history?since={moved[-1]["index"] + 1}"' in body


def test_export_is_the_cli_export_and_verifies_with_the_published_key(client, games):
    for game_id in (games.finished["kingdom-builder"], games.running["ruse-and-bruise"]):
        response = page(client, f"/games/{game_id}/export.json")
        assert response.data == export_bytes(games.service.export(game_id))
        assert f'filename="{game_id}.json"' in response.headers["Content-Disposition"]
        keys = [VerifierKey.parse(line) for line in page(client, "/keys.txt").get_data(as_text=True).split()]
        report = verify_bytes(response.data, keys)
        assert report.game == game_id
        assert report.ended == games.service.game(game_id).ended


def test_checkpoints_and_proofs_verify(client, games):
    game_id = games.finished["kingsburg"]
    game = games.service.game(game_id)
    keys = [VerifierKey.parse(k) for k in json.loads(page(client, "/keys.json").data)["keys"]]
    listed = json.loads(page(client, f"/games/{game_id}/checkpoints.json").data)
    assert [c["size"] for c in listed["checkpoints"]] == [size for size, _ in game.checkpoints]
    latest = verify_checkpoint(page(client, f"/games/{game_id}/checkpoint.txt").get_data(as_text=True), keys)
    assert latest.size == game.version
    for index in (0, game.version // 2, game.version - 1):
        proof = json.loads(page(client, f"/games/{game_id}/proofs/inclusion/{index}.json").data)
        verify_inclusion(
            index,
            proof["size"],
            bytes.fromhex(proof["leaf_hash"]),
            [bytes.fromhex(p) for p in proof["path"]],
            latest.root,
        )
    old_size, old_note = listed["checkpoints"][len(listed["checkpoints"]) // 2].values()
    old = verify_checkpoint(old_note, keys)
    proof = json.loads(page(client, f"/games/{game_id}/proofs/consistency/{old_size}/{game.version}.json").data)
    assert proof["old_checkpoint"] == old_note and proof["new_checkpoint"] == game.checkpoint_at()
    verify_consistency(old_size, game.version, old.root, latest.root, [bytes.fromhex(p) for p in proof["path"]])
    sized = json.loads(page(client, f"/games/{game_id}/proofs/inclusion/1.json?size={old_size}").data)
    path = [bytes.fromhex(p) for p in sized["path"]]
    verify_inclusion(1, old_size, bytes.fromhex(sized["leaf_hash"]), path, old.root)


def test_feed_is_atom_with_the_newest_entries(client, games):
    from xml.etree import ElementTree

    game_id = games.finished["kingdom-builder"]
    game = games.service.game(game_id)
    response = page(client, f"/games/{game_id}/feed.atom")
    assert response.mimetype == "application/atom+xml"
    atom = "{http://www.w3.org/2005/Atom}"
    root = ElementTree.fromstring(response.data)
    entries = root.findall(f"{atom}entry")
    assert 0 < len(entries) <= 50
    newest = entries[0]
    base = games.service.settings.base_url
    assert newest.find(f"{atom}id").text == f"{base}/games/{game_id}/turn/{game.version}"
    assert "game ended" in newest.find(f"{atom}title").text
    assert root.find(f"{atom}updated").text == game.entries[-1]["time"]
    assert "feed.atom" in page(client, f"/games/{game_id}").get_data(as_text=True)
    page(client, "/games/no-such-game/feed.atom", 404)


def test_the_feeds_addresses_come_from_the_base_url_not_the_host_header(client, games):
    """Issue 28: the feed's absolute links followed the request's Host header, so one request
    with a forged Host put another site's links into the feed every reader was then served."""
    game_id = games.finished["kingdom-builder"]
    forged = client.get(f"/games/{game_id}/feed.atom", headers={"Host": "evil.example"})
    honest = client.get(f"/games/{game_id}/feed.atom")
    assert forged.status_code == honest.status_code == 200
    assert b"evil.example" not in forged.data and forged.data == honest.data
    assert f"{games.service.settings.base_url}/games/{game_id}".encode() in forged.data


def test_keys_page_lists_every_key(client, games):
    keys = [str(k) for k in games.service.keys.verifiers()]
    body = page(client, "/keys").get_data(as_text=True).replace("&#43;", "+")
    text = page(client, "/keys.txt").get_data(as_text=True)
    assert text.split() == keys
    assert all(key in body for key in keys)
    assert base64.b64decode(keys[0].split("+", 2)[2])[:1] == b"\x01"  # Ed25519


def test_health(client, app):
    app.extensions["pbem.summaries"].catch_up_all()  # what the serve commands' follower thread does
    response = page(client, "/health")
    assert response.json["status"] == "ok" and response.json["games"] >= 3 * len(GAME_TYPES)
    assert response.headers["Cache-Control"] == "no-store"


def test_verify_page_explains_the_command(client):
    body = page(client, "/verify").get_data(as_text=True)
    assert "pbem verify GAME.json --key" in body
    assert "pbem verify HRA.json --key" in page(client, "/verify?lang=cs").get_data(as_text=True)


# -- error paths --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "url",
    [
        "/games/no-such-game",
        "/games/NO_SUCH",
        "/games/no-such-game/history",
        "/games/no-such-game/turn/1",
        "/games/no-such-game/export.json",
        "/games/no-such-game/board.svg",
        "/games/no-such-game/seat/abc",
        "/games/..%2F..%2Fetc",
        "/nowhere",
        "/games/",
        "/games/x/turn/-1",
    ],
)
def test_unknown_things_are_404(client, url):
    response = page(client, url, 404)
    assert "Not found" in response.get_data(as_text=True)


def test_unknown_turns_tokens_and_proofs_are_404(client, games):
    game_id = games.finished["hidden-pig"]
    game = games.service.game(game_id)
    other = games.finished["ruse-and-bruise"]
    token = games.service.seat_token(game_id, 0)
    for url in (
        f"/games/{game_id}/turn/0",
        f"/games/{game_id}/turn/{game.version + 1}",
        f"/games/{game_id}/turn/{game.version + 1}/board.svg",
        f"/games/{game_id}/history/{game.version + 1}",
        f"/games/{game_id}/seat/{token[:-1]}",
        f"/games/{game_id}/seat/{token}x",
        f"/games/{game_id}/seat/NOT-A-TOKEN",
        f"/games/{other}/seat/{token}",
        f"/games/{game_id}/seat/{token}/turn/{game.version + 1}",
        f"/games/{game_id}/seat/wrongtoken/history",
        f"/games/{game_id}/proofs/inclusion/{game.version}.json",
        f"/games/{game_id}/proofs/inclusion/0.json?size={game.version + 1}",
        f"/games/{game_id}/proofs/consistency/0/{game.version}.json",
        f"/games/{game_id}/proofs/consistency/1/{game.version + 1}.json",
        f"/games/{game_id}/history?since={game.version + 1}",
        f"/games/{game_id}/board.svg",
    ):  # Hidden Pig has no picture
        page(client, url, 404)


@pytest.mark.parametrize("query", ["since=abc", "since=-1", "since=1e3"])
def test_malformed_numbers_are_400(client, games, query):
    page(client, f"/games/{games.finished['hidden-pig']}/history?{query}", 400)


def test_impossible_proof_ranges_are_400(client, games):
    game_id = games.finished["hidden-pig"]
    page(client, f"/games/{game_id}/proofs/inclusion/5.json?size=5", 400)
    page(client, f"/games/{game_id}/proofs/consistency/6/5.json", 400)


@pytest.mark.parametrize("query", ["game=chess", "status=paused"])
def test_unknown_filters_are_400(client, query):
    page(client, f"/?{query}", 400)


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/games/{id}",
        "/games/{id}/history",
        "/games/{id}/seat/{token}",
        "/games/{id}/export.json",
        "/health",
        "/nowhere",
    ],
)
def test_writes_are_405(client, games, method, path):
    game_id = games.running["hidden-pig"]
    url = path.format(id=game_id, token=games.service.seat_token(game_id, 0))
    version = games.service.game(game_id).version
    response = client.open(url, method=method, data={"command": "roll"})
    assert response.status_code == 405
    assert response.headers["Allow"] == "GET, HEAD"
    assert not html_errors(response.get_data(as_text=True))
    assert games.service.game(game_id).version == version


def test_head_has_headers_and_no_body(client, games):
    response = client.head(f"/games/{games.finished['hidden-pig']}")
    assert response.status_code == 200 and response.data == b""
    assert response.headers["ETag"]


def test_a_broken_board_drawing_falls_back_to_text(games, monkeypatch):
    from pbem.web import create_app

    game_id = games.running["kingdom-builder"]
    spec = games.service.game(game_id).spec

    def broken(view, names):
        raise ValueError("drawing bug")

    monkeypatch.setattr(spec, "render_svg", broken)
    client = create_app(games.service).test_client()  # its own kept pages: none drawn before the bug
    body = page(client, f"/games/{game_id}").get_data(as_text=True)
    assert '<pre class="text-board"' in body
    page(client, f"/games/{game_id}/board.svg", 404)


# -- caching ------------------------------------------------------------------------------
def test_finished_games_are_cacheable_and_running_ones_revalidated(client, games):
    done = games.finished["hidden-pig"]
    for url in (f"/games/{done}", f"/games/{done}/history", f"/games/{done}/turn/2", f"/games/{done}/export.json"):
        response = page(client, url)
        assert response.headers["Cache-Control"].startswith("public, max-age=")
        assert response.headers["Last-Modified"]
    running = games.running["hidden-pig"]
    response = page(client, f"/games/{running}")
    assert response.headers["Cache-Control"] == "public, no-cache"
    again = client.get(f"/games/{running}", headers={"If-None-Match": response.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""


def test_a_page_not_modified_since_the_date_asked_is_answered_304(client, games):
    done = games.finished["hidden-pig"]
    response = page(client, f"/games/{done}")
    modified = response.headers["Last-Modified"]
    newest = games.service.game(done).last["time"]
    assert parsedate_to_datetime(modified) == datetime.fromisoformat(newest).replace(microsecond=0)
    again = client.get(f"/games/{done}", headers={"If-Modified-Since": modified})
    assert again.status_code == 304 and again.data == b""
    earlier = format_datetime(parsedate_to_datetime(modified) - timedelta(seconds=1), usegmt=True)
    assert client.get(f"/games/{done}", headers={"If-Modified-Since": earlier}).status_code == 200


def test_content_that_can_never_change_is_immutable(client, games):
    done, running = games.finished["hidden-pig"], games.running["hidden-pig"]
    version = games.service.game(running).version
    for url in (
        f"/games/{done}/export.json",
        f"/games/{done}/checkpoints.json",
        f"/games/{done}/proofs/inclusion/0.json",
        f"/games/{running}/proofs/consistency/1/{version}.json",
        f"/games/{running}/proofs/inclusion/0.json?size=2",
    ):
        assert "immutable" in page(client, url).headers["Cache-Control"], url
    for url in (
        f"/games/{running}/export.json",
        f"/games/{running}/proofs/inclusion/0.json",
        f"/games/{running}",
        f"/games/{running}/turn/1",
        f"/games/{done}",
    ):
        assert "immutable" not in page(client, url).headers["Cache-Control"], url
    drawn = games.running["kingsburg"]
    past_board = page(client, f"/games/{drawn}/turn/{games.service.game(drawn).version - 3}/board.svg")
    assert past_board.headers["Cache-Control"].startswith("public, max-age=")


def test_export_is_built_once_per_version_and_revalidated_by_etag(client, games, monkeypatch):
    running = games.running["kingsburg"]
    first = page(client, f"/games/{running}/export.json")
    calls = []
    monkeypatch.setattr(games.service, "export", lambda game_id: calls.append(game_id))
    second = page(client, f"/games/{running}/export.json")  # from the built bytes: export is not called
    assert calls == [] and second.data == first.data and second.headers["ETag"] == first.headers["ETag"]
    again = client.get(f"/games/{running}/export.json", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""


def test_security_headers(client, games):
    response = page(client, f"/games/{games.running['kingsburg']}")
    assert "default-src 'none'" in response.headers["Content-Security-Policy"]
    assert response.headers["X-Content-Type-Options"] == "nosniff"


# -- languages ----------------------------------------------------------------------------
def test_czech_by_query_and_by_accept_language(client, games):
    game_id = games.finished["hidden-pig"]
    english = page(client, f"/games/{game_id}").get_data(as_text=True)
    assert '<html lang="en">' in english and "Final standings" in english
    czech = page(client, f"/games/{game_id}?lang=cs")
    text = czech.get_data(as_text=True)
    assert '<html lang="cs">' in text and "Konečné pořadí" in text
    assert czech.headers["Content-Language"] == "cs"
    assert f'href="/games/{game_id}/history?lang=cs"' in text  # the choice is kept in links
    header = page(client, f"/games/{game_id}", headers={"Accept-Language": "cs-CZ,cs;q=0.9,en;q=0.5"})
    assert "Konečné pořadí" in header.get_data(as_text=True)
    assert "Accept-Language" in header.headers["Vary"]
    assert "Final standings" in page(client, f"/games/{game_id}?lang=en", headers={"Accept-Language": "cs"}).get_data(
        as_text=True
    )
    assert "Nenalezeno" in page(client, "/games/nope?lang=cs", 404).get_data(as_text=True)


def test_a_page_in_czech_by_query_shows_its_board_in_czech(client, games):
    game_id = games.running["kingsburg"]
    for path in (f"/games/{game_id}", f"/games/{game_id}/turn/10"):
        text = page(client, f"{path}?lang=cs").get_data(as_text=True)
        board = re.search(r'<img src="([^"]+)"', text).group(1)
        assert board.endswith("/board.svg?lang=cs")  # the picture is asked for in the page's language
        picture = page(client, board).get_data(as_text=True)
        english = page(client, board.removesuffix("?lang=cs")).get_data(as_text=True)
        assert "Šašek" in picture and "Jester" not in picture and "Jester" in english


def test_language_switch_links_keep_the_page(client, games):
    game_id = games.finished["hidden-pig"]
    body = page(client, f"/games/{game_id}/history?since=3").get_data(as_text=True)
    assert f'href="/games/{game_id}/history?since=3&amp;lang=cs"' in body


def test_a_game_of_a_type_no_longer_offered_does_not_break_the_list(tmp_path):
    from pbem import games as registry
    from pbem.config import Settings
    from pbem.service.service import GameService
    from pbem.web import create_app
    from tests.support.hiddenpig import HiddenPig

    class VanishingPig(HiddenPig):
        name = "vanishing-pig"

    registry.register(VanishingPig())
    service = GameService(Settings(home=tmp_path))
    try:
        gone = service.create("vanishing-pig", ["a@example.org", "b@example.org"])
        kept = service.create("hidden-pig", ["a@example.org", "b@example.org"])
    finally:
        registry._extra.pop("vanishing-pig")
    try:
        client = create_app(service).test_client()
        body = page(client, "/").get_data(as_text=True)
        assert kept in body and gone not in body
        page(client, f"/games/{gone}", 404)
    finally:
        service.close()


def test_the_games_list_and_health_never_load_a_game(games):
    from pbem.web import create_app

    class NoLoadingReader:
        """The reader, except that loading a game fails the test."""

        def __getattr__(self, name):
            if name in ("game", "state", "game_ids", "history"):
                raise AssertionError(f"the page called service.{name}")
            return getattr(games.service.reader, name)

    class NoLoading:
        reader = NoLoadingReader()

    summaries = create_app(games.service).extensions["pbem.summaries"]
    summaries.catch_up_all()
    client = create_app(NoLoading(), {"PBEM_SUMMARIES": summaries}).test_client()
    for url in ("/", "/?status=finished", "/?game=kingsburg", "/?status=running&game=ruse-and-bruise"):
        page(client, url)
    assert page(client, "/health").json["games"] == len(games.service.game_ids())  # other tests add games


def test_the_games_list_has_pages_newest_activity_first(client, games):
    body = page(client, "/").get_data(as_text=True)
    assert len(games.service.game_ids()) <= 50 and 'rel="next"' not in body  # one page
    page(client, "/?page=1")
    page(client, "/?page=2", status=404)
    page(client, "/?page=0", status=404)
    page(client, "/?page=x", status=400)
    times = re.findall(r'<time datetime="([^"]+)">', body)
    assert times == sorted(times, reverse=True) and len(times) == len(games.service.game_ids())


def test_the_version_a_mail_names_is_the_turn_the_site_shows(client, games):
    """Mails (mailgateway's game block) name ``summary()["version"]``; the site's turn N is that
    same state, at /games/<id>/turn/N, and its titles use the same number."""
    game_id = games.running["kingsburg"]
    version = games.service.summary(game_id)["version"]
    game = page(client, f"/games/{game_id}").get_data(as_text=True)
    assert f"<dt>Turn</dt><dd>{version}</dd>" in game
    latest = page(client, f"/games/{game_id}/turn/{version}").get_data(as_text=True)
    assert f"<h1>State after turn {version}:" in latest and 'rel="next"' not in latest
    listed = page(client, "/?game=kingsburg").get_data(as_text=True)
    assert f'<td data-label="Turn">{version}</td>' in listed


@pytest.mark.parametrize("name", GAME_TYPES)
def test_the_private_page_says_the_decision_with_the_legal_moves_to_copy_and_the_address(client, games, name):
    import html

    from pbem.mailroom.addresses import seat_address

    game_id = games.running[name]
    game = games.service.game(game_id)
    state = games.service.state(game)
    waiting = list(game.spec.to_move(state))
    service_address = client.application.config["PBEM_MAIL_ADDRESS"]
    for seat in range(len(game.names)):
        token = games.service.seat_token(game_id, seat)
        body = page(client, f"/games/{game_id}/seat/{token}").get_data(as_text=True)
        address = seat_address(service_address, game_id, token)
        assert f'<a href="mailto:{address}">{address}</a>' in body
        if seat in waiting:
            # the decision, players named ("round 7, bob: ..."), never "seat 2"
            decision = name_seats(game.spec.decision_text(state, seat, game.names), game.names)
            assert f"Your decision: {decision}" in html.unescape(body) and ", seat " not in body
            moves = re.search(r'<pre class="moves">(.*?)</pre>', body, re.S).group(1)
            legal = game.spec.legal_texts(state, seat, limit=10_000)
            assert html.unescape(moves).split("\n") == legal[:100]
            assert ("more: send" in body) == (len(legal) > 100)
        else:
            assert "Your decision" not in body and 'class="moves"' not in body
    assert "Your decision" not in page(client, f"/games/{game_id}").get_data(as_text=True)
    assert "mailto:" not in page(client, f"/games/{game_id}").get_data(as_text=True)


def test_the_private_page_says_how_many_legal_moves_it_does_not_show(client, games, monkeypatch):
    import pbem.web.private

    monkeypatch.setattr(pbem.web.private, "LEGAL_SHOWN", 3)
    game_id = games.running["kingsburg"]
    game = games.service.game(game_id)
    state = games.service.state(game)
    seat = game.spec.to_move(state)[0]
    legal = game.spec.legal_texts(state, seat, limit=10_000)
    assert len(legal) > 3
    body = page(client, f"/games/{game_id}/seat/{games.service.seat_token(game_id, seat)}").get_data(as_text=True)
    moves = re.search(r'<pre class="moves">(.*?)</pre>', body, re.S).group(1)
    assert len(moves.split("\n")) == 3
    assert (
        f"and {len(legal) - 3} more: send &#34;moves&#34;" in body or f'and {len(legal) - 3} more: send "moves"' in body
    )
