"""The transaction boundary: lock a cluster, apply events to its engine, log, commit, answer."""
