"""A real browser (Debian's headless Chromium, driven by Selenium through the system
chromedriver) opens every page type of every game type on a live local server: no console
errors (a blocked style or a broken picture is one), every image drawn. At a phone's 390x844,
every page kind of each game at its start, half way and at its end, in English, Czech and
Polish: no sideways scrolling, the board's box within the screen and across it, no word of the
board picture under 11 px as shown (each text of the SVG the page shows, at its computed size
times the picture's scale), no page text under 12 px; at a laptop's 1280x800 the same pages in
English. A screenshot of each page under test-artifacts/screenshots/ (or $PBEM_SCREENSHOTS; CI
keeps them).

Skips with the reason when Chromium, chromedriver or Selenium is missing, unless
PBEM_REQUIRE_BROWSER=1 (CI), where a missing browser fails.
"""

from __future__ import annotations

import os
import shutil
import threading
import urllib.request
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from pbem.games import catalog

ARTIFACTS = Path(
    os.environ.get("PBEM_SCREENSHOTS") or Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
)
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)


def _find(*names: str) -> str | None:
    for name in names:
        found = shutil.which(name) or (f"/usr/bin/{name}" if os.path.exists(f"/usr/bin/{name}") else None)
        if found:
            return found
    return None


def _missing() -> str | None:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    if not _find("chromium", "chromium-browser"):
        return "chromium is not installed (apt-get install -y chromium chromium-driver)"
    if not _find("chromedriver"):
        return "chromedriver is not installed (apt-get install -y chromium-driver)"
    return None


@pytest.fixture(scope="module")
def browser():
    reason = _missing()
    if reason:
        if os.environ.get("PBEM_REQUIRE_BROWSER") == "1":
            pytest.fail(f"PBEM_REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = _find("chromium", "chromium-browser")
    for flag in (*FLAGS, "--window-size=1100,1400"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=_find("chromedriver")), options=options)
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(30)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def live(app):
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(timeout=10)
    server.server_close()


SIZES = {"phone": (390, 844), "desktop": (1280, 800)}


def set_size(driver, size: str) -> None:
    """The viewport of a phone (mobile: the page's viewport meta tag counts) or a laptop."""
    width, height = SIZES[size]
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": size == "phone"},
    )


def visit(driver, url: str, shot: str) -> None:
    driver.get_log("browser")  # forget what earlier pages said
    driver.get(url)
    assert driver.execute_script("return document.readyState") == "complete"
    broken = driver.execute_script(
        "return Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src)"
    )
    assert not broken, f"{url}: images not drawn: {broken}"
    errors = [entry for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "ERROR")]
    assert not errors, f"{url}: console errors: {errors}"
    assert driver.find_element("tag name", "h1").text.strip()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / f"{shot}.png"))


LAYOUT = """
const px = el => el ? parseFloat(getComputedStyle(el).fontSize) : null;
const board = document.querySelector('.board img');
const box = board ? board.getBoundingClientRect() : null;
return {overflow: document.documentElement.scrollWidth - window.innerWidth, viewport: window.innerWidth,
        board: box ? box.width : null, boardLeft: box ? box.left : null, boardRight: box ? box.right : null,
        picture: board ? board.currentSrc : null,
        title: px(document.querySelector('.board-title')), h1: px(document.querySelector('h1')),
        smallest: Math.min(...Array.from(document.querySelectorAll('main p, main li, main td, main dd, main a'))
                           .filter(e => e.offsetParent !== null).map(px))};
"""
# the SVG the page shows (the narrow one on a phone; fetched by the test, as the page's policy
# lets it fetch nothing), put into the page unseen so that each text's size is computed as the
# browser draws it, then scaled as the picture is shown: the smallest word in CSS pixels
BOARD_TEXT = """
const board = document.querySelector('.board img');
const svg = document.importNode(new DOMParser().parseFromString(arguments[0], 'image/svg+xml').documentElement, true);
const hold = document.createElement('div');
hold.style.position = 'absolute';
hold.style.left = '-99999px';
hold.style.visibility = 'hidden';
hold.appendChild(svg);
document.body.appendChild(hold);
const own = svg.viewBox.baseVal && svg.viewBox.baseVal.width ? svg.viewBox.baseVal.width : svg.width.baseVal.value;
const scale = board.getBoundingClientRect().width / own;
const sizes = Array.from(svg.querySelectorAll('text, tspan')).filter(t => t.textContent.trim())
                   .map(t => parseFloat(getComputedStyle(t).fontSize) * scale);
hold.remove();
return sizes.length ? Math.min(...sizes) : null;
"""


def check_layout(driver, url: str, size: str) -> None:
    """No sideways scrolling; on a phone the board's box within and across the screen, no word
    of it under 11 px; titles and text readable."""
    found = driver.execute_script(LAYOUT)
    assert found["overflow"] <= 0, f"{url} at {size}: {found['overflow']} px wider than the screen"
    if found["board"] is not None and size == "phone":
        assert found["boardLeft"] >= 0 and found["boardRight"] <= found["viewport"], f"{url}: board box {found}"
        assert found["board"] >= 0.9 * found["viewport"], f"{url}: board {found['board']} px of {found['viewport']}"
        with urllib.request.urlopen(found["picture"], timeout=30) as response:
            smallest = driver.execute_script(BOARD_TEXT, response.read().decode())
        assert smallest is None or smallest >= 11, f"{url}: board text {smallest} px"
    for what in ("title", "h1", "smallest"):
        assert found[what] is None or found[what] >= 12, f"{url} at {size}: {what} text {found[what]} px"


