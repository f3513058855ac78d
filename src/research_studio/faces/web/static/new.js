"use strict";
/* The new research form: options, what resolution would pick, inline validation errors. */
(() => {
  const form = document.getElementById("research-form");
  const resolution = document.getElementById("resolution");
  let timer = null;

  function fill(select, values) {
    for (const value of values) select.append(RS.el("option", { value, text: value }));
  }

  function clearErrors() {
    for (const node of form.querySelectorAll(".field-error")) node.textContent = "";
    for (const node of form.querySelectorAll("[aria-invalid]")) node.removeAttribute("aria-invalid");
  }

  function showError(field, message) {
    let slot = form.querySelector(`.field-error[data-field="${field}"]`);
    if (!slot) slot = form.querySelector('.field-error[data-field="form"]');
    slot.textContent = message;
    const input = form.elements.namedItem(field);
    if (input && input.setAttribute) { input.setAttribute("aria-invalid", "true"); input.focus(); }
  }

  async function showResolution() {
    const params = new URLSearchParams();
    for (const name of ["model", "search", "docs"]) {
      const value = form.elements.namedItem(name).value.trim();
      if (value) params.set(name, value);
    }
    const { data } = await RS.request("GET", "/api/resolution?" + params);
    if (!data) return;
    if (data.message) { resolution.textContent = data.message; return; }
    if (data.error) { resolution.textContent = data.error; return; }
    const model = data.model.error ? `model: ${data.model.error}`
      : `model: ${data.model.model}` + (data.model.fast_model !== data.model.model ? ` (fast: ${data.model.fast_model})` : "") + ` — ${data.model.reason}`;
    const search = data.search.error ? `search: ${data.search.error}` : `search: ${data.search.name} — ${data.search.reason}`;
    const sentence = (text) => text.replace(/\.+$/, "") + ".";
    resolution.textContent = `${sentence(model)} ${sentence(search)}`;
  }

  function later() { clearTimeout(timer); timer = setTimeout(showResolution, 300); }

  function syncMode(singleAllowed) {
    const mode = form.elements.namedItem("mode");
    const allowed = singleAllowed.includes(form.elements.namedItem("pipeline").value);
    mode.querySelector('option[value="single"]').disabled = !allowed;
    if (!allowed) mode.value = "multi";
  }

  async function load() {
    const { data } = await RS.request("GET", "/api/options");
    if (!data) return;
    fill(form.elements.namedItem("pipeline"), data.pipelines);
    fill(form.elements.namedItem("search"), data.search);
    fill(form.elements.namedItem("docs"), data.docs);
    fill(form.elements.namedItem("report_structure"), data.report_structures);
    form.elements.namedItem("pipeline").addEventListener("change", () => syncMode(data.single_agent_pipelines));
    for (const name of ["model", "search", "docs"]) form.elements.namedItem(name).addEventListener("input", later);
    showResolution();
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors();
    const body = {};
    for (const name of ["question", "pipeline", "mode", "model", "fast_model", "search", "docs",
                        "report_structure", "iterations", "system_prompt"]) {
      body[name] = form.elements.namedItem(name).value;
    }
    body.no_clarify = form.elements.namedItem("no_clarify").checked;
    const start = document.getElementById("start");
    start.disabled = true;
    start.textContent = "Starting…";
    try {
      const { ok, data } = await RS.request("POST", "/api/runs", body);
      if (ok) { location.assign(RS.withToken(`/runs/${encodeURIComponent(data.run_id)}`)); return; }
      showError((data && data.field) || "form", (data && data.message) || "the server refused the request");
    } catch (error) {
      showError("form", `cannot reach the server: ${error}`);
    } finally {
      start.disabled = false;
      start.textContent = "Start research";
    }
  });

  load();
})();
