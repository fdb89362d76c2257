// Small DOM helpers. Text always goes in as text nodes: names, job ids and reasons come from
// API callers, so nothing from the API is ever parsed as HTML.

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    // Through the CSSOM: the page's Content-Security-Policy refuses style attributes.
    else if (k === "style") Object.assign(el.style, v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function fmt(x, digits = 3) {
  if (x === null || x === undefined) return "—";
  if (typeof x === "boolean") return x ? "yes" : "no";
  if (typeof x !== "number") return String(x);
  if (Number.isInteger(x)) return x.toLocaleString("en-US");
  const a = Math.abs(x);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return x.toExponential(2);
  return x.toLocaleString("en-US", { maximumFractionDigits: digits });
}

export const pct = (x) => (x === null || x === undefined ? "—" : `${(100 * x).toFixed(1)}%`);

export function kpi(label, value, testid, cls = "") {
  return h("div", { class: "kpi" }, h("div", { class: "label" }, label),
    h("div", { class: `value ${cls}`, "data-testid": testid }, value));
}

export function panel(title, ...children) {
  return h("section", { class: "panel" }, h("h2", {}, title), ...children);
}

export function table(headers, rows, attrs = {}) {
  return h("table", attrs, h("thead", {}, h("tr", {}, headers.map((x) => h("th", {}, x)))),
    h("tbody", {}, rows));
}

export function td(value, attrs = {}) {
  const numeric = typeof value === "number";
  return h("td", { class: numeric ? "num" : "", ...attrs }, numeric ? fmt(value) : value);
}

export const chip = (decision) => h("span", { class: `chip ${decision}` }, decision);

// Read a possibly missing nested field: other work may add or rename fields of /state.
export function dig(obj, ...path) {
  let cur = obj;
  for (const p of path) {
    if (cur === null || cur === undefined) return undefined;
    cur = cur[p];
  }
  return cur;
}
