"""The verifiable side of a game: canonical bytes, the Merkle log, signed checkpoints,
commitments to hidden facts and the fair-randomness derivation. Pure functions, no store."""
