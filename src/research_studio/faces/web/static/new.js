"use strict";
/* The new research form: options, what resolution would pick, inline validation errors.
   Which settings it sends, and each one's label, help, bounds, choices and default, come from
   the server's declarations. */
(() => {
  const form = document.getElementById("research-form");
  const resolution = document.getElementById("resolution");
  let timer = null;

  /* The settings the form offers: the server renders one field per setting declared for the
     web, each marked data-setting; none is named here. */
  const SETTINGS = Array.from(form.querySelectorAll("[data-setting]"), (input) => input.name);

  /* The fields resolution reads (/api/resolution's parameters), those the form offers. */
  function resolvedBy() {
    return ["model", "search", "docs"].map((name) => form.elements.namedItem(name)).filter(Boolean);
  }

  function fill(select, values) {
    for (const value of values) select.append(RS.el("option", { value, text: value }));
  }

  /* Label, help, bounds, choices and default of a field, as the configuration declares them. */
  function describe(meta) {
    const input = form.elements.namedItem(meta.name);
    if (!input) return;
    const label = form.querySelector(`label[for="${meta.name}"]`);
    if (label && label.firstChild) label.firstChild.textContent = meta.label + " ";
    input.title = meta.help;
    if (input.tagName === "SELECT" && meta.choices.length) fill(input, meta.choices);
    if (input.type === "number") {
      if (meta.min !== null) input.min = meta.min;
      if (meta.max !== null) input.max = meta.max;
    }
    const shown = Array.isArray(meta.default) ? meta.default.join(", ") : meta.default;
    if (input.tagName !== "SELECT" && shown !== null && shown !== "" && !input.placeholder.startsWith("automatic")) {
      input.placeholder = `default: ${shown}`;
    }
  }

  /* Settings a pipeline does not honour are disabled (the server would refuse them). */
  function syncSettings(honouredBy) {
    const pipeline = form.elements.namedItem("pipeline").value;
    for (const [name, pipelines] of Object.entries(honouredBy)) {
      const input = form.elements.namedItem(name);
      if (!input) continue;
      input.disabled = !pipelines.includes(pipeline);
      if (input.disabled) input.value = "";
    }
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
    for (const input of resolvedBy()) {
      const value = input.value.trim();
      if (value) params.set(input.name, value);
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
    for (const meta of Object.values(data.settings)) describe(meta);
    const docs = form.elements.namedItem("docs");
    if (docs) {
      for (const folder of data.docs) docs.append(RS.el("option", { value: folder.value, text: folder.label }));
      docs.value = data.default_docs;
    }
    const pipeline = form.elements.namedItem("pipeline");
    pipeline.addEventListener("change", () => {
      syncMode(data.single_agent_pipelines);
      syncSettings(data.honoured_by);
    });
    syncSettings(data.honoured_by);
    for (const input of resolvedBy()) input.addEventListener("input", later);
    showResolution();
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors();
    const body = {};
    for (const name of ["question", "pipeline", "mode", ...SETTINGS]) {
      const input = form.elements.namedItem(name);
      if (!input.disabled) body[name] = input.value;
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
