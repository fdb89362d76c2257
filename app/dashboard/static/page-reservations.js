// Reservation streams: demand vs reservation per period, violation rate vs ε, cost vs the
// static hindsight oracle so far.

import { get } from "./api.js";
import { lineChart } from "./charts.js";
import { fmt, h, kpi, panel, pct, table, td } from "./dom.js";
import { atVersion } from "./model.js";
import { clusterPicker } from "./picker.js";

// Each stream's history, read once and then tailed with its cursor.
const histories = new Map();
async function history(s) {
  const hist = histories.get(s.id) || { items: [], cursor: null };
  histories.set(s.id, hist);
  while (hist.items.length < s.version) {
    const page = await get(`/v1/reservations/${s.id}/history`,
      { limit: 1000, cursor: hist.cursor || undefined });
    if (!page.items.length) break;
    hist.items.push(...page.items);
    hist.cursor = page.next_cursor || String(hist.items.length);
  }
  return hist.items;
}

export async function render({ params, inv }) {
  const list = inv.streams;
  const s = list.find((x) => x.id === params.r) || list[0];
  if (!s) return h("p", { "data-testid": "page-reservations" }, "No reservation streams.");
  const [view, items, oracle] = await Promise.all([
    atVersion(s, "view", () => get(`/v1/reservations/${s.id}`)), history(s),
    atVersion(s, "hindsight", () => get(`/v1/reservations/${s.id}/hindsight`))]);
  const st = view.state;
  const byName = Object.fromEntries(oracle.resources.map((r) => [r.name, r]));
  return h("div", { "data-testid": "page-reservations" },
    clusterPicker(list, s, "reservations", "r"),
    h("div", { class: "kpis" },
      kpi("policy", st.policy, "kpi-policy"), kpi("periods", fmt(st.periods), "kpi-periods"),
      kpi("cost so far", fmt(st.cost_so_far), "kpi-cost")),
    panel("Per resource: violations vs ε, cost vs the hindsight oracle x*",
      table(["resource", "reserved next", "violation rate", "ε", "within ε", "cost so far",
        "oracle x*", "oracle cost", "cost / oracle"], st.resources.map((r) => {
        const o = byName[r.name] || {};
        return h("tr", { "data-testid": `resource-${r.name}` }, td(r.name), td(r.reservation),
          td(pct(r.violation_rate)), td(pct(r.epsilon)),
          td(r.within_epsilon === null ? "—" : r.within_epsilon ? "yes" : "no",
            { class: r.within_epsilon === false ? "bad" : "ok" }),
          td(r.cost_so_far), td(o.oracle_reservation), td(o.oracle_cost),
          td(o.cost_ratio === null || o.cost_ratio === undefined ? "—" :
            `${fmt(o.cost_ratio)}×`, { "data-testid": "ratio" }));
      }), { "data-testid": "resources" }),
      h("p", { class: "muted" }, "x* is the smallest fixed reservation whose violations over " +
        "the periods so far stay within ε: a hindsight bound no online policy is expected " +
        "to reach.")),
    h("div", { class: "row" }, st.resources.map((r) => panel(
      `${r.name}: demand vs reservation per period`, lineChart({
        testid: `chart-${r.name}`, xLabel: "period", step: true, series: [
          { name: "demand", points: items.map((x) => [x.period, x.demand[r.name]]) },
          { name: "reserved", points: items.map((x) => [x.period, x.reserved[r.name]]) }],
        hlines: byName[r.name] && byName[r.name].oracle_reservation !== null ?
          [{ y: byName[r.name].oracle_reservation, name: "oracle x*", color: "#1a7f37" }] : [],
      }), lineChart({ testid: `chart-${r.name}-violations`, xLabel: "period", series: [
        { name: "violation rate so far", points: rate(items, r.name) }],
      hlines: [{ y: r.epsilon, name: "ε" }] })))));
}

function rate(items, name) {
  let v = 0;
  return items.map((x, i) => {
    if (x.violated[name]) v += 1;
    return [x.period, v / (i + 1)];
  });
}
