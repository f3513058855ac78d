"use strict";
/* One run: live progress over SSE, clarification, report with source cards, exports. */
(() => {
  const runId = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || "");
  const api = `/api/runs/${encodeURIComponent(runId)}`;
  const $ = (id) => document.getElementById(id);
  const nodes = new Map();  // node -> {li, active}
  let stream = null;
  let lastEvent = 0;  // the last event line shown: following again (Resume) starts after it
  let reportShown = false;

  function setCounters(counters) {
    for (const [name, value] of Object.entries(counters)) {
      const slot = document.querySelector(`#counters [data-counter="${name}"]`);
      if (slot) slot.textContent = String(value);
    }
  }

  function timelineNode(name) {
    if (!nodes.has(name)) {
      const li = RS.el("li", { className: "node", "data-node": name, "data-state": "running" },
        RS.el("span", { className: "node-name", text: name.replaceAll("_", " ") }),
        RS.el("span", { className: "node-message" }));
      $("timeline").append(li);
      nodes.set(name, { li, active: 0 });
    }
    return nodes.get(name);
  }

  function onEvent(event) {
    const time = new Date(event.time * 1000).toLocaleTimeString();
    const log = $("events");
    const following = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
    log.append(RS.el("li", { className: `kind-${event.kind}` },
      RS.el("time", { text: time }), ` ${event.node}: ${event.message}`));
    if (following) log.scrollTop = log.scrollHeight;  // follow the newest unless the reader scrolled up
    if (event.node === "run" || !event.node) {
      if (event.kind === "error") $("errors").append(RS.el("li", { text: event.message }));
      return;
    }
    const entry = timelineNode(event.node);
    if (event.kind === "start") { entry.active += 1; entry.li.dataset.state = "running"; }
    else if (event.kind === "end") {
      entry.active = Math.max(0, entry.active - 1);
      if (entry.li.dataset.state !== "failed" || entry.active === 0) entry.li.dataset.state = entry.active ? "running" : "done";
    } else if (event.kind === "error") {
      $("errors").append(RS.el("li", {}, RS.el("strong", { text: event.node }), `: ${event.message}`));
      if (event.message.startsWith(`${event.node} failed`)) {
        entry.active = Math.max(0, entry.active - 1);
        entry.li.dataset.state = "failed";
      }
    }
    entry.li.querySelector(".node-message").textContent = event.message;
  }

  function onStatus(state) {
    const status = $("status");
    status.dataset.status = state.status;
    status.textContent = state.status.replaceAll("_", " ");
    const running = state.status === "running";
    $("cancel").hidden = !(running && state.running_here);
    $("resume").hidden = !["interrupted", "failed"].includes(state.status);
    $("run-error").hidden = !state.error;
    $("run-error").textContent = state.error || "";
    const pending = state.pending || {};
    const clarifying = state.status === "awaiting_clarification";
    $("clarify").hidden = !clarifying;
    if (clarifying) showClarification(pending);
    const reviewing = state.status === "awaiting_plan_review" || state.status === "awaiting_review";
    $("review").hidden = !reviewing;
    if (reviewing) $("review-text").textContent = pending.question || "The run waits for your review.";
    if (state.status === "completed") showReport();
  }

  function showClarification(pending) {
    $("clarify-question").textContent = pending.question || "The run waits for a clarification.";
    const box = $("clarify-options");
    box.replaceChildren();
    for (const option of pending.options || []) {
      const button = RS.el("button", { type: "button", className: "clarify-option", text: option });
      button.addEventListener("click", () => {
        $("clarify-answer").value = option;
        for (const other of box.querySelectorAll(".clarify-option")) other.classList.toggle("chosen", other === button);
      });
      box.append(button);
    }
  }

  function follow() {
    if (stream) return;
    stream = new EventSource(`${api}/events?after=${lastEvent}`);
    stream.addEventListener("event", (message) => {
      const line = Number(message.lastEventId) || 0;
      if (line && line <= lastEvent) return;  // shown already
      lastEvent = Math.max(lastEvent, line);
      onEvent(JSON.parse(message.data));
    });
    stream.addEventListener("counters", (message) => setCounters(JSON.parse(message.data)));
    stream.addEventListener("status", (message) => onStatus(JSON.parse(message.data)));
    stream.addEventListener("end", (message) => {
      stream.close();
      stream = null;
      const state = JSON.parse(message.data);
      if (state && state.status) onStatus(state);
    });
    // EventSource reconnects by itself with Last-Event-ID: the stream resumes from the file.
  }

  async function answer(text) {
    const { ok, data } = await RS.request("POST", `${api}/answer`, { answer: text });
    if (!ok) { $("run-error").hidden = false; $("run-error").textContent = (data && data.message) || "refused"; return; }
    $("clarify").hidden = true;
    $("review").hidden = true;
    follow();
  }

  $("clarify").addEventListener("submit", (event) => { event.preventDefault(); answer($("clarify-answer").value); });
  $("review").addEventListener("submit", (event) => { event.preventDefault(); answer($("review-answer").value); });
  $("cancel").addEventListener("click", async () => {
    $("cancel").disabled = true;
    await RS.request("POST", `${api}/cancel`, {});
    $("cancel").disabled = false;
  });
  $("resume").addEventListener("click", async () => {
    const { ok, data } = await RS.request("POST", `${api}/resume`, {});
    if (!ok) { $("run-error").hidden = false; $("run-error").textContent = (data && data.message) || "refused"; return; }
    $("resume").hidden = true;
    follow();
  });

  async function showReport() {
    if (reportShown) return;
    reportShown = true;
    $("result").hidden = false;
    for (const link of document.querySelectorAll("a.export")) {
      link.setAttribute("href", RS.withToken(`${api}/export/${link.dataset.format}`));
      link.setAttribute("download", "");
    }
    const response = await fetch(`${api}/report`);
    if (response.ok) $("report").innerHTML = await response.text();  // escaped by the server
    const verdict = $("audit-verdict");
    const audit = await RS.request("GET", `${api}/audit`);
    if (audit.ok) {
      verdict.dataset.ok = String(audit.data.ok);
      // Citations that hold are not an answer: an unanswered question is never shown as green.
      verdict.dataset.answered = String(audit.data.answered);
      verdict.textContent = `${audit.data.ok ? "✓" : "✗"} ${audit.data.summary.replace(/^audit /, "Audit: ")}`;
    } else {
      verdict.dataset.ok = "false";
      verdict.textContent = `Audit unavailable: ${(audit.data && audit.data.message) || audit.status}`;
    }
  }

  function markedText(text, quotes) {
    const spans = quotes.filter((q) => q.start !== null && q.end !== null)
      .map((q) => [q.start, q.end]).sort((a, b) => a[0] - b[0]);
    const box = $("source-text");
    box.replaceChildren();
    let at = 0;
    for (const [start, end] of spans) {
      if (start < at) continue;  // overlapping quotes: the first one is marked
      box.append(document.createTextNode(text.slice(at, start)), RS.el("mark", { text: text.slice(start, end) }));
      at = end;
    }
    box.append(document.createTextNode(text.slice(at)));
    if (!text) box.append(RS.el("p", { className: "hint", text: "The page text was not kept." }));
    const first = box.querySelector("mark");
    // Scroll the text box only, not the page: the reader stays at the sentence they clicked.
    if (first) box.scrollTop = Math.max(0, first.offsetTop - box.offsetTop - box.clientHeight / 3);
  }

  async function openSource(link) {
    const statement = link.dataset.statement;
    const query = statement !== undefined ? `?statement=${encodeURIComponent(statement)}` : "";
    const { ok, data } = await RS.request("GET", `${api}/sources/${encodeURIComponent(link.dataset.sid)}${query}`);
    const card = $("source-card");
    if (!ok) { card.hidden = false; card.querySelector(".source-title").textContent = (data && data.message) || "not found"; return; }
    card.querySelector(".source-title").textContent = `[${data.sid}] ${data.title}`;
    const url = card.querySelector(".source-url");
    url.textContent = data.url;
    if (/^https?:\/\//i.test(data.url)) url.setAttribute("href", data.url); else url.removeAttribute("href");
    const credibility = card.querySelector(".source-credibility");
    credibility.hidden = data.credibility === null || data.credibility === undefined;
    credibility.textContent = credibility.hidden ? "" : `Credibility: ${Number(data.credibility).toFixed(2)}`;
    const list = card.querySelector(".source-quotes");
    list.replaceChildren(...data.quotes.map((q) => RS.el("li", { className: q.start === null ? "not-found" : "", text: q.quote })));
    if (!data.quotes.length) list.append(RS.el("li", { className: "hint", text: "No quote recorded for this statement." }));
    card.hidden = false;
    markedText(data.text, data.quotes);
    for (const other of document.querySelectorAll("#report a.cite.active")) other.classList.remove("active");
    link.classList.add("active");
  }

  $("report").addEventListener("click", (event) => {
    const link = event.target.closest("a.cite");
    if (!link) return;
    event.preventDefault();
    openSource(link);
  });
  document.querySelector("#source-card .close").addEventListener("click", () => { $("source-card").hidden = true; });

  async function load() {
    const { ok, data } = await RS.request("GET", api);
    if (!ok) { $("question").textContent = (data && data.message) || "No such run"; return; }
    const record = data.record;
    document.title = `${record.query} · Research Studio`;
    $("question").textContent = record.query;
    $("run-meta").textContent = `${record.pipeline} · ${record.mode} · ${record.created} · ${record.run_id}`;
    onStatus(data);
    follow();
  }

  load();
})();
