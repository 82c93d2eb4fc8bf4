"""Pan, zoom, fit and search for the report's graph pictures: one small local script.

The pictures are plain inline SVG and read without it; the script, written next to the pages
as ``graphview.js``, only adds navigation for large graphs (a 500-node AOT joint graph is far
wider than a window). It loads nothing, talks to nothing and needs no server.
"""

from __future__ import annotations

SCRIPT_NAME = "graphview.js"

SCRIPT = r"""
"use strict";
(function () {
  function setBox(svg, box) {
    svg.setAttribute("viewBox", box.x + " " + box.y + " " + box.w + " " + box.h);
  }
  function getBox(svg) {
    var v = svg.viewBox.baseVal;
    return { x: v.x, y: v.y, w: v.width, h: v.height };
  }
  function enhance(holder) {
    var svg = holder.querySelector("svg");
    if (!svg || holder.dataset.graphview || holder.offsetParent === null) return;
    holder.dataset.graphview = "1";
    var full = svg.getBBox();
    var whole = { x: full.x - 8, y: full.y - 8, w: full.width + 16, h: full.height + 16 };
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
    var view = document.createElement("div");
    view.className = "graphview";
    holder.parentNode.insertBefore(view, holder);
    var bar = document.createElement("div");
    bar.className = "graphbar";
    view.appendChild(bar);
    view.appendChild(holder);
    holder.classList.add("navigable");
    // never drawn larger than its natural size; a big graph is fitted into the window
    var scale = Math.min(1, holder.clientWidth / whole.w);
    var tall = Math.min(Math.max(whole.h * scale, 120), window.innerHeight * 0.75);
    holder.style.height = tall + "px";
    function button(label, title, act) {
      var b = document.createElement("button");
      b.type = "button"; b.textContent = label; b.title = title;
      b.addEventListener("click", act); bar.appendChild(b); return b;
    }
    function fit(box) { setBox(svg, box || whole); }
    function zoom(factor, cx, cy) {
      var b = getBox(svg);
      if (cx === undefined) { cx = b.x + b.w / 2; cy = b.y + b.h / 2; }
      var w = Math.min(Math.max(b.w * factor, 20), whole.w * 4);
      var h = b.h * (w / b.w);
      setBox(svg, { x: cx - (cx - b.x) * (w / b.w), y: cy - (cy - b.y) * (h / b.h), w: w, h: h });
    }
    button("Fit", "show the whole graph", function () { fit(); });
    button("+", "zoom in", function () { zoom(0.7); });
    button("\u2212", "zoom out", function () { zoom(1 / 0.7); });
    var search = document.createElement("input");
    search.type = "search"; search.placeholder = "find a node (Enter: next)";
    bar.appendChild(search);
    var status = document.createElement("span");
    status.className = "graphstatus"; bar.appendChild(status);
    var nodes = Array.prototype.slice.call(svg.querySelectorAll("g.node"));
    var hits = [], at = -1;
    function boxOf(g) {
      // the node's box in the svg's own units: dot's output nests nodes in a transformed group
      var b = g.getBBox(), m = svg.getScreenCTM().inverse().multiply(g.getScreenCTM());
      var p = svg.createSVGPoint(), xs = [], ys = [];
      [[b.x, b.y], [b.x + b.width, b.y + b.height]].forEach(function (c) {
        p.x = c[0]; p.y = c[1]; var q = p.matrixTransform(m); xs.push(q.x); ys.push(q.y);
      });
      return { x: Math.min(xs[0], xs[1]), y: Math.min(ys[0], ys[1]),
               width: Math.abs(xs[1] - xs[0]), height: Math.abs(ys[1] - ys[0]) };
    }
    function focusNode(g) {
      var r = boxOf(g), pad = Math.max(r.width, r.height) * 2 + 40;
      var w = Math.max(r.width + pad, 200), vb = getBox(svg), h = w * (vb.h / vb.w);
      setBox(svg, { x: r.x + r.width / 2 - w / 2, y: r.y + r.height / 2 - h / 2, w: w, h: h });
    }
    function find(text) {
      nodes.forEach(function (g) { g.classList.remove("hit", "current"); });
      text = text.trim().toLowerCase();
      hits = !text ? [] : nodes.filter(function (g) {
        return g.textContent.toLowerCase().indexOf(text) >= 0;
      });
      hits.forEach(function (g) { g.classList.add("hit"); });
      at = -1;
      status.textContent = text ? hits.length + " found" : "";
      if (hits.length) next();
    }
    function next() {
      if (!hits.length) return;
      if (at >= 0) hits[at].classList.remove("current");
      at = (at + 1) % hits.length;
      hits[at].classList.add("current");
      status.textContent = (at + 1) + " of " + hits.length;
      focusNode(hits[at]);
    }
    search.addEventListener("input", function () { find(search.value); });
    search.addEventListener("keydown", function (e) {
      if (e.key === "Enter") { e.preventDefault(); next(); }
    });
    holder.addEventListener("wheel", function (e) {
      e.preventDefault();
      var pt = svg.createSVGPoint(); pt.x = e.clientX; pt.y = e.clientY;
      var p = pt.matrixTransform(svg.getScreenCTM().inverse());
      zoom(e.deltaY > 0 ? 1.15 : 1 / 1.15, p.x, p.y);
    }, { passive: false });
    var drag = null;
    holder.addEventListener("pointerdown", function (e) {
      if (e.button !== 0) return;
      drag = { x: e.clientX, y: e.clientY, box: getBox(svg), moved: false };
    });
    window.addEventListener("pointermove", function (e) {
      if (!drag) return;
      var scale = drag.box.w / holder.clientWidth;
      var dx = (e.clientX - drag.x) * scale, dy = (e.clientY - drag.y) * scale;
      if (Math.abs(e.clientX - drag.x) + Math.abs(e.clientY - drag.y) > 3) drag.moved = true;
      setBox(svg, { x: drag.box.x - dx, y: drag.box.y - dy, w: drag.box.w, h: drag.box.h });
    });
    window.addEventListener("pointerup", function () { setTimeout(function () { drag = null; }, 0); });
    holder.addEventListener("click", function (e) {
      if (drag && drag.moved) { e.preventDefault(); e.stopPropagation(); }
    }, true);
    fit();
  }
  function all() {
    Array.prototype.forEach.call(document.querySelectorAll("div.graph"), enhance);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", all);
  else all();
  document.addEventListener("toggle", all, true);
})();
"""

CSS = """
.graphview { margin: 6px 0 12px; }
.graphbar { display: flex; gap: 6px; align-items: center; margin-bottom: 4px; }
.graphbar button { font: inherit; padding: 1px 9px; border: 1px solid var(--line);
                   border-radius: 4px; background: var(--soft); cursor: pointer; }
.graphbar input { font: inherit; padding: 1px 6px; width: 260px; }
.graphstatus { color: var(--muted); font-size: 12px; }
.graph.navigable { overflow: hidden; max-height: none; cursor: grab; touch-action: none; }
.graph.navigable svg { width: 100%; height: 100%; }
.graph g.node.hit rect, .graph g.node.hit polygon, .graph g.node.hit ellipse, .graph g.node.hit path {
  stroke: #e91e63; stroke-width: 3px; }
.graph g.node.current rect, .graph g.node.current polygon, .graph g.node.current ellipse, .graph g.node.current path {
  fill: #ffe0ef; }
"""
