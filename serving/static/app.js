// The clinician page: talks to /v1/consultations with the key kept in localStorage.
"use strict";
const KEY_STORE = "medverifier.apiKey";
const DRAFT_PREFIX = "medverifier.reviewDraft.";
const el = (id) => document.getElementById(id);
let current = null; // the open consultation id
let info = null; // the open consultation (its case, who plays whom, access)
let cases = [];
let review = null; // { page, draft } of the open review

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

function make(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  Object.assign(node, props);
  for (const child of children) node.append(child);
  return node;
}

// Who said it: as the doctor, the clinician's turns are the "assistant" ones.
function speaker(role) {
  const doctor = info && info.clinician_role === "doctor";
  if (role === "assistant") return doctor ? "You (doctor)" : "Agent (doctor)";
  if (role === "user") return doctor ? "Simulated patient" : "You";
  return "";
}

function addMessage(role, text) {
  const item = document.createElement("li");
  item.className = role;
  if (speaker(role)) item.dataset.who = speaker(role);
  item.textContent = text;
  el("messages").appendChild(item);
  item.scrollIntoView({ block: "end" });
  return item;
}

async function loadCases() {
  try {
    cases = (await (await api("/v1/cases")).json()).data;
  } catch (err) { return; }
  for (const select of [el("case-select"), el("attach-select")]) {
    select.innerHTML = "";
    for (const c of cases) {
      select.appendChild(make("option", { value: c.id, textContent: c.title + " — " + c.patient + ", " + c.chief_complaint }));
    }
  }
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
      if (s.access === "reviewer") li.classList.add("shared");
      li.addEventListener("click", () => openSession(s.id));
      ul.appendChild(li);
    }
    status("");
    if (!cases.length) await loadCases();
  } catch (err) { status(err.message); }
}

const ENDS = { diagnosis: "you gave a diagnosis", premature_diagnosis: "you gave a diagnosis before asking anything",
  turn_limit: "the turn limit was reached", patient_left: "the patient left" };

// An interview of the simulated patient ends as in training: a diagnosis, the turn limit, or the patient leaving.
function showEnded() {
  const ended = info && info.ended;
  el("ended").hidden = !ended;
  el("ended").textContent = ended ? "The consultation is over: " + (ENDS[ended] || ended) + ". Review it, or start a new one." : "";
  if (ended) el("composer").hidden = true;
}

async function showCaseCard() {
  const card = el("case-card");
  card.hidden = true;
  card.innerHTML = "";
  if (!info || !info.case_id) return;
  if (info.clinician_role === "doctor") {
    const limit = info.turn_limit ? " You have " + info.turn_limit + " turns, as the trained doctor has; two turns " +
      "in a row that ask nothing and the patient leaves." : "";
    card.append(make("p", { textContent: "You are the doctor: interview the simulated patient. Ask one or two questions " +
      "at a time, order tests as 'REQUEST TEST: name', and end with 'DIAGNOSIS: …' and your plan." + limit }));
    card.hidden = false;
    return;
  }
  try {
    const c = await (await api("/v1/cases/" + encodeURIComponent(info.case_id))).json();
    card.append(make("p", { textContent: "You play the patient of this case (only what is asked: let the agent take the history)." }));
    const facts = [["Complaint", c.chief_complaint], ["History", c.history_of_present_illness],
      ["Symptoms", [...c.primary_symptoms, ...c.secondary_symptoms].join("; ")],
      ["Past history", c.past_medical_history.join("; ")], ["Medications", c.medications.join("; ")],
      ["Allergies", c.allergies.join("; ")], ["Social", c.social_history.join("; ")],
      ["Family", c.family_history.join("; ")]];
    const list = make("dl");
    for (const [name, value] of facts) if (value) list.append(make("dt", { textContent: name }), make("dd", { textContent: value }));
    card.append(list);
    card.hidden = false;
  } catch (err) { status(err.message); }
}

