// The clinician page: talks to /v1/consultations with the key kept in localStorage.
"use strict";
const KEY_STORE = "medverifier.apiKey";
const el = (id) => document.getElementById(id);
let current = null; // the open consultation id

function apiKey() { return localStorage.getItem(KEY_STORE) || ""; }

function status(text) { el("status").textContent = text || ""; }

async function api(path, options = {}) {
  const headers = Object.assign({ "Authorization": "Bearer " + apiKey() }, options.headers || {});
  if (options.body) headers["Content-Type"] = "application/json";
  const response = await fetch(path, Object.assign({}, options, { headers }));
  if (!response.ok) {
    let message = response.status + " " + response.statusText;
    try { message = (await response.json()).error.message; } catch (_) { /* keep the status line */ }
    throw new Error(message);
  }
  return response;
}

function addMessage(role, text) {
  const item = document.createElement("li");
  item.className = role;
  item.textContent = text;
  el("messages").appendChild(item);
  item.scrollIntoView({ block: "end" });
  return item;
}

async function loadSessions() {
  if (!apiKey()) { status("Enter your API key to start."); return; }
  try {
    const list = await (await api("/v1/consultations")).json();
    const ul = el("sessions");
    ul.innerHTML = "";
    for (const s of list.data) {
      const li = document.createElement("li");
      li.textContent = s.title + " (" + s.turns + ")";
      li.dataset.id = s.id;
      if (s.id === current) li.classList.add("active");
      li.addEventListener("click", () => openSession(s.id));
      ul.appendChild(li);
    }
    status("");
  } catch (err) { status(err.message); }
}

async function openSession(id) {
  try {
    const session = await (await api("/v1/consultations/" + id)).json();
    current = id;
    el("messages").innerHTML = "";
    for (const m of session.messages) addMessage(m.role, m.content);
    await loadSessions();
  } catch (err) { status(err.message); }
}

async function newSession(title) {
  const created = await (await api("/v1/consultations", {
    method: "POST", body: JSON.stringify({ title: title || "Consultation" }),
  })).json();
  current = created.id;
  el("messages").innerHTML = "";
  return created.id;
}

// Reads the server-sent events of a streamed reply (EventSource cannot POST, so fetch + a reader).
async function streamReply(response, item) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  item.textContent = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event = (block.match(/^event: (.*)$/m) || [])[1];
      const data = (block.match(/^data: (.*)$/m) || [])[1];
      if (!event || data === undefined) continue;
      const payload = JSON.parse(data);
      if (event === "delta") item.textContent += payload.text;
      else if (event === "done") item.textContent = payload.message.content;
      else if (event === "error") { item.className = "error"; item.textContent = payload.error.message; }
      item.scrollIntoView({ block: "end" });
    }
  }
}

async function send(text) {
  el("send").disabled = true;
  try {
    if (!current) await newSession(text.slice(0, 60));
    addMessage("user", text);
    const item = addMessage("assistant", "…");
    const response = await api("/v1/consultations/" + current + "/messages?stream=true", {
      method: "POST", body: JSON.stringify({ content: text }), headers: { "Accept": "text/event-stream" },
    });
    await streamReply(response, item);
    await loadSessions();
  } catch (err) {
    addMessage("error", err.message);
  } finally {
    el("send").disabled = false;
  }
}

el("key-form").addEventListener("submit", (event) => {
  event.preventDefault();
  localStorage.setItem(KEY_STORE, el("api-key").value.trim());
  el("api-key").value = "";
  el("api-key").placeholder = "key saved";
  loadSessions();
});
el("new-session").addEventListener("click", () => {
  current = null;
  el("messages").innerHTML = "";
  loadSessions();
});
el("composer").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = el("input").value.trim();
  if (!text) return;
  el("input").value = "";
  send(text);
});
if (apiKey()) el("api-key").placeholder = "key saved";
loadSessions();
