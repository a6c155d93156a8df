"""The wheel smoke test: build the wheel, install it (not editable) into a fresh virtual
environment in a temporary directory outside the checkout, and play through the installed
``pbem`` from another directory: a new game, autoplay, export, verify, one mail through
``pbem mail-in`` (and the reply composed by ``mail-work``), and one web page of each kind
through the Flask test client, and a page and a mail in Czech and Polish (the compiled
catalogs must be in the wheel).

Run it with the project's virtual environment (it needs the ``build`` package of the test
extra): ``.venv/bin/python .ci/smoke.py`` or ``make smoke``. It exits 0 when every step passed
and otherwise stops at the first failing step with its output.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ANN, BOB = "ann@example.org", "bob@example.org"
SERVICE_ADDRESS = "games@example.org"

# Runs inside the installed environment: every kind of page answers 200 with its own words.
WEB_CHECK = r"""
import sys
from pbem.service.service import GameService
from pbem.web import create_app

game_id = sys.argv[1]
service = GameService()
client = create_app(service).test_client()
token = service.seat_token(game_id, 0)
pages = {
    "/": "ruse-and-bruise",
    f"/games/{game_id}": "ruse-and-bruise",
    f"/games/{game_id}/history": "ruse-and-bruise",
    f"/games/{game_id}/turn/8": "ruse-and-bruise",
    f"/games/{game_id}/feed.atom": "<feed",
    f"/games/{game_id}/board.svg": "<svg",
    f"/games/{game_id}/turn/8/board.svg": "<svg",
    f"/games/{game_id}/seat/{token}": "ruse-and-bruise",
    f"/games/{game_id}/seat/{token}/history": "ruse-and-bruise",
    f"/games/{game_id}/seat/{token}/turn/8": "ruse-and-bruise",
    f"/games/{game_id}/export.json": game_id,
    f"/games/{game_id}/checkpoints.json": game_id,
    f"/games/{game_id}/checkpoint.txt": game_id,
    f"/games/{game_id}/proofs/inclusion/3.json": game_id,
    f"/games/{game_id}/proofs/consistency/1/10.json": game_id,
    "/keys.txt": "+",
    "/keys.json": "+",
    "/verify": "pbem verify",
    "/keys": "ed25519",
    "/health": "ok",
    "/static/style.css": "{",
    "/static/favicon.svg": "<svg",
}
for path, expected in pages.items():
    response = client.get(path)
    body = response.get_data(as_text=True)
    if response.status_code != 200 or expected.lower() not in body.lower():
        sys.exit(f"web page {path}: status {response.status_code}, {expected!r} not in the body")
# the compiled catalogs are in the wheel: a page and a mail in Czech and in Polish
for lang, words in {"cs": ("Hráči", "Historie"), "pl": ("Gracze", "Historia")}.items():
    body = client.get(f"/games/{game_id}?lang={lang}").get_data(as_text=True)
    if not all(word in body for word in words):
        sys.exit(f"the game page in {lang} lacks {words}: catalogs missing from the wheel?")
from mailgateway.compose import render

for lang, answer in {"cs": "Odpověď na vaši zprávu.", "pl": "Odpowiedź na twoją wiadomość."}.items():
    subject, text, html = render({"kind": "reply", "lang": lang, "service": "games@example.org", "results": []})
    if answer not in text:
        sys.exit(f"the mail in {lang} is not translated: {text!r}")
missing = client.get("/games/no-such-game")
if missing.status_code != 404 or "<html" not in missing.get_data(as_text=True).lower():
    sys.exit("the error page did not render")