async function openSession(id) {
  try {
    const session = await (await api("/v1/consultations/" + id)).json();
    current = id;
    info = session;
    el("messages").innerHTML = "";
    for (const m of session.messages) addMessage(m.role, m.content);
    el("open-review").disabled = false;
    el("composer").hidden = session.access !== "owner";
    showEnded();
    await showCaseCard();
    await loadSessions();
    if (!el("review").hidden) await openReview();
  } catch (err) { status(err.message); }
}

async function newSession(title) {
  const created = await (await api("/v1/consultations", {
    method: "POST", body: JSON.stringify({ title: title || "Consultation" }),
  })).json();
  current = created.id;
  info = created;
  el("messages").innerHTML = "";
  el("open-review").disabled = false;
  showEnded();
  return created.id;
}

async function startFromCase() {
  try {
    const created = await (await api("/v1/consultations", {
      method: "POST", body: JSON.stringify({ case_id: el("case-select").value, clinician_role: el("role-select").value }),
    })).json();
    el("review").hidden = true;
    await openSession(created.id);
    el("input").focus();
  } catch (err) { status(err.message); }
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
      else if (event === "done") {
        item.textContent = payload.message.content;
        if (payload.ended && info) { info.ended = payload.ended; showEnded(); }
      }
      else if (event === "error") { item.className = "error"; item.textContent = payload.error.message; }
      item.scrollIntoView({ block: "end" });
    }
  }
}

