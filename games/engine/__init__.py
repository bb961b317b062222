"""Pure rules engines, one per game, behind the interface in `base.Game`."""