print(f"web: {len(pages)} pages and the error page render; a page and a mail in cs and pl")
"""

MAIL = (
    f"From: {ANN}\r\nTo: {SERVICE_ADDRESS}\r\nSubject: games\r\nMessage-ID: <smoke-1@client.example>\r\n\r\ncatalog\r\n"
).encode()


def step(
    title: str, command: list[str], cwd: Path, env: dict[str, str], stdin: bytes | None = None, quiet: bool = False
) -> str:
    """Run ``command``; its standard output, or exit at a failure. ``quiet``: also exit when it
    printed a warning on either stream."""
    print(f"smoke: {title}", flush=True)
    done = subprocess.run(command, cwd=cwd, env=env, input=stdin, capture_output=True, check=False)
    output = done.stdout.decode(errors="replace")
    everything = output + done.stderr.decode(errors="replace")
    if done.returncode != 0:
        sys.stderr.write(everything)
        sys.exit(f"smoke: {title} failed with exit {done.returncode}")
    # Python's own form ("BuildBackendWarning: ...") and build's ("WARNING Package ... is absent")
    warned = re.findall(r"^(?:.*\b\w+Warning: .*|WARNING [^:\n]*)$", everything, re.MULTILINE)
    if quiet and warned:
        sys.stderr.write(everything)
        sys.exit(f"smoke: {title} printed warnings: {warned}")
    return output


def build_wheel(out: Path) -> Path:
    """The wheel, built without a single warning from setuptools (a folder of data outside the
    packages, a deprecated setting, ...)."""
    step(
        "build the wheel",
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(ROOT)],
        ROOT,
        dict(os.environ),
        quiet=True,
    )
    (wheel,) = out.glob("pbem-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    for shipped in ("pbem/templates/web/game.html", "pbem/templates/mail/body.txt", "pbem/web/static/replay.js"):
        if shipped not in names:
            sys.exit(f"smoke: the wheel lacks {shipped}")
    if any(name.startswith(("templates/", "tests/")) for name in names):
        sys.exit("smoke: the wheel holds a top-level templates or tests package")
    return wheel


def install(wheel: Path, target: Path) -> Path:
    venv.EnvBuilder(with_pip=True).create(target)
    python = target / "bin" / "python"
    step(
        "install the wheel",
        [str(python), "-m", "pip", "install", "--quiet", "--constraint", str(ROOT / "constraints.txt"), str(wheel)],
        target,
        dict(os.environ),
    )
    return target / "bin"


def play(bin_dir: Path, work: Path) -> None:
    """Everything from ``work``, a directory with nothing of the checkout in it."""
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PBEM_DATABASE_URL")}
    env |= {"PBEM_HOME": str(work / "home"), "PBEM_MAIL_ADDRESS": SERVICE_ADDRESS}
    pbem = str(bin_dir / "pbem")
    imported = step(
        "import from the installed package",
        [str(bin_dir / "python"), "-c", "import pbem, mailgateway; print(pbem.__file__, mailgateway.__file__)"],
        work,
        env,
    )
    if str(ROOT) in imported:
        sys.exit(f"smoke: pbem was imported from the checkout: {imported}")
    step("pbem --version", [pbem, "--version"], work, env)
    # the mail first, while it is the only one: its reply comes from the packaged mail templates
    step("mail-in", [pbem, "mail-in", "--sender", ANN, "--recipient", SERVICE_ADDRESS], work, env, MAIL)
    step("mail-work", [pbem, "mail-work"], work, env)
    replies = list((work / "home" / "maildir" / "new").iterdir())
    if len(replies) != 1 or b"ruse-and-bruise" not in replies[0].read_bytes():
        sys.exit(f"smoke: expected one composed reply listing the games, found {len(replies)} mails")
    game_id = step("new game", [pbem, "new", "ruse-and-bruise", "--player", ANN, "--player", BOB], work, env).strip()
    step("join", [pbem, "join", game_id, "--as", ANN], work, env)
    step("join", [pbem, "join", game_id, "--as", BOB], work, env)
    step("autoplay", [pbem, "autoplay", game_id, "--seed", "1"], work, env)
    step("export", [pbem, "export", game_id, "-o", "game.json"], work, env)
    key = step("key", [pbem, "key"], work, env).strip()
    verified = step("verify", [pbem, "verify", "game.json", "--key", key], work, env)
    if not verified.startswith("valid:"):
        sys.exit(f"smoke: verify did not say valid: {verified}")
    print(step("web pages", [str(bin_dir / "python"), "-c", WEB_CHECK, game_id], work, env), end="")


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="pbem-smoke-") as temporary:
        base = Path(temporary)
        wheel = build_wheel(base / "dist")
        bin_dir = install(wheel, base / "venv")
        (base / "work").mkdir()
        play(bin_dir, base / "work")
    print("smoke: the installed wheel works")


if __name__ == "__main__":
    main()