async function send(text) {
  el("send").disabled = true;
  try {
    if (!current) await newSession(text.slice(0, 60));
    const doctor = info && info.clinician_role === "doctor";
    addMessage(doctor ? "assistant" : "user", text);
    const item = addMessage(doctor ? "user" : "assistant", "…");
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

// ------------------------------------------------------------------ the review
function draftKey() { return DRAFT_PREFIX + current; }

function draftFrom(saved, rubric) {
  const draft = { criteria: {}, added: [], rating: "", comment: "", rubric: rubric ? rubric.generator : null };
  if (!saved) return draft;
  for (const c of saved.criteria) draft.criteria[c.id] = { verdict: c.verdict || "", note: c.note || "", points: c.points };
  draft.added = saved.added;
  draft.rating = saved.rating ? String(saved.rating) : "";
  draft.comment = saved.comment || "";
  return draft;
}

function keepDraft() {
  localStorage.setItem(draftKey(), JSON.stringify(review.draft));
  el("review-status").textContent = "unsaved changes";
}

function mark(id) {
  review.draft.criteria[id] = review.draft.criteria[id] || { verdict: "", note: "", points: null };
  return review.draft.criteria[id];
}

// A penalty (negative points) that did not happen is good news; one that happened is a harm.
function verdictText(c) {
  if (c.met === null) return ["unscored", "unscored"];
  if (c.points < 0) return c.met ? ["harm: " + c.points, "harm"] : ["avoided", "avoided"];
  return c.met ? ["met", "met"] : ["not met", "unmet"];
}

function renderScores(rubric) {
  const table = el("scores");
  table.innerHTML = "";
  if (!rubric) return;
  table.append(make("tr", {}, [make("th", { textContent: "score" }), make("th", { textContent: "value" })]));
  for (const [name, value] of Object.entries(rubric.scores)) {
    if (name !== "overall" && !name.startsWith("axis:")) continue;
    table.append(make("tr", {}, [make("td", { textContent: name }), make("td", { textContent: value.toFixed(2) })]));
  }
  if (rubric.unscored_reason) table.append(make("tr", {}, [make("td", { colSpan: 2, textContent: rubric.unscored_reason })]));
}

// The review was made against an older version of the rubric: the server regraded it and carried the marks over.
function renderRegraded(page) {
  const box = el("regraded");
  box.innerHTML = "";
  box.hidden = !page.regraded_from_version;
  if (box.hidden) return;
  const now = page.rubric ? page.rubric.generator : "the current rubric";
  const verdict = (met) => met === null || met === undefined ? "unscored" : (met ? "met" : "not met");
  box.append(make("p", { textContent: "The verdicts changed: your review was made against the rubric " +
    page.regraded_from_version + "; the consultation has been regraded with " + now + ". Your marks were carried " +
    "over to the same criteria (your judgement kept); check them and save." }));
  const lines = page.verdict_changes.map((c) => make("li", { textContent: c.change === "changed"
    ? (c.id + ": " + c.criterion + " — " + verdict(c.before) + " → " + verdict(c.after))
    : c.change === "added" ? (c.id + " (new): " + c.criterion + " — " + verdict(c.after))
    : ("no longer in the rubric: " + c.criterion + " (your marks on it are kept with the review)") }));
  if (lines.length) box.append(make("ul", {}, lines));
  else box.append(make("p", { textContent: "No verdict differs." }));
}

function renderCriteria(rubric) {
  const body = el("criteria").querySelector("tbody");
  body.innerHTML = "";
  el("criteria").hidden = !rubric;
  if (!rubric) return;
  for (const c of rubric.criteria) {
    const m = review.draft.criteria[c.id] || {};
    const points = make("input", { type: "number", min: -100, max: 100, value: m.points ?? c.points, className: "points" });
    points.addEventListener("change", () => { mark(c.id).points = Number(points.value); keepDraft(); });
    const verdict = make("select", { className: "verdict" }, [
      make("option", { value: "", textContent: "—" }), make("option", { value: "agree", textContent: "agree" }),
      make("option", { value: "disagree", textContent: "disagree" })]);
    verdict.value = m.verdict || "";
    verdict.disabled = c.met === null;
    verdict.addEventListener("change", () => { mark(c.id).verdict = verdict.value; keepDraft(); });
    const note = make("input", { type: "text", maxLength: 2000, value: m.note || "", className: "note-input" });
    note.addEventListener("input", () => { mark(c.id).note = note.value; keepDraft(); });
    const [text, css] = verdictText(c);
    const about = c.turn === "final" ? "about the final turn" : "about the whole consultation";
    const row = make("tr", {}, [
      make("td", { textContent: c.id }),
      make("td", {}, [c.criterion, make("br"), make("small", { className: "hint", textContent: c.tags.join(" ") + " · " + about })]),
      make("td", {}, [points]),
      make("td", {}, [make("b", { className: css, textContent: text }), make("br"),
        make("small", { textContent: c.grader + ": " + c.explanation })]),
      make("td", {}, [verdict]),
      make("td", {}, [note]),
    ]);
    row.dataset.id = c.id;
    if (c.points < 0 && c.met !== null) {
      row.className = c.met ? "penalty-harm" : "penalty-avoided";
      row.title = c.met ? "a penalty that applies: " + c.points + " points" : "a penalty this consultation avoided";
    }
    if (review.page.verdict_changes.some((v) => v.id === c.id && v.change !== "removed")) row.classList.add("regraded");
    body.append(row);
  }
}

function renderAdded() {
  const ul = el("added");
  ul.innerHTML = "";
  review.draft.added.forEach((a, index) => {
    const remove = make("button", { type: "button", textContent: "remove" });
    remove.addEventListener("click", () => { review.draft.added.splice(index, 1); keepDraft(); renderAdded(); });
    const met = a.met === null || a.met === undefined ? "not judged" : (a.met ? "met" : "not met");
    ul.append(make("li", {}, [`[${a.points}] ${a.criterion} (${a.tags.join(" ")}; ${met}; ${a.turn === "final" ? "final turn" : "whole consultation"}) `, remove]));
  });
}

async function renderReview() {
  const page = review.page;
  el("review-who").textContent = "as " + page.reviewer + (page.access === "reviewer" ? " (shared with you, read-only)" : "");
  el("no-rubric").hidden = !!page.rubric;
  el("no-rubric-reason").textContent = page.rubric_unavailable || "";
  const canAttach = page.access === "owner" && info && info.clinician_role !== "doctor";
  el("attach-select").hidden = el("attach-case").hidden = !canAttach;
  renderRegraded(page);
  renderScores(page.rubric);
  renderCriteria(page.rubric);
  renderAdded();
  el("rating").value = review.draft.rating || "";
  el("comment").value = review.draft.comment || "";
  el("share-box").hidden = page.access !== "owner";
  if (page.access === "owner") {
    try { el("share-with").value = (await (await api("/v1/consultations/" + current + "/shares")).json()).reviewers.join(", "); }
    catch (err) { /* the share list is optional */ }
  }
}

async function openReview() {
  if (!current) return;
  try {
    const page = await (await api("/v1/consultations/" + current + "/review")).json();
    let stored = localStorage.getItem(draftKey());
    let aside = "";
    const generator = page.rubric ? page.rubric.generator : null;
    if (stored && (JSON.parse(stored).rubric || null) !== generator) {
      // Unsaved marks made against another rubric version would land on other criteria: set them aside.
      localStorage.setItem(draftKey() + ".before-regrade", stored);
      localStorage.removeItem(draftKey());
      stored = null;
      aside = "unsaved changes made against an earlier rubric were set aside; ";
    }
    review = { page, draft: stored ? JSON.parse(stored) : draftFrom(page.review, page.rubric) };
    el("review").hidden = false;
    el("review-status").textContent = aside + (stored ? "unsaved changes (kept in this browser)" : (page.review ? "saved" : ""));
    await renderReview();
  } catch (err) { status(err.message); }
}

function reviewBody() {
  const rubric = review.page.rubric;
  const criteria = [];
  for (const c of rubric ? rubric.criteria : []) {
    const m = review.draft.criteria[c.id];
    if (!m) continue;
    const points = m.points === null || m.points === undefined || m.points === c.points ? null : m.points;
    if (!m.verdict && !m.note && points === null) continue;
    criteria.push({ id: c.id, verdict: m.verdict || null, note: m.note || "", points });
  }
  const rating = review.draft.rating ? Number(review.draft.rating) : null;
  return { criteria, added: review.draft.added, rating, comment: review.draft.comment || "",
    rubric_messages: rubric ? rubric.messages : null, rubric_generator: rubric ? rubric.generator : null };
}

async function saveReview() {
  el("save-review").disabled = true;
  try {
    const saved = await (await api("/v1/consultations/" + current + "/review", {
      method: "PUT", body: JSON.stringify(reviewBody()),
    })).json();
    localStorage.removeItem(draftKey());
    review.page.review = saved;
    review.page.regraded_from_version = null;
    review.page.verdict_changes = [];
    renderRegraded(review.page);
    el("review-status").textContent = "saved at " + new Date(saved.updated_at * 1000).toLocaleTimeString();
  } catch (err) {
    el("review-status").textContent = "not saved: " + err.message;
  } finally {
    el("save-review").disabled = false;
  }
}

function addCriterion() {
  const text = el("add-criterion-text").value.trim();
  if (!text) { el("review-status").textContent = "write the criterion first"; return; }
  const met = el("add-met").value;
  review.draft.added.push({
    criterion: text, points: Number(el("add-points").value), tags: ["axis:" + el("add-axis").value],
    met: met === "" ? null : met === "true", turn: el("add-turn").value,
  });
  el("add-criterion-text").value = "";
  keepDraft();
  renderAdded();
}

async function attachCase() {
  try {
    await api("/v1/consultations/" + current + "/case", {
      method: "PUT", body: JSON.stringify({ case_id: el("attach-select").value }),
    });
    info.case_id = el("attach-select").value;
    await openReview();
  } catch (err) { el("review-status").textContent = err.message; }
}

async function share() {
  const reviewers = el("share-with").value.split(",").map((s) => s.trim()).filter(Boolean);
  try {
    const shared = await (await api("/v1/consultations/" + current + "/shares", {
      method: "PUT", body: JSON.stringify({ reviewers }),
    })).json();
    el("review-status").textContent = shared.reviewers.length ? "shared with " + shared.reviewers.join(", ") : "not shared";
  } catch (err) { el("review-status").textContent = err.message; }
}

async function download(format) {
  try {
    const text = await (await api("/v1/reviews/export?format=" + format)).text();
    const link = make("a", { href: URL.createObjectURL(new Blob([text], { type: "application/x-ndjson" })),
      download: "reviews-" + format + ".jsonl" });
    document.body.append(link);
    link.click();
    link.remove();
    status(text ? "" : "no reviews to export yet");
  } catch (err) { status(err.message); }
}

function fmt(value, interval) {
  if (value === null || value === undefined) return "–";
  return value.toFixed(2) + (interval ? ` [${interval.low.toFixed(2)}, ${interval.high.toFixed(2)}]` : "");
}

async function showAgreement() {
  const box = el("agreement");
  try {
    const report = await (await api("/v1/reviews/agreement")).json();
    box.innerHTML = "";
    box.append(make("p", { textContent: `Agreement over ${report.reviews} reviews of ${report.consultations} consultations ` +
      `(${report.reviewers.join(", ") || "none yet"}); 95% bootstrap intervals.` }));
    const table = make("table", {}, [make("tr", {}, ["comparison", "n", "accuracy", "macro F1", "Cohen's kappa"].map(
      (h) => make("th", { textContent: h })))]);
    const rows = [["grader vs clinicians", report.grader],
      ...Object.entries(report.by_axis).map(([k, v]) => ["axis " + k, v]),
      ...Object.entries(report.by_grader).map(([k, v]) => ["grader " + k, v])];
    if (report.clinicians) rows.push(["clinician vs clinician", report.clinicians]);
    for (const [name, s] of rows) {
      table.append(make("tr", {}, [name, String(s.n), fmt(s.accuracy, s.accuracy_ci), fmt(s.macro_f1, s.macro_f1_ci),
        fmt(s.kappa, s.kappa_ci)].map((t) => make("td", { textContent: t }))));
    }
    box.append(table);
    if (report.most_disagreed.length) {
      box.append(make("p", { textContent: "Most disagreed:" }), make("ul", {}, report.most_disagreed.map(
        (d) => make("li", { textContent: `${d.disagreements}/${d.compared}: ${d.criterion}` }))));
    }
    const close = make("button", { type: "button", textContent: "close" });
    close.addEventListener("click", () => { box.hidden = true; });
    box.append(close);
    box.hidden = false;
  } catch (err) { status(err.message); }
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
  info = null;
  showEnded();
  el("messages").innerHTML = "";
  el("review").hidden = true;
  el("case-card").hidden = true;
  el("composer").hidden = false;
  el("open-review").disabled = true;
  loadSessions();
});
el("case-form").addEventListener("submit", (event) => { event.preventDefault(); startFromCase(); });
el("composer").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = el("input").value.trim();
  if (!text) return;
  el("input").value = "";
  send(text);
});
el("open-review").addEventListener("click", openReview);
el("save-review").addEventListener("click", saveReview);
el("add-form").addEventListener("submit", (event) => { event.preventDefault(); addCriterion(); });
el("attach-case").addEventListener("click", attachCase);
el("share").addEventListener("click", share);
el("rating").addEventListener("change", () => { review.draft.rating = el("rating").value; keepDraft(); });
el("comment").addEventListener("input", () => { review.draft.comment = el("comment").value; keepDraft(); });
el("export-healthbench").addEventListener("click", () => download("healthbench"));
el("export-consultations").addEventListener("click", () => download("consultations"));
el("show-agreement").addEventListener("click", showAgreement);
if (apiKey()) el("api-key").placeholder = "key saved";
loadSessions();
