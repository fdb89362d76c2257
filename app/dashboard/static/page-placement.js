// Placement clusters (DRA and the baselines): GPA target X̂ vs actual X per configuration,
// Accept/Reject groups, free slots, reward rate, migrations over time, a server map, and
// where the cluster declares tenants, who holds it: each tenant's usage against its quota.

import { get } from "./api.js";
import { barChart, lineChart, PALETTE } from "./charts.js";
import { fmt, h, kpi, panel, pct, table, td } from "./dom.js";
import { atVersion, pick, state, summary, tail } from "./model.js";
import { clusterPicker } from "./picker.js";
import { tenantsPanel } from "./tenants.js";

const cfgName = (cfg) => Object.entries(cfg || {}).filter(([, n]) => n)
  .map(([t, n]) => `${n}×${t}`).join(" + ") || "empty";

// Migrations over the log tail this tab keeps: DRA migrates at most one job per
// departure, which the departure's answer names.
async function migrations(c) {
  let n = 0;
  return (await tail(c)).map((e) => {
    if (e.response && e.response.migration) n += 1;
    return [e.seq, n];
  });
}

function serverMap(servers, ranks) {
  const color = (s) => (s.rank !== null && s.rank !== undefined ?
    PALETTE[(s.rank - 1) % PALETTE.length] : PALETTE[ranks.indexOf(s.pool) % PALETTE.length]);
  return h("div", {},
    h("div", { class: "servermap", "data-testid": "server-map" }, servers.items.map((s) =>
      h("div", { class: `server ${s.group === "reject" ? "reject" : ""}`,
        title: `${s.server_id} (${s.pool}) ${s.configuration ? cfgName(s.configuration) +
          ", rank " + s.rank + ", " + s.group + " group" : ""}: ${s.jobs} jobs, ` +
          `${pct(s.fill)} full`, "data-server": s.server_id, "data-fill": s.fill.toFixed(4) },
        h("div", { class: "fillbar",
          style: { height: `${(100 * s.fill).toFixed(1)}%`, background: color(s) } })))),
    h("p", { class: "muted" }, `Colour: ${servers.items.some((s) => s.rank) ?
      "configuration (by rank)" : "pool"}; height of the fill: the fullest dimension; dashed: ` +
      `Reject Group. ${servers.total > servers.items.length ? `First ${servers.items.length} ` +
      `of ${servers.total} servers.` : `${servers.total} servers.`}`));
}

export async function render({ params, inv }) {
  const { mine, current: c } = pick(inv.clusters, "placement", params.c);
  if (!c) return h("p", { "data-testid": "page-placement" }, "No placement clusters.");
  const [st, sm, mig, servers] = await Promise.all([state(c), summary(c), migrations(c),
    atVersion(c, "servers", () => get(`/v1/clusters/${c.id}/servers`, { limit: 1000 }))]);
  const d = sm.decisions;
  const arrivals = (d.placed || 0) + (d.rejected || 0);
  const cfgs = st.configurations || [];
  const free = st.free_slots_in_accept_group || st.feasible_servers_per_type || {};
  const ranks = cfgs.length ? [] : [...new Set(servers.items.map((s) => s.pool))];
  return h("div", { "data-testid": "page-placement" },
    clusterPicker(mine, c, "placement"),
    h("div", { class: "kpis" },
      kpi("policy", st.policy, "kpi-policy"), kpi("servers", fmt(st.servers), "kpi-servers"),
      kpi("jobs", fmt(st.jobs), "kpi-jobs"),
      kpi("reward rate", fmt(st.reward_rate), "kpi-reward"),
      kpi("acceptance (recent)", arrivals ? pct((d.placed || 0) / arrivals) : "—",
        "kpi-acceptance"),
      st.g !== undefined ? kpi("g(L) reserved slots", fmt(st.g), "kpi-g") : null),
    h("div", { class: "row" },
      cfgs.length ? panel("Configurations: GPA target X̂ vs actual X",
        table(["configuration", "reward", "rank", "X̂ (target)", "X (actual)", "Accept",
          "Reject"], cfgs.map((x) => h("tr", { "data-testid": `cfg-${x.rank}` },
          td(cfgName(x.configuration)), td(x.reward), td(x.rank), td(x.gpa_target_servers),
          td(x.servers), td(x.accept_group), td(x.reject_group))),
        { "data-testid": "configurations" }),
        barChart({ categories: cfgs.map((x) => `#${x.rank}`), testid: "chart-gpa", series: [
          { name: "X̂ target", values: cfgs.map((x) => x.gpa_target_servers) },
          { name: "X actual", values: cfgs.map((x) => x.servers) }] })) : null,
      panel(st.free_slots_in_accept_group ? "Free slots per type in the Accept Group" :
        "Servers where each type fits",
        table(["job type", "free", "jobs"], Object.entries(free).map(([t, n]) =>
          h("tr", { "data-testid": `free-${t}` }, td(t), td(n),
            td((st.jobs_per_type || {})[t] ?? "—")))))),
    h("div", { class: "row" },
      panel(`Migrations (last ${mig.length} events)`, lineChart({ testid: "chart-migrations",
        series: [{ name: "migrations, cumulative", points: mig }], xLabel: "event seq",
        step: true })),
      panel("Recent reasons", table(["reason", "count"], Object.entries(sm.reasons)
        .sort((a, b) => b[1] - a[1]).map(([r, n]) => h("tr", {},
          td(h("a", { href: `#/log?c=${c.id}&reason=${r}` }, r)), td(n)))))),
    st.tenancy ? tenantsPanel(st.tenancy) : null,
    panel("Server map", serverMap(servers, ranks)));
}
