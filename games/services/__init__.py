"""Every change to game state happens here, under the table lock (docs/architecture.md,
convention 5)."""
