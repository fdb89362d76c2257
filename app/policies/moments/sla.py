"""The threshold a declared SLA τ implies, and the closed loop that keeps τ on live traffic.

Two halves, both pure (no clock, no randomness), so that a cluster rebuilt from its log makes
the same decisions:

* ``table_threshold``: the threshold for (policy, capacity, τ) read off calibrations of the
  §2.1 model shipped in ``CALIBRATED`` (``headroom calibrate moment`` at the capacities there;
  the commands and their seeds are in docs/moments.md). A calibration of the full model costs
  minutes to hours, so the service never runs one in a request: it stores what this returns in
  the declaration at creation, and ``headroom calibrate moment`` gives a cluster-specific value
  that can be declared instead (it carries its own derivation).
* ``SlaLoop``: the controller that moves the threshold while the cluster runs (beyond the
  paper, which calibrates offline only). It watches every scale-out the engine grants or
  denies and tightens or loosens the threshold on a Wilson interval of the realized failure
  rate, within the bounds the derivation allows.

Units. ``threshold`` and ``first_moment`` take t in cores, ``second_moment`` the Cantelli
bound ρ. What transfers between capacities is t / c (the share of the cores the rule may
commit) and ρ itself, so the table holds those. Neither is scale-free, and for the moment
rules neither is monotone in c (their values fall from 500 to 2,000 cores and then rise),
which is why a capacity between two anchors gets the tighter anchor's value and may
loosen only up to the looser one's: safe as long as the calibrated value has no dip between
two anchors.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from dataclasses import asdict, dataclass
from typing import Any

from app.policies.moments.formulas import DEFAULT_STEPS
from app.policies.moments.learning import CAUTIOUS_GROWTH
from app.policies.moments.options import TIGHTEST
from app.policies.moments.priors import Prior

# Calibrations at τ = 1e-4 on the §2.1 model (Table 1 priors, arrival rate c / 20,000 per
# hour, 3 years, 5 horizons × 600 steps), per policy: (capacity, t / c or ρ, seeded runs,
# confidence that the SLA holds, pooled failure rate). The 20,000-core rows are the paper's
# Table 2 thresholds (500 runs with importance sampling there), which issue #14 re-checked
# from outside at 19 runs: the second moment's ρ = 0.112 sits at the SLA's edge there. Their
# runs, confidence and rate are this project's lives at those thresholds, which were not
# chosen on them (docs/reproduction/moment.md, seeds 0+; stated since the eighteenth
# session, when they were None): zeroth 0 of 41, first moment 1.8e-5 over 32 (two lives),
# second moment 4.6e-5 over 32 (three lives, confidence 0.94).
TABLE_SLA = 1e-4
# Every 500- and 2,000-core row was recalibrated in the fourth session on 96 (500 cores), 48
# and 32 (2,000) runs, seeds 1000+: on 3-16 runs every one had been set too loose (failures
# come from a few runs with one huge deployment, which few runs rarely contain). The 5,000-
# and 10,000-core rows (fifth and sixth sessions) exist because between anchors the tighter
# one rules. docs/moments.md has the searches and, for the 500-, 5,000- and 10,000-core
# rows, a check on 96 fresh seeds (which two 5,000-core first-moment candidates failed in
# turn: the row there is the third, checked on yet other fresh seeds). The 2,000-core
# rows were checked on fresh seeds in the ninth session; all three held.
# The second moment's 10,000-core row (seventh session) passed its check: 1.8e-5 over 96
# lives, 64.9% utilisation against the zeroth moment's 54.1% on the same seeds; the first
# moment's (eighth) too: 2.4e-5, 57.4% (and failed a second set in the seventeenth session,
# as the first moment's 2,000- and 5,000-core rows did their largest: see those rows).
CALIBRATED: dict[str, tuple[tuple[int, float, int, float | None, float | None], ...]] = {
    "threshold": ((500, 2.9296875 / 500, 96, 0.9953, 0.0),  # was 5.86 / 500 on 8 runs
                  (2000, 99.609375 / 2000, 48, 0.9999, 9.8e-6),  # was 492 / 2000 on 8 runs
                  # Tenth session, 96 runs between 2,000's and 5,000's t / c; held on 96 fresh
                  # seeds (0 / 278,218). The first moment's 96-run answer at 3,000 cores
                  # (t = 262.4) failed them (4.7e-4): it has no row here.
                  (3000, 196.5179443359375 / 3000, 96, 0.9805, 3.1e-5),
                  # New in the fifth session, where 2,000's 0.05 of the capacity stood in up
                  # to 19,999 cores; 48 runs each, then 96 fresh seeds (docs/moments.md).
                  # At 5,000 cores eight importance-sampled sets of 96 fresh lives followed
                  # (eleventh and twelfth sessions; one, 11000+, broke τ: 2.8e-4); the runs,
                  # confidence and rate here are the last three pooled (12000+ to 14000+).
                  (5000, 351.5625 / 5000, 288, 0.989, 3.9e-5),
                  (10000, 4365.234375 / 10000, 48, 1.0, 1.26e-5),
                  (20000, 8864 / 20000, 41, 1.0, 0.0)),
    # 500: was 93.75 on 6 runs, then 58.59 on 96 (seeds 1000+), which held 96 fresh lives and
    # two sets of 48, then failed a third (sixteenth session, 28000+: 1.7e-3, two lives that
    # one deployment grew to fill) and met τ on 384 search lives at the point estimate only
    # (1000-1383: 5.8e-5, one life, confidence 0.75): ~1.8e-4 over every plain life it saw.
    # Searched again on those 384 runs: 32.2 and 30.6 failed (5.0e-4, 3.3e-4), 29.75 held
    # (6.8%), then held two fresh sets of 384 (31000+, 32000+: 0 of 292,730 and 313,394, 6.9%
    # and 6.8% against the zeroth moment's 3-4%; the runs here are those two checks).
    "first_moment": ((500, 29.754638671875 / 500, 768, 1.0, 0.0),
                     # Ninth session, 96 runs (seeds 1000-1095) between 93.75 (the 48-run
                     # anchor) and 5,000's t / c: 106.9 failed (1.6e-4); 102.5 held, then on
                     # 96 fresh seeds too (0 / 171,928), at 0.65x the zeroth's utilisation.
                     # Seventeenth session, 384 plain fresh lives (38000+): 78 of 760,620 =
                     # 1.03e-4, six lives, confidence 0.40: over τ by a hair. Searched again on
                     # 384 runs (seeds 1000-1383) in [76.9, 102.5]: 89.7 met τ (8.0e-5), 99.3
                     # failed (1.4e-4), 96.1 met it (4.3e-5, confidence 0.98) and then failed
                     # 384 fresh lives (41000+: 2.6e-4, three lives). Between 89.7 and 102.5 the
                     # rate is whichever runaway lives a set holds, not a function of t, so
                     # 102.5 stays; the runs, confidence and rate here are its two fresh checks
                     # pooled (480 lives: 8.4e-5, confidence 0.69), τ at the point estimate.
                     (2000, 102.5390625 / 2000, 480, 0.69, 8.4e-5),
                     # The 48-run search's answer, t = 1,172, failed τ on 96 fresh seeds
                     # (3000-3095: 1.8e-4, 3 lives); its next passing candidate down, 937.5,
                     # held on 96 other fresh seeds (5000-5095: 3.6e-5; eighth session), then
                     # failed a third fresh set, 96 importance-sampled lives (seeds 6000+:
                     # 2.2e-4, confidence 0.36; eleventh session). The next candidate down,
                     # 703.1, held on a fourth and a fifth (seeds 7000+ and 8000+, both
                     # importance-sampled: 5.0e-5 and 8.4e-5, 1.28x and 1.39x the zeroth's
                     # utilisation on the same lives; pooled 6.6e-5, confidence 0.845), then
                     # failed a sixth, 192 plain lives (seventeenth session, 39000+: 169 of
                     # 1,061,816 = 1.6e-4, two lives at 57% and 87% utilisation). The three
                     # sets' rates straddle τ (their mean is 1.0e-4), and the importance-
                     # sampled ones cannot be pooled with the plain one life by life, so no
                     # confidence is stated (None): the derivation of every first-moment
                     # cluster from 2,001 to 9,999 cores says so. The runs and rate here are
                     # the three sets' (docs/moments.md).
                     (5000, 703.125 / 5000, 384, None, 1.0e-4),
                     # Eighth session, 64 runs searched between 2,000's and 20,000's t / c:
                     # 6,280 failed (1.55e-4); 5,450 held on 96 fresh seeds (2.4e-5). Then it
                     # failed 96 more (seventeenth session, 40000+: 435 of 2,744,830 = 1.6e-4,
                     # five lives at 81-89% utilisation). The runs, confidence and rate here are
                     # the two fresh sets pooled (500 of 5,427,048 = 9.2e-5; the bootstrap
                     # splits 3000+'s 65 failures over its four lives by their rates, since
                     # only those were kept): τ at the point estimate only.
                     (10000, 5450 / 10000, 192, 0.61, 9.2e-5),
                     (20000, 14223 / 20000, 32, 1.0, 1.8e-5)),
    "second_moment": ((500, 0.23713737056616557, 96, 0.9999, 0.0),  # was 0.562 on 6 runs
                      # was 0.1 on 3 runs, then 0.075 on 16 (seeds 1000-1015); on 32 (seeds
                      # 1000-1031) 0.075 failed (1.9e-4) and 0.0562 had no failure.
                      (2000, 0.05623413251903493, 32, 1.0, 0.0),
                      # Fifth-sixth sessions, 32 runs: 0.0649 met τ only at the point estimate
                      # (5.2e-5, confidence 0.79); 0.0562, no failure, became the anchor, held
                      # 96 fresh seeds (3000-3095: 3.6e-5), then failed 96 importance-sampled
                      # fresh lives (seeds 7000+: 1.6e-4; eleventh session). The next candidate
                      # down, 0.0422, held one set (8000+: 5.7e-5) and failed another (9000+:
                      # 2.8e-4). The search's 0.0316 held two (10000+, 11000+: 3.0e-5 and
                      # 5.0e-5, 2.9-3.2x the zeroth's utilisation on the same lives); the
                      # figures here are those two pooled. It is tighter than 2,000's 0.0562,
                      # so 2,001-9,999 cores get it. Fourteenth session: a third importance-
                      # sampled set held (17000+: 6.3e-5, confidence 0.89, 46.1%) and 48 plain
                      # fresh lives did not (16000+: 2.1e-4, one life); fifteenth session, 48
                      # more plain lives did not either (20000+: 2.9e-4, one life), so pooled
                      # over plain lives it fails (2.6e-4; a cautious start, the default at
                      # 5,000 since then, held both: CAUTIOUS_BY_DEFAULT).
                      # Sixteenth-seventeenth sessions, searched again below it on 96 runs
                      # (seeds 1000-1095): 0.0274 failed (2.2e-4), 0.0255 met τ (3.5e-6, one
                      # life, 39.6%), 0.0237 had no failure. 0.0255 held 96 plain fresh lives
                      # (35000+: 1.7e-5, three lives) and 96 more without a cautious start
                      # (36000+, the service's learner and loop: 9.0e-5, one life, confidence
                      # 0.74), where the default's cautious start at it had no failure at
                      # either growth (× 1: 40.8%, × 2: 36.6%). The runs, confidence and rate
                      # here are the two fresh checks pooled (216 of 3,971,545; the bootstrap
                      # approximates 35000+'s three lives as equal-sized, any split gives
                      # 0.82-0.83). With it, 3,000-3,267 cores lose the default cautious start
                      # (the empty-cluster probe refuses it below 3,268 at this ρ): measured at
                      # 3,000 without one, docs/moments.md.
                      (5000, 0.02548296747979346, 192, 0.83, 5.4e-5),
                      # Seventh session, 32 runs searched between 5,000's and 20,000's ρ:
                      # 0.0794 failed (1.05e-4), 0.0668 and 0.0728 had no failure. 0.0728
                      # then met τ on three fresh sets: 96 plain lives (3000+: 1.8e-5, four
                      # lives), and 48 + 48 with the service's learner and loop (33000+ and
                      # 43000+, sixteenth and eighteenth sessions: 6.4e-5 and 7.8e-5, two lives
                      # each, confidence 0.78 and 0.71 alone). The runs, confidence and rate
                      # here are the three pooled (311 of 6,901,022; the bootstrap splits the
                      # first two sets' failures over their failing lives, as only totals were
                      # kept: 0.97-0.99 over the splits tried).
                      (10000, 0.0728126367738865, 192, 0.97, 4.5e-5),
                      (20000, 0.112, 32, 0.94, 4.6e-5),
                      # Twenty-sixth session: until then 50,000 and 100,000 cores ran on
                      # 20,000's ρ, which met τ at 50,000 only at the point estimate over two
                      # fresh sets of the service (8.4e-5 over 48 lives, confidence 0.69).
                      # 32 runs (seeds 1000-1031) in [10,000's ρ, 20,000's]: 0.0903 met τ
                      # (1.6e-7, one failure, 80.3%), 0.1006 met it (3.4e-5, five lives,
                      # confidence 0.9975, 81.6%). 0.1006, the largest candidate with
                      # confidence ≥ 0.95 on the search's lives, then failed fresh lives of
                      # the service at once (60000+: 616 failures in 60002, more than τ allows
                      # a whole set of 24; stopped after 5). The next candidate down, 0.0903,
                      # is the anchor. Its fresh check (61000+, 24 lives of the service) met τ
                      # at the point estimate (6.1e-5, confidence 0.74, one life of 224
                      # failures); a second fresh set, run because the first was inconclusive
                      # (twenty-seventh session, 63000+: 6.9e-6, two lives failing), brings the
                      # two pooled, the runs, confidence and rate here, to 289 of 8,969,123
                      # (docs/moments.md).
                      (50000, 0.09030512343535824, 48, 0.99, 3.2e-5),
                      # 20,000's ρ, kept at 100,000 where it held on 24 fresh lives of the
                      # service (55000+: 2.6e-5, confidence 1.00, 84.7%; twenty-second
                      # session) and on 24 more under λ × 2 (58000+: 5.5e-6). It was not
                      # chosen on them; without this row 100,000 would take 50,000's.
                      (100000, 0.112, 24, 1.0, 2.6e-5)),
}
# The same calibrations for an engine that counts each arrival's size as one observation of
# its σ (policy.arrival_size_evidence; tenth session, docs/moments.md): at one t or ρ it
# admits more small newcomers and fewer big ones than the plain engine, so its values are
# its own. Searched on seeds 1000-1095 (96 runs) and checked on fresh seeds. Where none is
# at or below a capacity, table_threshold refuses: a declaration must bring its threshold.
# 2,000's t / c was checked at 3,000 and 5,000 cores too (no failure in 96 fresh lives each).
CALIBRATED_SIZED: dict[str, tuple[tuple[int, float, int, float | None, float | None], ...]] = {
    # 500: searched twice (58.6 to 300, then 2.9 to 58.6): everything from 21.2 up failed
    # on one life (seed 1010); 20.3 held, and on 96 fresh seeds (0 / 91,856).
    # 2,000: the search's largest candidate without a failure, 475.6, failed on fresh seeds
    # (1.4e-4, one life); the next one down, 351.3, had none on the search's seeds. The runs,
    # confidence and rate here are its two fresh checks pooled (seeds 3000-3095 and 5000-5095:
    # 2 of 192 lives fail, 40 / 853,981), not the search's.
    "first_moment": ((500, 20.32470703125 / 500, 96, 1.0, 0.0),
                     (2000, 351.26953125 / 2000, 192, 0.925, 4.7e-5)),
    # None. At 2,000 cores the search's largest candidate without a failure, ρ = 0.0274,
    # failed on fresh seeds (1.07e-4), and so did ρ = 0.0178 below it (1.44e-4, the same
    # life); at 500 every ρ down to 0.01 failed on the search's seeds. One small arrival with
    # a wild process, read as tame, decides it (docs/moments.md).
    "second_moment": (),
}
# The same calibrations for deployments that grow k times as fast as Table 1 says (λ's prior
# mean × k, the engine told so: `headroom calibrate moment --population-prior` with λ's rate
# ÷ k; twelfth session, docs/moments.md "A threshold per learnt prior"). A cluster that learns
# its population prior (learning.py) switches to the step of its learnt λ factor (GrowthLadder):
# a t or ρ calibrated for one prior does not carry over to another.
CALIBRATED_GROWTH: dict[str, dict[float, tuple[tuple[int, float, int, float | None, float | None], ...]]] = {
    "threshold": {},
    # 2,000 cores, λ × 2: 48 runs between 2,000's Table 1 t and 1,500: 801, 452, 277, 234 and
    # 212 failed (5.5e-3 to 1.8e-3), 189.9 held (5.8e-6, 18.7%), then failed 96 fresh lives
    # (3000+: 1.5e-3). Searched again below it on 96 runs: 175.8 (2.6e-6), which failed 96
    # fresh lives too (5000+: 2.0e-3, two lives at 88% and 96% utilisation, where one or two
    # deployments outgrew the cluster). The search's next passing candidate with a margin,
    # 144.9 (173.0 and 167.4, within 5% of 175.8, were not checked), held 96 fresh lives
    # (6000+: 0 of 360,953, 10.1%) and 96 more (12000+: 0 of 352,793, 9.4%; thirteenth
    # session; the runs here are those two checks), then failed a third set of 48 (16000+,
    # fourteenth session: 309 of 165,158, all in one life whose first arrival grew to fill the
    # cluster, as it did under Table 1's t; kept, as no lower t was checked). Table 1's t there
    # is 102.5.
    # 500 cores, λ × 2: 96 runs between 500's Table 1 t and 500, then below it: every t that
    # admits anything failed (58.6: 4.9e-3 ... 36.1: 1.0e-2); 35.2 and below admit nothing
    # (no scale-out was requested, so no confidence is stated).
    # That is the calibrated answer there: a first-moment cluster of 500 cores whose
    # deployments grow twice as fast as Table 1 says cannot hold 1e-4 by admitting.
    # Its value is Table 1's at 500 since that anchor moved down to 29.75 (sixteenth session):
    # every t up to 35.2 admits nothing with a × 2 belief, so the step admits nothing as
    # before, and its ratio to the table stays 1 instead of rising to 35.2 / 29.75 (which
    # would loosen the steps between 500 and 2,000 past anything measured).
    # 5,000 cores, λ × 2 (sixteenth session): no step. 48 runs (seeds 1000-1047) in [351.6,
    # 1,054.7]: 703.1, 615.2 and 571.3 failed (4.1e-4 to 6.9e-4), 549.3 and 527.3 held; 96
    # runs in [351.6, 571.3]: 516.4, 488.9, 475.2, 468.3 failed (1.5e-4 to 6.6e-4), 461.4 held
    # (14.6%), then held one fresh set (22000+: 5.5e-5, three lives, confidence 0.88) and
    # failed the next (23000+: 2.2e-4, 23049 at 20% utilisation); 406.5 failed the search's
    # own lives (1.4e-4) and two fresh sets (9.6e-4, 1.0e-3); 351.6, the zeroth moment's t
    # there, failed the search's lives (seed 1000: 3.3% of its scale-outs). The failures
    # are single runaway lives that no t in that range rules out (docs/moments.md).
    "first_moment": {2.0: ((500, 29.754638671875 / 500, 96, None, 0.0),
                           (2000, 144.9102783203125 / 2000, 192, 1.0, 0.0))},
    # 2,000 cores, λ × 2: 48 runs (seeds 1000-1047) between 2,000's Table 1 ρ and 1: 0.237
    # failed (3.4e-4), 0.115, 0.165 and 0.198 had no failure (25.6%, 36.8%, 42.7%), 0.217
    # failed (3.0e-4). 0.198 then failed 96 fresh lives (seeds 3000+: 1.2e-4, 2 lives); the
    # next candidate down, 0.165, held 96 others (5000+: 0 of 1.7 million, 36.2%) and 96 more
    # (6000+: 0 of 1.7 million, 36.6%; the runs here are those two checks). Table 1's
    # ρ there is 0.0562: the calibrated ρ rises with the growth.
    # No 500-core step: there, with λ × 2, every ρ up to 0.557 admits nothing (96 runs) and
    # 0.583 and 0.698 failed (4.9e-3, 3.2e-3), and Table 1's ρ = 0.237 with a learnt × 2
    # prior admits nothing either: a step would change no decision.
    # 2,000 cores, λ × 1.5 (the learnt factor of most lives under a true × 2 was 1.5-2): 96
    # runs in [0.0562, 0.165]: 0.0965, 0.126, 0.145 and 0.155 held (31.8-44.1%; 3.8e-5 and
    # 4.3e-5 at the last two), 0.160 failed (6.9e-4). 0.155 held 96 fresh lives (3000+: 0 of
    # 1.5 million, 45.3%) and failed 96 others (5000+: 3.1e-4, 5 lives); 0.145 failed a third
    # set (8000+: 1.1e-4, 1 life); 0.126 held a fourth and a fifth (9000+ and 10000+: 0 of
    # 1.6 million each, 38.1% and 37.9%; the runs here are those two checks).
    # 5,000 cores, λ × 2 (thirteenth session): 48 runs (seeds 1000-1047) in [5,000's Table 1
    # ρ, 0.3]: 0.0974, 0.0735 and 0.0639 failed (4.1e-4, 3.0e-4, 2.4e-4), 0.0595 met τ at the
    # point estimate only (7.0e-5, confidence 0.73), 0.0555 had no failure (44.1%). 0.0555 then
    # failed 96 fresh lives (3000+: 1.4e-4, two lives at 85-90% utilisation); the search's next
    # candidate down, 0.0419, held 96 others (5000+: 0 of 4.2 million, 39.3%) and 96 more
    # (6000+: 0 of 4.2 million, 39.2%; the runs here are those two checks), and a third set of
    # 48 (16000+, fourteenth session: 0 of 2.0 million, 39.1%). Table 1's ρ there was
    # 0.0316 then (ratio 1.32); since it moved to 0.0255 (seventeenth session) the ratio is
    # 1.64 (2.94 at 2,000), and 2,001-4,999 cores get the smaller: 0.0255 × 1.64 = 0.0419,
    # the same step as before. No × 1.5 step at 5,000 was calibrated (it could lie only
    # between 0.0255 and 0.0419).
    # 10,000 cores, λ × 2 (sixteenth session): 32 runs (seeds 1000-1031) in [0.03, 0.12]:
    # 0.0849 and 0.0813 failed (2.9e-4, 3.0e-4), 0.0778 met τ at the point estimate only
    # (6.4e-5, confidence 0.74), 0.0714 and 0.06 had no failure (57.4%, 55.9%). 0.0714 held
    # one fresh set of 48 (24000+: 2.4e-5) and failed the next (25000+: 2.3e-4, four lives);
    # 0.06 held two more (26000+ and 27000+: 12 of 2.7 million and 7 of 2.3 million, 57.7%
    # each), then failed a third (33000+, the closed-loop comparison's oracle_ladder cell:
    # 2.1e-4, three lives, 519 of 629 failures in one at 92% utilisation); the runs,
    # confidence and rate here are the three pooled, τ at the point estimate only. Table 1's
    # ρ there is 0.0728: the step is tighter (× 0.82), so between 5,000 and 10,000 cores it
    # is the table's 0.0255 × 0.82, and every effect it has is towards fewer admissions.
    # Eighteenth session: ρ = 0.05 (the next round value down, picked before it ran) met τ on
    # the set 0.06 had failed (33000+: 77 of 3,028,747 = 2.5e-5, two lives, 56.0% against
    # 59.1%) and on 96 fresh lives (42000+: 317 of 4,909,493 = 6.5e-5, three lives, 273 of
    # them in 42046 at 81%; confidence 0.73, 55.3%). The runs, confidence and rate here are
    # the two sets pooled (33000+ was chosen because it was hard, not because 0.05 held it):
    # τ at the point estimate, confidence 0.90 where 0.06 had 0.70. The step is Table 1's
    # × 0.69 now, so 5,001-9,999 cores get 0.0255 × 0.69 = 0.0175.
    # Nineteenth session: the service at this step failed a third fresh set (46000+: 5.0e-4,
    # 2.4e-4 over its 144 lives), the cautious start too (6.3e-4), and the oracle at ρ = 0.035
    # (1.2e-4). Each failing life examined is one tail deployment (λ posterior mean ~20,
    # admitted with 20-63 cores) that fills the cluster; a tighter ρ leaves room for the same
    # arrival, so no step refuses it (docs/moments.md, "One deployment fills the cluster").
    # Kept: it is still tighter than the table. Twentieth session: following the scale-outs'
    # "migrate" answers held τ here on three sets of 48 (docs/moments.md, "The service answers
    # migrate"); the service alone, over five sets (240 lives), 1.9e-4.
    "second_moment": {1.5: ((2000, 0.12634629176544687, 192, 1.0, 0.0),),
                      2.0: ((2000, 0.16548170999431816, 192, 1.0, 0.0),
                            (5000, 0.04189287412657839, 192, 1.0, 0.0),
                            (10000, 0.05, 144, 0.90, 5.0e-5))},
}
# Where a new declaration gets a cautious start (learning.py, ``CAUTIOUS_GROWTH``) unless it
# says otherwise (policy.cautious_growth): per kind, the capacities (first, last) where it
# was measured to hold τ = 1e-4 on fresh lives both at the right prior and under λ × 2, and
# the declared default did not (fifteenth session, docs/moments.md "The cautious start's
# floor"; 48 lives per cell, closed_loop --controllers service,service_cautious):
#   second moment, 5,000 cores, seeds 16000+ and 20000+ (96 lives): right prior 7.2e-5 against
#   the default's 2.6e-4, × 2: 9.2e-7 against 1.4e-4, at 0.5-2.7 points of utilisation;
#   3,000 cores, seeds 20000+: right prior 0 against 0, × 2: 0 against 2.2e-4 (one life), at
#   6 points (31% → 25% at the right prior, 15% → 9% under × 2): the guarantee first.
# Those were at 5,000's old ρ = 0.0316. At its new 0.0255 (seventeenth session, 96 fresh lives
# per cell): 5,000 cores with the cautious start had no failure (× 1: 40.8%, × 2: 36.6%; the
# service without it 9.0e-5 and 5.3e-5, one and two lives); below 3,268 cores the probe
# refuses the start at that ρ, so 3,000-3,267 fall back to none, and 3,000 cores without it
# had no failure either (seeds 37000+: × 1 26.9%, × 2 8.5%).
# Only where the threshold comes from this table with Table 1's priors (what was measured);
# where the second moment believing λ × 2 would admit nothing, the default is off. The
# first moment keeps it opt-in: at 5,000 it did worse with it (1.0e-3 on 16000+; no × 2 step
# can be calibrated there), and under × 2 it failed a third fresh set at 500 cores after
# holding two there and at 2,000, and its first at 1,000 (28000+: 6.4e-3 and 2.3e-3, one
# life each). At 10,000 cores (nineteenth session, 46000+, × 2) the second moment's cautious
# start failed as the default did (6.3e-4 against 5.0e-4): not extended there.
CAUTIOUS_BY_DEFAULT: dict[str, tuple[int, int]] = {"second_moment": (3000, 5000)}


def _as_measured(learn_prior: bool, threshold_given: bool, population_prior_given: bool,
                 arrival_size_evidence: bool) -> bool:
    """A declaration like the simulated ones the per-capacity defaults were measured on: the
    learner on, the table's threshold, Table 1's priors, arrivals not counted as evidence."""
    return learn_prior and not (threshold_given or population_prior_given or arrival_size_evidence)


def default_cautious_growth(kind: str, capacity: int, learn_prior: bool, threshold_given: bool,
                            population_prior_given: bool, arrival_size_evidence: bool) -> float:
    """The cautious_growth a declaration that names none gets: CAUTIOUS_GROWTH where
    CAUTIOUS_BY_DEFAULT measured it, else 1 (off)."""
    span = CAUTIOUS_BY_DEFAULT.get(kind)
    if (span is None or not _as_measured(learn_prior, threshold_given, population_prior_given,
                                         arrival_size_evidence)
            or not span[0] <= capacity <= span[1]):
        return 1.0
    return CAUTIOUS_GROWTH


# The cluster_overflow line (engine._overflow_line) a new declaration gets unless it says
# otherwise (policy.overflow_sd): the scale-outs' "migrate" answer names the deployment with
# the largest expected peak once E + overflow_sd * sd of the cluster's cores reaches capacity.
# OVERFLOW_SD_BY_DEFAULT: per kind, (the smallest capacity, the line) where it was measured
# against E's line on fresh lives with an orchestrator that follows the answers. Only where
# the threshold comes from this table with Table 1's priors (what was measured: the line sits
# a number of standard deviations that the admission rule's ρ sets from where admission
# keeps the cluster, so another threshold moves it); only the second moment has variances.
# Measured (twenty-eighth session, closed_loop --controllers service_migrate_e,service_migrate_sd,
# fresh seeds, and a rule for adopting 1 written down before any result: no more failures and
# no more lives over τ than E's line, at most 1 point of utilisation paired, over both growths
# at 50,000 cores before anything else):
#   50,000 cores, right prior, 65000+ (24 lives each): E 44 failures in one life (over τ),
#     E + sd 0, -0.52 points (se 0.21); λ × 2, 66000+: E 29 in two lives (one over τ), E + sd
#     0, -1.59 (se 0.48); both growths -1.05 (se 0.27): over the 1 point, so not adopted;
#   10,000 × 2, 68000+: 0 and 0, -0.77 (se 0.56); 10,000 × 1, 67000+: 0 and 0, -0.45 (se
#     0.46); 2,000 × 2 (48): 0 and 0, -0.06; 2,000 × 1 and 500 × 2 (48 each): the same lives.
# So it stays opt-in: the earlier line is the one that kept each 50,000-core cluster's own
# rate within τ on these sets, at about a point of utilisation (docs/moments.md, "The overflow
# line"); a declaration that wants that names "overflow_sd": 1. Twenty-ninth session: at 20,000
# cores (72000+, 73000+) E + sd 0 failures against E's 21 and 17, -0.48 / +0.54 points; E + sd/2
# at 50,000 (74000+, 75000+) 0 against E's 69 in three lives, -0.12 points (se 0.14) over both
# growths. Thirtieth session, E + sd/2 against E's line on fresh sets by the same rule (written
# down before the runs, with 0.5 adopted from the smallest capacity where it held at that one
# and every one above): 10,000 (76000+ × 2, 77000+ × 1, 48 each) 0 and 0 failures, -0.33 points
# (se 0.21) over both; 2,000 and 500 (78000+ to 81000+, 48 each) the same lives at both lines;
# 20,000 × 2 (82000+, 32; × 1 not run for time) E 102 failures in three lives (two over τ),
# E + sd/2 0, -0.43 (se 0.22). So 0.5 from 500 cores up; 100,000 was not run at any line.
# Thirty-first session, 20,000 × 1 (83000+, 32, the rule's other growth there): E 36 failures
# in two lives (both over τ), E + sd/2 0, -0.89 (se 0.40); over both growths -0.66 (se 0.23):
# the rule holds at 20,000 on both growths, and the default stands. 100,000 × 1 (84000+, 12, a
# spot check): no failure at either line, -0.42 (se 0.20).
# Stored with each cluster at creation: a cluster declared before keeps the line it has.
OVERFLOW_SD_BY_DEFAULT: dict[str, tuple[int, float]] = {"second_moment": (500, 0.5)}


def default_overflow_sd(kind: str, capacity: int, learn_prior: bool, threshold_given: bool,
                        population_prior_given: bool, arrival_size_evidence: bool) -> float:
    """The overflow_sd a declaration that names none gets: OVERFLOW_SD_BY_DEFAULT's line where
    it was measured, else 0 (E's line, as before the option)."""
    span = OVERFLOW_SD_BY_DEFAULT.get(kind)
    if (span is None or not _as_measured(learn_prior, threshold_given, population_prior_given,
                                         arrival_size_evidence)
            or capacity < span[0]):
        return 0.0
    return span[1]


# Wilson interval of the realized failure rate at 95%.
Z = 1.96
# When the failure rate is above τ with confidence the threshold is multiplied by τ / (the
# interval's lower bound): a proportional answer, the harder the surer and the further above
# τ, kept within [TIGHTEN_MAX, TIGHTEN_MIN] so that one window moves it by 10% to 50%.
TIGHTEN_MIN, TIGHTEN_MAX = 0.9, 0.5
LOOSEN = 1.1  # threshold × 1.1 when it is below τ / FAR with confidence
FAR = 2.0


def _unit_to_threshold(policy: str, value: float, capacity: int) -> float:
    return value if policy == "second_moment" else value * capacity


Anchor = tuple[int, float, int, "float | None", "float | None"]


def _near(anchors: tuple[Anchor, ...], capacity: int, extrapolate: bool) -> list[Anchor]:
    """The anchor at `capacity`, else the two around it, else (if `extrapolate`) the nearest."""
    caps = [a[0] for a in anchors]
    i = bisect_left(caps, capacity)
    if i < len(caps) and caps[i] == capacity:
        return [anchors[i]]
    if 0 < i < len(caps):
        return [anchors[i - 1], anchors[i]]
    return [anchors[min(i, len(caps) - 1)]] if extrapolate and anchors else []


def _anchor_view(a: Anchor) -> dict[str, Any]:
    return {"capacity": a[0], "value": a[1], "runs": a[2], "confidence": a[3], "failure_rate": a[4]}


def _same_prior(a: dict[str, Any] | None, b: dict[str, Any] | None) -> bool:
    """Two population priors ({"lambda", "mu", "sigma"}: [shape, rate]; None is Table 1's)."""
    def norm(p: Any) -> dict[str, list[float]] | None:
        if p is None:
            return Prior().to_dict()
        try:  # a derivation's scale is the client's to write: anything malformed differs
            return {k: [float(x) for x in p[k]] for k in ("lambda", "mu", "sigma")}
        except (KeyError, TypeError, ValueError):
            return None
    na, nb = norm(a), norm(b)
    return na is not None and na == nb


def table_threshold(policy: str, capacity: int, sla: float,
                    arrival_size_evidence: bool = False,
                    population_prior: dict[str, Any] | None = None) -> tuple[float, dict[str, Any]]:
    """(threshold, derivation) for a declaration that gave none.

    Between two calibrated capacities the tighter anchor's value is used and the looser one
    bounds how far the loop may loosen; outside them the nearest anchor is used for both, with
    no confidence (none was measured there), except where arrival_size_evidence has no anchor
    at or below the capacity (ValueError). An
    SLA looser than the table's (τ > 1e-4) gets the table's threshold (conservative); a
    stricter one has no calibration behind it (``confidence`` is null) and relies on the loop.
    A declared population prior other than Table 1's has no table (ValueError): every anchor
    was calibrated on deployments drawn from Table 1, and a t or ρ calibrated for one prior
    does not carry over to another (docs/moments.md measured λ × 2 at 2,000 cores).
    """
    if not _same_prior(population_prior, None):
        raise ValueError(
            "no calibrated threshold for a population_prior other than Table 1's (the table's "
            "calibrations drew every deployment from Table 1): give the threshold of `headroom "
            "calibrate moment --population-prior ...` for this capacity and prior")
    # An engine that counts arrivals' sizes as σ evidence admits differently at the same t or
    # ρ, so it has anchors of its own; the zeroth-moment rule has no belief to inform.
    sized = arrival_size_evidence and policy != "threshold"
    anchors = (CALIBRATED_SIZED if sized else CALIBRATED)[policy]
    caps = [a[0] for a in anchors]
    if sized and (not caps or capacity < caps[0]):
        # Counting arrivals' sizes admits small newcomers more freely, and the rare small one
        # that grows wild fills the cluster: no second-moment ρ held τ on fresh seeds, and no
        # first-moment t was searched below 500 cores (docs/moments.md). There the option has
        # no threshold to offer.
        where = f" below {caps[0]} cores" if caps else ""
        raise ValueError(
            f"no calibrated {policy} threshold with arrival_size_evidence{where}: declare the "
            "cluster without it, or give the threshold of `headroom calibrate moment "
            "--arrival-size-evidence` for this capacity")
    near = _near(anchors, capacity, extrapolate=True)
    values = [_unit_to_threshold(policy, a[1], capacity) for a in near]
    threshold, loosest = min(values), max(values)
    # Outside the calibrated capacities the nearest anchor's value stands in, but its runs
    # were lives of another cluster: the second moment's ρ = 0.112 met τ at 20,000 cores with
    # confidence 0.94 and at 50,000 with 0.69 over 48 lives (docs/moments.md), so no
    # confidence carries over.
    outside = not caps[0] <= capacity <= caps[-1]
    confs = [a[3] for a in near]
    derivation = {
        "source": "table",
        "table_sla": TABLE_SLA,
        "anchors": [_anchor_view(a) for a in near],
        "runs": min(a[2] for a in near),
        # Only inside the calibrated capacities, where the SLA is no stricter than the table's
        # and every anchor stated one.
        "confidence": (None if outside or sla < TABLE_SLA or None in confs
                       else min(confs)),  # type: ignore[type-var]
        "bounds": [threshold * TIGHTEST, loosest],
    }
    # Where the table's anchors were calibrated for faster growth too (never with the sized
    # engine, which has none), the derivation carries them: a learning cluster's ladder.
    steps = [] if sized else growth_steps(policy, capacity, threshold)
    if steps and sla >= TABLE_SLA:
        derivation["by_growth"] = steps
    return threshold, derivation


def growth_steps(policy: str, capacity: int, table: float) -> list[dict[str, Any]]:
    """The thresholds CALIBRATED_GROWTH gives this capacity, one per λ factor: at an anchor its
    value; strictly between two, the table's threshold for this capacity (`table`) times the smaller of
    the two anchors' ratios to their Table 1 values; none outside them (a value found at 2,000
    cores says nothing of 20,000). Ratios, not values: the calibrated value may rise with the
    factor at one anchor and fall at the next (the first moment: ×1.41 at 2,000 cores, ×0.6
    at 500), and the smaller ratio keeps a step between them from loosening more than both."""
    base = {a[0]: a[1] for a in CALIBRATED[policy]}
    out = []
    for factor, anchors in sorted(CALIBRATED_GROWTH[policy].items()):
        near = _near(anchors, capacity, extrapolate=False)
        if not near:
            continue
        value = (_unit_to_threshold(policy, near[0][1], capacity) if len(near) == 1
                 else table * min(a[1] / base[a[0]] for a in near))
        out.append({"lambda_factor": factor, "threshold": value,
                    "anchors": [{**_anchor_view(a), "ratio_to_table": a[1] / base[a[0]]}
                                for a in near]})
    return out


def declared_threshold(kind: str, capacity: int, sla: float, threshold: float | None,
                       derivation: dict[str, Any] | None,
                       arrival_size_evidence: bool = False,
                       population_prior: dict[str, Any] | None = None) -> tuple[float, dict[str, Any]]:
    """The (threshold, derivation) a declaration stands for: the table's when it gave no
    threshold, else its own (an expert override, or a calibration's output) checked against
    its derivation. ValueError names what is inconsistent."""
    if threshold is None:
        if derivation is not None:
            raise ValueError("policy.derivation needs the policy.threshold it derived")
        return table_threshold(kind, capacity, sla, arrival_size_evidence, population_prior)
    if derivation is None:
        derivation = {"source": "declared", "bounds": [threshold * TIGHTEST, threshold]}
    lo, hi = derivation["bounds"]
    if not lo <= threshold <= hi:
        raise ValueError(f"policy.threshold {threshold:g} is outside policy.derivation.bounds "
                         f"[{lo:g}, {hi:g}]")
    if derivation.get("sla") is not None and derivation["sla"] != sla:
        raise ValueError(f"policy.derivation was calibrated for sla {derivation['sla']:g}, "
                         f"the cluster declares {sla:g}")
    scale = derivation.get("scale") or {}
    if scale.get("capacity", capacity) != capacity:
        raise ValueError(f"policy.derivation was calibrated for {scale['capacity']} cores, "
                         f"the cluster declares {capacity}")
    # A derivation that states its simulated scale was calibrated with or without counting
    # arrivals' sizes (without, if it says nothing: calibrations from before the option).
    if scale and bool(scale.get("arrival_size_evidence", False)) != arrival_size_evidence:
        said = "with" if scale.get("arrival_size_evidence") else "without"
        raise ValueError(f"policy.derivation was calibrated {said} arrival_size_evidence; the "
                         "cluster declares the other (the same t or ρ admits differently)")
    # Likewise the population its deployments were drawn from (Table 1's, if it says nothing).
    if scale and not _same_prior(scale.get("population_prior"), population_prior):
        raise ValueError("policy.derivation was calibrated for another population prior than "
                         "the cluster declares (policy.population_prior; none is Table 1's): "
                         "a t or ρ calibrated for one prior does not carry over to another")
    if scale.get("steps", DEFAULT_STEPS) != DEFAULT_STEPS:
        raise ValueError(f"policy.derivation was calibrated on {scale['steps']} steps per "
                         f"horizon; the service decides on {DEFAULT_STEPS}, where t and ρ mean "
                         "something else")
    return threshold, derivation


@dataclass
class GrowthLadder:
    """The threshold of each calibrated λ factor, for a cluster that learns its prior.

    ``steps``: (λ factor, threshold) pairs, factor 1 the declared threshold, factors rising.
    When the learner adopts a prior whose λ mean is f > 1 times the declared one, the step in
    use becomes the largest factor k ≤ f; a step is left downwards only once f < k /
    HYSTERESIS, so a learnt factor that wanders around k does not flip the threshold every
    day. Between two steps the tighter of the two rules (as between two capacities of the
    table), above the last its own: where the calibrated threshold rises with the factor (the
    second and first moment at 2,000 cores) that is the step at or below f, so the engine
    believes at least the growth its threshold was calibrated for; where it falls (the first
    moment at 500 cores) the one above, so f's own calibration can only be looser. No step
    was calibrated for longer-lived cores: when μ's mean moved too, the ladder never loosens
    past the declared threshold.
    """

    steps: list[tuple[float, float]]
    factor: float = 1.0  # the step in use
    threshold: float | None = None  # its threshold (before the closed loop's moves); None: step 1's

    HYSTERESIS = 1.1

    def in_use(self) -> float:
        return self.steps[0][1] if self.threshold is None else self.threshold

    def target(self, lam_factor: float, mu_factor: float) -> tuple[float, float]:
        """(step, threshold) for a learnt prior with these mean factors."""
        if lam_factor == 1.0:  # λ was not learnt (μ may have been): the declared threshold
            return 1.0, self.steps[0][1]
        i = 0
        for j, (k, _) in enumerate(self.steps):
            if lam_factor >= k or (k == self.factor and lam_factor >= k / self.HYSTERESIS):
                i = j
        value = min(v for _, v in self.steps[i:i + 2])
        if mu_factor != 1.0:
            value = min(value, self.steps[0][1])
        return self.steps[i][0], value

    def to_dict(self) -> dict[str, Any]:
        return {"steps": [list(s) for s in self.steps], "factor": self.factor,
                "threshold": self.in_use()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GrowthLadder:
        return cls([(float(k), float(v)) for k, v in data["steps"]], float(data["factor"]),
                   float(data["threshold"]))


def wilson(failures: float, n: float, z: float = Z) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (0, 1) when nothing was observed."""
    if n <= 0:
        return 0.0, 1.0
    p = failures / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # At p = 0 (or 1) centre and half are the same number, computed two ways: their difference
    # rounds to ~1e-22 instead of the exact 0 (which a plot's error bar below 0 refuses).
    lo = 0.0 if failures <= 0 else max(0.0, centre - half)
    hi = 1.0 if failures >= n else min(1.0, centre + half)
    return lo, hi


@dataclass
class SlaLoop:
    """Closed-loop threshold control on the realized scale-out failure rate.

    After every scale-out (granted or denied) the window since the last change holds n
    requests and f denials. Once n ≥ 1/τ (enough requests that a rate of τ would show about
    one failure, and a pause after each change so one overflow episode — denials come in
    bursts — is answered once, not ratcheted on every denial of it):
      * Wilson lower bound L of f/n > τ    → threshold × τ/L, within [0.5, 0.9] (not below
                                             bounds[0]);
      * Wilson upper bound of f/n < τ/FAR  → threshold × LOOSEN  (not above bounds[1]);
    and the window restarts. Decisions depend only on the sequence of scale-out outcomes, so
    replaying the log reproduces every change.
    """

    sla: float
    lo: float
    hi: float
    window_requests: int = 0
    window_denied: int = 0
    tightened: int = 0
    loosened: int = 0

    def observe(self, granted: bool, threshold: float) -> float:
        """The threshold after this scale-out's outcome."""
        self.window_requests += 1
        self.window_denied += 0 if granted else 1
        if self.window_requests < math.ceil(1 / self.sla):
            return threshold
        low, high = wilson(self.window_denied, self.window_requests)
        new = threshold
        if low > self.sla:
            new = max(self.lo, threshold * min(TIGHTEN_MIN, max(TIGHTEN_MAX, self.sla / low)))
            self.tightened += new < threshold
        elif high < self.sla / FAR:
            new = min(self.hi, threshold * LOOSEN)
            self.loosened += new > threshold
        else:
            return threshold
        self.window_requests = self.window_denied = 0  # a verdict was reached: start afresh
        return new

    def describe(self) -> dict[str, Any]:
        low, high = wilson(self.window_denied, self.window_requests)
        return {**self.to_dict(), "window_failure_rate_interval": [low, high]}

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SlaLoop:
        return cls(**data)
