"""The strict reading of JSON bodies (app/api/json_body.py): clean documents pass untouched,
and each hostile construct is found and named by its path, wherever it is put."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.api.json_body import MAX_DEPTH, refusal

# Strings JSON writes as escapes or raw UTF-8, astral characters (surrogate pairs) included:
# clean, NUL and lone surrogates apart.
clean_text = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"),
                     max_size=12)
clean_scalar = st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30),
                         st.floats(allow_nan=False, allow_infinity=False), clean_text)


def clean_documents(depth: int = 6) -> st.SearchStrategy:
    return st.recursive(clean_scalar, lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(clean_text, inner, max_size=4)),
        max_leaves=depth * 4)


@settings(max_examples=300, deadline=None)
@given(document=clean_documents(), ascii_only=st.booleans())
def test_clean_documents_pass(document, ascii_only):
    assert refusal(json.dumps({"d": document}, ensure_ascii=ascii_only).encode()) is None


# What a hostile value looks like in the body's text, and the type it is refused as.
HOSTILE = [
    ('"\\ud800"', "lone_surrogate"), ('"a\\udfffb"', "lone_surrogate"),
    ('"\\ude00\\ud83d"', "lone_surrogate"),  # a pair in the wrong order is two lone halves
    ('"x\\u0000"', "control_character"),
    ("NaN", "non_finite_number"), ("Infinity", "non_finite_number"),
    ("-Infinity", "non_finite_number"), ("1e999", "non_finite_number"),
    ("-1.5e400", "non_finite_number"), ("9" * 5000, "number_too_long"),
    ("[" * 70 + "]" * 70, "nesting_too_deep"),
]


def _path_and_text(document, where: list[str | int], hostile: str) -> tuple[str, str]:
    """``document`` with ``hostile`` (raw JSON text) put at the path ``where`` (created as
    needed): the body's text and the field name the refusal must give."""
    marker = "@@HOSTILE@@"
    node = document
    for step, nxt in zip(where, [*where[1:], None]):
        child = marker if nxt is None else ([] if isinstance(nxt, int) else {})
        if isinstance(node, dict):
            node[step] = child
        else:
            node.append(child)
        node = child
    text = json.dumps(document).replace(json.dumps(marker), hostile)
    field = ""
    for step in where:
        field += f"[{step}]" if isinstance(step, int) else (f".{step}" if field else step)
    return text, field


paths = st.lists(st.one_of(st.sampled_from(["a", "policy", "params", "x y"]),
                           st.just(0)), min_size=1, max_size=5).filter(
    lambda p: isinstance(p[0], str))


@settings(max_examples=300, deadline=None)
@given(where=paths, hostile=st.sampled_from(HOSTILE))
def test_each_hostile_value_is_named_where_it_is(where, hostile):
    text, kind = hostile
    body, field = _path_and_text({}, where, text)
    found = refusal(body.encode())
    assert found is not None, body
    assert found.type == kind
    if kind == "nesting_too_deep":  # the first container past the limit, inside the value
        assert found.field.startswith(field)
    else:
        assert found.field == field


@pytest.mark.parametrize("body, field", [
    (b'{"dry_run": false, "dry_run": true}', "dry_run"),
    (b'{"policy": {"params": {"step": 1, "step": 2}}}', "policy.params.step"),
    (b'{"events": [{"kind": "arrival"}, {"kind": "a", "kind": "b"}]}', "events[1].kind"),
])
def test_a_key_given_twice_is_refused(body, field):
    found = refusal(body)
    assert found is not None and (found.field, found.type) == (field, "duplicate_key")


@pytest.mark.parametrize("body, field", [
    (b'{"\\ud800": 1}', "\\ud800"),  # a key: named with the escape, so the answer encodes
    ('{"k": "\udbff"}'.encode("utf-8", "surrogatepass"), "k"),  # raw bytes of a surrogate
    ('{"k": "\ud800"}'.encode("utf-16-le", "surrogatepass"), "k"),  # UTF-16 text
    ('{"k": "\ud800"}'.encode("utf-32", "surrogatepass"), "k"),
    (b'\xef\xbb\xbf{"k": "\\ud800"}', "k"),  # behind a byte order mark
])
def test_lone_surrogates_are_found_however_written(body, field):
    found = refusal(body)
    assert found is not None and (found.field, found.type) == (field, "lone_surrogate")


def test_nesting_at_the_limit_passes_and_beyond_it_does_not():
    assert refusal(("[" * MAX_DEPTH + "]" * MAX_DEPTH).encode()) is None
    deep = refusal(("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)).encode())
    assert deep is not None and deep.field == "[0]" * MAX_DEPTH
    # Deeper than the parser itself can go: refused without a path, never an exception.
    huge = refusal(b"[" * 200_000 + b"]" * 200_000)
    assert huge is not None and (huge.field, huge.type) == ("body", "nesting_too_deep")


@pytest.mark.parametrize("body", [
    b"", b"not json", b'{"a": 1', b"\xff\xfe\xfa", b'{"a": "\\ud83d\\ude00"}',
    b'{"a": "\\\\ud800"}', b'{"a": "\\\\u0000"}', "{\"a\": \"\u00e9\u202e\u2066\"}".encode(),
    b'{"a": 1e308, "b": -0.0, "c": 5e-324, "d": 1e-999}',
])
def test_what_is_not_refused_here(body):
    """Malformed JSON is the route's to answer (400); escaped backslashes, pairs, bidi
    controls and numbers a double holds (1e-999 is 0) are not refused here."""
    assert refusal(body) is None
