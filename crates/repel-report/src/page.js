// repel report: draws the model embedded in #model. No scheduling logic here: every verdict
// comes from the model, computed by repel's engine. Errors are written into #errors (tests
// assert it stays empty); <body data-ready="true"> once everything is drawn.
"use strict";
(function () {
  var t0 = performance.now();
  var errors = document.getElementById("errors");
  function fail(msg) { errors.textContent += msg + "\n"; }
  window.addEventListener("error", function (e) { fail("script error: " + e.message); });

  var M = JSON.parse(document.getElementById("model").textContent);
  var PAGE = 200;
  var LABEL = { "lands": "\u2713 lands", "avoided": "~ avoided", "blocked": "\u2715 blocked", "no-room": "\u25a1 no room" };

  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) {
      if (attrs[k] === null || attrs[k] === undefined) continue;
      if (k === "text") e.textContent = attrs[k];
      else if (k === "cls") e.className = attrs[k];
      else e.setAttribute(k, attrs[k]);
    }
    (kids || []).forEach(function (c) { if (c !== null && c !== undefined) e.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return e;
  }
  function table(head, sortable) {
    var t = el("table"), tr = el("tr");
    head.forEach(function (h, i) {
      var th = el("th", { text: h, scope: "col" });
      if (sortable) { th.className = "sortable"; th.tabIndex = 0; th.dataset.col = i; }
      tr.appendChild(th);
    });
    t.appendChild(el("thead", null, [tr]));
    t.appendChild(el("tbody"));
    return t;
  }
  function findingsOf(obj) { return byObject[obj] || []; }
  var byObject = {};
  M.findings.forEach(function (f, i) { (byObject[f.object] = byObject[f.object] || []).push(i); });

  // ---- header
  document.getElementById("source").textContent = M.source;
  var s = M.summary;
  document.getElementById("summary").textContent = s.nodes + " nodes, " + s.pods + " pods (" + s.pending +
    " pending), " + M.pools.length + " pools, " + s.workloads + " workloads; computed in " + s.computeSeconds.toFixed(2) + " s";

  // ---- 1. inventory: one row per pool and taint
  (function () {
    var t = table(["pool", "found by", "nodes", "taint", "effect", "on nodes", "tolerated by"]);
    var body = t.tBodies[0];
    M.pools.forEach(function (p) {
      var rows = p.taintDetails.length ? p.taintDetails : [null];
      rows.forEach(function (d, i) {
        var tr = el("tr", { "data-pool": p.name, "data-taint": d ? d.taint : "" });
        if (i === 0) {
          tr.appendChild(el("td", { rowspan: rows.length }, [el("strong", { text: p.name })]));
          tr.appendChild(el("td", { rowspan: rows.length, text: p.kind + (p.label ? " (" + p.label + ")" : "") }));
          tr.appendChild(el("td", { rowspan: rows.length, text: p.nodeCount + (p.cordoned ? " (" + p.cordoned + " cordoned)" : "") }));
        }
        if (!d) { tr.appendChild(el("td", { colspan: 4, cls: "muted", text: "no taints" })); }
        else {
          tr.appendChild(el("td", null, [el("code", { text: d.taint })]));
          tr.appendChild(el("td", { text: d.effect }));
          tr.appendChild(el("td", { text: p.nodeCount ? d.nodes + " of " + p.nodeCount : "template" }));
          var who = d.toleratedBy.join(", ") + (d.toleratedByMore ? " and " + d.toleratedByMore + " more" : "");
          tr.appendChild(el("td", { text: who || "none", cls: who ? "" : "muted" }));
        }
        body.appendChild(tr);
      });
    });
    document.getElementById("inventory-table").appendChild(t);
  })();

  // ---- 2. matrix
  (function () {
    var nsSel = document.getElementById("ns"), text = document.getElementById("q");
    var namespaces = {};
    M.workloads.forEach(function (w) { namespaces[w.namespace] = true; });
    Object.keys(namespaces).sort().forEach(function (n) { nsSel.appendChild(el("option", { value: n, text: n })); });
    var head = ["workload", "kind", "namespace", "pods"].concat(M.pools.map(function (p) { return p.name; }));
    var t = table(head, true);
    t.id = "matrix";
    t.setAttribute("role", "grid");
    var body = t.tBodies[0];
    var sortCol = -1, sortDir = 1, shown = PAGE;
    var order = { "lands": 0, "avoided": 1, "no-room": 2, "blocked": 3 };
    function rows() {
      var ns = nsSel.value, q = text.value.toLowerCase();
      var out = M.workloads.filter(function (w) {
        if (ns && w.namespace !== ns) return false;
        if (!q) return true;
        if (w.workload.toLowerCase().indexOf(q) >= 0) return true;
        return M.classes[w.class].cells.some(function (c) { return c.taint && c.taint.toLowerCase().indexOf(q) >= 0; });
      });
      if (sortCol >= 0) {
        var key = function (w) {
          if (sortCol === 0) return w.name; if (sortCol === 1) return w.kind;
          if (sortCol === 2) return w.namespace; if (sortCol === 3) return w.pods;
          return order[M.classes[w.class].cells[sortCol - 4].verdict];
        };
        out.sort(function (a, b) { var x = key(a), y = key(b); return (x < y ? -1 : x > y ? 1 : 0) * sortDir; });
      }
      return out;
    }
    function draw() {
      var list = rows();
      body.textContent = "";
      list.slice(0, shown).forEach(function (w) {
        var tr = el("tr");
        var name = el("th", { scope: "row" }, [w.name]);
        findingsOf(w.workload).forEach(function (i) {
          var f = M.findings[i];
          name.appendChild(el("a", { href: "#finding-" + i, cls: "badge sev-" + f.severity, title: f.message, text: f.rule }));
        });
        tr.appendChild(name);
        tr.appendChild(el("td", { text: w.kind }));
        tr.appendChild(el("td", { text: w.namespace }));
        tr.appendChild(el("td", { text: String(w.pods) }));
        M.classes[w.class].cells.forEach(function (c) {
          var td = el("td", {
            cls: "v v-" + c.verdict, tabindex: "-1", role: "gridcell",
            "data-workload": w.workload, "data-pool": c.pool, "data-verdict": c.verdict,
            "data-taint": c.verdict === "blocked" && c.taint ? c.taint : null,
            title: c.reason + (c.toleration ? "\n\nTo tolerate it:\n" + c.toleration : "")
          }, [LABEL[c.verdict]]);
          if (c.taint) td.appendChild(el("span", { cls: "t", text: c.taint }));
          tr.appendChild(td);
        });
        body.appendChild(tr);
      });
      var first = body.querySelector("td.v");
      if (first) first.tabIndex = 0;
      document.getElementById("matrix-count").textContent = "showing " + Math.min(shown, list.length) + " of " + list.length + " workloads";
      document.getElementById("more").hidden = list.length <= shown;
    }
    function details(td) {
      var w = M.workloads.find(function (x) { return x.workload === td.dataset.workload; });
      var c = M.classes[w.class].cells.find(function (x) { return x.pool === td.dataset.pool; });
      var d = document.getElementById("details");
      d.textContent = "";
      d.appendChild(el("p", null, [el("strong", { text: w.workload }), " on pool ", el("strong", { text: c.pool }), ": ",
        el("span", { cls: "v-" + c.verdict, text: LABEL[c.verdict] })]));
      d.appendChild(el("p", { text: c.reason }));
      if (w.tolerations.length) d.appendChild(el("p", { cls: "muted", text: "its tolerations: " + w.tolerations.join("; ") }));
      if (c.toleration) {
        d.appendChild(el("p", { text: "To let it in, add to spec.tolerations:" }));
        var pre = el("pre", { text: c.toleration });
        d.appendChild(pre);
        var b = el("button", { type: "button", text: "copy" });
        b.addEventListener("click", function () { if (navigator.clipboard) navigator.clipboard.writeText(c.toleration); });
        d.appendChild(b);
      }
    }
    body.addEventListener("click", function (e) { var td = e.target.closest("td.v"); if (td) { td.focus(); details(td); } });
    body.addEventListener("keydown", function (e) {
      var td = e.target.closest("td.v"); if (!td) return;
      var tr = td.parentElement, i = Array.prototype.indexOf.call(tr.children, td), next = null;
      if (e.key === "ArrowRight") next = td.nextElementSibling;
      else if (e.key === "ArrowLeft") next = td.previousElementSibling;
      else if (e.key === "ArrowDown" && tr.nextElementSibling) next = tr.nextElementSibling.children[i];
      else if (e.key === "ArrowUp" && tr.previousElementSibling) next = tr.previousElementSibling.children[i];
      else if (e.key === "Enter" || e.key === " ") { details(td); e.preventDefault(); return; }
      if (next && next.classList.contains("v")) { td.tabIndex = -1; next.tabIndex = 0; next.focus(); e.preventDefault(); }
    });
    function sortBy(th) {
      var c = +th.dataset.col;
      sortDir = c === sortCol ? -sortDir : 1; sortCol = c;
      t.querySelectorAll("th.sortable").forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", sortDir > 0 ? "ascending" : "descending");
      draw();
    }
    t.tHead.addEventListener("click", function (e) { var th = e.target.closest("th.sortable"); if (th) sortBy(th); });
    t.tHead.addEventListener("keydown", function (e) { var th = e.target.closest("th.sortable"); if (th && (e.key === "Enter" || e.key === " ")) { sortBy(th); e.preventDefault(); } });
    nsSel.addEventListener("change", function () { shown = PAGE; draw(); });
    text.addEventListener("input", function () { shown = PAGE; draw(); });
    document.getElementById("more").addEventListener("click", function () { shown += PAGE * 5; draw(); });
    document.getElementById("matrix-table").appendChild(t);
    draw();
  })();

  // ---- 3. DaemonSet coverage
  (function () {
    var box = document.getElementById("coverage-table");
    if (!M.coverage.length) { box.appendChild(el("p", { cls: "muted", text: "No DaemonSets." })); return; }
    var t = table(["DaemonSet"].concat(M.pools.map(function (p) { return p.name; })));
    M.coverage.forEach(function (c) {
      var tr = el("tr", null, [el("th", { scope: "row", text: c.daemonset })]);
      c.pools.forEach(function (p) {
        var trap = p.intended > p.wouldRun;
        var td = el("td", {
          cls: trap ? "trap" : "", "data-daemonset": c.daemonset, "data-pool": p.pool,
          "data-intended": p.intended, "data-would-run": p.wouldRun, "data-taint": p.taint || null,
          title: "meant for " + p.intended + " of " + p.of + " node(s); its controller runs it on " + p.wouldRun
        }, [p.wouldRun + " / " + p.intended + " of " + p.of]);
        if (trap) td.appendChild(el("span", { cls: "t", text: "\u2715 misses " + (p.intended - p.wouldRun) + (p.taint ? ": " + p.taint : "") }));
        tr.appendChild(td);
      });
      t.tBodies[0].appendChild(tr);
    });
    box.appendChild(el("p", { cls: "muted", text: "Each cell: nodes it would run on / nodes its selector and affinity pick, of the pool's nodes. A red cell: meant for nodes it does not run on." }));
    box.appendChild(t);
  })();

  // ---- 4. drain readiness
  (function () {
    var box = document.getElementById("drain-table");
    var t = table(["pool", "nodes", "kubectl drain", "cluster-autoscaler", "Karpenter"]);
    function frac(n, of) { return el("td", { cls: n === of ? "ok" : "bad", text: n + " of " + of + " drainable" }); }
    M.drainPools.forEach(function (p) {
      var tr = el("tr", { "data-pool": p.pool }, [el("th", { scope: "row", text: p.pool }), el("td", { text: String(p.nodes) }),
        frac(p.kubectl, p.nodes), frac(p.clusterAutoscaler, p.nodes), frac(p.karpenter, p.nodes)]);
      t.tBodies[0].appendChild(tr);
    });
    box.appendChild(t);
    if (!M.drainNodes.length) return;
    var d = el("details", null, [el("summary", { text: "nodes (" + M.drainNodes.length + (M.summary.nodes > M.drainNodes.length ? " not drainable by some judge" : "") + ")" })]);
    var n = table(["node", "pool", "kubectl drain", "cluster-autoscaler", "Karpenter"]);
    function v(x) {
      return el("td", { cls: x.drainable ? "ok" : "bad", text: x.drainable ? "\u2713 drainable" : "\u2715 " + (x.reason || "") + (x.message ? ": " + x.message : "") });
    }
    M.drainNodes.forEach(function (x) {
      n.tBodies[0].appendChild(el("tr", { "data-node": x.node, "data-pool": x.pool }, [el("th", { scope: "row", text: x.node }),
        el("td", { text: x.pool }), v(x.kubectl), v(x.clusterAutoscaler), v(x.karpenter)]));
    });
    d.appendChild(n);
    box.appendChild(d);
  })();

  // ---- 5. lint findings
  (function () {
    var box = document.getElementById("findings-table");
    if (!M.findings.length) { box.appendChild(el("p", { cls: "muted", text: "No findings." })); return; }
    var t = table(["severity", "rule", "object", "message", "fix"]);
    M.findings.forEach(function (f, i) {
      t.tBodies[0].appendChild(el("tr", { id: "finding-" + i, "data-rule": f.rule, "data-object": f.object }, [
        el("td", { cls: "sev-" + f.severity, text: f.severity }), el("td", null, [el("code", { text: f.rule })]),
        el("td", { text: f.object + (f.path ? " " + f.path : "") }), el("td", { text: f.message }),
        el("td", null, [el("pre", { text: f.fix })])]));
    });
    box.appendChild(t);
  })();

  // ---- 6. scenario timeline
  (function () {
    var sec = document.getElementById("timeline");
    if (M.timelineEnd === undefined || M.timelineEnd === null) { sec.hidden = true; return; }
    var T = M.timeline, end = Math.max(M.timelineEnd, 1);
    var lanes = [];
    function lane(n) { if (n && lanes.indexOf(n) < 0) lanes.push(n); }
    T.forEach(function (e) { lane(e.node); });
    var W = 1000, L = 170, H = 26, top = 24, h = top + lanes.length * H + 10;
    var NS = "http://www.w3.org/2000/svg";
    function s(tag, attrs, kids) {
      var e = document.createElementNS(NS, tag);
      for (var k in attrs) if (attrs[k] !== null && attrs[k] !== undefined) e.setAttribute(k, attrs[k]);
      (kids || []).forEach(function (c) { e.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
      return e;
    }
    function x(at) { return L + (W - L - 10) * at / end; }
    function fmt(sec) { sec = Math.round(sec); var m = Math.floor(sec / 60), r = sec % 60; return m ? m + "m" + (r ? r + "s" : "") : r + "s"; }
    var svg = s("svg", { viewBox: "0 0 " + W + " " + h, width: "100%", role: "img", "aria-label": "timeline of the scenario per node" });
    for (var k = 0; k <= 5; k++) {
      var at = end * k / 5;
      svg.appendChild(s("text", { x: x(at), y: 12, "text-anchor": "middle" }, [fmt(at)]));
      svg.appendChild(s("line", { x1: x(at), x2: x(at), y1: 16, y2: h, class: "lane" }));
    }
    lanes.forEach(function (n, i) {
      var y = top + i * H;
      svg.appendChild(s("text", { x: 4, y: y + 16 }, [n.length > 26 ? n.slice(0, 25) + "\u2026" : n]));
      svg.appendChild(s("line", { x1: L, x2: W - 10, y1: y + H - 2, y2: y + H - 2, class: "lane" }));
    });
    // Pod lifetimes: from Scheduled on a node to the pod's next eviction, deletion or the end.
    var open = {};
    var ENDS = { "TaintManagerEviction": 1, "Killing": 1, "Preempted": 1, "Evicted": 1, "Deleted": 1, "NodeLost": 1 };
    function bar(pod, from, to, node, evicted) {
      var i = lanes.indexOf(node); if (i < 0) return;
      var y = top + i * H + 6;
      svg.insertBefore(s("rect", { x: x(from), y: y, width: Math.max(x(to) - x(from), 1), height: 10, class: "pod" + (evicted ? " evicted" : ""), "data-pod": pod },
        [s("title", {}, [pod + " on " + node + " " + fmt(from) + "\u2013" + fmt(to)])]), svg.firstChild);
    }
    T.forEach(function (e) {
      if (!e.pod) return;
      if (e.event === "Scheduled" && e.node) open[e.pod] = { at: e.at, node: e.node };
      else if (ENDS[e.event] && open[e.pod]) { bar(e.pod, open[e.pod].at, e.at, open[e.pod].node, e.event === "TaintManagerEviction"); delete open[e.pod]; }
    });
    Object.keys(open).forEach(function (p) { bar(p, open[p].at, end, open[p].node, false); });
    // Marks: every event with a node lane; evictions with their tolerationSeconds countdown.
    var marks = [];
    T.forEach(function (e, idx) {
      var i = lanes.indexOf(e.node); if (i < 0) return;
      var y = top + i * H + 11, cx = x(e.at);
      var cls = "mark" + (e.event === "TaintManagerEviction" ? " ev-evict" : e.event === "Step" ? " ev-step" : "");
      if (e.countdown) svg.appendChild(s("line", { x1: x(Math.max(e.at - e.countdown, 0)), x2: cx, y1: y, y2: y, class: "countdown" },
        [s("title", {}, ["tolerationSeconds " + e.countdown + "s: tolerated from " + fmt(e.at - e.countdown) + " until " + fmt(e.at)])]));
      var m = s("circle", { cx: cx, cy: y, r: 5, class: cls, tabindex: "0", "data-event": e.event, "data-at": String(e.at),
        "data-pod": e.pod || null, "data-node": e.pod ? null : e.node, "data-index": idx, id: "mark-" + idx },
        [s("title", {}, [fmt(e.at) + " " + e.event + " " + (e.pod || e.node) + ": " + e.message])]);
      svg.appendChild(m); marks[idx] = m;
    });
    document.getElementById("gantt").appendChild(svg);
    // The events table, linked both ways with the marks.
    var t = table(["at", "event", "type", "pod / node", "message"]);
    function select(idx, from) {
      document.querySelectorAll(".sel").forEach(function (e) { e.classList.remove("sel"); });
      var row = document.getElementById("event-" + idx), m = marks[idx];
      if (row) row.classList.add("sel");
      if (m) m.classList.add("sel");
      if (from === "mark" && row) row.scrollIntoView({ block: "nearest" });
      if (from === "row" && m) m.scrollIntoView({ block: "nearest" });
    }
    T.forEach(function (e, idx) {
      var tr = el("tr", { id: "event-" + idx, tabindex: "0", "data-event": e.event, "data-at": String(e.at), "data-pod": e.pod || null, "data-node": e.pod ? null : (e.node || null) },
        [el("td", { text: fmt(e.at) }), el("td", { text: e.event }), el("td", { text: e.type }), el("td", { text: e.pod || e.node || "" }), el("td", { text: e.message })]);
      tr.addEventListener("click", function () { select(idx, "row"); });
      tr.addEventListener("keydown", function (ev) { if (ev.key === "Enter") select(idx, "row"); });
      t.tBodies[0].appendChild(tr);
    });
    svg.addEventListener("click", function (ev) { var m = ev.target.closest(".mark"); if (m) select(+m.dataset.index, "mark"); });
    svg.addEventListener("keydown", function (ev) { var m = ev.target.closest(".mark"); if (m && ev.key === "Enter") select(+m.dataset.index, "mark"); });
    var wrap = el("div", { cls: "scroll" }, [t]);
    document.getElementById("events-table").appendChild(wrap);
  })();

  // How long parsing the model and drawing took, for measurements.
  document.body.setAttribute("data-render-ms", String(Math.round(performance.now() - t0)));
  document.body.setAttribute("data-ready", "true");
})();
