// What if: a cluster's (or stream's) own log replayed in the background under another policy,
// or every kind of its family ranked by the policy advisor (docs/what-if.md). The selected
// cluster's runs with status and progress, one run's result, and a form to start a run.
//
// Reading runs needs a read key; starting and cancelling need a write key, and with a read
// key the service's 403 problem is shown where the user asked. A finished run never changes,
// so it is read once; while a run is queued or running the view is `data-live`, redrawn
// every poll (app.js).

import { get, send } from "./api.js";
import { lineChart } from "./charts.js";
import { chip, fmt, h, panel, pct, table, td } from "./dom.js";
import { familyOf } from "./model.js";
import { clusterPicker } from "./picker.js";

// The shipped families' policy kinds and advisor objectives; a plug-in family's kind is
// typed in, and the service checks it (422 names the family's kinds).
const KINDS = {
  placement: ["dra", "first_fit", "best_fit", "power_of_d"],
  queues: ["rms", "best_fit_queue", "first_fit_queue", "random_fit_queue"],
  moments: ["threshold", "first_moment", "second_moment"],
  reservations: ["quantile_tracking", "thor", "ftl", "percentile"],
};
const OBJECTIVES = {
  placement: ["reward_rate", "acceptance", "utilization"],
  queues: ["queue_wait", "reward_rate", "utilization"],
  moments: ["utilization"],
  reservations: ["cost_per_period"],
};
const NOUN = { reward_rate: "reward rate", acceptance: "acceptance", queue_wait: "mean queue wait",
  utilization: "utilisation", cost_per_period: "reservation cost per period" };
// Keys of a queue policy that say how the service keeps time, not how the policy decides:
// an alternative starts with the cluster's.
const CLOCK_KEYS = ["clock", "time_unit_seconds", "finished_history"];
const OPEN = new Set(["queued", "running"]);

const isStream = (inv, c) => inv.streams.some((s) => s.id === c.id);
const familyOfAny = (inv, c) => (isStream(inv, c) ? "reservations" : familyOf(c));

// Finished runs, read once (their result is final).
const finished = new Map();
async function readRun(url, id) {
  const at = `${url}/${id}`;
  if (finished.has(at)) return finished.get(at);
  const run = await get(at);
  if (!OPEN.has(run.status)) finished.set(at, run);
  return run;
}

// What the user typed in the form and the last problem a start or cancel met, per cluster:
// the page is redrawn while runs move, and must not lose either.
const drafts = new Map();
function draft(c, family) {
  if (!drafts.has(c.id)) {
    const kinds = KINDS[family] || [c.policy.kind];
    const clock = family === "queues" ? Object.fromEntries(CLOCK_KEYS
      .filter((k) => k in c.policy).map((k) => [k, c.policy[k]])) : {};
    drafts.set(c.id, { question: "policy", kind: kinds.find((k) => k !== c.policy.kind) ||
      kinds[0], params: Object.keys(clock).length ? JSON.stringify(clock) : "", from: "",
    to: "", seeds: "0, 1, 2, 3, 4", objective: "", max_rejection: "", problem: null });
  }
  return drafts.get(c.id);
}

