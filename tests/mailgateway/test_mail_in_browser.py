"""A turn mail's HTML part as a phone shows it: Chromium at 320 px opens the HTML part with its
inline picture (the ``cid:`` reference given the picture's bytes, as a mail client does), for
each game: nothing is wider than the screen, the picture is drawn across it, and no ``<pre>``
board is there. A screenshot of each under the browser tests' artifacts. Skips (or fails, with
PBEM_REQUIRE_BROWSER=1) as tests/web/test_browser.py does."""

from __future__ import annotations

import base64

import pytest

from tests.mailgateway.test_pictures import GAMES, PLAYERS, parts, started
from tests.web.test_browser import ARTIFACTS, browser  # noqa: F401 (the fixture)

WIDTH = 320
WIDEST = """
const wide = Array.from(document.querySelectorAll('body *')).map(e => e.getBoundingClientRect().right);
const img = document.querySelector('img');
return {scroll: document.documentElement.scrollWidth, inner: window.innerWidth, widest: Math.max(...wide),
        drawn: img ? img.complete && img.naturalWidth > 0 : null, img: img ? img.getBoundingClientRect().width : null};
"""


@pytest.mark.parametrize("name", GAMES)
def test_a_turn_mail_reads_on_a_320_px_phone(browser, gw, transport, tmp_path, name):  # noqa: F811
    game_id = started(gw, transport, name)
    game = gw.service.game(game_id)
    seat = game.spec.to_move(gw.service.state(game))[0]
    (mail,) = [m for m in transport.to(PLAYERS[seat]) if m["X-Pbem-Kind"] == "started"]
    found = parts(mail)
    png = found["image/png"]
    html = found["text/html"].get_content()
    assert "<pre" not in html
    data = "data:image/png;base64," + base64.b64encode(png.get_content()).decode()
    page = tmp_path / "mail.html"
    page.write_text(html.replace(f"cid:{png['Content-ID'].strip('<>')}", data), encoding="utf-8")
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride", {"width": WIDTH, "height": 700, "deviceScaleFactor": 1, "mobile": True}
    )
    try:
        browser.get(page.as_uri())
        found = browser.execute_script(WIDEST)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(ARTIFACTS / f"mail-{name}-turn-320.png"))
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert found["scroll"] <= found["inner"] == WIDTH, found
    assert found["widest"] <= WIDTH, found
    assert found["drawn"] and found["img"] >= 0.8 * WIDTH, found
