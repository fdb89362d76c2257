"""What if: a cluster's own decision log replayed under another policy (replay.py), with the
counterfactual events the log does not hold filled in and named (jobs.py), measured side by
side (measures.py)."""