const policyLabel = (p) => (p ? [p.kind, ...Object.entries(p).filter(([k]) => k !== "kind")
  .map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`)].join(" ") : "?");

function question(run) {
  const r = run.request || {};
  if (r.advise) {
    const cap = r.advise.max_rejection == null ? "" :
      `, rejecting at most ${pct(r.advise.max_rejection)}`;
    return `advisor: rank by ${NOUN[r.advise.objective] || r.advise.objective}${cap}`;
  }
  return `what if ${policyLabel(r.policy)}`;
}

const windowText = (w = {}) => `events ${fmt(w.from_seq ?? 1)}–${w.to_seq == null ? "last" :
  fmt(w.to_seq)}`;

const signed = (x) => (x === null || x === undefined ? "—" :
  `${x >= 0 ? "+" : ""}${(100 * x).toFixed(1)}%`);

// A problem document as the service words it (api.js): status, code, detail, and each
// field's message when there are several.
function problemView(p) {
  if (!p) return [];
  const errors = (p.errors || []).length > 1 ?
    h("ul", {}, p.errors.map((e) => h("li", {}, `${e.field}: ${e.message}`))) : null;
  return [p.message, errors];
}

function showProblem(c, where, err) {
  const d = drafts.get(c.id);
  const p = { message: err.message, errors: (err.problem || {}).errors };
  d.problem = { ...d.problem, [where]: p };
  // The form's error line as the page shows it now: a redraw may have replaced the one the
  // user clicked in.
  const el = document.querySelector(`[data-testid='${where}-error']`);
  if (el) el.replaceChildren(...problemView(p).filter(Boolean));
}

function clearProblem(c, where) {
  const d = drafts.get(c.id);
  if (d.problem) delete d.problem[where];
}

// The run's body from the form: the service judges the values (a 422 names the field).
function body(d) {
  const seeds = d.seeds.split(/[\s,]+/).filter(Boolean)
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  const out = { window: {} };
  if (seeds.length) out.seeds = seeds;
  if (d.from.trim()) out.window.from_seq = Number(d.from);
  if (d.to.trim()) out.window.to_seq = Number(d.to);
  if (d.question === "advise") {
    out.advise = {};
    if (d.objective) out.advise.objective = d.objective;
    if (d.max_rejection.trim()) out.advise.max_rejection = Number(d.max_rejection);
    return out;
  }
  let params = {};
  if (d.params.trim()) {
    try {
      params = JSON.parse(d.params);
    } catch (e) {
      throw new Error(`parameters are not JSON: ${e.message}`);
    }
    if (!params || typeof params !== "object" || Array.isArray(params))
      throw new Error('parameters must be a JSON object, such as {"d": 2}');
  }
  out.policy = { ...params, kind: d.kind };
  return out;
}

function startForm(c, family, url, go) {
  const d = draft(c, family);
  const kinds = KINDS[family];
  const objectives = OBJECTIVES[family] || [];
  const options = (values, current, labels = {}) => values.map((v) => {
    const o = h("option", { value: v }, labels[v] || v);
    o.selected = v === current;
    return o;
  });
  const show = (form) => {
    for (const el of form.querySelectorAll("[data-for]"))
      el.hidden = el.dataset.for !== d.question;
  };
  const save = (ev) => {
    const form = ev.currentTarget;
    for (const el of form.elements) if (el.name) d[el.name] = el.value;
    show(form);
  };
  const field = (label, input, only) => h("label", { "data-for": only, hidden: only &&
    only !== d.question }, label, input);
  const form = h("form", { class: "start", "data-testid": "start-form", oninput: save,
    onchange: save, onsubmit: async (ev) => {
      ev.preventDefault();
      const button = ev.currentTarget.querySelector("button");
      let sent;
      try {
        sent = body(d);
      } catch (err) {
        showProblem(c, "start", err);
        return;
      }
      button.disabled = true;
      try {
        const run = await send("POST", url, sent);
        clearProblem(c, "start");
        go("whatif", { c: c.id, run: run.id });
      } catch (err) {
        showProblem(c, "start", err);
      } finally {
        button.disabled = false;
      }
    } },
  field("question", h("select", { name: "question", "data-testid": "start-question" },
    options(["policy", "advise"], d.question, { policy: "what if: one other policy",
      advise: "advisor: rank every kind" }))),
  field("policy kind", kinds ? h("select", { name: "kind", "data-testid": "start-kind" },
    options(kinds, d.kind, { [c.policy.kind]: `${c.policy.kind} (running now)` })) :
    h("input", { name: "kind", value: d.kind, "data-testid": "start-kind" }), "policy"),
  field("parameters (JSON)", h("input", { name: "params", value: d.params, size: 32,
    placeholder: '{"d": 2}', "data-testid": "start-params", autocomplete: "off" }), "policy"),
  field("objective", h("select", { name: "objective", "data-testid": "start-objective" },
    options(["", ...objectives], d.objective, { "": "the family's default" })), "advise"),
  family === "placement" ? field("max rejected share (0–1)", h("input", {
    name: "max_rejection", value: d.max_rejection, size: 8, placeholder: "none",
    "data-testid": "start-max-rejection" }), "advise") : null,
  field("from seq", h("input", { name: "from", type: "number", min: 1, value: d.from,
    placeholder: "1", "data-testid": "start-from" })),
  field("to seq", h("input", { name: "to", type: "number", min: 1, value: d.to,
    placeholder: `${c.version} (the last)`, "data-testid": "start-to" })),
  field("seeds", h("input", { name: "seeds", value: d.seeds, size: 20,
    "data-testid": "start-seeds" })),
  h("p", { class: "error", "data-testid": "start-error" },
    ...problemView((d.problem || {}).start).filter(Boolean)),
  h("button", { type: "submit", "data-testid": "start-submit" }, "Start"));
  return panel("Start a run", form, h("p", { class: "muted" }, "Needs a key of scope write. " +
    "Both sides start from an empty cluster at the window's first event; seeds draw the " +
    "lifetimes of jobs only the other policy admits."));
}

function progressBar(run) {
  const p = run.progress || {};
  return h("span", { "data-testid": "progress" },
    h("progress", { max: p.events_total || 1, value: p.events_done || 0 }),
    ` ${fmt(p.events_done || 0)} / ${fmt(p.events_total || 0)}`);
}

function cancelButton(c, url, run, testid = `cancel-${run.id}`) {
  return h("button", { type: "button", "data-testid": testid, onclick: async (ev) => {
    ev.stopPropagation();
    try {
      await send("DELETE", `${url}/${run.id}`);
      clearProblem(c, "runs");
    } catch (err) {
      showProblem(c, "runs", err);
    }
  } }, "Cancel");
}

function runsPanel(c, url, runs, chosen, go) {
  const d = drafts.get(c.id);
  const rows = runs.map((r) => h("tr", {
    class: `clickable ${chosen && chosen.id === r.id ? "selected" : ""}`,
    "data-testid": `run-${r.id}`, "data-status": r.status,
    onclick: () => go("whatif", { c: c.id, run: r.id }) },
  td(new Date(r.created_at).toLocaleString()), td(question(r)),
  td(windowText(r.request.window)), td((r.request.seeds || []).join(", ")),
  td(chip(r.status)), td(progressBar(r)),
  td(OPEN.has(r.status) ? cancelButton(c, url, r) : "")));
  return panel(`Runs (${runs.length}, newest first)`,
    runs.length ? table(["asked", "question", "window", "seeds", "status", "progress", ""],
      rows, { "data-testid": "runs" }) :
      h("p", { class: "muted", "data-testid": "no-runs" }, "No runs yet: start one."),
    h("p", { class: "error", "data-testid": "runs-error" },
      ...problemView((d.problem || {}).runs).filter(Boolean)));
}

// -- one side's figures --------------------------------------------------------------------

// Each figure a summary has (measures.py): key, label, shown value, ok/bad where it has a
// bound (τ, ε).
function figures(s) {
  const out = [];
  const add = (key, label, value, cls = "") => out.push({ key, label, value, cls });
  if ("acceptance" in s) add("acceptance", "acceptance", pct(s.acceptance));
  for (const [t, x] of Object.entries(s.per_type || {}))
    add(`acceptance-${t}`, `acceptance of ${t || "(no type)"}`,
      `${pct(x.acceptance)} (${fmt(x.admitted)} of ${fmt(x.arrivals)})`);
  if ("reward_rate" in s) add("reward_rate", "reward rate", fmt(s.reward_rate));
  for (const [dim, u] of Object.entries(s.utilization || {}))
    add(`utilization-${dim}`, `utilisation (${dim}, time average)`, pct(u));
  if (s.queue_wait) {
    add("queue_wait-mean", "queue wait, mean", fmt(s.queue_wait.mean));
    add("queue_wait-p50", "queue wait, median", fmt(s.queue_wait.p50));
    add("queue_wait-p90", "queue wait, p90", fmt(s.queue_wait.p90));
    add("queue_wait-started", "jobs started", fmt(s.queue_wait.started));
  }
  const so = s.scale_outs;
  if (so) {
    const ok = so.failure_rate == null || so.sla == null || so.failure_rate <= so.sla;
    add("scale_outs", "scale-out failure rate vs SLA", `${pct(so.failure_rate)} vs ${pct(so.sla)}`,
      ok ? "ok" : "bad");
    add("scale_outs-denied", "scale-outs denied / requested",
      `${fmt(so.denied)} / ${fmt(so.requested)}`);
  }
  for (const [r, x] of Object.entries(s.reservations || {})) {
    add(`reserved-${r}`, `${r}: mean reservation`, fmt(x.mean_reserved));
    const ok = x.violation_rate == null || x.epsilon == null || x.violation_rate <= x.epsilon;
    add(`violations-${r}`, `${r}: violation rate vs ε`,
      `${pct(x.violation_rate)} vs ${pct(x.epsilon)}`, ok ? "ok" : "bad");
  }
  if ("cost_per_period" in s) add("cost_per_period", "reservation cost per period",
    fmt(s.cost_per_period));
  add("decisions", "decisions", Object.entries(s.decisions || {})
    .map(([k, n]) => `${k} ${fmt(n)}`).join(", ") || "none");
  return out;
}

// replay.py's over_seeds keys, as figure keys (and shares shown as percentages).
const SEEDED = { acceptance: ["acceptance", pct], reward_rate: ["reward_rate", fmt],
  "scale_outs/failure_rate": ["scale_outs", pct], cost_per_period: ["cost_per_period", fmt] };

function figuresTable(ran, alt, over, seeds) {
  const a = figures(ran.summary || {}), b = figures(alt.summary || {});
  const keys = [...new Set([...a, ...b].map((x) => x.key))];
  const seeded = Object.fromEntries(Object.entries(over || {}).filter(([k, v]) => v && SEEDED[k])
    .map(([k, v]) => [SEEDED[k][0], `${SEEDED[k][1](v.mean)} (${SEEDED[k][1](v.min)}–` +
      `${SEEDED[k][1](v.max)}, ${fmt(v.seeds)} seeds)`]));
  const n = over ? Object.values(over).find(Boolean)?.seeds : null;
  const cell = (list, k) => {
    const x = list.find((y) => y.key === k);
    return x ? td(x.value, { class: x.cls }) : td("—");
  };
  return table(["figure", `${ran.kind} (the policy that ran)`,
    `${alt.kind} (what if${over ? `, seed ${seeds[0]}` : ""})`,
    ...(over ? [`${alt.kind} over ${fmt(n)} seeds: mean (range)`] : [])],
  keys.map((k) => h("tr", { "data-testid": `fig-${k}` },
    td([...a, ...b].find((x) => x.key === k).label), cell(a, k), cell(b, k),
    over ? td(seeded[k] || "") : null)), { "data-testid": "figures" });
}

function assumptionsTable(side, testid) {
  return table(["assumption", "events", "meaning"], (side.assumptions || []).map((x) =>
    h("tr", { "data-testid": `${testid}-${x.assumption}` }, td(x.assumption), td(x.events),
      td(x.meaning))), { "data-testid": testid });
}

function refusals(side) {
  const r = Object.entries(side.refusals || {});
  return r.length ? h("p", { class: "muted" }, `Refused as invalid (dropped): ` +
    r.map(([code, n]) => `${code} ${fmt(n)}`).join(", ")) : null;
}

const subject = (e) => e.job_id ?? e.deployment_id ?? (e.period !== undefined ?
  `period ${e.period}` : "");

function answer(a) {
  if (a === null || a === undefined) return h("span", { class: "muted" }, "dropped");
  return [chip(a.decision), " ", a.reason || "", a.server_id ? ` on ${a.server_id}` : ""];
}

// A side's time: the log's order on placement clusters and streams, the events' `at` elsewhere
// (app/sim/whatif/jobs.py); a what-if's result says which.
const xLabel = (res, family) => (((res.lifetimes || {}).clock ??
  (family === "placement" || family === "reservations" ? "seq" : "at")) === "seq" ?
  "log position (seq)" : "time (the events' at)");

// Utilisation over the window, per side or candidate: a stream has none (its series is 0).
function utilisation(family, res, testid, series) {
  if (family === "reservations") return h("p", { class: "muted" },
    "A reservation stream holds no capacity: there is no utilisation to plot.");
  return lineChart({ testid, xLabel: xLabel(res, family), step: true, series });
}

function whatIfResult(c, family, res) {
  const ran = res.policy || {}, alt = res.alternative || {};
  const diff = res.differences || { count: 0, first: [] };
  const reproduces = ran.reproduces_log ? "reproduces every logged answer" :
    `answers ${fmt(ran.answers_not_logged)} events otherwise than the log`;
  return [
    h("p", { class: "muted", "data-testid": "result-window" },
      `${windowText({ from_seq: res.first_seq, to_seq: res.last_seq })} (${fmt(res.events)} ` +
      `events), seeds ${(res.seeds || []).join(", ")}. Replayed, ${ran.kind}, the policy ` +
      `that ran, ${reproduces}${ran.whole_log ? "" : " (a window: both sides start empty " +
      "at its first event)"}. ${res.random ? "Lifetimes were drawn: figures that depend " +
      "on them come with their range over the seeds." : "No lifetime was drawn: every " +
      "seed gives the same run."}`),
    h("div", { class: "row" },
      panel("Side by side", figuresTable(ran, alt, alt.over_seeds, res.seeds || [])),
      panel("Utilisation over the window", utilisation(family, res, "chart-whatif", [
        { name: `${ran.kind} (ran)`, points: (ran.summary || {}).series || [] },
        { name: `${alt.kind} (what if)`, points: (alt.summary || {}).series || [] }]))),
    panel(`What ${alt.kind} had to assume`, (alt.assumptions || []).length ?
      assumptionsTable(alt, "assumptions") : h("p", { class: "muted",
        "data-testid": "assumptions-none" }, "Nothing: the log defined every event it met."),
    refusals(alt),
    (ran.assumptions || []).length ? [h("p", {}, `and ${ran.kind}, the policy that ran:`),
      assumptionsTable(ran, "assumptions-ran")] : null, refusals(ran)),
    panel(diff.count ? `Decisions that differ: ${fmt(diff.count)}` +
      `${diff.count > diff.first.length ? ` (the first ${fmt(diff.first.length)})` : ""}` :
      "Decisions that differ: none",
    diff.first.length ? table(["seq", "event", "logged", `${ran.kind} (replayed)`,
      `${alt.kind} (what if)`], diff.first.map((x) => h("tr", { "data-testid": `diff-${x.seq}` },
      td(h("a", { href: `#/log?c=${c.id}&seq=${x.seq}` }, String(x.seq))),
      td(`${x.event.kind} ${subject(x.event)}${x.event.job_type ? ` (${x.event.job_type})` : ""}`),
      td(answer(x.logged)), td(answer(x.policy)), td(answer(x.alternative)))),
    { "data-testid": "differences" }) : h("p", { class: "muted" },
      "Both policies decided every event alike.")),
  ];
}

