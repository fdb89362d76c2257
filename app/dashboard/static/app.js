// The dashboard's shell: the key prompt, hash routing and the live loop.
//
// Live updates are polling, chosen over server-sent events because every read it makes is
// an existing, cacheable API call: each POLL_MS the page lists the owner's clusters and
// streams (a plain database read, no engine) and compares their versions with what it drew.
// Only when a version moved does it re-read that cluster's /state (one engine read per
// viewer per change) and the new log entries after its cursor. See docs/dashboard.md.
// A page whose view shows something that moves without a version (a what-if run queued or
// running) marks it `data-live`: it is redrawn every poll until it no longer does.

import { AuthError, all, key } from "./api.js";
import { h } from "./dom.js";
import * as overview from "./page-overview.js";
import * as placement from "./page-placement.js";
import * as queues from "./page-queues.js";
import * as moments from "./page-moments.js";
import * as reservations from "./page-reservations.js";
import * as log from "./page-log.js";
import * as whatif from "./page-whatif.js";

const PAGES = { overview, placement, queues, moments, reservations, log, whatif };
const POLL_MS = 2000;
// Wall-clock queues advance without events (clock progress, tick lag): redraw now and then.
const IDLE_REDRAW_MS = 15000;

const main = document.getElementById("main");
const status = document.getElementById("status");
let drawn = { route: null, versions: null, at: 0, live: false };
let busy = false;

function route() {
  const [path, query = ""] = location.hash.replace(/^#\/?/, "").split("?");
  const page = PAGES[path] ? path : "overview";
  return { page, params: Object.fromEntries(new URLSearchParams(query)), raw: location.hash };
}

export function go(page, params = {}) {
  const q = new URLSearchParams(Object.entries(params).filter(([, v]) => v));
  location.hash = `#/${page}${q.toString() ? "?" + q : ""}`;
}

async function inventory() {
  const [clusters, streams] = await Promise.all([all("/v1/clusters"), all("/v1/reservations")]);
  return { clusters, streams };
}

function fingerprint(inv) {
  return JSON.stringify([...inv.clusters, ...inv.streams].map((c) => [c.id, c.version, c.name]));
}

async function tick(force = false) {
  const used = key.get();
  if (busy || !used) return;
  busy = true;
  try {
    const r = route();
    const inv = await inventory();
    // "Forget key" (or a new key) while this poll was in flight: draw nothing it read, or the
    // previous owner's view would replace the key prompt and stay (no key, no next poll).
    if (key.get() !== used) return;
    const versions = fingerprint(inv);
    const stale = Date.now() - drawn.at > IDLE_REDRAW_MS;
    // While the user types in one of the page's fields the redraw waits (it would replace
    // the field under the cursor) until the field loses focus; a route change does not wait.
    // The what-if form keeps what was typed across redraws.
    const field = document.activeElement;
    const editing = main.contains(field) && field.matches("input, select, textarea");
    const due = versions !== drawn.versions || stale || drawn.live;
    if (force || r.raw !== drawn.route || (due && !editing)) {
      for (const a of document.querySelectorAll("#nav a"))
        a.classList.toggle("active", a.dataset.page === r.page);
      const view = await PAGES[r.page].render({ params: r.params, inv, go });
      if (key.get() !== used) return;
      main.replaceChildren(view);
      drawn = { route: r.raw, versions, at: Date.now(), live: view.dataset.live === "true" };
    }
    status.textContent = `live · ${inv.clusters.length} clusters, ${inv.streams.length} ` +
      `streams · checked ${new Date().toLocaleTimeString()}`;
    status.dataset.state = "live";
  } catch (err) {
    if (err instanceof AuthError) askForKey(err.message);
    else {
      status.textContent = `error: ${err.message}`;
      status.dataset.state = "error";
    }
  } finally {
    busy = false;
    // Polls finished, drawn or not: lets a test (or a curious operator) see that a poll ended.
    status.dataset.polls = String(Number(status.dataset.polls || 0) + 1);
  }
}

function askForKey(message = "") {
  key.clear();
  main.replaceChildren(h("p", { "data-testid": "needs-key" },
    "This dashboard needs an API key with the read scope."));
  status.textContent = "no key";
  document.getElementById("key-error").textContent = message;
  const dialog = document.getElementById("key-dialog");
  if (!dialog.open) dialog.showModal();
}

document.getElementById("key-form").addEventListener("submit", () => {
  key.set(document.getElementById("key-input").value.trim());
  document.getElementById("key-input").value = "";
  document.getElementById("forget-key").hidden = false;
  tick(true);
});
document.getElementById("forget-key").addEventListener("click", () => askForKey());
window.addEventListener("hashchange", () => tick(true));

if (key.get()) {
  document.getElementById("forget-key").hidden = false;
  tick(true);
} else {
  askForKey();
}
setInterval(tick, POLL_MS);
