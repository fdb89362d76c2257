from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.held_out_try import HeldOutTry


T = TypeVar("T", bound="HeldOutCheck")


@_attrs_define
class HeldOutCheck:
    """The calibration's check of its search's answer on lives the search never saw: the
    answer, halved until those lives held τ at `target` confidence, is what is declared.

        Attributes:
            lives (int):
            met (bool): false: no threshold tried held τ; nothing is declarable.
            search_threshold (float): The search's own answer.
            seeds (list[int]): [first, last] seed.
            target (float): The confidence the held-out lives had to give.
            tried (list[HeldOutTry]): Each threshold run on the held-out lives.
            importance_sampled (bool | Unset): true: the held-out lives were spread over badness buckets and weighted back
                (App. D), so that the rare lives that fail are in the sample. Default: False.
    """

    lives: int
    met: bool
    search_threshold: float
    seeds: list[int]
    target: float
    tried: list[HeldOutTry]
    importance_sampled: bool | Unset = False

    def to_dict(self) -> dict[str, Any]:
        lives = self.lives

        met = self.met

        search_threshold = self.search_threshold

        seeds = self.seeds

        target = self.target

        tried = []
        for tried_item_data in self.tried:
            tried_item = tried_item_data.to_dict()
            tried.append(tried_item)

        importance_sampled = self.importance_sampled

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "lives": lives,
                "met": met,
                "search_threshold": search_threshold,
                "seeds": seeds,
                "target": target,
                "tried": tried,
            }
        )
        if importance_sampled is not UNSET:
            field_dict["importance_sampled"] = importance_sampled

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.held_out_try import HeldOutTry  # noqa: PLC0415

        d = dict(src_dict)
        lives = d.pop("lives")

        met = d.pop("met")

        search_threshold = d.pop("search_threshold")

        seeds = cast(list[int], d.pop("seeds"))

        target = d.pop("target")

        tried = []
        _tried = d.pop("tried")
        for tried_item_data in _tried:
            tried_item = HeldOutTry.from_dict(tried_item_data)

            tried.append(tried_item)

        importance_sampled = d.pop("importance_sampled", UNSET)

        held_out_check = cls(
            lives=lives,
            met=met,
            search_threshold=search_threshold,
            seeds=seeds,
            target=target,
            tried=tried,
            importance_sampled=importance_sampled,
        )

        return held_out_check
