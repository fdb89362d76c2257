"""DRA paper §2–3: configurations, Definition 2 ordering, MaxReward, K^(g), GPA (Algorithm 1)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.policies.dra.configurations import ConfigurationSpace
from app.policies.dra.gpa import gpa

# Example 1: server R = (5, 4); type 1 R_1 = (2, 1), u_1 = 10; type 2 R_2 = (1, 2), u_2 = 1.
EX1 = ConfigurationSpace([(2, 1), (1, 2)], (5, 4), [10, 1])


def test_example1_feasible_configurations_in_definition2_order():
    assert EX1.feasible() == [(2, 1), (2, 0), (1, 1), (1, 0), (0, 2), (0, 1), (0, 0)]


def test_example1_greedy_configuration_set():
    assert EX1.greedy_set() == [(2, 1), (2, 0), (0, 2), (0, 0)]
    assert EX1.max_reward({0, 1}) == (2, 1)
    assert EX1.max_reward({0}) == (2, 0)
    assert EX1.max_reward({1}) == (0, 2)
    assert EX1.max_reward(set()) == (0, 0)


@pytest.mark.parametrize("y_hat, expected", [
    # Case 1 (Ŷ1 >= 2Ŷ2): k[1] = (2, 1), k[2] = (2, 0)
    ((2001.0, 1000.0), [((2, 1), 1000), ((2, 0), 1)]),
    ((3000.0, 1000.0), [((2, 1), 1000), ((2, 0), 500)]),
    # Case 2 (Ŷ1 < 2Ŷ2): k[1] = (2, 1), k[2] = (0, 2)
    ((1000.0, 1000.0), [((2, 1), 500), ((0, 2), 250)]),
    # At Ŷ1 = 2Ŷ2 both types run out together; the tie goes to the smaller type index
    # (Proposition 1, item 2), so k[2] = (0, 2) with zero servers either way.
    ((2000.0, 1000.0), [((2, 1), 1000), ((0, 2), 0)]),
])
def test_example1_global_greedy_cases_through_gpa(y_hat, expected):
    assert gpa(EX1, y_hat, 10_000) == expected


def test_gpa_hand_worked_with_server_limit_and_nonpositive_remainders():
    # Ŷ = (5.5, 9): k[1]=(2,1): ceil(5.5/2)=3 < 9 -> X̂=3, r=(-0.5, 6); k[2]=(0,2): 3 servers.
    assert gpa(EX1, (5.5, 9.0), 100) == [((2, 1), 3), ((0, 2), 3)]
    # only 4 servers: the second configuration gets what is left
    assert gpa(EX1, (5.5, 9.0), 4) == [((2, 1), 3), ((0, 2), 1)]
    # Ŷ = (9, 2): type 2 bounds k[1] (ceil(2/1)=2 < ceil(9/2)=5) so r = (5, 0);
    # k[2] = (2, 0): ceil(5/2) = 3
    assert gpa(EX1, (9.0, 2.0), 100) == [((2, 1), 2), ((2, 0), 3)]
    # Ŷ = (1, 9): k[1] = 1 server leaves r_1 = -1 for no type-1 config: (0,2) gets 4
    assert gpa(EX1, (1.0, 9.0), 100) == [((2, 1), 1), ((0, 2), 4)]


def test_gpa_ties_remove_the_smallest_type_index_first():
    # ceil(4/2) == ceil(2/1): type 0 is j*, so k[2] is MaxReward({type 1}) = (0, 2)
    assert gpa(EX1, (4.0, 2.0), 100) == [((2, 1), 2), ((0, 2), 0)]


def test_gpa_negative_remainder_gives_zero_servers():
    sp = ConfigurationSpace([(1,), (1,)], (2,), [3, 1])
    # k[1] = (2, 0) only; type 0 runs out; MaxReward({1}) = (0, 2): r_1 = 1 -> 1 server
    assert gpa(sp, (4.0, 1.0), 10) == [((2, 0), 2), ((0, 2), 1)]
    assert gpa(sp, (4.0, 0.0), 10) == [((2, 0), 2), ((0, 2), 0)]


def test_definition2_tie_breaking_in_max_reward():
    # three types with equal reward per slot on a 1-D server of size 2: every full
    # configuration has reward 2; Definition 2 prefers the lexicographically larger one.
    sp = ConfigurationSpace([(1,), (1,), (1,)], (2,), [1, 1, 1])
    assert sp.max_reward({0, 1, 2}) == (2, 0, 0)
    assert sp.max_reward({1, 2}) == (0, 2, 0)
    # (1, 1) and (0, 3)-style ties across different shapes: u = (2, 1) on size 2 with
    # demands (2, 1): (1, 0) -> 2 and (0, 2) -> 2; (1, 0) is larger at index 0.
    sp2 = ConfigurationSpace([(2,), (1,)], (2,), [2, 1])
    assert sp2.max_reward({0, 1}) == (1, 0)
    assert sp2.feasible()[:2] == [(1, 0), (0, 2)]


def test_decimal_rewards_tie_exactly():
    # 0.7 + 0.1 == 0.7999999999999999 < 0.8 in binary floating point, yet the rewards users
    # typed tie: (1, 1, 0) and (0, 0, 1) both earn 0.8 and Definition 2 picks (1, 1, 0).
    sp = ConfigurationSpace([(0, 1), (2, 0), (2, 1)], (2, 1), [0.7, 0.1, 0.8])
    assert sp.order_key((1, 1, 0))[0] == sp.order_key((0, 0, 1))[0]
    assert sp.max_reward({0, 1, 2}) == (1, 1, 0)
    assert sp.max_reward({1, 2}) == (0, 0, 1)


def test_zero_demand_type_is_refused():
    with pytest.raises(ValueError, match="demands no resource"):
        ConfigurationSpace([(0.0, 0.0)], (1.0, 1.0), [1.0])


def test_fractional_demands_fit_with_tolerance():
    sp = ConfigurationSpace([(0.1,)], (1.0,), [1.0])
    assert sp.max_reward({0}) == (10,)


@pytest.mark.parametrize("solver", ["grid", "branch_and_bound"])
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_max_reward_equals_brute_force(solver, data):
    dims = data.draw(st.integers(1, 3))
    J = data.draw(st.integers(1, 4))
    cap = tuple(data.draw(st.integers(2, 8)) for _ in range(dims))
    demands = []
    for _ in range(J):
        # tenths too: the grid's step is then 0.1 and 10 x 0.1 must fit 1.0 (FIT_TOLERANCE)
        d = [data.draw(st.integers(0, c) | st.sampled_from([0.1, 0.3, 0.5, 1.5]))
             for c in cap]
        if not any(d):
            d[0] = 1
        demands.append(tuple(d))
    # zero rewards too: Definition 2's tie-break still fills their slots
    rewards = [data.draw(st.sampled_from([0, 0.1, 0.2, 0.3, 0.5, 1, 2, 3, 1.5]))
               for _ in range(J)]
    sp = ConfigurationSpace(demands, cap, rewards)
    if solver == "branch_and_bound":
        sp._grid = None
    else:
        assert sp._grid is not None
    feasible = sp.feasible()
    assert feasible == sorted(feasible, key=sp.order_key, reverse=True)
    for r in range(J + 1):
        for subset in itertools.combinations(range(J), r):
            allowed = [k for k in feasible if all(k[j] == 0 for j in range(J) if j not in subset)]
            assert sp.max_reward(set(subset)) == max(allowed, key=sp.order_key)


def test_rewards_too_precise_for_exact_weights_are_refused():
    # 5e-324 beside 48 needs a common denominator of ~1e324: the branch and bound's float
    # division overflowed (a 500 at cluster creation). Refused as a ValueError (422) instead.
    with pytest.raises(ValueError, match="rewards"):
        ConfigurationSpace([(1.0,), (2.0,)], (10.0,), [48.0, 5e-324])
    # A reward of 1e-9 beside 1e12 stays exact and solvable.
    space = ConfigurationSpace([(1.0,), (2.0,)], (10.0,), [1e12, 1e-9])
    assert space.max_reward([0, 1]) == (10, 0)
