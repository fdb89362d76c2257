"""The convexified Gaussian CCDF F of THOR (paper §III-A).

The capping demand Λ ~ N(μ, σ²) has CCDF P(Λ > x) = Q((x − μ)/σ), Q(u) = ½ erfc(u/√2). Q is
concave below the mean and convex above it, so the paper replaces the concave part by the
tangent at the mean:

    F_E(x) = 1/2 − φ(0) (x − μ)/σ     for x < μ      (G = F'_Λ(μ) = −φ(0)/σ, β = 1/2 − Gμ)
    F_E(x) = Q((x − μ)/σ)             for x ≥ μ,     φ(0) = 1/√(2π)

with derivative F'_E(x) = −φ(max(u, 0))/σ, u = (x − μ)/σ. Properties (tested):
- continuous and C¹ at μ: both pieces are 1/2 with slope −φ(0)/σ there;
- convex: the slope is constant below μ and rises from −φ(0)/σ towards 0 above it;
- an upper bound of the CCDF: below μ a tangent lies above a concave function.
It is not "the" smallest convex majorant (none exists: the constant 1 is another convex
majorant and the minimum of the two is not convex); it is the C¹ one the paper uses. Below
μ − σ√(π/2) it exceeds 1, which is what makes THOR push hard when demand overtakes it.

Everything is computed in standard units u; the engine divides slopes by σ.
"""

from __future__ import annotations

import math
from statistics import NormalDist

PHI0 = 1.0 / math.sqrt(2.0 * math.pi)
_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_STD = NormalDist()


def envelope_std(u: float) -> float:
    """F_E in standard units: the Gaussian CCDF at u ≥ 0, its tangent at 0 below."""
    if u < 0.0:
        return 0.5 - PHI0 * u
    return 0.5 * math.erfc(u * _INV_SQRT2)


def envelope_slope_std(u: float) -> float:
    """dF_E/du: −φ(0) below the mean, −φ(u) above (multiply by 1/σ for dF_E/dx)."""
    if u < 0.0:
        return -PHI0
    return -PHI0 * math.exp(-0.5 * u * u)


def envelope(x: float, mu: float, sigma: float) -> float:
    return envelope_std((x - mu) / sigma)


def envelope_slope(x: float, mu: float, sigma: float) -> float:
    return envelope_slope_std((x - mu) / sigma) / sigma


def gaussian_ccdf_std(u: float) -> float:
    """The CCDF itself, Q(u), that the envelope bounds."""
    return 0.5 * math.erfc(u * _INV_SQRT2)


def upper_quantile(epsilon: float) -> float:
    """z_ε with Q(z_ε) = ε: the reservation μ + z_ε σ violates the cap with probability ε."""
    return _STD.inv_cdf(1.0 - epsilon)


def density_std(u: float) -> float:
    return PHI0 * math.exp(-0.5 * u * u)
