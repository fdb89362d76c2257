"""The request limits' arithmetic (app/api/throttle.py), as docs/operations.md states it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from app.api.throttle import RequestLimits
from app.service.auth import Principal

KEY = Principal("k1", "acme", frozenset({"write"}), None)


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 50), st.lists(st.integers(0, 10_000), min_size=1, max_size=300))
def test_never_more_than_n_within_a_second_is_never_refused(n, sent_ms):
    """The promise: a client that never sends more than N within any one second (a closed
    interval of 1,000 ms) is never refused; and the first request over it always is."""
    kept: list[int] = []
    clock = Clock()
    limits = RequestLimits(n, 0, 0, clock)
    for t in sorted(sent_ms):
        clock.now = 1000 + t / 1000
        within = sum(1 for u in kept if u >= t - 1000)
        if within < n:
            assert limits.admit(KEY, False) is None, (n, kept, t)
            kept.append(t)


@given(st.integers(1, 50), st.integers(0, 10_000))
def test_a_burst_of_n_then_one_more_is_refused_for_about_one_nth_of_a_second(n, start_ms):
    clock = Clock()
    clock.now = start_ms / 1000
    limits = RequestLimits(n, 0, 0, clock)
    for _ in range(n):
        assert limits.admit(KEY, False) is None
    refusal = limits.admit(KEY, False)
    assert refusal is not None and refusal.reason == "key_rate"
    assert refusal.error.headers == {"Retry-After": "1"}
    clock.now += 1 / n + 0.001
    assert limits.admit(KEY, False) is None


def test_an_owners_expensive_requests_in_flight_leave_when_answered():
    limits = RequestLimits(0, 0, 2)
    other = Principal("k2", "other", frozenset({"write"}), None)
    assert limits.admit(KEY, True) is None and limits.admit(KEY, True) is None
    assert limits.admit(KEY, True).reason == "owner_concurrency"
    assert limits.admit(KEY, False) is None  # cheap ones are not bounded
    assert limits.admit(other, True) is None
    limits.leave(KEY, True)
    assert limits.admit(KEY, True) is None
    for p in (KEY, KEY, other):
        limits.leave(p, True)
    assert limits.in_flight("acme") == limits.in_flight("other") == 0
