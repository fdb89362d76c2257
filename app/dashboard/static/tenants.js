// Who holds a cluster that declares tenants (placement or queued): usage against nominal,
// what is borrowed, who was preempted or refused, and on a queued cluster who waits for
// quota. A borrower is who a lender's reclaim preempts (and whom fair sharing holds back),
// so its row is marked.

import { barChart } from "./charts.js";
import { fmt, h, panel, table, td } from "./dom.js";

const vec = (v) => Object.entries(v || {}).map(([d, x]) => `${d} ${fmt(x)}`).join(", ");

export function tenantsPanel(tenancy) {
  const rows = tenancy.tenants;
  const queued = rows.some((t) => t.waiting !== null && t.waiting !== undefined);
  return h("div", { class: "row" },
    panel(`Tenants (quota generation ${tenancy.generation})`,
      table(["tenant", "cohort", "usage", "nominal", "borrowed", "dominant share", "jobs",
        ...(queued ? ["waiting for quota"] : ["preempted", "refused"])],
      rows.map((t) => h("tr", { "data-testid": `tenant-${t.name}`,
        class: Object.values(t.borrowed).some((x) => x > 0) ? "borrowing" : "" },
        td(t.declared ? t.name : `${t.name} (removed)`), td(t.cohort ?? "—"), td(vec(t.usage)),
        td(vec(t.nominal)), td(vec(t.borrowed)), td(t.dominant_share), td(t.jobs),
        ...(queued ? [td(t.waiting)] : [td(t.preempted), td(t.refused)]))),
      { "data-testid": "tenants" })),
    panel("Dominant share by tenant (borrowed of the cohort's lendable quota, over weight)",
      barChart({ categories: rows.map((t) => t.name), testid: "chart-tenants",
        series: [{ name: "dominant share", values: rows.map((t) => t.dominant_share) }] })));
}