// -- the advisor's ranking -----------------------------------------------------------------

function constraintText(k) {
  if (!k) return "no constraint";
  if ("max_rejection" in k) return `rejecting at most ${pct(k.max_rejection)} of arrivals`;
  if ("failure_rate_at_most" in k)
    return `a scale-out failure rate at most ${pct(k.failure_rate_at_most)} (the cluster's τ)`;
  if (k.violation_rate_at_most_epsilon) return "a violation rate at most ε on every resource";
  return JSON.stringify(k);
}

function adviceResult(family, res) {
  const a = res.advice;
  const share = a.objective === "acceptance" || a.objective === "utilization";
  const score = (x) => (share ? pct(x) : fmt(x));
  const named = (x) => `${x.label}${x.is_current ? " (ran)" : ""}`;
  const assumed = (x) => {
    const list = Array.isArray(x.assumptions) ? x.assumptions.map((y) => [y.assumption, y.events])
      : Object.entries(x.assumptions || {});
    return list.map(([k, n]) => `${k} ${fmt(n)}`).join(", ") || "none";
  };
  return [
    h("p", { class: "statement", "data-testid": "advice-statement" }, a.statement),
    h("p", { class: "muted" }, `${windowText({ from_seq: res.first_seq, to_seq: res.last_seq })}` +
      ` (${fmt(res.events)} events), seeds ${(res.seeds || []).join(", ")}. Ranked by ` +
      `${NOUN[a.objective] || a.objective} (${a.better} is better)` +
      `${a.constraint ? `; candidates keeping ${constraintText(a.constraint)} rank first` : ""}.`),
    h("div", { class: "row" },
      panel("Ranking", table(["rank", "candidate", NOUN[a.objective] || a.objective,
        "range over seeds", "vs the policy that ran", "meets constraint", "assumptions"],
      a.ranking.map((x) => h("tr", { "data-testid": `rank-${x.rank}`,
        class: x.is_current ? "current" : "" }, td(x.rank), td(named(x)), td(score(x.score)),
      td(x.interval ? `${score(x.interval.min)}–${score(x.interval.max)} ` +
        `(${fmt(x.interval.seeds)} seeds)` : "—"), td(x.is_current ? "—" : signed(x.change)),
      td(x.meets_constraint ? "yes" : "no", { class: x.meets_constraint ? "ok" : "bad" }),
      td(assumed(x)))), { "data-testid": "ranking" }),
      (a.skipped || []).length ? h("div", {}, h("p", {}, "Not tried:"),
        h("ul", { "data-testid": "skipped" }, a.skipped.map((x) =>
          h("li", {}, `${policyLabel(x.policy)}: ${x.reason}`)))) : null),
      panel("Utilisation over the window, per candidate", utilisation(family, res,
        "chart-advice", a.ranking.map((x) => ({ name: named(x),
          points: (x.summary || {}).series || [] }))))),
  ];
}

