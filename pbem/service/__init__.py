"""The game service on the event store: reading, writing, keys, turn files, import."""
