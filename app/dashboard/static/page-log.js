// The decision log with filters (decision, reason, job): one click on a decision shows the
// numbers behind it (`details`), the answer to "why was this rejected?".

import { get } from "./api.js";
import { chip, fmt, h, panel, table, td } from "./dom.js";
import { atVersion, familyOf, summary } from "./model.js";
import { clusterPicker } from "./picker.js";

const PAGE = 100;
const subject = (e) => e.request.job_id ?? e.request.deployment_id ?? "";

function flatten(obj, prefix = "") {
  return Object.entries(obj || {}).flatMap(([k, v]) => (v && typeof v === "object" &&
    !Array.isArray(v) ? flatten(v, `${prefix}${k}.`) : [[`${prefix}${k}`, v]]));
}

// A list inside details (e.g. GPA's configurations with the job's type): a small table.
function listTable(list) {
  if (!list.every((x) => x && typeof x === "object")) return JSON.stringify(list);
  const cols = [...new Set(list.flatMap((x) => Object.keys(x)))];
  const cell = (v) => (v && typeof v === "object" ? Object.entries(v)
    .map(([k, n]) => `${n}×${k}`).join(" + ") : v);
  return table(cols, list.map((x) => h("tr", {}, cols.map((c) => td(cell(x[c]))))));
}

function detail(e) {
  const r = e.response || {};
  const rows = flatten(r.details).map(([k, v]) => h("tr", { "data-testid": `detail-${k}` },
    td(k), Array.isArray(v) ? h("td", {}, listTable(v)) : td(v)));
  return panel(`Event ${e.seq}: ${e.kind} of ${subject(e)} — ${e.decision}`,
    h("p", {}, chip(e.decision), " ", h("b", { "data-testid": "detail-reason" },
      r.reason || ""), r.server_id ? ` on ${r.server_id}` : ""),
    rows.length ? table(["number behind the decision", "value"], rows,
      { "data-testid": "details" }) : h("p", { class: "muted" }, "This answer has no details."),
    h("details", {}, h("summary", {}, "Request and full answer"),
      h("pre", {}, JSON.stringify({ request: e.request, response: r }, null, 2))));
}

async function selected(c, seq, items) {
  if (!seq) return null;
  const hit = items.find((e) => String(e.seq) === String(seq));
  if (hit) return hit;
  const page = await get(`/v1/clusters/${c.id}/events`, { cursor: Number(seq) - 1, limit: 1 });
  return page.items.find((e) => String(e.seq) === String(seq)) || null;
}

export async function render({ params, inv, go }) {
  const mine = inv.clusters;
  const c = mine.find((x) => x.id === params.c) || mine[0];
  if (!c) return h("p", { "data-testid": "page-log" }, "No clusters.");
  const filters = { decision: params.decision, reason: params.reason, job_id: params.job };
  // Cached per version and filter: another cluster's events redraw the page, not re-read it.
  const query = { order: "desc", limit: PAGE, cursor: params.before, ...filters };
  const [page, sm] = await Promise.all([
    atVersion(c, `log:${JSON.stringify(query)}`, () => get(`/v1/clusters/${c.id}/events`, query)),
    summary(c)]);
  const chosen = await selected(c, params.seq, page.items);
  const nav = (extra) => go("log", { c: c.id, decision: params.decision,
    reason: params.reason, job: params.job, before: params.before, seq: params.seq, ...extra });
  const options = (values, current) => [h("option", { value: "" }, "any"),
    ...[...new Set([...values, current].filter(Boolean))].sort().map((v) => {
      const o = h("option", { value: v }, v);
      o.selected = v === current;
      return o;
    })];
  const form = h("form", { class: "filters", "data-testid": "filters", onsubmit: (ev) => {
    ev.preventDefault();
    const f = new FormData(ev.target);
    nav({ decision: f.get("decision"), reason: f.get("reason"), job: f.get("job").trim(),
      before: null, seq: null });
  } },
  h("label", {}, "decision", h("select", { name: "decision", "data-testid": "f-decision" },
    options(["placed", "rejected", "queued", "started", "admitted", "released", "withdrawn",
      ...Object.keys(sm.decisions)], params.decision))),
  h("label", {}, "reason", h("select", { name: "reason", "data-testid": "f-reason" },
    options(Object.keys(sm.reasons), params.reason))),
  h("label", {}, "job / deployment", h("input", { name: "job", "data-testid": "f-job",
    value: params.job || "", placeholder: "job id" })),
  h("button", { type: "submit", "data-testid": "f-apply" }, "Filter"),
  h("button", { type: "button", onclick: () => go("log", { c: c.id }) }, "Clear"));
  const rows = page.items.map((e) => h("tr", {
    class: `clickable ${chosen && chosen.seq === e.seq ? "selected" : ""}`,
    "data-testid": `event-${e.seq}`, "data-decision": e.decision,
    onclick: () => nav({ seq: e.seq }) },
  td(e.seq), td(new Date(e.created_at).toLocaleTimeString()), td(e.kind), td(subject(e)),
  td(chip(e.decision)), td((e.response || {}).reason || ""),
  td((e.response || {}).server_id || "")));
  return h("div", { "data-testid": "page-log" },
    clusterPicker(mine, c, "log"),
    h("p", { class: "muted" }, `${familyOf(c)} cluster, ${fmt(c.version)} events logged. ` +
      "Click a decision to see its numbers."),
    form,
    h("div", { class: "row" },
      panel(`Decisions, newest first${page.items.length ? "" : ": none match"}`,
        table(["seq", "time", "kind", "job", "decision", "reason", "server"], rows,
          { "data-testid": "log" }),
        page.next_cursor ? h("button", { type: "button", "data-testid": "older",
          onclick: () => nav({ before: page.next_cursor, seq: null }) }, "Older") : null),
      chosen ? detail(chosen) : panel("Numbers behind a decision",
        h("p", { class: "muted" }, "Click a row."))));
}
