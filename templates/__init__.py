"""The Jinja2 templates of the web site (``web/``) and of outgoing mail (``mail/``).

This folder stays at the top of the checkout and ships inside the wheel as the package
``pbem.templates`` (see pyproject.toml); code finds it with ``importlib.resources``.
"""