def page_kinds(games, name: str) -> dict[str, str]:
    """Every page kind of a game, at its start, half way and at its end (the private ones as
    the first seat sees them)."""
    service = games.service
    pages = {"waiting": f"/games/{games.waiting[name]}"}
    for stage, game_id in (
        ("start", games.started[name]),
        ("middle", games.running[name]),
        ("end", games.finished[name]),
    ):
        last = service.game(game_id).version
        token = service.seat_token(game_id, 0)
        pages |= {
            f"{stage}-game": f"/games/{game_id}",
            f"{stage}-history": f"/games/{game_id}/history",
            f"{stage}-history-since": f"/games/{game_id}/history?since={max(0, last - 4)}",
            f"{stage}-entry": f"/games/{game_id}/history/{max(1, last // 2)}",
            f"{stage}-turn": f"/games/{game_id}/turn/{max(1, last - 1)}",
            f"{stage}-private": f"/games/{game_id}/seat/{token}",
            f"{stage}-private-history": f"/games/{game_id}/seat/{token}/history",
            f"{stage}-private-turn": f"/games/{game_id}/seat/{token}/turn/{max(1, last - 1)}",
        }
    return pages


@pytest.mark.parametrize("lang", ("en", "cs", "pl"))
@pytest.mark.parametrize("name", sorted(catalog()))
def test_every_page_kind_on_a_phone(browser, live, games, name, lang):
    set_size(browser, "phone")
    try:
        for shot, path in page_kinds(games, name).items():
            url = f"{path}{'&' if '?' in path else '?'}lang={lang}"
            visit(browser, live + url, f"{name}-{shot}-{lang}-phone")
            check_layout(browser, url, "phone")
            assert browser.execute_script("return document.documentElement.lang") == lang
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


@pytest.mark.parametrize("name", sorted(catalog()))
def test_every_page_kind_on_a_laptop(browser, live, games, name):
    set_size(browser, "desktop")
    try:
        for shot, path in page_kinds(games, name).items():
            visit(browser, live + path, f"{name}-{shot}-desktop")
            check_layout(browser, path, "desktop")
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


@pytest.mark.parametrize("size", sorted(SIZES))
def test_site_pages_in_a_browser(browser, live, size):
    set_size(browser, size)
    try:
        for shot, path in {
            "games": "/",
            "games-filtered": "/?status=finished&lang=cs",
            "verify": "/verify",
            "keys": "/keys",
        }.items():
            visit(browser, live + path, f"{shot}-{size}")
            check_layout(browser, path, size)
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_the_games_list_is_cards_on_a_phone(browser, live):
    set_size(browser, "phone")
    try:
        browser.get(live + "/")
        rows = browser.find_elements("css selector", "table.games tbody tr")
        assert rows and all(row.value_of_css_property("display") == "block" for row in rows)
        assert browser.find_element("css selector", "table.games thead").location["x"] < 0  # headers hidden
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    browser.get(live + "/")
    assert browser.find_element("css selector", "table.games tbody tr").value_of_css_property("display") == "table-row"


def test_replay_links_and_filters_work_without_javascript(browser, live, games):
    game_id = games.finished["ruse-and-bruise"]
    browser.get(f"{live}/games/{game_id}/turn/1")  # the state after entry 1
    from selenium.webdriver.support import expected_conditions as arrived
    from selenium.webdriver.support.wait import WebDriverWait

    wait = WebDriverWait(browser, 10)
    browser.find_element("css selector", 'a[rel="next"]').click()
    wait.until(arrived.url_to_be(f"{live}/games/{game_id}/turn/2"))
    browser.find_element("css selector", 'a[rel="last"]').click()
    wait.until(arrived.url_to_be(f"{live}/games/{game_id}/turn/{games.service.game(game_id).version}"))
    browser.get(f"{live}/")
    browser.find_element("css selector", '#f-status option[value="finished"]').click()
    browser.find_element("css selector", "form.filters button").click()
    wait.until(arrived.url_contains("status=finished"))
    assert game_id in browser.page_source and games.running["ruse-and-bruise"] not in browser.page_source


def test_arrow_keys_step_through_the_replay(browser, live, games):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as arrived
    from selenium.webdriver.support.wait import WebDriverWait

    game_id = games.finished["kingsburg"]
    wait = WebDriverWait(browser, 10)
    browser.get(f"{live}/games/{game_id}/turn/5")
    ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
    wait.until(arrived.url_to_be(f"{live}/games/{game_id}/turn/6"))
    ActionChains(browser).send_keys(Keys.ARROW_LEFT).perform()
    wait.until(arrived.url_to_be(f"{live}/games/{game_id}/turn/5"))
    browser.get(f"{live}/games/{game_id}/turn/1")  # no previous turn: the key does nothing
    ActionChains(browser).send_keys(Keys.ARROW_LEFT).perform()
    assert browser.current_url == f"{live}/games/{game_id}/turn/1"


@pytest.mark.parametrize("size", sorted(SIZES))
@pytest.mark.parametrize(
    ("lang", "words"),
    [("cs", ("Hráči", "Kdo je na tahu", "Vaše rozhodnutí")), ("pl", ("Gracze", "Czyj ruch", "Twoja decyzja"))],
)
def test_a_game_page_in_czech_and_polish(browser, live, games, lang, words, size):
    running = games.running["kingsburg"]
    token = games.service.seat_token(running, games.service.summary(running)["waiting_for"][0]["seat"])
    set_size(browser, size)
    try:
        for shot, path in {
            "game": f"/games/{running}?lang={lang}",
            "private": f"/games/{running}/seat/{token}?lang={lang}",
        }.items():
            visit(browser, live + path, f"kingsburg-{shot}-{lang}-{size}")
            check_layout(browser, path, size)
            assert browser.execute_script("return document.documentElement.lang") == lang
            text = browser.find_element("tag name", "main").text
            assert all(word in text for word in words[:2]), (path, text[:300])
            if shot == "private":
                assert words[2] in text
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
