// Every cluster and stream of the key's owner: kind, load, acceptance, last decisions, health.

import { chip, fmt, h, panel, pct, table, td } from "./dom.js";
import { atVersion, familyOf, health, latest, state, summary } from "./model.js";
import { get } from "./api.js";

function load(family, st) {
  if (family === "placement") return `${fmt(st.jobs)} jobs on ${fmt(st.servers)} servers`;
  if (family === "queues") {
    const sum = (o) => Object.values(o || {}).reduce((a, b) => a + b, 0);
    return `${fmt(sum(st.queues))} queued, ${fmt(sum(st.running))} running`;
  }
  return `${pct(st.capacity ? st.active_cores / st.capacity : st.utilization_now)} of ` +
    `${fmt(st.capacity)} cores`;
}

function acceptance(family, st, sm) {
  if (family === "moments") {
    const n = st.admitted + st.rejected;
    return n ? `${pct(st.admitted / n)} admitted (${n})` : "—";
  }
  const d = sm.decisions;
  if (family === "queues") return `${fmt(d.queued || 0)} queued, ${fmt(d.started || 0)} ` +
    `started at once (never rejects)`;
  const n = (d.placed || 0) + (d.rejected || 0);
  return n ? `${pct((d.placed || 0) / n)} placed (last ${n} arrivals)` : "—";
}

// As seen by the worker that answered (each process counts its own transactions).
function lockWaits(w) {
  if (!w || !w.transactions) return "—";
  return `${fmt(w.mean_ms, 1)} ms mean, ${fmt(w.max_ms, 1)} max (${fmt(w.transactions)} tx, ` +
    `pid ${w.process})`;
}

async function clusterRow(c) {
  const family = familyOf(c);
  const [st, sm, last] = await Promise.all([state(c), summary(c), latest(c, 4)]);
  const hl = health(family, st);
  return h("tr", { "data-testid": `cluster-${c.name}` },
    td(h("a", { href: `#/${family}?c=${c.id}` }, c.name)),
    td(`${c.policy.kind} (${family})`), td(load(family, st), { "data-testid": "load" }),
    td(acceptance(family, st, sm), { "data-testid": "acceptance" }),
    td(last.map((e) => h("a", { href: `#/log?c=${c.id}&seq=${e.seq}` }, chip(e.decision)))),
    td(hl.text, { class: hl.ok ? "ok" : "bad", "data-testid": "health" }),
    td(lockWaits(sm.lock_waits), { "data-testid": "lock-waits" }), td(c.version));
}

async function streamRow(s) {
  const view = await atVersion(s, "view", () => get(`/v1/reservations/${s.id}`));
  const res = view.state.resources;
  const ok = res.every((r) => r.within_epsilon !== false);
  return h("tr", { "data-testid": `stream-${s.name}` },
    td(h("a", { href: `#/reservations?r=${s.id}` }, s.name)), td(s.policy.kind),
    td(res.map((r) => `${r.name} ${fmt(r.reservation)}`).join(", "), { "data-testid": "load" }),
    td(`${fmt(view.state.periods)} periods`),
    td(res.map((r) => `${r.name}: ${pct(r.violation_rate)} vs ε ${pct(r.epsilon)}`).join("; "),
      { class: ok ? "ok" : "bad", "data-testid": "health" }),
    td(view.version));
}

export async function render({ inv }) {
  const rows = await Promise.all(inv.clusters.map(clusterRow));
  const streams = await Promise.all(inv.streams.map(streamRow));
  return h("div", { "data-testid": "page-overview" },
    panel(`Clusters (${inv.clusters.length})`, inv.clusters.length ? table(
      ["cluster", "policy", "load", "acceptance", "last decisions", "health", "lock waits",
        "events"], rows,
      { "data-testid": "clusters" }) : h("p", { class: "muted" }, "No clusters yet.")),
    panel(`Reservation streams (${inv.streams.length})`, inv.streams.length ? table(
      ["stream", "policy", "reserved now", "periods", "violations vs ε", "events"], streams,
      { "data-testid": "streams" }) : h("p", { class: "muted" }, "No streams yet.")),
    h("p", { class: "muted" }, "Acceptance and reasons: the last 500 events. Lock waits: " +
      "time the worker process that answered waited for the cluster's lock, since it started."));
}
