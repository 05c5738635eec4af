# ruff: noqa: E501  (the page script is kept as written, one statement a line)
"""The inline stylesheet and script of the HTML report (:mod:`codequorum.render.html_report`).

The script reads the JSON data block, draws the overview plots as SVG, and builds the table
one page at a time and a set's detail pane only when the set is opened. Every string from
the data is put into the page with ``textContent`` or as an SVG attribute, never as markup.
"""

from __future__ import annotations

import json

from codequorum.judge.verdicts import VERDICTS, html_colours
from codequorum.metrics.registry import FIGURES, labels, shown

PAGE_CSS = r"""
:root{--fg:#1d2330;--mute:#5b6475;--line:#dde1e8;--bg:#f6f7f9;--card:#fff;--acc:#2457c5}
*{box-sizing:border-box}
body{margin:0;font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);
background:var(--bg)}
header{padding:14px 24px 4px}h1{font-size:20px;margin:0}h2{font-size:16px;margin:18px 0 8px}
h3{font-size:13px;margin:0 0 4px;color:var(--mute);font-weight:600}
#meta{margin:4px 0 0;color:var(--mute)}
main{padding:0 24px 40px}
.cards{display:flex;flex-wrap:wrap;gap:10px;align-items:flex-start}
.card{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:8px 10px}
.card svg{display:block}
.mono,pre{font:12px/1.35 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.toolbar{display:flex;gap:10px;align-items:center;margin:8px 0}
.toolbar input{padding:4px 8px;border:1px solid var(--line);border-radius:4px;width:260px}
button{border:1px solid var(--line);background:var(--card);border-radius:4px;padding:3px 10px;
cursor:pointer}button:disabled{opacity:.4;cursor:default}
table{border-collapse:collapse;background:var(--card);border:1px solid var(--line)}
th,td{padding:3px 8px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap}
th{background:#eef0f4;cursor:pointer;user-select:none;position:sticky;top:0}
th.sorted-asc::after{content:" \25B2"}th.sorted-desc::after{content:" \25BC"}
td.t,th.t{text-align:left;max-width:380px;overflow:hidden;text-overflow:ellipsis}
tbody tr{cursor:pointer}tbody tr:hover{background:#eef3ff}tr.sel{background:#dfe8ff}
.v-stable{color:#2e7d32}.v-bad{color:#c62828}.v-mute{color:var(--mute)}
.pos{color:#2e7d32}.neg{color:#c62828}
#detail{margin-top:14px}
.detail{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:12px 16px}
.grid{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start}
.chip{display:inline-block;border:1px solid var(--line);border-radius:10px;padding:0 7px;
margin:1px 2px;font-size:12px}
.chip.rec{background:#d8f0dc;border-color:#2e7d32}.chip.far{background:#fbdada;border-color:#c62828}
pre{background:#fafbfc;border:1px solid var(--line);padding:8px;margin:4px 0;overflow:auto;
max-height:520px;min-width:360px;max-width:820px}
pre span{display:block;white-space:pre}pre .add{background:#e3f6e6}pre .del{background:#fde6e6}
.note{color:var(--mute);font-size:12px}
.list{width:420px;max-height:160px;overflow:auto;overflow-wrap:anywhere;color:var(--mute)}
"""

