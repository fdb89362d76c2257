"""The toy family's declaration: what an application needs to serve it."""

from __future__ import annotations

from app.families.base import Family
from tests.plugins.toy.adapter import ToyAdapter
from tests.plugins.toy.routes import router
from tests.plugins.toy.schemas import TokensOut, ToyClusterCreate, ToyPolicy, ToyState

TOY = Family(name="toy", adapter=ToyAdapter, collection="clusters",
             policy_models=(ToyPolicy,), create_model=ToyClusterCreate, routers=(router,),
             answers={"take": TokensOut, "give": TokensOut}, state_models=(ToyState,))
