"""The HTML check the page tests rely on does find broken pages."""

import pytest

from tests.web.htmlcheck import html_errors

GOOD = (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>t</title></head>'
    '<body><main><h1>T</h1><label for="a">A</label><input id="a"><img src="x.svg" alt="x"></main></body></html>'
)


def test_a_good_page_passes():
    assert html_errors(GOOD) == []


@pytest.mark.parametrize(
    "broken, complaint",
    [
        (GOOD.replace("<!DOCTYPE html>", ""), "DOCTYPE"),
        (GOOD.replace(' lang="en"', ""), "lang"),
        (GOOD.replace("</main>", "</div></main>"), "parse error"),
        (GOOD.replace(' alt="x"', ""), "alt"),
        (GOOD.replace('id="a"', 'id="b"'), "points at nothing"),
        (GOOD.replace("<h1>T</h1>", "<h1>T</h1><h1>U</h1>"), "<h1>"),
        (GOOD.replace("<h1>T</h1>", '<p id="a">x</p><h1>T</h1>'), "duplicate id"),
        (GOOD.replace("<h1>T</h1>", '<a href="/"><a href="/">x</a></a><h1>T</h1>'), "nested"),
    ],
)
def test_a_broken_page_is_caught(broken, complaint):
    errors = html_errors(broken)
    assert any(complaint in error for error in errors), errors