_PAGE_JS = r"""
(function () {
"use strict";
var D = JSON.parse(document.getElementById("cq-data").textContent);
var NS = "http://www.w3.org/2000/svg";
var LABELS = @LABELS@;
var COLS = ["Task", "n", "Verdict", "Risk", "Pctl", "Keep"].concat(
  D.metrics.map(function (m) { return LABELS[m] || m; }));
var FIRST_METRIC = 6, PAGE = 50;
var app = document.getElementById("app");
app.textContent = "";

function el(tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}
function sv(tag, attrs, parent) {
  var e = document.createElementNS(NS, tag);
  for (var k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}
function svgTitle(node, text) { var t = sv("title", {}, node); t.textContent = text; }
function fmt(x, d) { return (x === null || x === undefined) ? "\u2013" : x.toFixed(d === undefined ? 2 : d); }
function num(x) { return x.toLocaleString("en-US"); }
function vclass(code) {
  return @GOOD@ ? "v-stable" : (code === "insufficient" || code === "") ? "v-mute" : "v-bad";
}
var PALETTE = ["#ef6c00", "#6a1b9a", "#00838f", "#ad1457", "#4e342e", "#283593"];
var vcolors = @COLOURS@;
function vcolor(code) {
  if (!(code in vcolors)) vcolors[code] = PALETTE[Object.keys(vcolors).length % PALETTE.length];
  return vcolors[code];
}
function heatColor(v) {  // 0 -> pale, 1 -> deep blue
  var a = [247, 251, 255], b = [8, 48, 107];
  return "rgb(" + a.map(function (c, i) { return Math.round(c + (b[i] - c) * v); }).join(",") + ")";
}

// ------------------------------------------------------------------ header
var rows = D.rows, n = rows.length;
var scored = rows.filter(function (r) { return r[2] !== "insufficient"; }).length;
var meta = num(n) + " sets \u00b7 " + num(scored) + " scored \u00b7 " + num(n - scored) +
  " with too few versions";
if (D.n_errors) meta += " \u00b7 " + num(D.n_errors) + " input errors";
if (D.interrupted) meta += " \u00b7 interrupted: " + num(n) + " of " + num(D.total) + " scored";
if (D.version) meta += " \u00b7 codequorum " + D.version;
document.getElementById("meta").textContent = meta;

// ------------------------------------------------------------------ overview
function card(parent, title) {
  var c = el("div", "card"); c.appendChild(el("h3", null, title)); parent.appendChild(c); return c;
}
function column(k) {
  var out = [];
  for (var i = 0; i < n; i++) if (rows[i][k] !== null && rows[i][k] !== undefined) out.push(rows[i][k]);
  return out;
}
function histogram(parent, title, values, mean, median) {  // median: the figure given is a median
  if ((mean === null || mean === undefined) && values.length) {
    mean = values.reduce(function (a, b) { return a + b; }, 0) / values.length;
  }
  var c = card(parent, title + (mean !== null && mean !== undefined ? (median ? " \u00b7 median " : " \u00b7 mean ") + fmt(mean) : ""));
  var W = 220, H = 86, B = 20, lo = 0, hi = 1;
  var svg = sv("svg", {width: W, height: H + 16, viewBox: "0 0 " + W + " " + (H + 16)}, c);
  if (!values.length) { sv("text", {x: 4, y: 40, fill: "#5b6475", "font-size": 11}, svg).textContent = "no values"; return; }
  var mn = Math.min.apply(null, values), mx = Math.max.apply(null, values);
  if (mn < 0 || mx > 1) { lo = mn; hi = mx > mn ? mx : mn + 1; }
  var log = lo > 0 && hi / lo > 100;  // ratios spanning orders of magnitude (BEF)
  var f = log ? Math.log10 : function (v) { return v; }, flo = f(lo), fhi = f(hi);
  var counts = new Array(B).fill(0);
  values.forEach(function (v) { counts[Math.min(B - 1, Math.floor((f(v) - flo) / (fhi - flo) * B))]++; });
  var top = Math.max.apply(null, counts), bw = W / B;
  counts.forEach(function (k, i) {
    var h = top ? Math.round(k / top * (H - 4)) : 0;
    var r = sv("rect", {x: i * bw + 0.5, y: H - h, width: bw - 1, height: h, fill: "#2457c5"}, svg);
    var g = function (t) { var x = flo + t * (fhi - flo) / B; return log ? Math.pow(10, x) : x; };
    svgTitle(r, fmt(g(i)) + "\u2013" + fmt(g(i + 1)) + ": " + k + " sets");
  });
  sv("line", {x1: 0, x2: W, y1: H + 0.5, y2: H + 0.5, stroke: "#999"}, svg);
  sv("text", {x: 0, y: H + 13, "font-size": 10, fill: "#5b6475"}, svg).textContent = fmt(lo);
  sv("text", {x: W, y: H + 13, "font-size": 10, fill: "#5b6475", "text-anchor": "end"}, svg).textContent = fmt(hi) + (log ? " (log scale)" : "");
}
function verdictBars(parent) {
  var entries = Object.keys(D.verdicts).map(function (k) { return [k, D.verdicts[k]]; });
  if (n - scored) entries.push(["insufficient", n - scored]);
  entries.sort(function (a, b) { return b[1] - a[1]; });
  var c = card(parent, "Verdicts");
  var W = 300, RH = 18, svg = sv("svg", {width: W, height: Math.max(1, entries.length) * RH + 4}, c);
  var top = Math.max.apply(null, entries.map(function (e) { return e[1]; }).concat([1]));
  entries.forEach(function (e, i) {
    var w = Math.max(1, Math.round(e[1] / top * 110));
    sv("rect", {x: 150, y: i * RH + 3, width: w, height: RH - 6, fill: vcolor(e[0])}, svg);
    sv("text", {x: 146, y: i * RH + 14, "font-size": 11, "text-anchor": "end"}, svg).textContent = e[0];
    sv("text", {x: 154 + w, y: i * RH + 14, "font-size": 11}, svg).textContent = num(e[1]);
  });
}
function scatter(parent, xi, yi) {
  var pts = [];
  for (var i = 0; i < n; i++) if (rows[i][xi] !== null && rows[i][yi] !== null) pts.push(i);
  if (!pts.length) return;
  var c = card(parent, "Stability (" + LABELS.jsd_struct + ") against pass rate \u00b7 " + num(pts.length) + " sets");
  var W = 300, H = 200, P = 28;
  var svg = sv("svg", {width: W + P + 10, height: H + P + 12, viewBox: "0 -8 " + (W + P + 10) + " " + (H + P + 12)}, c);
  sv("rect", {x: P, y: 0, width: W, height: H, fill: "none", stroke: "#ccc"}, svg);
  [0, 0.5, 1].forEach(function (t) {
    sv("text", {x: P + t * W, y: H + 14, "font-size": 10, "text-anchor": "middle", fill: "#5b6475"}, svg).textContent = t;
    sv("text", {x: P - 4, y: H - t * H + 4, "font-size": 10, "text-anchor": "end", fill: "#5b6475"}, svg).textContent = t;
  });
  sv("text", {x: P + W / 2, y: H + 27, "font-size": 10, "text-anchor": "middle"}, svg).textContent = "pass rate";
  pts.forEach(function (i) {
    var r = rows[i];
    var dot = sv("circle", {cx: (P + r[xi] * W).toFixed(1), cy: (H - r[yi] * H).toFixed(1), r: 2.6,
      fill: vcolor(r[2]), "fill-opacity": 0.6}, svg);
    svgTitle(dot, r[0] + ": pass " + fmt(r[xi]) + ", JSD " + fmt(r[yi]));
    dot.addEventListener("click", function () { showDetail(i, true); });
  });
}
var MODEL_COLOURS = ["#2457c5", "#c62828", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f"];
function calibrationPlot(parent, models) {  // per model: [name, graded, wrong, risk, auroc, ece, rows]
  var c = card(parent, "Risk against kept versions wrong, per model");
  var S = 200, P = 28;
  var svg = sv("svg", {width: S + P + 10, height: S + P + 12, viewBox: "0 -8 " + (S + P + 10) + " " + (S + P + 12)}, c);
  sv("rect", {x: P, y: 0, width: S, height: S, fill: "none", stroke: "#ccc"}, svg);
  sv("line", {x1: P, y1: S, x2: P + S, y2: 0, stroke: "#bbb", "stroke-dasharray": "4 3"}, svg);
  [0, 0.5, 1].forEach(function (t) {
    sv("text", {x: P + t * S, y: S + 14, "font-size": 10, "text-anchor": "middle", fill: "#5b6475"}, svg).textContent = t;
    sv("text", {x: P - 4, y: S - t * S + 4, "font-size": 10, "text-anchor": "end", fill: "#5b6475"}, svg).textContent = t;
  });
  sv("text", {x: P + S / 2, y: S + 27, "font-size": 10, "text-anchor": "middle"}, svg).textContent = "mean risk (bin)";
  models.forEach(function (m, k) {
    var colour = MODEL_COLOURS[k % MODEL_COLOURS.length];
    var pts = m[6].map(function (r) { return (P + r[0] * S).toFixed(1) + "," + (S - r[1] * S).toFixed(1); });
    sv("polyline", {points: pts.join(" "), fill: "none", stroke: colour}, svg);
    m[6].forEach(function (r) {
      var dot = sv("circle", {cx: (P + r[0] * S).toFixed(1), cy: (S - r[1] * S).toFixed(1), r: 2 + Math.sqrt(r[2]) / 4, fill: colour, "fill-opacity": 0.6}, svg);
      svgTitle(dot, m[0] + ": risk " + fmt(r[0]) + ", wrong " + fmt(r[1]) + " (" + r[2] + " sets)");
    });
    var key = sv("svg", {width: S + P + 10, height: 16}, c);
    sv("rect", {x: 2, y: 4, width: 10, height: 10, fill: colour}, key);
    sv("text", {x: 16, y: 13, "font-size": 11}, key).textContent = m[0] + ": " + num(m[1]) +
      " sets, wrong " + fmt(m[2]) + ", mean risk " + fmt(m[3]) + ", AUROC " + fmt(m[4]) + ", ECE " + fmt(m[5]);
  });
}
app.appendChild(el("h2", null, "The corpus at a glance"));
var cards = el("div", "cards"); app.appendChild(cards);
verdictBars(cards);
var passCol = D.metrics.indexOf("pass_rate_mean"), jsdCol = D.metrics.indexOf("jsd_struct");
if (passCol >= 0 && jsdCol >= 0) scatter(cards, FIRST_METRIC + passCol, FIRST_METRIC + jsdCol);
D.metrics.forEach(function (m, k) { histogram(cards, LABELS[m] || m, column(FIRST_METRIC + k), D.overall[m], m.indexOf("bef") === 0); });
histogram(cards, "Risk that the kept version is wrong", column(3), null);
if (D.calibration && D.calibration.length) calibrationPlot(cards, D.calibration);
if (D.risk_levels && D.risk_levels.length) {
  var levels = card(cards, "Risk level per model");
  D.risk_levels.forEach(function (line) { levels.appendChild(el("p", "note", line)); });
}

// ------------------------------------------------------------------ comparison
function compareSection() {
  var C = D.compare;
  app.appendChild(el("h2", null, "This run against " + C.name));
  var box = el("div", "cards"); app.appendChild(box);
  var ov = card(box, "Means over the scored sets");
  var t = el("table"), hr = el("tr");
  ["Figure", "this run", C.name, "\u0394"].forEach(function (h) { hr.appendChild(el("th", h === "Figure" ? "t" : null, h)); });
  t.appendChild(el("thead")).appendChild(hr);
  var tb = t.appendChild(el("tbody"));
  C.overall.forEach(function (o) {
    var tr = el("tr");
    tr.appendChild(el("td", "t", LABELS[o[0]] || o[0]));
    tr.appendChild(el("td", null, fmt(o[1], 4))); tr.appendChild(el("td", null, fmt(o[2], 4)));
    var d = (o[1] !== null && o[2] !== null) ? o[1] - o[2] : null;
    tr.appendChild(el("td", d === null ? null : d >= 0 ? "pos" : "neg", d === null ? "\u2013" : (d >= 0 ? "+" : "") + d.toFixed(4)));
    tb.appendChild(tr);
  });
  ov.appendChild(t);
  var pc = card(box, "Per task, largest change first (" + num(C.rows.length) + " tasks in both)");
  var bar = el("div", "toolbar"); pc.appendChild(bar);
  bar.appendChild(el("span", null, "figure"));
  var sel = el("select"); bar.appendChild(sel);
  C.metrics.forEach(function (m, k) { var o = el("option", null, LABELS[m] || m); o.value = k; sel.appendChild(o); });
  var more = el("button", null, "show more");
  var ct = el("table"), cth = el("tr");
  ["Task", "this run", C.name, "\u0394", "verdict", "verdict (" + C.name + ")"].forEach(function (h, i) {
    cth.appendChild(el("th", i === 0 ? "t" : null, h));
  });
  ct.appendChild(el("thead")).appendChild(cth);
  var ctb = ct.appendChild(el("tbody")); pc.appendChild(ct); pc.appendChild(more);
  var shown = 25, order = [];
  function sortBy() {
    var k = +sel.value, base = 1 + 3 * k;
    order = C.rows.slice().sort(function (a, b) {
      var x = a[base + 2], y = b[base + 2];
      if (x === null) return y === null ? 0 : 1; if (y === null) return -1;
      return Math.abs(y) - Math.abs(x);
    });
    draw();
  }
  function draw() {
    var k = +sel.value, base = 1 + 3 * k, V = 1 + 3 * C.metrics.length;
    ctb.textContent = "";
    order.slice(0, shown).forEach(function (r) {
      var tr = el("tr");
      tr.appendChild(el("td", "t", r[0]));
      tr.appendChild(el("td", null, fmt(r[base], 4))); tr.appendChild(el("td", null, fmt(r[base + 1], 4)));
      var d = r[base + 2];
      tr.appendChild(el("td", d === null ? null : d >= 0 ? "pos" : "neg", d === null ? "\u2013" : (d >= 0 ? "+" : "") + d.toFixed(4)));
      tr.appendChild(el("td", vclass(r[V]), r[V])); tr.appendChild(el("td", vclass(r[V + 1]), r[V + 1]));
      var at = rowIndexByTask[r[0]];
      if (at !== undefined) tr.addEventListener("click", function () { showDetail(at, true); });
      ctb.appendChild(tr);
    });
    more.disabled = shown >= order.length;
  }
  sel.addEventListener("change", function () { shown = 25; sortBy(); });
  more.addEventListener("click", function () { shown += 50; draw(); });
  sortBy();
  [["Only in this run", C.only_a], ["Only in " + C.name, C.only_b]].forEach(function (p) {
    var c = card(box, p[0] + ": " + num(p[1].length));
    var list = p[1].slice(0, 200).join(", ") + (p[1].length > 200 ? " \u2026 and " + num(p[1].length - 200) + " more" : "");
    c.appendChild(el("div", "list mono", list || "none"));
  });
}
var rowIndexByTask = {};
for (var ri = n - 1; ri >= 0; ri--) rowIndexByTask[rows[ri][0]] = ri;
if (D.compare) compareSection();

// ------------------------------------------------------------------ table
app.appendChild(el("h2", null, "Sets"));
var bar = el("div", "toolbar"); app.appendChild(bar);
var filter = el("input"); filter.type = "search"; filter.placeholder = "filter by task or verdict";
filter.id = "filter"; bar.appendChild(filter);
var prev = el("button", null, "\u2039 previous"), next = el("button", null, "next \u203a");
var info = el("span", "note"); info.id = "page-info";
bar.appendChild(prev); bar.appendChild(next); bar.appendChild(info);
var table = el("table"); table.id = "sets"; app.appendChild(table);
var headRow = el("tr"); table.appendChild(el("thead")).appendChild(headRow);
var body = el("tbody"); table.appendChild(body);
var detailBox = el("div"); detailBox.id = "detail"; app.appendChild(detailBox);
var view = [], page = 0, sortCol = -1, sortDir = 1, selected = -1;
var verdictNames = rows.map(function (r) { return r[2].toLowerCase(); });
COLS.forEach(function (c, k) {
  var th = el("th", k === 0 ? "t" : null, c);
  th.addEventListener("click", function () { sortDir = sortCol === k ? -sortDir : (k === 0 || k === 2 ? 1 : -1); sortCol = k; refresh(); });
  headRow.appendChild(th);
});
function refresh() {
  var q = filter.value.trim().toLowerCase(), exact = verdictNames.indexOf(q) >= 0;
  view = [];
  for (var i = 0; i < n; i++) {  // a whole verdict name ("stable") matches only that verdict
    var v = rows[i][2].toLowerCase();
    if (!q || rows[i][0].toLowerCase().indexOf(q) >= 0 || (exact ? v === q : v.indexOf(q) >= 0)) view.push(i);
  }
  if (sortCol >= 0) {
    view.sort(function (a, b) {
      var x = rows[a][sortCol], y = rows[b][sortCol];
      if (x === null || x === undefined) return (y === null || y === undefined) ? a - b : 1;
      if (y === null || y === undefined) return -1;
      var c = typeof x === "string" ? x.localeCompare(y, undefined, {numeric: true}) : x - y;
      return c ? c * sortDir : a - b;
    });
  }
  Array.prototype.forEach.call(headRow.children, function (th, k) {
    th.className = (k === 0 ? "t " : "") + (k === sortCol ? (sortDir > 0 ? "sorted-asc" : "sorted-desc") : "");
  });
  page = 0; drawPage();
}
function drawPage() {
  var pages = Math.max(1, Math.ceil(view.length / PAGE));
  page = Math.min(page, pages - 1);
  body.textContent = "";
  var frag = document.createDocumentFragment();
  view.slice(page * PAGE, (page + 1) * PAGE).forEach(function (i) {
    var r = rows[i], tr = el("tr");
    if (i === selected) tr.className = "sel";
    tr.appendChild(el("td", "t", r[0])).title = r[0];
    tr.appendChild(el("td", null, r[1]));
    tr.appendChild(el("td", vclass(r[2]), r[2]));
    tr.appendChild(el("td", null, fmt(r[3])));
    tr.appendChild(el("td", null, r[4] === null ? "\u2013" : Math.round(r[4]) + "%"));
    tr.appendChild(el("td", null, r[5] === null ? "\u2013" : "v" + r[5]));
    for (var k = FIRST_METRIC; k < r.length; k++) tr.appendChild(el("td", null, fmt(r[k])));
    tr.addEventListener("click", function () { showDetail(i, true); });
    frag.appendChild(tr);
  });
  body.appendChild(frag);
  info.textContent = view.length ? "rows " + num(page * PAGE + 1) + "\u2013" + num(Math.min(view.length, (page + 1) * PAGE)) +
    " of " + num(view.length) : "no set matches";
  prev.disabled = page === 0; next.disabled = page >= pages - 1;
}
filter.addEventListener("input", refresh);
prev.addEventListener("click", function () { page--; drawPage(); });
next.addEventListener("click", function () { page++; drawPage(); });
refresh();

// ------------------------------------------------------------------ detail
function decodeHeat(b64, size, sym) {  // sym: the upper triangle, diagonal included, row by row
  var s = atob(b64), out = new Array(size * size), k = 0;
  if (s.length !== (sym ? size * (size + 1) / 2 : size * size)) return null;
  for (var i = 0; i < size; i++) {
    for (var j = sym ? i : 0; j < size; j++) {
      var c = s.charCodeAt(k++), v = c === 255 ? null : c / 100;
      out[i * size + j] = v;
      if (sym) out[j * size + i] = v;
    }
  }
  return out;
}
function heatmap(parent, d) {
  var size = d.ix.length, cells = d.h ? decodeHeat(d.h, size, d.hs) : null;
  if (!cells) { parent.appendChild(el("p", "note", "No similarity matrix in this report.")); return; }
  var order = [];
  d.cl.forEach(function (g) { g.forEach(function (v) { var p = d.ix.indexOf(v); if (p >= 0 && order.indexOf(p) < 0) order.push(p); }); });
  for (var p = 0; p < size; p++) if (order.indexOf(p) < 0) order.push(p);
  var lo = 1;  // colours span this set's range: the least alike pair is palest
  cells.forEach(function (v) { if (v !== null && v < lo) lo = v; });
  var span = 1 - lo > 0.05 ? 1 - lo : 0.05;
  lo = 1 - span;
  var cs = Math.max(3, Math.min(26, Math.floor(420 / size))), L = cs >= 12 ? 30 : 4;
  var svg = sv("svg", {width: L + size * cs + 2, height: L + size * cs + 2}, parent);
  order.forEach(function (pi, a) {
    if (L > 4) {
      sv("text", {x: L - 3, y: L + a * cs + cs / 2 + 4, "font-size": 10, "text-anchor": "end"}, svg).textContent = "v" + (d.ix[pi] + 1);
      sv("text", {x: L + a * cs + cs / 2, y: L - 4, "font-size": 10, "text-anchor": "middle"}, svg).textContent = "v" + (d.ix[pi] + 1);
    }
    order.forEach(function (pj, b) {
      var v = cells[pi * size + pj];
      var r = sv("rect", {x: L + b * cs, y: L + a * cs, width: cs, height: cs, fill: v === null ? "#ddd" : heatColor((v - lo) / span)}, svg);
      if (size <= 40) svgTitle(r, "v" + (d.ix[pi] + 1) + " \u2192 v" + (d.ix[pj] + 1) + ": " + fmt(v));
    });
  });
  var y = 0;
  d.cl.forEach(function (g) {  // outline each group on the diagonal
    var k = g.filter(function (v) { return d.ix.indexOf(v) >= 0; }).length;
    if (k > 1) sv("rect", {x: L + y * cs, y: L + y * cs, width: k * cs, height: k * cs, fill: "none", stroke: "#ef6c00", "stroke-width": 1.5}, svg);
    y += k;
  });
  parent.appendChild(el("p", "note", "JSD similarity (structure), versions grouped by shape (outlined); pale = " + fmt(lo) + ", deep blue = 1.00."));
}
function codeBlock(parent, lines, cls) {
  var pre = el("pre"), frag = document.createDocumentFragment();
  lines.forEach(function (line, i) { frag.appendChild(el("span", cls ? cls[i] : null, line)); });
  pre.appendChild(frag); parent.appendChild(pre);
}
function showDetail(i, scroll) {
  selected = i; drawPage();
  var r = rows[i], d = D.details[i];
  detailBox.textContent = "";
  var box = el("div", "detail"); detailBox.appendChild(box);
  box.appendChild(el("h2", null, r[0]));
  box.appendChild(el("p", vclass(r[2]), r[2] + (d.msg ? ": " + d.msg : "")));
  if (r[5] !== null) {
    var line = "Keep v" + r[5] + (d.rb ? " (by " + d.rb + ")" : "") + (d.rc ? ": " + d.rc : "");
    if (d.tr) line += " \u00b7 " + d.tr;
    if (r[4] !== null) line += " \u00b7 more alike than " + Math.round(r[4]) + "% of HumanEval sets";
    box.appendChild(el("p", null, line));
  }
  var facts = [];
  if (d.syn) facts.push(d.syn + (d.syn === 1 ? " version" : " versions") + " with syntax errors");
  if (d.sk) facts.push(d.sk + (d.sk === 1 ? " empty version" : " empty versions") + " left out");
  d.notes.forEach(function (t) { facts.push(t); });
  if (facts.length) box.appendChild(el("p", "note", facts.join(" \u00b7 ")));
  var grid = el("div", "grid"); box.appendChild(grid);
  var left = el("div"); grid.appendChild(left);
  left.appendChild(el("h3", null, "Similarity heatmap"));
  heatmap(left, d);
  left.appendChild(el("h3", null, "Groups of one shape (" + d.cl.length + ")"));
  var groups = el("div"); left.appendChild(groups);
  d.cl.forEach(function (g, k) {
    var row = el("div"); row.appendChild(el("span", "note", "group " + (k + 1) + " (" + g.length + "): "));
    g.forEach(function (v) {
      var cls = "chip" + (r[5] === v + 1 ? " rec" : d.far === v ? " far" : "");
      row.appendChild(el("span", cls, "v" + (v + 1) + (d.med === v ? " medoid" : "")));
    });
    groups.appendChild(row);
  });
  var right = el("div"); grid.appendChild(right);
  if (d.diff !== undefined) {
    var dl = d.diff.split("\n");
    right.appendChild(el("h3", null, "Recommended version v" + r[5]));
    codeBlock(right, dl.filter(function (x) { return x[0] !== "+"; }).map(function (x) { return x.slice(1); }));
    right.appendChild(el("h3", null, "v" + (d.far + 1) + ", the most different" +
      (d.fs !== null ? " (similarity " + fmt(d.fs) + ")" : "") + ", against v" + r[5]));
    codeBlock(right, dl, dl.map(function (x) { return x[0] === "+" ? "add" : x[0] === "-" ? "del" : null; }));
  } else if (d.code !== undefined) {
    right.appendChild(el("h3", null, "Recommended version v" + r[5]));
    codeBlock(right, d.code.split("\n"));
  } else if (r[5] !== null) {
    right.appendChild(el("p", "note", "The versions' code is not in this report."));
  }
  if (scroll) detailBox.scrollIntoView({block: "nearest"});
}
if (D.errors.length) {
  app.appendChild(el("h2", null, "Input errors (" + num(D.n_errors) + ")"));
  D.errors.forEach(function (e) { app.appendChild(el("div", "mono note", e)); });
}
var hash = /^#set=(\d+)$/.exec(location.hash);
if (hash && +hash[1] < n) {
  var t0 = performance.now();
  showDetail(+hash[1]);
  document.body.setAttribute("data-detail-ms", Math.round(performance.now() - t0));
}
document.body.setAttribute("data-ready", "1");  // milliseconds since navigation began:
document.body.setAttribute("data-ready-ms", Math.round(performance.now()));
requestAnimationFrame(function () {  // the frame after: styles, layout and paint done
  setTimeout(function () { document.body.setAttribute("data-painted-ms", Math.round(performance.now())); }, 0);
});
})();
"""


