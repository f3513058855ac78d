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
  let steps = { words: {}, after_loop: [] };  // node -> words, from the server (one table for all faces)
  let record = null;
  let metadata = null;
  let maxIterations = 3;
  let iterationsDone = 0;
  let currentNode = "";
  let currentStatus = "";
  let lastCite = null;  // focus returns here when the source card closes
  const FINAL = ["completed", "failed", "interrupted", "cancelled"];

  const stepWords = (node) => steps.words[node] || String(node || "").replaceAll("_", " ");
  function ownMessage(node, message) {
    for (const prefix of [`${node}: `, `${node} `]) if (node && message.startsWith(prefix)) return message.slice(prefix.length);
    return message;
  }
  function duration(seconds) {
    const whole = Math.max(0, Math.round(seconds));
    const hours = Math.floor(whole / 3600), minutes = Math.floor((whole % 3600) / 60), secs = whole % 60;
    const two = (n) => String(n).padStart(2, "0");
    return hours ? `${hours}:${two(minutes)}:${two(secs)}` : `${minutes}:${two(secs)}`;
  }

  function elapsedSeconds() {
    if (!record) return 0;
    if (metadata && typeof metadata.elapsed_s === "number") return metadata.elapsed_s;
    const start = Date.parse(record.created);
    const end = FINAL.includes(currentStatus) && record.updated ? Date.parse(record.updated) : Date.now();
    return (end - start) / 1000;
  }

  /* A rough estimate from the phase: research iterations fill most of the bar, writing the rest. */
  function estimate() {
    if (currentStatus === "completed") return 100;
    if (steps.after_loop.includes(currentNode)) return 90;
    const share = Math.min(iterationsDone, maxIterations) / Math.max(1, maxIterations);
    return Math.round(5 + 80 * share);
  }

  function showClock() {
    $("elapsed").textContent = `${FINAL.includes(currentStatus) ? "took" : "running for"} ${duration(elapsedSeconds())}`;
    const value = estimate();
    $("estimate").value = value;
    const running = !FINAL.includes(currentStatus);
    $("estimate").hidden = !running;
    $("estimate-text").textContent = running
      ? `about ${value}% (rough estimate: ${iterationsDone} of at most ${maxIterations} iterations done${currentNode ? `; now ${stepWords(currentNode)}` : ""})`
      : "";
  }
  setInterval(showClock, 1000);

  function setCounters(counters) {
    for (const [name, value] of Object.entries(counters)) {
      const slot = document.querySelector(`#counters [data-counter="${name}"]`);
      if (slot) slot.textContent = String(value);
      if (name === "iteration") iterationsDone = Number(value) || 0;
    }
  }

  function timelineNode(name) {
    if (!nodes.has(name)) {
      const li = RS.el("li", { className: "node", "data-node": name, "data-state": "running" },
        RS.el("span", { className: "node-name", title: name, text: stepWords(name) }),
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
      RS.el("time", { text: time }), ` ${stepWords(event.node)}: ${ownMessage(event.node, event.message)}`));
    if (event.node && event.node !== "run") currentNode = event.node;
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
      $("errors").append(RS.el("li", {}, RS.el("strong", { text: stepWords(event.node) }), `: ${ownMessage(event.node, event.message)}`));
      if (event.message.startsWith(`${event.node} failed`)) {
        entry.active = Math.max(0, entry.active - 1);
        entry.li.dataset.state = "failed";
      }
    }
    const said = ownMessage(event.node, event.message);
    entry.li.querySelector(".node-message").textContent = /^(started|finished)$/.test(said) ? "" : said;
  }

  function onStatus(state) {
    const status = $("status");
    status.dataset.status = state.status;
    currentStatus = state.status;
    const stopped = state.status === "interrupted" || state.status === "cancelled";
    status.textContent = stopped ? `${state.status} · can resume` : state.status.replaceAll("_", " ");
    if (FINAL.includes(state.status)) {
      // Nothing runs any more: a step left "running" was stopped with the run.
      for (const li of document.querySelectorAll('li.node[data-state="running"]')) li.dataset.state = stopped ? "stopped" : "failed";
    }
    showClock();
    const running = state.status === "running";
    $("cancel").hidden = !(running && state.running_here);
    $("resume").hidden = !["interrupted", "cancelled", "failed"].includes(state.status);
    $("run-error").hidden = !state.error || stopped;
    $("run-error").textContent = state.error || "";
    const pending = state.pending || {};
    const clarifying = state.status === "awaiting_clarification";
    $("clarify").hidden = !clarifying;
    if (clarifying) showClarification(pending);
    const reviewing = state.status === "awaiting_plan_review" || state.status === "awaiting_review";
    $("review").hidden = !reviewing;
    if (reviewing) $("review-text").textContent = pending.question || "The run waits for your review.";
    if (state.status === "completed") {
      $("progress").open = false;  // the report first; the progress stays one click away
      showReport();
    }
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
    if (response.ok) {
      $("report").innerHTML = await response.text();  // escaped by the server
      linkSources();
    } else {  // a damaged run folder: its one-line reason, not a blank page
      const refused = await response.json().catch(() => null);
      $("report").textContent = `The report cannot be shown: ${(refused && refused.message) || response.status}`;
    }
    const detail = await RS.request("GET", api);
    if (detail.ok) { metadata = detail.data.metadata; showClock(); }
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

  /* Each Sources entry gets the id its citations point at, and its URL becomes a link. */
  function linkSources() {
    for (const item of document.querySelectorAll("#report li")) {
      const cite = item.querySelector("a.cite");
      if (!cite || item.firstElementChild !== cite) continue;
      item.id = `source-${cite.dataset.sid}`;
      // The report writes a web address as an autolink: it opens apart from the page.
      for (const link of item.querySelectorAll("a:not(.cite)")) {
        Object.assign(link, { target: "_blank", rel: "noopener noreferrer", className: "source-link" });
      }
      for (const node of [...item.childNodes]) {
        if (node.nodeType !== Node.TEXT_NODE) continue;
        const match = node.textContent.match(/https?:\/\/\S+/);
        if (!match) continue;
        const after = node.splitText(match.index);
        after.splitText(match[0].length);
        const link = RS.el("a", { href: match[0], target: "_blank", rel: "noopener noreferrer", className: "source-link", text: match[0] });
        after.replaceWith(link);
      }
    }
  }

  function closeCard() {
    const card = $("source-card");
    if (card.hidden) return;
    card.hidden = true;
    $("card-shade").hidden = true;
    if (lastCite) lastCite.focus();
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
    $("card-shade").hidden = false;
    markedText(data.text, data.quotes);
    for (const other of document.querySelectorAll("#report a.cite.active")) other.classList.remove("active");
    link.classList.add("active");
    lastCite = link;
    card.scrollTop = 0;
    card.focus({ preventScroll: true });
    // Desktop: the card sits beside the report; bring it into view. Phones: a fixed bottom sheet.
    if (getComputedStyle(card).position !== "fixed") card.scrollIntoView({ block: "nearest" });
  }

  $("report").addEventListener("click", (event) => {
    const link = event.target.closest("a.cite");
    if (!link) return;
    event.preventDefault();
    openSource(link);
  });
  document.querySelector("#source-card .close").addEventListener("click", closeCard);
  $("card-shade").addEventListener("click", closeCard);
  document.addEventListener("keydown", (event) => { if (event.key === "Escape") closeCard(); });

  async function load() {
    const { ok, data } = await RS.request("GET", api);
    if (!ok) { $("question").textContent = (data && data.message) || "No such run"; return; }
    record = data.record;
    metadata = data.metadata;
    const [stepTable, config] = await Promise.all([RS.request("GET", "/api/steps"), RS.request("GET", "/api/config")]);
    if (stepTable.ok) steps = stepTable.data;
    maxIterations = Number((record.settings || {}).max_iterations || (config.ok && config.data.max_iterations) || 3);
    document.title = `${record.query} · Research Studio`;
    $("question").textContent = record.query;
    const created = new Date(record.created);
    $("run-meta").replaceChildren(`${record.pipeline} · ${record.mode} · `,
      RS.el("time", { datetime: record.created, text: created.toLocaleString() }), ` · ${record.run_id}`);
    onStatus(data);
    follow();
  }

  load();
})();