function runPanel(c, family, url, run) {
  const title = `${question(run)}: ${run.status}`;
  if (run.status === "done" && run.result) {
    return h("div", { "data-testid": "run-result", "data-run": run.id },
      h("h2", {}, title),
      run.result.advice ? adviceResult(family, run.result) : whatIfResult(c, family, run.result));
  }
  const why = {
    queued: "Waiting for a worker of the service (HEADROOM_WHAT_IF_WORKERS) to take it.",
    running: `Replaying the window under ${run.request.advise ? "every candidate" :
      "both policies"}, off the decision path.`,
    failed: `Failed after ${fmt(run.attempts)} attempts: ${run.error || "no error given"}`,
    cancelled: "Cancelled before it finished.",
  }[run.status] || "";
  return h("div", { "data-testid": "run-result", "data-run": run.id },
    panel(title, h("p", { class: run.status === "failed" ? "error" : "muted",
      "data-testid": "run-status" }, why), OPEN.has(run.status) ?
      h("p", {}, progressBar(run), " ", cancelButton(c, url, run, "run-cancel")) : null));
}

export async function render({ params, inv, go }) {
  const list = [...inv.clusters, ...inv.streams];
  const c = list.find((x) => x.id === params.c) || list[0];
  if (!c) return h("p", { "data-testid": "page-whatif" }, "No clusters or streams.");
  const family = familyOfAny(inv, c);
  const url = `/v1/${isStream(inv, c) ? "reservations" : "clusters"}/${c.id}/what-if`;
  const runs = (await get(url)).items;
  const id = params.run || (runs[0] && runs[0].id);
  let chosen = null, missing = null;
  if (id) {
    try {
      chosen = await readRun(url, id);
    } catch (err) {
      if (err.status !== 404) throw err;
      missing = err.message;
    }
  }
  draft(c, family);
  const view = h("div", { "data-testid": "page-whatif" },
    clusterPicker(list, c, "whatif"),
    h("p", { class: "muted" }, `${family} ${isStream(inv, c) ? "stream" : "cluster"}, ` +
      `${fmt(c.version)} events logged, running ${c.policy.kind}. A run replays this log ` +
      "in the background under another policy (or ranks every kind) and never changes the " +
      "cluster."),
    h("div", { class: "row" }, runsPanel(c, url, runs, chosen, go),
      startForm(c, family, url, go)),
    chosen ? runPanel(c, family, url, chosen) : missing ? h("p", { class: "error",
      "data-testid": "run-missing" }, missing) : null);
  // Runs still moving: redrawn every poll, their progress and then their result.
  if (runs.some((r) => OPEN.has(r.status)) || (chosen && OPEN.has(chosen.status)))
    view.dataset.live = "true";
  return view;
}
