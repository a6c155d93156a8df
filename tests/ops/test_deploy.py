"""The deploy files: units parse and run real commands, the compose file names its services,
and the environment example lists exactly the variables the code reads."""

from __future__ import annotations

import configparser
import re
import shlex
import subprocess
from pathlib import Path

import pytest
import yaml

from pbem.cli import main
from pbem.config import ENVIRONMENT, postgres_env

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
UNITS = sorted((DEPLOY / "systemd").glob("pbem-*.*"))
READS = [
    re.compile(r"""(?:environ|env)\.get\(\s*["']([A-Z][A-Z0-9_]+)["']"""),
    re.compile(r"""(?:environ|env)\[\s*["']([A-Z][A-Z0-9_]+)["']\s*\](?!\s*=[^=])"""),
    re.compile(r"""getenv\(\s*["']([A-Z][A-Z0-9_]+)["']"""),
]


def variables_read_by_code() -> set[str]:
    names = set(ENVIRONMENT)
    for folder in ("pbem", "mailgateway"):
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            for pattern in READS:
                names.update(pattern.findall(text))
    return names


def variables_in_example() -> set[str]:
    text = (DEPLOY / "pbem.env.example").read_text(encoding="utf-8")
    return set(re.findall(r"^#?([A-Z][A-Z0-9_]+)=", text, re.MULTILINE))


def _unit(path: Path) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # systemd keys are case-sensitive
    parser.read_string(path.read_text(encoding="utf-8"), source=str(path))
    return parser


def _check_command(argv: list[str]) -> None:
    """A pbem command line names a real command; a gunicorn one a real app factory."""
    program = Path(argv[0]).name
    if program == "pbem":
        assert argv[1] in main.commands, f"pbem has no command {argv[1]!r}"
        command = main.commands[argv[1]]
        options = {opt for param in command.params for opt in getattr(param, "opts", [])}
        for word in argv[2:]:
            if word.startswith("--"):
                assert word in options, f"pbem {argv[1]} has no option {word}"
    elif program == "gunicorn":
        target = argv[-1]
        module, _, factory = target.partition(":")
        assert factory.endswith("()")
        imported = __import__(module, fromlist=[factory[:-2]])
        assert callable(getattr(imported, factory[:-2]))
    else:
        pytest.fail(f"unexpected program {argv[0]}")


def test_there_are_units_for_web_mail_and_the_scheduler():
    names = {path.name for path in UNITS}
    assert {"pbem-web.service", "pbem-mail.service", "pbem-mail-work.service", "pbem-mail-work.timer"} <= names


@pytest.mark.parametrize("path", UNITS, ids=lambda p: p.name)
def test_unit_parses_and_runs_a_real_command(path):
    unit = _unit(path)
    assert unit["Unit"]["Description"]
    if path.suffix == ".timer":
        assert unit.has_section("Timer") and unit["Install"]["WantedBy"] == "timers.target"
        assert (path.with_suffix(".service")).exists()
        return
    service = unit["Service"]
    assert service["User"] == "pbem" and service["EnvironmentFile"] == "/etc/pbem/pbem.env"
    assert service["ReadWritePaths"] == "/var/lib/pbem"
    _check_command(shlex.split(service["ExecStart"]))


def test_compose_file_names_its_services_and_uses_postgres():
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text(encoding="utf-8"))
    services = compose["services"]
    assert {"postgres", "web", "mail", "init"} <= set(services)
    assert services["postgres"]["image"].endswith("postgres:15")
    for name in ("init", "web", "mail"):
        service = services[name]
        assert service["build"]["dockerfile"] == "deploy/Containerfile"
        assert (DEPLOY / service["build"]["context"] / service["build"]["dockerfile"]).resolve().exists()
        assert (DEPLOY / service["env_file"]).exists()
        url = service["environment"]["PBEM_DATABASE_URL"]
        assert postgres_env(url)["POSTGRES_HOST"] == "postgres"
        assert "pbem-home:/var/lib/pbem" in service["volumes"]
        _check_command(service["command"])
    for name in ("web", "mail"):
        assert services[name]["depends_on"]["init"]["condition"] == "service_completed_successfully"


def test_containerfile_copies_what_exists_and_runs_the_web_site():
    text = (DEPLOY / "Containerfile").read_text(encoding="utf-8")
    assert text.startswith("#") and "\nFROM python:3.11" in text
    for line in re.findall(r"^COPY (.+)$", text, re.MULTILINE):
        for source in line.split()[:-1]:
            assert (ROOT / source).exists(), f"COPY {source}: not in the project"
    cmd = re.search(r"^CMD (\[.*\])$", text, re.MULTILINE)
    _check_command(yaml.safe_load(cmd.group(1)))


def test_env_example_lists_every_variable_the_code_reads():
    read, listed = variables_read_by_code(), variables_in_example()
    assert {"PBEM_HOME", "PBEM_DATABASE_URL", "PBEM_MAIL_ADDRESS", "CIPHER_KEY"} <= read
    assert read - listed == set(), "variables read by the code but missing from deploy/pbem.env.example"
    assert listed - read == set(), "variables in deploy/pbem.env.example that no code reads"


def test_operations_guide_documents_every_variable():
    guide = ROOT / "docs" / "operations.md"
    text = guide.read_text(encoding="utf-8")
    missing = sorted(name for name in variables_read_by_code() if f"`{name}`" not in text)
    assert missing == []


def test_postfix_pipe_wrapper_is_valid_shell_and_is_where_master_cf_says():
    wrapper = DEPLOY / "postfix" / "pbem-mail-in"
    assert subprocess.run(["sh", "-n", str(wrapper)], check=False).returncode == 0
    assert wrapper.stat().st_mode & 0o111
    master = (DEPLOY / "postfix" / "master.cf.pipe").read_text(encoding="utf-8")
    argv = re.search(r"argv=(\S+) (.*)$", master, re.MULTILINE)
    assert argv.group(1) == "/opt/pbem/deploy/postfix/pbem-mail-in"
    _check_command(["pbem", "mail-in", *[w for w in argv.group(2).split() if w.startswith("--")]])
    lmtp = (DEPLOY / "postfix" / "main.cf.lmtp").read_text(encoding="utf-8")
    unit = _unit(DEPLOY / "systemd" / "pbem-mail.service")
    port = shlex.split(unit["Service"]["ExecStart"])[-1]
    assert f"lmtp:inet:127.0.0.1:{port}" in lmtp and "--lmtp" in unit["Service"]["ExecStart"]


def test_nginx_proxies_to_the_web_unit():
    conf = (DEPLOY / "nginx" / "pbem.conf").read_text(encoding="utf-8")
    code = re.sub(r"#.*", "", conf)
    assert code.count("{") == code.count("}")
    bind = re.search(r"--bind (\S+)", _unit(DEPLOY / "systemd" / "pbem-web.service")["Service"]["ExecStart"])
    assert f"server {bind.group(1)};" in conf
    assert "location = /health" in conf
