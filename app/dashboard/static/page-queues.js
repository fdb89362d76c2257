// Queued clusters (RMS and the greedy queue baselines): queue length per type over time,
// weights, dummy jobs, running jobs, clock progress.

import { lineChart } from "./charts.js";
import { fmt, h, kpi, panel, table, td } from "./dom.js";
import { pick, state, tail, tickLagHurts } from "./model.js";
import { clusterPicker } from "./picker.js";

// Queue lengths over the log tail, from the answers alone: a queued arrival adds one to its
// type's queue, every job in an answer's `started` (each with its start time) takes one off.
// The tail may start mid-history, so the series is anchored at its end, on the lengths
// /state reports for the same version, and walked back to where the tail begins.
function queueSeries(events, now, types) {
  const changes = [];
  for (const e of events) {
    const r = e.response || {};
    for (const s of r.started || []) changes.push([s.at, s.job_type, -1]);
    if (e.kind === "arrival" && r.decision === "queued") changes.push([r.at, e.request.job_type, 1]);
  }
  const q = { ...now };
  for (const [, t, d] of changes) q[t] = (q[t] || 0) - d;
  const t0 = changes.length ? changes[0][0] : 0;
  const out = Object.fromEntries(types.map((t) => [t, [[t0, q[t] || 0]]]));
  for (const [at, t, d] of changes) {
    q[t] += d;
    if (out[t]) out[t].push([at, q[t]]);
  }
  return out;
}

export async function render({ params, inv }) {
  const { mine, current: c } = pick(inv.clusters, "queues", params.c);
  if (!c) return h("p", { "data-testid": "page-queues" }, "No queued clusters.");
  // A wall clock's `now` moves without events: read it fresh, not per version.
  const st = c.policy.clock === "wall" ? await state({ ...c, version: `${c.version}@${Date.now()}` })
    : await state(c);
  const types = Object.keys(st.queues || {});
  // The log tail up to exactly the version /state describes, so the two agree.
  const events = (await tail({ id: c.id, version: st.version })).filter((e) => e.seq <= st.version);
  const series = queueSeries(events, st.queues, types);
  const clock = st.clock || {};
  const opt = (o, t) => (o && t in o ? o[t] : null);
  return h("div", { "data-testid": "page-queues" },
    clusterPicker(mine, c, "queues"),
    h("div", { class: "kpis" },
      kpi("policy", st.policy, "kpi-policy"),
      kpi(`now (${clock.mode || "?"} clock, units of ${fmt(clock.time_unit_seconds)} s)`,
        fmt(st.now), "kpi-now"),
      kpi("next clock event", fmt(clock.next_event_at ?? st.next_tick), "kpi-next"),
      kpi("tick lag", fmt(clock.behind), "kpi-lag", tickLagHurts(st) ? "bad" : ""),
      kpi("arrived", fmt(st.arrived), "kpi-arrived"),
      kpi("finished", fmt(st.finished), "kpi-finished"),
      kpi("withdrawn (left a queue before starting)", fmt(st.withdrawn ?? 0), "kpi-withdrawn")),
    h("div", { class: "row" },
      panel("Per job type", table(["type", "queued", "running", "weight", "dummy jobs",
        "clock rate"], types.map((t) => h("tr", { "data-testid": `type-${t}` }, td(t),
        td(st.queues[t]), td(opt(st.running, t)), td(opt(st.weights, t)),
        td(opt(st.dummies, t)), td(opt(st.clock_rates, t)))), { "data-testid": "types" }),
        st.variant ? h("p", { class: "muted" }, `RMS variant: ${Object.entries(st.variant)
          .map(([k, v]) => `${k} ${v}`).join(", ")}`) : null),
      panel(`Queue length per type over time (the last ${events.length} events)`,
        lineChart({ testid: "chart-queues", xLabel: "cluster time", step: true,
          series: types.map((t) => ({ name: t, points: series[t] })) }))));
}
