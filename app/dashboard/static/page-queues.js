// Queued clusters (RMS and the greedy queue baselines): queue length per type over time,
// weights, dummy jobs, running jobs, clock progress, and when the first waiting jobs are
// expected to start.

import { get } from "./api.js";
import { lineChart } from "./charts.js";
import { fmt, h, kpi, panel, table, td } from "./dom.js";
import { atVersion, pick, state, tail, tickLagHurts } from "./model.js";
import { clusterPicker } from "./picker.js";
import { tenantsPanel } from "./tenants.js";

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

// Forecasts per redraw, and pages of the job listing read to find their jobs: at most
// LISTED + FORECASTS GETs when the cluster's version moved, none when it did not.
const FORECASTS = 8;
const LISTED = 2;
const LIST_LIMIT = 1000;

const sum = (o) => Object.values(o || {}).reduce((a, b) => a + b, 0);

// The first FORECASTS waiting jobs in the listing's order (job id) and their GET .../jobs/{id}
// answers, which carry a waiting job's forecast (the listing does not); read once per version.
// One at a time: each forecast is a simulation on the server, within a CPU budget.
function forecasts(c, st) {
  return atVersion({ id: c.id, version: st.version }, "forecasts", async () => {
    const waiting = [];
    let cursor, pages = 0;
    while (sum(st.queues) && waiting.length < FORECASTS && pages < LISTED &&
      (pages === 0 || cursor)) {
      const page = await get(`/v1/clusters/${c.id}/jobs`, { limit: LIST_LIMIT, cursor });
      pages += 1;
      waiting.push(...page.items.filter((j) => j.status === "queued"));
      cursor = page.next_cursor;
    }
    const jobs = [];
    for (const j of waiting.slice(0, FORECASTS)) {
      try {
        jobs.push(await get(`/v1/clusters/${c.id}/jobs/${encodeURIComponent(j.job_id)}`));
      } catch (err) {
        if (err.status !== 404) throw err;
        jobs.push({ ...j, status: "forgotten" });  // finished and forgotten since the listing
      }
    }
    return { jobs, listed: pages * LIST_LIMIT,
      cut: Boolean(cursor) && waiting.length < FORECASTS };
  });
}

// "median (80%: low–high)", the top open when it is beyond the horizon; or why there is none.
function expected(job) {
  const f = job.forecast;
  if (job.status !== "queued") return `${job.status} since the list was read`;
  if (!f || f.median === undefined) return (f && f.reason) || "no forecast";
  const high = f.high === undefined ? `beyond ${fmt(f.horizon)}` : fmt(f.high);
  return `${fmt(f.median)} (${fmt(100 * f.level)}%: ${fmt(f.low)}–${high})`;
}

// The median against the cluster's now (the time of its last event).
function fromNow(job, now) {
  const m = job.forecast && job.forecast.median;
  if (job.status !== "queued" || m === undefined) return "—";
  const d = m - now;
  return d > 0 ? `in ${fmt(d)}` : d < 0 ? `${fmt(-d)} ago` : "now";
}

function forecastPanel(fc, st) {
  const waiting = sum(st.queues), shown = fc.jobs.length;
  const title = "Expected start of waiting jobs" + (!waiting ? "" : shown < waiting ?
    ` (the first ${fmt(shown)} of ${fmt(waiting)}, by job id)` : ` (${fmt(waiting)})`);
  return panel(title, shown ? table(["job", "type", "position", "queued at",
    "expected start: median (80% interval)", "from now"], fc.jobs.map((j) =>
    h("tr", { "data-testid": `forecast-${j.job_id}` }, td(j.job_id), td(j.job_type),
      td(j.position ?? "—"), td(j.queued_at ?? "—"),
      td(expected(j), { "data-testid": "expected-start" }),
      td(fromNow(j, st.now), { "data-testid": "from-now" }))), { "data-testid": "forecasts" }) :
    h("p", { class: "muted", "data-testid": "no-waiting" }, waiting ?
      `None of the first ${fmt(fc.listed)} jobs by id waits.` : "No job waits."),
  h("p", { class: "muted" }, "In the cluster's time units, as now above: the median and 80% " +
    "interval of each job's start over futures of the queue simulated from its last event, " +
    "with the lifetimes of its finished jobs and the arrival rates it has seen" +
    (fc.cut ? `; waiting jobs among the first ${fmt(fc.listed)} jobs by id only.` : ".")));
}

export async function render({ params, inv }) {
  const { mine, current: c } = pick(inv.clusters, "queues", params.c);
  if (!c) return h("p", { "data-testid": "page-queues" }, "No queued clusters.");
  // A wall clock's `now` moves without events: read it fresh, not per version.
  const st = c.policy.clock === "wall" ? await state({ ...c, version: `${c.version}@${Date.now()}` })
    : await state(c);
  const types = Object.keys(st.queues || {});
  // The log tail up to exactly the version /state describes, so the two agree.
  const [logged, fc] = await Promise.all([tail({ id: c.id, version: st.version }),
    forecasts(c, st)]);
  const events = logged.filter((e) => e.seq <= st.version);
  // A job waiting for quota is queued too, in its tenant's queue before the scheduler's.
  const waiting = Object.fromEntries(types.map((t) => [t, st.queues[t] +
    ((st.waiting_for_quota || {})[t] || 0)]));
  const series = queueSeries(events, waiting, types);
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
          series: types.map((t) => ({ name: t, points: series[t] })) }))),
    st.tenancy ? tenantsPanel(st.tenancy) : null,
    forecastPanel(fc, st));
}
