//! fsmc HTML page: pan and zoom the diagram, click a state to see its transitions, kind, data keys and docs.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("fsm-data").textContent);
  const svg = document.getElementById("diagram");
  const viewport = document.getElementById("viewport");
  const details = document.getElementById("details");
  const full = svg.viewBox.baseVal;
  const home = { x: full.x, y: full.y, w: full.width, h: full.height };
  // The smallest scale at which the fitted drawing's text is still readable (14px names at 7px).
  const READABLE = 0.5;
  let view = Object.assign({}, home);

  function apply() {
    svg.setAttribute("viewBox", [view.x, view.y, view.w, view.h].join(" "));
  }

  // The SVG point under a client position, given the current view (preserveAspectRatio: xMidYMid meet).
  function toSvg(cx, cy) {
    const r = svg.getBoundingClientRect();
    const scale = Math.max(view.w / r.width, view.h / r.height);
    const ox = (r.width * scale - view.w) / 2, oy = (r.height * scale - view.h) / 2;
    return { x: view.x - ox + (cx - r.left) * scale, y: view.y - oy + (cy - r.top) * scale, scale: scale };
  }

  function zoom(factor, cx, cy) {
    const r = svg.getBoundingClientRect();
    if (cx === undefined) { cx = r.left + r.width / 2; cy = r.top + r.height / 2; }
    const p = toSvg(cx, cy);
    const w = Math.min(Math.max(view.w * factor, home.w / 40), home.w * 8);
    const f = w / view.w;
    view = { x: p.x - (p.x - view.x) * f, y: p.y - (p.y - view.y) * f, w: w, h: view.h * f };
    apply();
  }

  viewport.addEventListener("wheel", function (e) {
    e.preventDefault();
    zoom(e.deltaY < 0 ? 1 / 1.15 : 1.15, e.clientX, e.clientY);
  }, { passive: false });

  let drag = null;
  viewport.addEventListener("pointerdown", function (e) {
    if (e.button !== 0) return;
    drag = { x: e.clientX, y: e.clientY, view: Object.assign({}, view), moved: false };
    try { viewport.setPointerCapture(e.pointerId); } catch (_) { /* a synthetic pointer cannot be captured */ }
  });
  viewport.addEventListener("pointermove", function (e) {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) { drag.moved = true; viewport.classList.add("dragging"); }
    const s = toSvg(0, 0).scale;
    view.x = drag.view.x - dx * s;
    view.y = drag.view.y - dy * s;
    apply();
  });
  viewport.addEventListener("pointerup", function (e) {
    const d = drag;
    drag = null;
    viewport.classList.remove("dragging");
    if (d && !d.moved) {
      const hit = document.elementsFromPoint(e.clientX, e.clientY).map(function (el) { return el.closest(".state"); }).find(Boolean);
      if (hit) select(Number(hit.dataset.state), false);
    }
  });
  document.getElementById("zoom-in").onclick = function () { zoom(1 / 1.3); };
  document.getElementById("zoom-out").onclick = function () { zoom(1.3); };
  document.getElementById("fit").onclick = function () { view = Object.assign({}, home); apply(); };

  function el(tag, attrs, children) {
    const e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { if (k === "text") e.textContent = attrs[k]; else e.setAttribute(k, attrs[k]); });
    (children || []).forEach(function (c) { e.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return e;
  }

  function stateLink(i) {
    const a = el("a", { text: data.states[i].name });
    a.onclick = function () { select(i, true); };
    return a;
  }

  function keys(title, list) {
    const out = [el("h3", { text: title })];
    out.push(list.length ? el("div", {}, list.map(function (k) { return el("code", { text: k }); }).reduce(function (acc, c) { if (acc.length) acc.push(" "); acc.push(c); return acc; }, []))
      : el("div", { class: "none", text: "none" }));
    return out;
  }

  function transitions(title, list, other) {
    const out = [el("h3", { text: title + " (" + list.length + ")" })];
    if (!list.length) { out.push(el("div", { class: "none", text: "none" })); return out; }
    out.push(el("table", {}, list.map(function (t) {
      const extra = t.guards.concat(t.actions.map(function (a) { return "do " + a; }));
      if (t.timeout) extra.push("timeout " + t.timeout);
      return el("tr", {}, [el("td", {}, [el("code", { text: t.event || "(direct)" })]), el("td", {}, [other === "to" ? "→ " : "← ", stateLink(t[other])]), el("td", { text: extra.join(", ") })]);
    })));
    return out;
  }

  function select(i, center) {
    const s = data.states[i];
    if (center && location.hash !== "#" + encodeURIComponent(s.name)) history.replaceState(null, "", "#" + encodeURIComponent(s.name));
    svg.querySelectorAll(".state").forEach(function (g) { g.classList.toggle("selected", Number(g.dataset.state) === i); });
    svg.querySelectorAll(".edge[data-from]").forEach(function (p) {
      const out = Number(p.dataset.from) === i, into = Number(p.dataset.to) === i && !out;
      p.classList.toggle("out", out);
      p.classList.toggle("in", into);
      const label = svg.querySelector('.edge-label[data-edge="' + p.dataset.edge + '"]');
      if (label) { label.classList.toggle("out", out); label.classList.toggle("in", into); }
    });
    const badges = [];
    if (s.default) badges.push(["default start", "start"]); else if (s.start) badges.push(["start", "start"]);
    if (s.final) badges.push(["final", "final"]);
    if (s.kind) badges.push([s.kind, "kind"]);
    if (s.reset) badges.push(["reset", ""]);
    if (s.cluster !== null) badges.push(["from " + data.clusters[s.cluster], ""]);
    const parts = [el("h2", { text: s.name }), el("div", {}, badges.map(function (b) { return el("span", { class: "badge " + b[1], text: b[0] }); }))];
    if (s.docs.length) parts.push(el("p", { class: "doc", text: s.docs.join("\n") }));
    s.attributes.forEach(function (a) { parts.push(el("div", {}, [el("code", { text: a[0] }), a[1] === null ? "" : " " + a[1]])); });
    parts.push.apply(parts, transitions("Outgoing", data.transitions.filter(function (t) { return t.from === i; }), "to"));
    parts.push.apply(parts, transitions("Incoming", data.transitions.filter(function (t) { return t.to === i; }), "from"));
    parts.push.apply(parts, keys("Reads", s.reads));
    parts.push.apply(parts, keys("Writes", s.writes));
    if (s.start || s.requires.length) parts.push.apply(parts, keys("Requires", s.requires));
    if (s.final || s.ensures.length) parts.push.apply(parts, keys("Ensures", s.ensures));
    parts.push(el("h3", { text: "All states (" + data.states.length + ")" }));
    parts.push(el("div", {}, data.states.map(function (_, k) { return el("span", { class: "badge" }, [stateLink(k)]); })));
    details.replaceChildren.apply(details, parts);
    if (center) {
      const g = svg.querySelector('.state[data-state="' + i + '"]');
      if (g) {
        // The state's centre in viewBox coordinates: its box mapped through the transforms above it.
        const b = g.getBBox();
        const m = svg.getScreenCTM().inverse().multiply(g.getScreenCTM());
        const x = b.x + b.width / 2, y = b.y + b.height / 2;
        view.x = m.a * x + m.c * y + m.e - view.w / 2;
        view.y = m.b * x + m.d * y + m.f - view.h / 2;
        apply();
      }
    }
  }

  // `page.html#StateName` opens with that state selected and centred.
  function fromHash() {
    const name = decodeURIComponent(location.hash.slice(1));
    return data.states.findIndex(function (s) { return s.name === name; });
  }
  window.addEventListener("hashchange", function () { const i = fromHash(); if (i >= 0) select(i, true); });
  const wanted = fromHash();
  const first = data.states.findIndex(function (s) { return s.default; });
  // The page opens with the whole drawing fitted to the diagram's area (beside the panel, never under it).
  // A drawing whose text would then be too small to read (under half its size) opens at a readable scale
  // instead, on the state shown in the panel; "Fit" still shows everything.
  const box = svg.getBoundingClientRect();
  const crowded = box.width > 0 && Math.min(box.width / home.w, box.height / home.h) < READABLE;
  if (crowded) { view.w = box.width / READABLE; view.h = box.height / READABLE; }
  if (data.states.length) select(wanted >= 0 ? wanted : first >= 0 ? first : 0, wanted >= 0 || crowded);
  document.body.dataset.ready = "1";
})();
