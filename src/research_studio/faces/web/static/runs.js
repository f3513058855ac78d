"use strict";
/* Every run: status, pipeline, question, time, cost; open, resume, delete. */
(() => {
  const body = document.querySelector("#runs-table tbody");
  const message = document.getElementById("runs-message");
  const RESUMABLE = ["interrupted", "failed", "awaiting_clarification", "awaiting_plan_review", "awaiting_review"];

  function say(text) { message.hidden = !text; message.textContent = text || ""; }

  function row(run) {
    const url = RS.withToken(`/runs/${encodeURIComponent(run.run_id)}`);
    const actions = RS.el("td", { className: "row-actions" }, RS.el("a", { className: "open", href: url, text: "Open" }));
    if (RESUMABLE.includes(run.status) && !run.running_here) {
      const resume = RS.el("button", { type: "button", className: "resume", text: "Resume" });
      resume.addEventListener("click", async () => {
        const { ok, data } = await RS.request("POST", `/api/runs/${encodeURIComponent(run.run_id)}/resume`, {});
        if (ok) location.assign(url); else say((data && data.message) || "refused");
      });
      actions.append(resume);
    }
    if (run.status !== "running") {
      const remove = RS.el("button", { type: "button", className: "delete", text: "Delete" });
      remove.addEventListener("click", async () => {
        if (!confirm(`Delete run ${run.run_id} and its folder?`)) return;
        const { ok, data } = await RS.request("DELETE", `/api/runs/${encodeURIComponent(run.run_id)}`);
        if (ok) load(); else say((data && data.message) || "refused");
      });
      actions.append(remove);
    }
    const cost = run.cost_usd === null || run.cost_usd === undefined ? "—" : `$${run.cost_usd.toFixed(4)}`;
    return RS.el("tr", { "data-run-id": run.run_id, "data-status": run.status },
      RS.el("td", {}, RS.el("span", { className: "status", "data-status": run.status, text: run.status.replaceAll("_", " ") })),
      RS.el("td", { text: `${run.pipeline} (${run.mode})` }),
      RS.el("td", { className: "question", text: run.query }),
      RS.el("td", {}, RS.el("time", { datetime: run.created, text: new Date(run.created).toLocaleString() })),
      RS.el("td", { className: "cost", text: cost }),
      actions);
  }

  async function load() {
    const { ok, data } = await RS.request("GET", "/api/runs");
    if (!ok) { say((data && data.message) || "cannot list runs"); return; }
    body.replaceChildren(...data.map(row));
    document.getElementById("no-runs").hidden = data.length > 0;
  }

  load();
})();
