"""HTML checks for our own pages (no network validator here): the HTML5 parsing algorithm
must meet no parse error (html5lib, strict), and our own rules: doctype, lang, balanced tags,
unique ids, labels that point at fields, images with alt text, one h1, no nested links or
forms."""

from __future__ import annotations

from html.parser import HTMLParser

import html5lib

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# elements whose end tag HTML lets one omit; we never omit them, so they are checked too
ALLOWED = {
    "html",
    "head",
    "body",
    "title",
    "meta",
    "link",
    "header",
    "nav",
    "main",
    "footer",
    "section",
    "h1",
    "h2",
    "h3",
    "p",
    "a",
    "span",
    "strong",
    "em",
    "code",
    "pre",
    "ul",
    "ol",
    "li",
    "dl",
    "dt",
    "dd",
    "table",
    "caption",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "form",
    "label",
    "select",
    "option",
    "input",
    "button",
    "figure",
    "figcaption",
    "img",
    "picture",
    "source",
    "details",
    "summary",
    "time",
    "br",
    "div",
}


class Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.ids: set[str] = set()
        self.label_targets: list[str] = []
        self.h1 = 0
        self.doctype = False
        self.lang = None

    def handle_decl(self, decl: str) -> None:
        self.doctype = decl.lower() == "doctype html"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = [name for name, _ in attrs]
        values = dict(attrs)
        where = f"<{tag}> at line {self.getpos()[0]}"
        if tag not in ALLOWED and not (tag == "script" and values.get("src") and "head" in self.stack):
            self.errors.append(f"unexpected element {where}")  # scripts only from files, in the head
        if len(names) != len(set(names)):
            self.errors.append(f"duplicate attribute in {where}")
        if "id" in values:
            if values["id"] in self.ids:
                self.errors.append(f"duplicate id {values['id']!r} in {where}")
            self.ids.add(values["id"] or "")
        if tag == "html":
            self.lang = values.get("lang")
        if tag == "img" and not values.get("alt"):
            self.errors.append(f"image without alt text {where}")
        if tag == "label" and values.get("for"):
            self.label_targets.append(values["for"] or "")
        if tag == "h1":
            self.h1 += 1
        if tag in ("a", "form") and tag in self.stack:
            self.errors.append(f"nested {where}")
        if tag == "li" and self.stack and self.stack[-1] not in ("ul", "ol"):
            self.errors.append(f"{where} outside a list")
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.errors.append(f"self-closing non-void <{tag}>")
            self.stack.pop()

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            self.errors.append(f"end tag of void element </{tag}>")
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> at line {self.getpos()[0]} closes {self.stack[-1:] or 'nothing'}")
            if tag in self.stack:
                while self.stack.pop() != tag:
                    pass
            return
        self.stack.pop()


def html5_errors(text: str) -> list[str]:
    parser = html5lib.HTMLParser(strict=False, namespaceHTMLElements=False)
    parser.parse(text)
    return [
        f"HTML5 parse error {code} {data or ''} at line {line}, column {column}"
        for (line, column), code, data in parser.errors
    ]


def html_errors(text: str) -> list[str]:
    errors = html5_errors(text)
    checker = Checker()
    checker.feed(text)
    checker.close()
    errors += checker.errors
    if not checker.doctype:
        errors.append("no <!DOCTYPE html>")
    if checker.lang not in ("en", "cs", "pl"):
        errors.append(f"<html lang> is {checker.lang!r}")
    if checker.stack:
        errors.append(f"unclosed elements: {checker.stack}")
    if checker.h1 != 1:
        errors.append(f"{checker.h1} <h1> elements, want one")
    errors += [
        f"<label for={target!r}> points at nothing" for target in checker.label_targets if target not in checker.ids
    ]
    return errors
