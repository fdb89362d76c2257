"""DRA — Dynamic Reservation Algorithm (Psychas & Ghaderi, Stochastic Systems 2022).

configurations: feasible configurations, Definition 2 order, MaxReward, K^(g)
gpa:            Algorithm 1 (greedy placement)
cra:            classification and reassignment (§4), Accept/Reject Groups
engine:         ``DRAEngine``, the placement engine (Algorithm 2, §7.2 preemption, §8)
"""

from app.policies.dra.engine import DRAEngine

__all__ = ["DRAEngine"]
