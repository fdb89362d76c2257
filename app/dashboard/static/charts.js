// Tiny SVG charts (no chart library: nothing to vendor, nothing fetched from elsewhere).

import { fmt, h } from "./dom.js";

const NS = "http://www.w3.org/2000/svg";
export const PALETTE = ["#2f5bd3", "#e07b00", "#1a7f37", "#c4320a", "#7a3fc4", "#0f8fa3",
  "#a15c00", "#d6409f", "#5b6b00", "#44546a"];
const W = 640, H = 220, M = { l: 56, r: 12, t: 12, b: 28 };

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

function niceMax(v) {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  return [1, 2, 2.5, 5, 10].map((m) => m * p).find((m) => m >= v);
}

function frame(svg, yMax, xLabel) {
  for (let i = 0; i <= 4; i++) {
    const y = M.t + (H - M.t - M.b) * (1 - i / 4);
    svg.append(s("line", { x1: M.l, x2: W - M.r, y1: y, y2: y, class: "axis" }),
      s("text", { x: M.l - 6, y: y + 4, "text-anchor": "end" }, fmt(yMax * i / 4)));
  }
  if (xLabel) svg.append(s("text", { x: W - M.r, y: H - 4, "text-anchor": "end" }, xLabel));
}

// Dashed horizontal lines (capacity, threshold, ε, x*), named in the legend with their value.
function targets(svg, hlines, Y, named) {
  for (const l of hlines) {
    const color = l.color || "#c4320a";
    svg.append(s("line", { x1: M.l, x2: W - M.r, y1: Y(l.y), y2: Y(l.y), stroke: color,
      "stroke-dasharray": "5 4" }));
    named.push({ name: `${l.name} (${fmt(l.y)})`, color });
  }
}

function legend(items) {
  return h("div", { class: "legend" }, items.map(({ name, color }) =>
    h("span", {}, h("i", { style: { background: color } }), name)));
}

// series: [{name, points: [[x, y], ...]}]; hlines: [{y, name}] drawn dashed (targets, SLAs).
export function lineChart({ series, hlines = [], xLabel = "", testid, step = false }) {
  const pts = series.flatMap((x) => x.points);
  const xs = pts.map((p) => p[0]);
  const yMax = niceMax(Math.max(0, ...pts.map((p) => p[1]), ...hlines.map((l) => l.y)));
  // The x range is the data's own (sampled series start when the page opened, not at 0).
  const x0 = xs.length ? Math.min(...xs) : 0;
  const x1 = xs.length && Math.max(...xs) > x0 ? Math.max(...xs) : x0 + 1;
  const X = (x) => M.l + (W - M.l - M.r) * (x - x0) / (x1 - x0 || 1);
  const Y = (y) => M.t + (H - M.t - M.b) * (1 - y / yMax);
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", "data-testid": testid });
  frame(svg, yMax, xLabel);
  svg.append(s("text", { x: M.l, y: H - 4 }, fmt(x0)),
    s("text", { x: (M.l + W - M.r) / 2, y: H - 4, "text-anchor": "middle" }, fmt((x0 + x1) / 2)));
  const named = [];
  series.forEach((ser, i) => {
    const color = ser.color || PALETTE[i % PALETTE.length];
    named.push({ name: ser.name, color });
    if (!ser.points.length) return;
    let d = "";
    ser.points.forEach(([x, y], j) => {
      if (j === 0) d += `M${X(x)},${Y(y)}`;
      else d += step ? `H${X(x)}V${Y(y)}` : `L${X(x)},${Y(y)}`;
    });
    // The points ride along as data: what is drawn can be read back (and tested).
    svg.append(s("path", { d, fill: "none", stroke: color, "stroke-width": 2,
      "data-series": ser.name, "data-points": JSON.stringify(ser.points) }));
    if (ser.points.length === 1) {
      const [x, y] = ser.points[0];
      svg.append(s("circle", { cx: X(x), cy: Y(y), r: 3, fill: color }));
    }
  });
  targets(svg, hlines, Y, named);
  return h("div", {}, svg, legend(named));
}

// Grouped bars: categories along x, one bar per series in each group.
export function barChart({ categories, series, hlines = [], testid, yMax: fixedMax }) {
  const vals = series.flatMap((x) => x.values).filter((v) => typeof v === "number");
  const yMax = fixedMax || niceMax(Math.max(0, ...vals, ...hlines.map((l) => l.y)));
  const Y = (y) => M.t + (H - M.t - M.b) * (1 - Math.min(y, yMax) / yMax);
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", "data-testid": testid });
  frame(svg, yMax, "");
  const gw = (W - M.l - M.r) / Math.max(categories.length, 1);
  const bw = Math.min(40, (gw * 0.8) / Math.max(series.length, 1));
  const named = series.map((ser, i) => ({ name: ser.name, color: ser.color || PALETTE[i] }));
  categories.forEach((cat, c) => {
    const gx = M.l + gw * c + (gw - bw * series.length) / 2;
    series.forEach((ser, i) => {
      const v = ser.values[c];
      if (typeof v !== "number") return;
      svg.append(s("rect", { x: gx + i * bw, y: Y(v), width: bw - 2, height: Y(0) - Y(v),
        fill: named[i].color }, s("title", {}, `${ser.name} ${cat}: ${fmt(v)}`)));
    });
    svg.append(s("text", { x: M.l + gw * (c + 0.5), y: H - 10, "text-anchor": "middle" }, cat));
  });
  targets(svg, hlines, Y, named);
  return h("div", {}, svg, legend(named));
}
