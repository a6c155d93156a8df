"""The SMTP side of pbem: receiving, parsing and authenticating mail, and the outbox."""
