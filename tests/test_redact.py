"""app/redact.py: a key leaves every path it can be in, and nothing else changes."""

from __future__ import annotations

import secrets

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app import redact
from app.ids import KEY_PREFIX

SEGMENT = st.text(alphabet=st.characters(blacklist_characters="/", min_codepoint=32,
                                         max_codepoint=0x2FF), min_size=1, max_size=12)


@given(before=st.lists(SEGMENT, max_size=4), after=st.lists(SEGMENT, max_size=4),
       key=st.text(alphabet=st.characters(blacklist_characters="/", min_codepoint=33,
                                          max_codepoint=0x2FF), min_size=1, max_size=50),
       spelling=st.sampled_from(["kubernetes", "Kubernetes", "KUBERNETES"]),
       slashes=st.sampled_from(["/", "//"]))
def test_the_segment_after_kubernetes_never_survives(before, after, key, spelling, slashes):
    """Whatever precedes (``..`` included) or follows it, and whatever the key looks like."""
    if key.lower() in ("extender", "admission"):
        return  # the header routes' own segments
    segments = ["", *before, spelling, *([""] if slashes == "//" else []), key, *after]
    at = len(segments) - len(after) - 1
    redacted = redact.path("/".join(segments)).split("/")
    assert len(redacted) == len(segments)  # one segment for one
    assert redacted[at] == redact.REDACTED


def test_a_key_anywhere_is_redacted_in_paths_and_text():
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    for raw in (f"/v1/clusters/{key}", f"/v1/clusters/c/jobs/{key}/x", f"/{key}"):
        assert key not in redact.path(raw) and redact.REDACTED in redact.path(raw)
    for raw in (f"cluster {key!r} does not exist", f"Bearer {key}", f'"{key}"', key):
        assert redact.text(raw) == raw.replace(key, redact.REDACTED)


@pytest.mark.parametrize("raw", [
    "/v1/clusters/6f0c1c1e-0d0e-4f55-9f1e-1b0a5f7c2d11/arrivals",
    "/v1/clusters/c/kubernetes/extender/filter",
    "/v1/clusters/c/kubernetes/admission",
    "/v1/clusters/c/deployments/shr_1/scale-outs",  # "hr_" inside a segment is no key
    "/metrics",
])
def test_paths_without_a_key_are_left_as_they_are(raw):
    assert redact.path(raw) == raw
    assert redact.text(raw) == raw
