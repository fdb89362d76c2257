// Moment-based admission: utilisation, expected cores per horizon vs capacity, the overflow
// bound vs the threshold, realised scale-out failure rate vs the SLA, the threshold, and the
// learnt growth vs what the threshold was calibrated for.

import { barChart, lineChart } from "./charts.js";
import { fmt, h, kpi, panel, pct, table, td } from "./dom.js";
import { health, pick, sample, state } from "./model.js";
import { clusterPicker } from "./picker.js";

// The learnt prior against what the threshold was calibrated for (/state's growth_calibration,
// null for a cluster that does not learn): the operator's early warning, before failures.
function growthKpi(g) {
  if (!g) return [];
  const lives = g.learnt_mu_factor === 1 ? "" : `, cores live × ${fmt(1 / g.learnt_mu_factor, 2)}`;
  const top = g.calibrated_lambda_factors[g.calibrated_lambda_factors.length - 1];
  return [kpi("learnt growth vs calibration",
    `λ × ${fmt(g.learnt_lambda_factor, 2)}${lives}; calibrated to λ × ${fmt(top, 2)}`,
    "kpi-growth", g.beyond_calibration ? "bad" : "ok")];
}

// The largest share of the cluster one deployment is expected to need (/state's outgrowing,
// null for the zeroth-moment rule): from half, the cluster will refuse its scale-outs
// whatever it admits, and only moving or capping it helps.
function outgrowingKpi(o) {
  if (!o) return [];
  const who = o.deployments.length ? ` (${o.deployments[0].deployment_id}` +
    `${o.count > 1 ? ` and ${o.count - 1} more` : ""})` : "";
  // The whole cluster's expected cores over capacity: from 1 its deployments are expected
  // to outgrow it together. Its overflow line (plus policy.overflow_sd standard deviations,
  // given where that is above 0) is where the largest is told to migrate: from 1 there.
  const line = o.overflow_line_share ?? o.expected_cluster_share;
  const shown = o.overflow_line_share == null ? "" :
    `; ${pct(o.overflow_line_share)} at ${fmt(o.overflow_sd, 2)} sd above`;
  return [kpi("largest deployment's expected share", `${pct(o.largest_expected_share)}${who}`,
    "kpi-outgrowing", o.count ? "bad" : "ok"),
    kpi("cluster's expected share", `${pct(o.expected_cluster_share)}${shown}`, "kpi-cluster-share",
      line >= 1 ? "bad" : "ok")];
}

// Fields about the threshold beyond `threshold` itself (e.g. a derived one and where it
// came from) are shown as they come: other work may add them to /state.
const thresholdExtras = (st) => Object.entries(st)
  .filter(([k]) => /threshold/.test(k) && k !== "threshold");

// "threshold_calibrating: 96 / 288 lives, ETA 14:05" from /state's gate and calibration.
const calibrating = (st) => {
  const c = st.calibration;
  if (!c) return st.gate;
  const eta = c.eta ? `, ETA ${new Date(c.eta).toLocaleTimeString()}` : "";
  return `${st.gate}: ${c.status} ${fmt(c.lives_done)} / ${fmt(c.lives_total)} lives${eta}`;
};

export async function render({ params, inv }) {
  const { mine, current: c } = pick(inv.clusters, "moments", params.c);
  if (!c) return h("p", { "data-testid": "page-moments" }, "No moment clusters.");
  const st = await state(c);
  const horizons = Object.keys(st.overflow_bound_per_horizon || {});
  const util = st.capacity ? st.active_cores / st.capacity : st.utilization_now;
  const series = sample(c.id, st.now, util);
  const hl = health("moments", st);
  return h("div", { "data-testid": "page-moments" },
    clusterPicker(mine, c, "moments"),
    h("div", { class: "kpis" },
      kpi("policy", st.policy, "kpi-policy"),
      kpi("utilisation", pct(util), "kpi-util"),
      kpi("active / capacity cores", `${fmt(st.active_cores)} / ${fmt(st.capacity)}`, "kpi-cores"),
      kpi("deployments (admitted / rejected)",
        `${fmt(st.deployments)} (${fmt(st.admitted)} / ${fmt(st.rejected)})`, "kpi-deployments"),
      // While a gate refuses every deployment (a threshold being calibrated) it says why.
      kpi("threshold", st.gate ? calibrating(st) : fmt(st.threshold, 4), "kpi-threshold",
        st.gate ? "bad" : ""),
      kpi("scale-out failures vs SLA", `${pct(st.sla_failure_rate)} vs ${pct(st.sla)}`,
        "kpi-sla", hl.ok ? "ok" : "bad"),
      ...growthKpi(st.growth_calibration),
      ...outgrowingKpi(st.outgrowing),
      kpi("scale-outs (denied)", `${fmt(st.scaleout_requests)} (${fmt(st.scaleouts_denied)})`,
        "kpi-scaleouts"),
      kpi("now (hours)", fmt(st.now), "kpi-now")),
    h("div", { class: "row" },
      panel("Expected cores per horizon vs capacity", barChart({ testid: "chart-expected",
        categories: horizons, series: [{ name: "peak expected cores",
          values: horizons.map((k) => (st.peak_expected_cores || {})[k]) }],
        hlines: [{ y: st.capacity, name: "capacity" }] })),
      panel("Overflow bound per horizon vs threshold", barChart({ testid: "chart-overflow",
        categories: horizons, series: [{ name: "overflow bound",
          values: horizons.map((k) => st.overflow_bound_per_horizon[k]) }],
        hlines: st.threshold === null ? [] : [{ y: st.threshold, name: "threshold" }] }),
        table(["horizon", "overflow bound", "expected cores"], horizons.map((k) =>
          h("tr", { "data-testid": `horizon-${k}` }, td(k),
            td(st.overflow_bound_per_horizon[k]), td((st.peak_expected_cores || {})[k])))))),
    h("div", { class: "row" },
      panel("Utilisation (sampled while this page is open)", lineChart({ testid: "chart-util",
        xLabel: "hours", step: true,
        series: [{ name: "active cores / capacity", points: series.map((p) => [p.x, p.value]) }]
      })),
      panel("Threshold and SLA", table(["field", "value"], [
        h("tr", {}, td("threshold"), td(st.threshold)),
        ...thresholdExtras(st).map(([k, v]) => h("tr", { "data-testid": `extra-${k}` }, td(k),
          td(typeof v === "object" ? JSON.stringify(v) : v))),
        h("tr", {}, td("SLA (max scale-out failure rate)"), td(st.sla)),
        h("tr", {}, td("realised failure rate"), td(st.sla_failure_rate)),
        h("tr", {}, td("meets SLA"), td(hl.ok ? "yes" : "no", { class: hl.ok ? "ok" : "bad" })),
        h("tr", {}, td("marginal admission"), td(String(st.marginal)))]))));
}
