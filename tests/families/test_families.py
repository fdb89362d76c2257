"""Every declared policy family is served, its kinds are accepted where its clusters are
created, and docs/architecture.md's "Adding a policy family" names it; every engine refusal
has a code of the one table of codes."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest
from pydantic import TypeAdapter, ValidationError

from app.errors import CODES, HeadroomError
from app.families.registry import REGISTRY
from app.main import create_app
from app.policies.errors import PolicyError
from tests.conftest import make_settings

ROOT = Path(__file__).resolve().parents[2]
FAMILIES = REGISTRY.families


def _section(title: str) -> str:
    doc = (ROOT / "docs" / "architecture.md").read_text()
    start = doc.index(f"## {title}")
    end = doc.find("\n## ", start + 1)
    return doc[start:end if end > 0 else None]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    app = create_app(make_settings(f"sqlite:///{tmp_path_factory.mktemp('f')}/h.db"),
                     configure_logs=False)
    # Routers are mounted as included routers; the document lists what the app serves.
    return {(path, method.upper()) for path, ops in app.openapi()["paths"].items()
            for method in ops}


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.name)
def test_every_route_a_family_declares_is_mounted(family, served):
    for router in family.routers:
        for route in router.routes:
            for method in route.methods:
                assert (route.path, method) in served, (family.name, route.path)


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.name)
def test_schemas_accept_exactly_the_engine_kinds(family):
    models = {kind for m in family.policy_models
              for kind in typing.get_args(m.model_fields["kind"].annotation)}
    assert models == set(family.kinds)
    assert set(family.kinds) <= set(REGISTRY.kinds(family.collection))


@pytest.mark.parametrize("family", REGISTRY.in_collection("clusters"), ids=lambda f: f.name)
def test_every_kind_has_one_state_model_in_its_family(family):
    """GET .../state's document is told apart by policy: each kind in exactly one model."""
    kinds = [kind for m in family.state_models
             for kind in typing.get_args(m.model_fields["policy"].annotation)]
    assert sorted(kinds) == sorted(family.kinds)


def test_the_create_body_sends_each_kind_to_its_family_and_refuses_others():
    body = TypeAdapter(REGISTRY.create_body("clusters"))
    with pytest.raises(ValidationError) as exc:
        body.validate_python({"name": "x", "policy": {"kind": "no_such_kind"}})
    assert any("policy" in e["loc"] for e in exc.value.errors())
    for family in REGISTRY.in_collection("clusters"):
        for kind in family.kinds:
            with pytest.raises(ValidationError) as exc:  # an incomplete body of that kind
                body.validate_python({"policy": {"kind": kind}})
            assert all(family.create_model.__name__ in str(e["loc"])
                       for e in exc.value.errors()), kind


def test_adding_a_family_section_names_every_declaration_and_true_files():
    section = _section("Adding a policy family")
    for family in FAMILIES:
        assert f"app/families/{family.name}.py" in section, family.name
    for path in re.findall(r"`(app/[\w/]+\.py)`", section):
        assert (ROOT / path).exists(), path


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_every_engine_refusal_has_a_code_and_a_status():
    import app.families.registry  # noqa: F401 - every family's engine and errors loaded

    for cls in _subclasses(PolicyError):
        assert cls.code != HeadroomError.code, cls
        assert cls.status == CODES[cls.code].status and cls.title in CODES[cls.code].titles
