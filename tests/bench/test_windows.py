"""The long benchmark's per-window rates (issue #19): decisions land in the window they were
answered in, a last partial window is left out, and the CLI takes only known modes."""

from __future__ import annotations

import pytest

from app.bench.http import Result, print_table
from app.cli import build_parser


def test_decisions_are_counted_in_the_window_they_were_answered_in():
    res = Result("batch", window=10.0)
    res.decided(100, 0.5)
    res.decided(100, 9.99)
    res.decided(100, 25.0)  # window 2; window 1 saw nothing
    res.decided(100, 31.0)  # in the partial last window
    res.seconds = 34.0
    assert res.decisions == 400
    assert res.windows == [200, 0, 100, 100]
    assert res.window_rates() == [20.0, 0.0, 10.0]
    summary = res.summary()
    assert summary["window_decisions_per_s"] == [20.0, 0.0, 10.0]
    assert summary["window_s"] == 10.0


def test_the_table_shows_the_windows_and_last_over_first(capsys):
    res = Result("batch", window=10.0, latencies_ms=[5.0])
    for t in (1, 2, 11, 21):
        res.decided(50, t)
    res.seconds = 30.0
    print_table({"workers": 1, "clients": 16, "servers": 10, "policy": "first_fit",
                 "batch_size": 50, "results": [res.summary()]})
    out = capsys.readouterr().out
    assert "decisions/s per 10-s window: 10 5 5  (last/first 0.50)" in out


def test_bench_http_takes_known_modes_only():
    args = build_parser().parse_args(["bench", "http", "--url", "http://x:1", "--modes",
                                      "batch", "--window", "5"])
    assert args.modes == "batch" and args.window == 5.0
    with pytest.raises(SystemExit):
        build_parser().parse_args(["bench", "http", "--modes", "single,bulk"])
