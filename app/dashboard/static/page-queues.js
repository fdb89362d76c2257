// Queued clusters (RMS and the greedy queue baselines): queue length per type over time,
// weights, dummy jobs, running jobs, clock progress.

import { lineChart } from "./charts.js";
import { fmt, h, kpi, panel, table, td } from "./dom.js";
import { pick, sample, state } from "./model.js";
import { clusterPicker } from "./picker.js";

export async function render({ params, inv }) {
  const { mine, current: c } = pick(inv.clusters, "queues", params.c);
  if (!c) return h("p", { "data-testid": "page-queues" }, "No queued clusters.");
  // A wall clock's `now` moves without events: read it fresh, not per version.
  const st = c.policy.clock === "wall" ? await state({ ...c, version: `${c.version}@${Date.now()}` })
    : await state(c);
  const types = Object.keys(st.queues || {});
  const series = sample(c.id, st.now, st.queues);
  const clock = st.clock || {};
  const opt = (o, t) => (o && t in o ? o[t] : null);
  return h("div", { "data-testid": "page-queues" },
    clusterPicker(mine, c, "queues"),
    h("div", { class: "kpis" },
      kpi("policy", st.policy, "kpi-policy"),
      kpi(`now (${clock.mode || "?"} clock, units of ${fmt(clock.time_unit_seconds)} s)`,
        fmt(st.now), "kpi-now"),
      kpi("next clock event", fmt(clock.next_event_at ?? st.next_tick), "kpi-next"),
      kpi("tick lag", fmt(clock.behind), "kpi-lag", clock.behind > 1 ? "bad" : ""),
      kpi("arrived", fmt(st.arrived), "kpi-arrived"),
      kpi("finished", fmt(st.finished), "kpi-finished")),
    h("div", { class: "row" },
      panel("Per job type", table(["type", "queued", "running", "weight", "dummy jobs",
        "clock rate"], types.map((t) => h("tr", { "data-testid": `type-${t}` }, td(t),
        td(st.queues[t]), td(opt(st.running, t)), td(opt(st.weights, t)),
        td(opt(st.dummies, t)), td(opt(st.clock_rates, t)))), { "data-testid": "types" }),
        st.variant ? h("p", { class: "muted" }, `RMS variant: ${Object.entries(st.variant)
          .map(([k, v]) => `${k} ${v}`).join(", ")}`) : null),
      panel("Queue length per type over time (sampled while this page is open)",
        lineChart({ testid: "chart-queues", xLabel: "cluster time", step: true,
          series: types.map((t) => ({ name: t,
            points: series.map((p) => [p.x, p.value[t] || 0]) })) }))));
}
