//! fsmc HTML page: pan and zoom the diagram, click a state to see its transitions, kind, data keys and docs,
//! find a state or event by name.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("fsm-data").textContent);
  const svg = document.getElementById("diagram");
  const viewport = document.getElementById("viewport");
  const details = document.getElementById("details");
  const full = svg.viewBox.baseVal;
  const home = { x: full.x, y: full.y, w: full.width, h: full.height };
  // The smallest scale at which the drawing's text is still readable (14px names at 7px): what a search
  // zooms in to when it moves to a match.
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

  // A name with line-break opportunities only between its words (after `_`, `-`, `.` or `:`, and where a
  // capital follows a lower-case letter or digit), so the panel wraps a long name but never inside a word.
  function breakable(name) {
    const out = [];
    let word = "";
    for (let k = 0; k < name.length; k++) {
      const c = name[k], prev = k ? name[k - 1] : "";
      if (word && (/[_\-.:]/.test(prev) || (/[A-Z]/.test(c) && /[a-z0-9]/.test(prev)))) {
        out.push(word, document.createElement("wbr"));
        word = "";
      }
      word += c;
    }
    out.push(word);
    return out;
  }

  function stateLink(i) {
    const a = el("a", {}, breakable(data.states[i].name));
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
    const parts = [el("h2", {}, breakable(s.name)), el("div", {}, badges.map(function (b) { return el("span", { class: "badge " + b[1], text: b[0] }); }))];
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
    if (center) centre(svg.querySelector('.state[data-state="' + i + '"]'), false);
  }

  // Moves the view so element `g` is in its middle, zoomed in to a readable scale first when `readable` and
  // the view is smaller than that.
  function centre(g, readable) {
    if (!g) return;
    const r = svg.getBoundingClientRect();
    const scale = Math.min(r.width / view.w, r.height / view.h);
    if (readable && r.width > 0 && scale < READABLE) { view.w = r.width / READABLE; view.h = r.height / READABLE; }
    // The element's centre in viewBox coordinates: its box mapped through the transforms above it.
    const b = g.getBBox();
    const m = svg.getScreenCTM().inverse().multiply(g.getScreenCTM());
    const x = b.x + b.width / 2, y = b.y + b.height / 2;
    view.x = m.a * x + m.c * y + m.e - view.w / 2;
    view.y = m.b * x + m.d * y + m.f - view.h / 2;
    apply();
  }

  // Search: the states whose name contains the text typed, then the arrows of the transitions whose event's
  // name does (case ignored), all highlighted; the view moves to the first, Enter to the next, Shift+Enter
  // back, Escape clears.
  const search = document.getElementById("search"), found = document.getElementById("found");
  let matches = [], at = -1;
  function find(text) {
    svg.querySelectorAll(".found, .current").forEach(function (e) { e.classList.remove("found", "current"); });
    matches = [];
    at = -1;
    const q = text.trim().toLowerCase();
    if (!q) { found.textContent = ""; return; }
    data.states.forEach(function (s, i) {
      if (s.name.toLowerCase().indexOf(q) >= 0) matches.push({ state: i, el: svg.querySelector('.state[data-state="' + i + '"]') });
    });
    const pairs = {};
    data.transitions.forEach(function (t) {
      if (t.event !== null && t.event.toLowerCase().indexOf(q) >= 0) pairs[t.from + " " + t.to] = true;
    });
    svg.querySelectorAll(".edge[data-from]").forEach(function (p) {
      if (!pairs[p.dataset.from + " " + p.dataset.to]) return;
      const label = svg.querySelector('.edge-label[data-edge="' + p.dataset.edge + '"]');
      p.classList.add("found");
      if (label) label.classList.add("found");
      matches.push({ state: null, el: label || p });
    });
    matches.forEach(function (m) { if (m.el) m.el.classList.add("found"); });
    found.textContent = matches.length ? matches.length + " found" : "none found";
    step(1);
  }
  function step(by) {
    if (!matches.length) return;
    if (at >= 0 && matches[at].el) matches[at].el.classList.remove("current");
    at = (at + by + matches.length) % matches.length;
    const m = matches[at];
    if (m.el) m.el.classList.add("current");
    if (matches.length > 1) found.textContent = (at + 1) + " of " + matches.length;
    if (m.state !== null) select(m.state, false);
    centre(m.el, true);
  }
  search.addEventListener("input", function () { find(search.value); });
  search.addEventListener("keydown", function (e) {
    if (e.key === "Enter") { e.preventDefault(); step(e.shiftKey ? -1 : 1); }
    if (e.key === "Escape") { search.value = ""; find(""); }
  });

  // `page.html#StateName` opens with that state selected and centred.
  function fromHash() {
    const name = decodeURIComponent(location.hash.slice(1));
    return data.states.findIndex(function (s) { return s.name === name; });
  }
  window.addEventListener("hashchange", function () { const i = fromHash(); if (i >= 0) select(i, true); });
  const wanted = fromHash();
  const first = data.states.findIndex(function (s) { return s.default; });
  // The page opens with the whole drawing fitted to the diagram's area (beside the panel, never under it),
  // however large: the search and the zoom find the parts. A state named in the URL is centred instead.
  if (data.states.length) select(wanted >= 0 ? wanted : first >= 0 ? first : 0, wanted >= 0);
  document.body.dataset.ready = "1";
})();
