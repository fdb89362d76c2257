"""Pure policy engines: no HTTP, no database, no clock, no global random state."""
