"""pbem: board games by email and turn files, with signed, verifiable histories."""

__version__ = "0.1.0"
