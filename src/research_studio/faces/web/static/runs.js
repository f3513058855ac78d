"use strict";
/* Every run: status, pipeline, question, time, cost; search; open, resume, cancel, delete. */
(() => {
  const body = document.querySelector("#runs-table tbody");
  const message = document.getElementById("runs-message");
  const search = document.getElementById("runs-search");
  const RESUMABLE = ["interrupted", "cancelled", "failed", "awaiting_clarification", "awaiting_plan_review", "awaiting_review"];
  let runs = [];

  function say(text) { message.hidden = !text; message.textContent = text || ""; }

  function button(label, className, action) {
    const node = RS.el("button", { type: "button", className, text: label });
    node.addEventListener("click", async () => {
      node.disabled = true;
      try { await action(); } finally { node.disabled = false; }
    });
    return node;
  }

  function row(run) {
    const id = encodeURIComponent(run.run_id);
    const url = RS.withToken(`/runs/${id}`);
    const actions = RS.el("td", { className: "row-actions" }, RS.el("a", { className: "open", href: url, text: "Open" }));
    if (RESUMABLE.includes(run.status) && !run.running_here) {
      actions.append(button("Resume", "resume", async () => {
        const { ok, data } = await RS.request("POST", `/api/runs/${id}/resume`, {});
        if (ok) location.assign(url); else say((data && data.message) || "refused");
      }));
    }
    if (run.status === "running" && run.running_here) {
      actions.append(button("Cancel", "cancel", async () => {
        const { ok, data } = await RS.request("POST", `/api/runs/${id}/cancel`, {});
        if (ok) setTimeout(load, 800); else say((data && data.message) || "refused");
      }));
    }
    if (run.status !== "running") {
      actions.append(button("Delete", "delete", async () => {
        if (!confirm(`Delete run ${run.run_id} and its folder?`)) return;
        const { ok, data } = await RS.request("DELETE", `/api/runs/${id}`);
        if (ok) load(); else say((data && data.message) || "refused");
      }));
    }
    const cost = run.cost_usd === null || run.cost_usd === undefined ? "—" : `$${run.cost_usd.toFixed(4)}`;
    return RS.el("tr", { "data-run-id": run.run_id, "data-status": run.status },
      RS.el("td", { "data-label": "Status" }, RS.el("span", { className: "status", "data-status": run.status, text: run.status.replaceAll("_", " ") })),
      RS.el("td", { "data-label": "Pipeline", text: `${run.pipeline} (${run.mode})` }),
      RS.el("td", { className: "question", text: run.query }),
      RS.el("td", { "data-label": "Created" }, RS.el("time", { datetime: run.created, text: new Date(run.created).toLocaleString() })),
      RS.el("td", { "data-label": "Cost", className: "cost", text: cost }),
      actions);
  }

  /* Every word of the search in the question, pipeline, mode, status or id (as `runs --search`). */
  function matches(run, text) {
    const haystack = [run.query, run.pipeline, run.mode, run.status, run.run_id].join(" ").toLowerCase();
    return text.toLowerCase().split(/\s+/).filter(Boolean).every((word) => haystack.includes(word));
  }

  function show() {
    const shown = runs.filter((run) => matches(run, search.value));
    body.replaceChildren(...shown.map(row));
    document.getElementById("no-runs").hidden = runs.length > 0;
    document.getElementById("no-match").hidden = !(runs.length && !shown.length);
    document.getElementById("runs-count").textContent = search.value ? `${shown.length} of ${runs.length}` : "";
  }

  async function load() {
    const { ok, data } = await RS.request("GET", "/api/runs");
    if (!ok) { say((data && data.message) || "cannot list runs"); return; }
    runs = data;
    show();
  }

  search.addEventListener("input", show);
  load();
})();
