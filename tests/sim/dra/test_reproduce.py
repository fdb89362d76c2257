"""The reduced reproduction runs end to end in seconds and writes a document with its plots."""

from __future__ import annotations

import re

from app.cli import main


def test_quick_reproduction_writes_the_document_and_figures(tmp_path):
    assert main(["reproduce", "dra", "--quick", "--out", str(tmp_path)]) == 0
    doc = (tmp_path / "dra.md").read_text()
    for fig in ("fig2_greedy_vs_optimal", "fig3_dra_over_L", "fig4_reward_over_time",
                "fig5_priority_trace", "fig6_reward_vs_migrations", "fig7_mix_change"):
        png = tmp_path / "dra" / f"{fig}.png"
        assert png.stat().st_size > 10_000 and png.read_bytes()[:4] == b"\x89PNG"
        assert f"dra/{fig}.png" in doc
    # Paper and measured values side by side; every measured cell is a number.
    assert "6/7 and 6" in doc and "23 of 50" in doc
    rows = [line for line in doc.splitlines() if re.match(r"\| (1|2(\.\d+)?) \| \d+ \|", line)]
    assert rows, "Fig. 3 table rows"
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert all(re.fullmatch(r"[0-9.]+", c) for c in cells), row
    assert "| 20 | DRA+Preemption |" in doc and "| 20 | DRA+Preemption (admit) |" in doc
    for section in ("## Migration controls", "## No-migration modes after a change in the mix",
                    "## DRA against best-fit on the worst-case preset", "## When to choose which"):
        assert section in doc
    assert "| budget 0.1/server |" in doc and "| DRA off_drain (§8) |" in doc
