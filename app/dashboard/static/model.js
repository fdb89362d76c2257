// What the pages share: which family a cluster is, and reads cached per cluster version so
// that a redraw re-reads only the clusters whose log moved.

import { get } from "./api.js";

// The API names each cluster's family (placement, queues, moments, or a plug-in's).
export function familyOf(cluster) {
  return cluster.family;
}

const cache = new Map();

// fn() once per (cluster, version, what); older versions are dropped.
export async function atVersion(c, what, fn) {
  const k = `${c.id}/${what}`;
  const hit = cache.get(k);
  if (hit && hit.version === c.version) return hit.value;
  const value = await fn();
  cache.set(k, { version: c.version, value });
  return value;
}

export const state = (c) => atVersion(c, "state", () => get(`/v1/clusters/${c.id}/state`));
export const summary = (c, window = 500) =>
  atVersion(c, `summary${window}`, () => get(`/v1/clusters/${c.id}/decisions`, { window }));
export const latest = (c, limit = 5) => atVersion(c, `latest${limit}`,
  () => get(`/v1/clusters/${c.id}/events`, { order: "desc", limit }).then((p) => p.items));

// Samples of a cluster's /state over time, kept by this tab while it watches (queue lengths,
// utilisation): the engine keeps no history, and the log is not re-read to rebuild one.
const samples = new Map();
export function sample(id, x, value, max = 600) {
  const list = samples.get(id) || [];
  if (!list.length || list[list.length - 1].x !== x) list.push({ x, value });
  if (list.length > max) list.splice(0, list.length - max);
  samples.set(id, list);
  return list;
}

export function pick(clusters, family, id) {
  const mine = clusters.filter((c) => familyOf(c) === family);
  return { mine, current: mine.find((c) => c.id === id) || mine[0] };
}

// A wall clock's lag can delay a job only while one waits and a clock event is pending: the
// tick loop leaves an idle cluster's clocks to its next event (app/service/ticker.py), and a
// `*_queue` baseline has no clocks at all, so their lag grows with nothing to do.
function lagCanDelay(st) {
  const waiting = Object.values(st.queues || {}).some((n) => n > 0);
  return waiting && (st.clock || {}).next_event_at != null;
}

// Behind by a time unit or more while a job waits: the tick loop is not keeping up.
export function tickLagHurts(st) {
  const clock = st.clock || {};
  return clock.mode === "wall" && lagCanDelay(st) && (clock.behind || 0) >= 1;
}

// A cluster's health in one word and why.
export function health(family, st) {
  if (family === "moments") {
    const met = st.meets_sla ?? (st.sla_failure_rate <= st.sla);
    return { ok: met, text: `${met ? "SLA met" : "SLA missed"}: failures ` +
      `${(100 * st.sla_failure_rate).toFixed(3)}% vs ${(100 * st.sla).toFixed(3)}%` };
  }
  if (family === "queues") {
    const clock = st.clock || {};
    if (clock.mode !== "wall") return { ok: true, text: `${clock.mode || "?"} clock: no tick lag` };
    const behind = clock.behind || 0;
    if (!lagCanDelay(st)) {
      return { ok: true, text: `tick lag ${behind.toFixed(3)} time units (nothing waits for a clock)` };
    }
    return { ok: !tickLagHurts(st), text: `tick lag ${behind.toFixed(3)} time units (wall clock)` };
  }
  return { ok: true, text: "no SLA (placement)" };
}

// The last `keep` events of a cluster's log, kept by this tab: the first read takes the
// newest page, later ones only what came after the cursor (a log tail, not a re-read).
const tails = new Map();
export async function tail(c, keep = 500) {
  let t = tails.get(c.id);
  if (!t) {
    const page = await get(`/v1/clusters/${c.id}/events`, { order: "desc", limit: keep });
    t = { events: page.items.reverse() };
    tails.set(c.id, t);
  }
  let cursor = t.events.length ? t.events[t.events.length - 1].seq : 0;
  while (cursor < c.version) {
    const page = await get(`/v1/clusters/${c.id}/events`, { cursor, limit: 1000 });
    if (!page.items.length) break;
    t.events.push(...page.items);
    cursor = page.items[page.items.length - 1].seq;
  }
  if (t.events.length > keep) t.events.splice(0, t.events.length - keep);
  return t.events;
}