def _object_key(name: str) -> str:
    """A key of a JavaScript object literal: bare when it is a name, else quoted."""
    return name if name.isidentifier() else json.dumps(name)


def _verdict_script(script: str) -> str:
    """``script`` with the verdicts' styles from :mod:`codequorum.judge.verdicts`: which
    codes are good, and the fixed colours."""
    good = " || ".join(f"code === {json.dumps(s.code)}" for s in VERDICTS if s.style.good)
    colours = ", ".join(f"{_object_key(code)}: {json.dumps(colour)}"
                        for code, colour in html_colours().items())
    return script.replace("@GOOD@", good).replace("@COLOURS@", "{" + colours + "}")


#: Labels of the page's own columns beside the figures'.
_OWN_LABELS = {"risk": "Risk"}


def _labels_script(script: str) -> str:
    """``script`` with the labels of the figures the page shows, from
    :mod:`codequorum.metrics.registry`, wrapped as written by hand (lines of at most 100)."""
    names = labels()
    keys = [f.key for f in shown(FIGURES, "html")]
    items = [f"{_object_key(k)}: {json.dumps(names[k])}" for k in keys]
    items += [f"{_object_key(k)}: {json.dumps(v)}" for k, v in _OWN_LABELS.items()]
    lines, line = [], "var LABELS = {"
    for k, item in enumerate(items):
        piece = item + ("," if k < len(items) - 1 else "};")
        if len(line) + 1 + len(piece) > 100 and line.strip():
            lines.append(line)
            line = "  " + piece
        else:
            line = line + ("" if line.endswith("{") else " ") + piece
    lines.append(line)
    return script.replace("var LABELS = @LABELS@;", "\n".join(lines))


PAGE_JS = _labels_script(_verdict_script(_PAGE_JS))
