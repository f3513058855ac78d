"use strict";
/* Shared helpers: the access token in links, JSON requests, small DOM builders. */
const RS = (() => {
  const token = new URLSearchParams(location.search).get("token");
  function withToken(url) {
    if (!token) return url;
    const joined = new URL(url, location.origin);
    joined.searchParams.set("token", token);
    return joined.pathname + joined.search;
  }
  async function request(method, url, body) {
    const options = { method, headers: { Accept: "application/json" } };
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    const response = await fetch(url, options);
    let data = null;
    try { data = await response.json(); } catch (_) { data = null; }
    return { ok: response.ok, status: response.status, data };
  }
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (name === "text") node.textContent = value;
      else if (name === "className") node.className = value;
      else node.setAttribute(name, value === true ? "" : value);
    }
    for (const child of children) node.append(child);
    return node;
  }
  function fixLinks(root) {
    if (!token) return;
    for (const link of (root || document).querySelectorAll("a[href^='/']")) {
      link.setAttribute("href", withToken(link.getAttribute("href")));
    }
  }
  document.addEventListener("DOMContentLoaded", () => fixLinks(document));
  // Ctrl+Enter (Cmd+Enter) sends the form being typed in, from any field, the textarea included.
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
    const form = event.target instanceof Element ? event.target.closest("form") : null;
    if (!form) return;
    event.preventDefault();
    form.requestSubmit();
  });
  return { token, withToken, request, el, fixLinks };
})();
