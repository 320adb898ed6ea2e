// crmbench report: the task table and the task pages, drawn from the JSON embedded in this page.
// Every value from a run (agent replies, tool outputs) is inserted as text, never as HTML.
(function () {
  "use strict";
  var LIMIT = 200;
  var index = JSON.parse(document.getElementById("crm-index").textContent);
  var details = null; // a promise of the task details, unpacked on first use: most readers open few tasks
  var rows = index.rows;
  var C = {};
  index.columns.forEach(function (name, i) { C[name] = i; });
  var multiRun = index.runs.length > 1;
  var showAll = false;

  function el(tag, attrs) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (key) {
        if (key === "text") node.textContent = attrs[key];
        else if (key === "cls") node.className = attrs[key];
        else node.setAttribute(key, attrs[key]);
      });
    }
    for (var i = 2; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined) continue;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  function badge(value) {
    return el("span", { cls: "badge b-" + String(value).replace(/[^a-z_]/g, ""), text: String(value).replace("_", " ") });
  }

  function distinct(column, flatten) {
    var seen = {};
    rows.forEach(function (row) {
      var value = row[column];
      (flatten ? value : [value]).forEach(function (v) { if (v !== "") seen[v] = true; });
    });
    return Object.keys(seen).sort();
  }

  // -- filters -------------------------------------------------------------------------------

  var filters = [];
  function addSelect(label, key, values, test) {
    var select = el("select", { "data-filter": key, "aria-label": label }, el("option", { value: "", text: "all" }));
    values.forEach(function (v) { select.appendChild(el("option", { value: v.value, text: v.label })); });
    select.addEventListener("change", function () { showAll = false; renderTable(); });
    document.getElementById("filters").appendChild(el("label", null, label, select));
    filters.push(function (row) { return select.value === "" || test(row, select.value); });
  }
  function plain(values) { return values.map(function (v) { return { value: v, label: v }; }); }

  if (multiRun) {
    addSelect("Run", "run", index.runs.map(function (r, i) { return { value: String(i), label: r.name + " (" + r.system + ")" }; }),
      function (row, v) { return String(row[C.run]) === v; });
  }
  addSelect("Domain", "domain", plain(distinct(C.domain)), function (row, v) { return row[C.domain] === v; });
  addSelect("Difficulty", "difficulty", plain(distinct(C.difficulty)), function (row, v) { return row[C.difficulty] === v; });
  addSelect("Capability", "capability", plain(distinct(C.capabilities, true)),
    function (row, v) { return row[C.capabilities].indexOf(v) >= 0; });
  addSelect("Outcome", "outcome", plain(distinct(C.outcome)), function (row, v) { return row[C.outcome] === v; });
  addSelect("Primary label", "label", plain(distinct(C.label)), function (row, v) { return row[C.label] === v; });
  var search = el("input", { type: "search", placeholder: "task id contains…", "data-filter": "search", "aria-label": "Search task id" });
  search.addEventListener("input", function () { showAll = false; renderTable(); });
  document.getElementById("filters").appendChild(el("label", null, "Search", search));
  filters.push(function (row) { return search.value === "" || row[C.task].toLowerCase().indexOf(search.value.toLowerCase()) >= 0; });

  // -- table ---------------------------------------------------------------------------------

  var table = document.getElementById("task-table");
  var header = ["Task"].concat(multiRun ? ["Run"] : [], ["Trial", "Domain", "Difficulty", "Outcome", "Primary label", "Failed checks", "Turns", "Tool calls"]);
  var headRow = el("tr");
  header.forEach(function (h) { headRow.appendChild(el("th", { text: h })); });
  table.tHead.appendChild(headRow);

  function renderTable() {
    var matching = [];
    for (var i = 0; i < rows.length; i++) {
      var row = rows[i], keep = true;
      for (var f = 0; f < filters.length && keep; f++) keep = filters[f](row);
      if (keep) matching.push(i);
    }
    var shown = showAll ? matching : matching.slice(0, LIMIT);
    var body = document.createElement("tbody");
    shown.forEach(function (i) {
      var row = rows[i];
      var tr = el("tr", { "data-row": String(i), tabindex: "0" },
        el("td", null, el("a", { href: "#t=" + i }, el("code", { text: row[C.task] }))));
      if (multiRun) tr.appendChild(el("td", { text: index.runs[row[C.run]].name }));
      tr.appendChild(el("td", { cls: "num", text: String(row[C.trial] + 1) }));
      tr.appendChild(el("td", { text: row[C.domain] }));
      tr.appendChild(el("td", { text: row[C.difficulty] }));
      tr.appendChild(el("td", null, badge(row[C.outcome])));
      tr.appendChild(el("td", { text: row[C.label] }));
      tr.appendChild(el("td", { cls: "num", text: row[C.failed] + " / " + row[C.checks] }));
      tr.appendChild(el("td", { cls: "num", text: String(row[C.turns]) }));
      tr.appendChild(el("td", { cls: "num", text: String(row[C.tools]) }));
      body.appendChild(tr);
    });
    table.replaceChild(body, table.tBodies[0]);
    document.getElementById("task-count").textContent =
      matching.length + " of " + rows.length + " results" + (shown.length < matching.length ? "; the first " + shown.length + " shown" : "");
    var more = document.getElementById("show-all");
    more.hidden = shown.length >= matching.length;
    more.textContent = "Show all " + matching.length;
  }
  document.getElementById("show-all").addEventListener("click", function () { showAll = true; renderTable(); });
  table.addEventListener("click", function (event) {
    var tr = event.target.closest("tr[data-row]");
    if (tr && !event.target.closest("a")) location.hash = "t=" + tr.getAttribute("data-row");
  });
  table.addEventListener("keydown", function (event) {
    var tr = event.target.closest("tr[data-row]");
    if (tr && event.key === "Enter") location.hash = "t=" + tr.getAttribute("data-row");
  });

  // -- task page -----------------------------------------------------------------------------

  function quotePattern(quote) {
    var words = quote.trim().split(/\s+/).map(function (w) { return w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); });
    return words.length && words[0] ? new RegExp(words.join("\\s+"), "g") : null;
  }

  // The assistant's words with every judge quote marked (the judge quotes verbatim, up to spaces).
  function highlighted(text, verdicts) {
    var spans = [];
    verdicts.forEach(function (v, i) {
      var pattern = v.quote ? quotePattern(v.quote) : null;
      if (!pattern) return;
      var m;
      while ((m = pattern.exec(text)) !== null) {
        spans.push([m.index, m.index + m[0].length, "criterion " + (i + 1) + " (" + v.status + "): " + v.criterion]);
        if (m[0].length === 0) pattern.lastIndex++;
      }
    });
    spans.sort(function (a, b) { return a[0] - b[0]; });
    var out = document.createDocumentFragment(), at = 0;
    spans.forEach(function (s) {
      if (s[0] < at) return; // overlapping quotes: the first one wins
      out.appendChild(document.createTextNode(text.slice(at, s[0])));
      out.appendChild(el("mark", { title: s[2], text: text.slice(s[0], s[1]) }));
      at = s[1];
    });
    out.appendChild(document.createTextNode(text.slice(at)));
    return out;
  }

  function kv(dl, term, value) {
    if (value === null || value === undefined || value === "" || (Array.isArray(value) && !value.length)) return;
    dl.appendChild(el("dt", { text: term }));
    if (Array.isArray(value)) {
      var ul = el("ul");
      value.forEach(function (v) { ul.appendChild(el("li", { text: v })); });
      dl.appendChild(el("dd", null, ul));
    } else dl.appendChild(el("dd", { text: String(value) }));
  }

  function section(title) {
    return el("div", { cls: "part" }, el("h3", { text: title }));
  }

  function trajectory(d) {
    var part = section("Conversation and tool calls");
    var t = d.trajectory;
    if (!t) {
      part.appendChild(el("p", { cls: "muted", text: "No trajectory was saved for this result" + (d.record.error ? ": " + d.record.error : ".") }));
      return part;
    }
    var turns = {};
    function turn(n) {
      if (!turns[n]) turns[n] = { messages: [], routing: [], tools: [], model: null };
      return turns[n];
    }
    t.messages.forEach(function (m) { turn(m.turn).messages.push(m); });
    t.routing.forEach(function (r) { turn(r.turn).routing.push(r); });
    t.tools.forEach(function (c) { turn(c.turn).tools.push(c); });
    (t.model_use || []).forEach(function (u) { if (u.calls && turns[u.turn]) turns[u.turn].model = u; });
    Object.keys(turns).map(Number).sort(function (a, b) { return a - b; }).forEach(function (n) {
      var data = turns[n];
      var head = "Turn " + (n + 1) + (data.model ? " · " + data.model.calls + " model request" + (data.model.calls === 1 ? "" : "s") + ", " + data.model.tokens + " tokens" : "");
      var box = el("div", { cls: "turn" }, el("div", { cls: "turn-head", text: head }));
      data.messages.filter(function (m) { return m.role === "user"; }).forEach(function (m) {
        box.appendChild(el("div", { cls: "msg user" }, el("span", { cls: "who", text: "User" }), m.content));
      });
      data.routing.forEach(function (r) {
        box.appendChild(el("div", { cls: "route" }, "Routed to ", el("code", { text: r.node }), r.detail ? " — " + r.detail : ""));
      });
      data.tools.forEach(function (c) {
        var io = el("div", { cls: "io" },
          el("span", { text: "arguments" }), el("pre", { text: c.arguments }),
          el("span", { text: c.status === "ok" ? "output" : "error" }), el("pre", { text: c.output }));
        var summary = el("summary", null, badge(c.status), " ", el("code", { text: c.name }),
          el("span", { cls: "muted", text: "  #" + c.index + (c.node ? " · node " + c.node : "") }));
        box.appendChild(el("details", { cls: "tool tool-" + c.status, open: "" }, summary, io));
      });
      data.messages.filter(function (m) { return m.role === "assistant"; }).forEach(function (m) {
        box.appendChild(el("div", { cls: "msg assistant" }, el("span", { cls: "who", text: "Agent" }), highlighted(m.content, d.judge)));
      });
      part.appendChild(box);
    });
    if (t.termination) {
      part.appendChild(el("p", { cls: "muted", text: "Ended: " + t.termination.reason + (t.termination.detail ? " — " + t.termination.detail : "") }));
    }
    return part;
  }

  function checks(d) {
    var part = section("Checks the contract declares");
    if (!d.checks.length) {
      part.appendChild(el("p", { cls: "muted", text: "No check verdict was recorded." }));
      return part;
    }
    var body = el("tbody");
    d.checks.forEach(function (c) {
      var where = d.task && c.line ? d.task.file + ":" + c.line : "";
      body.appendChild(el("tr", { cls: c.status },
        el("td", null, badge(c.status)), el("td", null, el("code", { text: c.name })),
        el("td", null, el("pre", { text: c.expected })), el("td", null, el("pre", { text: c.actual })),
        el("td", null, el("pre", { text: c.diff })), el("td", null, el("code", { text: where }))));
    });
    var head = el("tr");
    ["Status", "Check", "Expected", "Actual", "Why", "YAML"].forEach(function (h) { head.appendChild(el("th", { text: h })); });
    part.appendChild(el("div", { cls: "scroll" }, el("table", { cls: "checks" }, el("thead", null, head), body)));
    return part;
  }

  function state(d) {
    var part = section("End state of the paths the contract names");
    if (!d.state.length) {
      part.appendChild(el("p", { cls: "muted", text: d.task ? "The contract names no state path." : "Task definition not available." }));
      return part;
    }
    var body = el("tbody");
    d.state.forEach(function (s) {
      body.appendChild(el("tr", null, el("td", null, el("code", { text: s.path })), el("td", { text: s.kind }),
        el("td", null, el("pre", { text: s.wanted })), el("td", null, el("pre", { text: s.initial })),
        el("td", { cls: s.changed ? "changed" : "" }, el("pre", { text: s.final })), el("td", { text: s.changed ? "changed" : "unchanged" })));
    });
    var head = el("tr");
    ["Path", "Kind", "Contract asks", "Initial", "Final", ""].forEach(function (h) { head.appendChild(el("th", { text: h })); });
    part.appendChild(el("div", { cls: "scroll" }, el("table", null, el("thead", null, head), body)));
    return part;
  }

  function judge(d) {
    var part = section("Judge verdicts on the reply");
    if (!d.judge.length) {
      part.appendChild(el("p", { cls: "muted", text: "The contract has no reply criteria." }));
      return part;
    }
    var list = el("ol", { cls: "judge" });
    d.judge.forEach(function (v) {
      var item = el("li", null, badge(v.status), " ", v.criterion);
      if (v.quote) item.appendChild(el("div", null, "Quote: ", el("mark", { text: v.quote })));
      if (v.explanation) item.appendChild(el("div", { cls: "muted", text: v.explanation }));
      list.appendChild(item);
    });
    part.appendChild(list);
    return part;
  }

  function brief(d) {
    var part = section("The user's brief (private to the simulator)");
    if (!d.task) {
      part.appendChild(el("p", { cls: "muted", text: "Task definition not found in the task files given to the report." }));
      return part;
    }
    var b = d.task.brief, dl = el("dl", { cls: "brief" });
    kv(dl, "Persona", b.persona); kv(dl, "Goal", b.goal); kv(dl, "Opening message", b.opening);
    kv(dl, "Knows", b.known); kv(dl, "Does not know", b.unknown); kv(dl, "Reacts", b.reactions); kv(dl, "Stops when", b.stop);
    part.appendChild(dl);
    return part;
  }

  // The details are gzipped JSON in base64: unpacked by the browser's own DecompressionStream
  // (no request is made), once, when the first task is opened.
  function loadDetails() {
    if (details === null) {
      var text = document.getElementById("crm-details").textContent.trim();
      var binary = atob(text), bytes = new Uint8Array(binary.length);
      for (var k = 0; k < binary.length; k++) bytes[k] = binary.charCodeAt(k);
      var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
      details = new Response(stream).text().then(JSON.parse);
    }
    return details;
  }

  function showTask(i) {
    var view = document.getElementById("task-view");
    var row = rows[i];
    if (!row) { view.hidden = true; return; }
    loadDetails().then(function (all) { renderTask(i, row, all[row[C.detail]]); });
  }

  function renderTask(i, row, d) {
    var view = document.getElementById("task-view");
    var r = d.record, run = index.runs[row[C.run]];
    var facts = el("div", { cls: "facts" });
    [["Outcome", badge(r.outcome)], ["Primary label", r.label || "—"], ["Run", run.name + " (" + run.system + ")"],
     ["Trial", String(row[C.trial] + 1)], ["Seed", String(r.seed)], ["Ended", r.termination || "—"],
     ["Latency", r.latency_s === null ? "—" : r.latency_s.toFixed(2) + " s"],
     ["Written at", d.task ? d.task.file + ":" + d.task.line : "—"]].forEach(function (f) {
      facts.appendChild(el("span", null, f[0] + ": ", typeof f[1] === "string" ? el("b", { text: f[1] }) : f[1]));
    });
    var page = el("article", { id: "task-page" },
      el("h2", null, "Task ", el("code", { text: row[C.task] })),
      d.task && d.task.title ? el("p", { text: d.task.title }) : null,
      facts, brief(d), trajectory(d), checks(d), state(d), judge(d),
      el("p", null, el("a", { href: "#tasks", text: "Back to the task table" })));
    view.replaceChildren(page);
    view.hidden = false;
    Array.prototype.forEach.call(table.querySelectorAll("tr.current"), function (tr) { tr.classList.remove("current"); });
    var current = table.querySelector('tr[data-row="' + i + '"]');
    if (current) current.classList.add("current");
    view.scrollIntoView();
  }

  function route() {
    var match = /^#t=(\d+)$/.exec(location.hash);
    if (match) { showTask(Number(match[1])); return; }
    match = /^#task=(.+)$/.exec(location.hash);
    if (match) {
      // A flipped task in the comparison: its first trial in the last run given.
      var wanted = decodeURIComponent(match[1]), found = -1;
      for (var i = 0; i < rows.length; i++) {
        if (rows[i][C.task] === wanted && (found < 0 || rows[i][C.run] > rows[found][C.run])) found = i;
      }
      if (found >= 0) showTask(found);
    }
  }

  renderTable();
  window.addEventListener("hashchange", route);
  route();
})();
