"""The ``pbem`` command. Each module of this package adds its commands with ``register``;
they are discovered, so the web site and the mail gateway add theirs without editing here."""

from __future__ import annotations

import importlib
import os
import pkgutil
import shutil
import sys
from pathlib import Path
from typing import Any

import click

from pbem.cli.errors import describe


class Commands(click.Group):
    """The command group; a settings or storage failure in any command becomes one sentence on
    standard error and its exit code (pbem.cli.errors, docs/cli.md) instead of a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except Exception as error:
            home = os.environ.get("PBEM_HOME") or "pbem-data"
            failure = describe(error, home, free_bytes(home))
            if failure is None:
                raise
            click.echo(failure.line(), err=True)
            sys.exit(failure.exit_code)


def free_bytes(home: str) -> int | None:
    """Free space on the disk of ``home`` (or of its nearest existing parent); None if unknown."""
    folder = Path(home).absolute()
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        return shutil.disk_usage(folder).free
    except OSError:
        return None


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="pbem", prog_name="pbem", message="%(prog)s %(version)s")
def main() -> None:
    """pbem: board games by email and turn files, with signed, verifiable histories."""
    os.umask(0o077)  # every file pbem writes (database, keys, outgoing mail) is its owner's only


def _register_all() -> None:
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        loaded = importlib.import_module(f"{__name__}.{module.name}")
        register = getattr(loaded, "register", None)
        if register:
            register(main)


_register_all()
