"""Every change to game state happens here, under the table lock (ARCHITECTURE)."""
