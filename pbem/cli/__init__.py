"""The ``pbem`` command. Each module of this package adds its commands with ``register``;
they are discovered, so the web site and the mail gateway add theirs without editing here."""

from __future__ import annotations

import importlib
import pkgutil

import click

from pbem import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="pbem", message="%(prog)s %(version)s")
def main() -> None:
    """pbem: board games by email and turn files, with signed, verifiable histories."""


def _register_all() -> None:
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        loaded = importlib.import_module(f"{__name__}.{module.name}")
        register = getattr(loaded, "register", None)
        if register:
            register(main)


_register_all()
