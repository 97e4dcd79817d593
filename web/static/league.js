// The league's pages: the leaderboard, an entrant and a match's replay.  Every name and
// text from the database is set with textContent (never as HTML): entrants choose names.
"use strict";

const $ = (id) => document.getElementById(id);
const POLL_MS = 2000;

// The host's key (?key=...) is kept for this tab and sent with each request.
(() => {
  const url = new URL(location.href);
  const key = url.searchParams.get("key");
  if (key) {
    sessionStorage.setItem("leagueKey", key);
    url.searchParams.delete("key");
    history.replaceState(null, "", url.pathname + url.search);
  }
})();

async function api(path) {
  const key = sessionStorage.getItem("leagueKey");
  const res = await fetch(path, {headers: key ? {"X-League-Key": key} : {}, cache: "no-store"});
  const data = await res.json();
  if (!res.ok) throw new Error(data.error || res.statusText);
  return data;
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

function fmt(x, digits) { return x === null || x === undefined ? "–" : Number(x).toFixed(digits); }
function pct(x) { return x === null || x === undefined ? "–" : (100 * x).toFixed(1) + " %"; }
function signed(x) { return x === null ? "–" : (x > 0 ? "+" : "") + Math.round(x); }

function ago(t) {
  if (!t) return "–";
  const s = Math.max(0, Date.now() / 1000 - t);
  if (s < 60) return Math.round(s) + " s ago";
  if (s < 3600) return Math.round(s / 60) + " min ago";
  if (s < 86400) return Math.round(s / 3600) + " h ago";
  return new Date(t * 1000).toLocaleDateString();
}

function faultText(faults) {
  const parts = Object.entries(faults || {}).sort((a, b) => b[1] - a[1]);
  return parts.length ? parts.map(([k, v]) => `${k} ${v}`).join(", ") : "none";
}

function badge(status) {
  return el("span", {class: "badge badge-" + status}, status);
}

function setLive(text, ok) {
  const live = $("live");
  live.textContent = text;
  live.classList.toggle("stale", !ok);
}

// ---- the leaderboard -----------------------------------------------------------------------
let boardVersion = null;
let entrantNames = {};

function ratingCell(r, span) {
  const cell = el("td", {class: "rating-col"});
  if (r.rating === null) { cell.append(el("span", {class: "muted"}, "not rated yet")); return cell; }
  const bar = el("div", {class: "interval", "aria-hidden": "true"});
  const left = 50 + 50 * (r.rating_low / span), right = 50 + 50 * (r.rating_high / span);
  const mid = 50 + 50 * (r.rating / span);
  const range = el("span", {class: "range"});
  range.style.left = Math.max(0, left) + "%";
  range.style.width = Math.max(1, Math.min(100, right) - Math.max(0, left)) + "%";
  const dot = el("span", {class: "dot"});
  dot.style.left = Math.min(100, Math.max(0, mid)) + "%";
  bar.append(el("span", {class: "zero"}), range, dot);
  cell.append(el("strong", {class: "rating"}, signed(r.rating)),
              el("span", {class: "ci"}, ` ${signed(r.rating_low)} … ${signed(r.rating_high)}`), bar);
  return cell;
}

function boardRow(r, span, sameAsAbove) {
  const name = el("a", {href: "/league/e/" + r.id, class: "entrant-link"}, r.name);
  const who = el("td", {class: "who"}, name, " ");
  if (r.kind === "house") who.append(el("span", {class: "chip chip-house"}, "house bot"));
  else who.append(el("span", {class: "chip", title: "version"}, r.version));
  if (r.status !== "active") who.append(" ", badge(r.status));
  const rank = el("td", {class: "num rank"}, r.rank === null ? "–" : r.rank);
  if (sameAsAbove) rank.append(el("span", {class: "same-mark", title: "cannot be told apart from the one above"}, " ≈"));
  const faults = el("td", {class: "faults" + (Object.keys(r.faults).length ? " has" : "")},
                    faultText(r.faults));
  const tr = el("tr", {"data-entrant": r.id, class: "status-" + r.status},
    rank, who, ratingCell(r, span), el("td", {class: "num games", "data-label": "Games"}, r.games),
    el("td", {class: "num mean", "data-label": "Mean pts"}, fmt(r.mean_points, 2)),
    el("td", {class: "num first", "data-label": "1st"}, pct(r.first_share)), faults,
    el("td", {class: "when last", "data-label": "Last active"}, ago(r.last_active)));
  return tr;
}

function renderBoard(data) {
  $("league-name").textContent = data.league || "League";
  document.title = (data.league || "League") + " · Daihinmin";
  const active = data.entrants.filter((r) => r.status === "active").length;
  $("league-summary").textContent =
    `${data.games} games in ${data.matches} matches · ${active} active entrants of ${data.entrants.length}`;
  entrantNames = Object.fromEntries(data.entrants.map((r) => [r.id, r.kind === "house" ? r.name : `${r.name} ${r.version}`]));
  const span = Math.max(100, ...data.entrants.filter((r) => r.rating !== null)
                         .map((r) => Math.max(Math.abs(r.rating_low), Math.abs(r.rating_high))));
  const body = $("board-body");
  const rows = [];
  let prev = null;
  for (const r of data.entrants) {
    rows.push(boardRow(r, span, prev !== null && prev.told_apart_from_next === false));
    prev = r;
  }
  if (!rows.length) rows.push(el("tr", {}, el("td", {colspan: "8", class: "muted"}, "No entrants yet.")));
  body.replaceChildren(...rows);
  const running = data.running.map((m) => el("li", {},
    el("strong", {}, `Match ${m.match}: `), m.lineup.map((e) => entrantNames[e] || "?").join(" · ")));
  $("running").replaceChildren(...(running.length ? running : [el("li", {class: "muted"}, "No table is playing.")]));
  const events = data.events.map((ev) => el("li", {}, el("span", {class: "when"}, ago(ev.at) + " "), ev.text));
  $("events").replaceChildren(...(events.length ? events : [el("li", {class: "muted"}, "Nothing yet.")]));
}

async function pollBoard() {
  try {
    const data = await api("/api/league/standings" + (boardVersion ? "?since=" + encodeURIComponent(boardVersion) : ""));
    if (!data.unchanged) { renderBoard(data); boardVersion = data.version; }
    setLive("live · updated " + new Date().toLocaleTimeString(), true);
  } catch (e) {
    setLive("reconnecting… (" + e.message + ")", false);
  }
  setTimeout(pollBoard, POLL_MS);
}

// ---- an entrant ----------------------------------------------------------------------------
let entrantVersion = null;

function stat(label, value) {
  return el("div", {class: "stat"}, el("span", {class: "stat-value"}, value), el("span", {class: "stat-label"}, label));
}

function renderEntrant(d) {
  const r = d.entrant;
  $("e-name").textContent = r.name;
  $("e-version").textContent = r.version;
  $("e-status").replaceChildren(badge(r.status));
  document.title = `${r.name} ${r.version} · League`;
  $("e-reason").hidden = !r.reason;
  $("e-reason").textContent = r.reason || "";
  $("e-stats").replaceChildren(
    stat("rank", r.rank === null ? "–" : "#" + r.rank),
    stat("rating", r.rating === null ? "–" : `${signed(r.rating)} (${signed(r.rating_low)} … ${signed(r.rating_high)})`),
    stat("games", r.games), stat("matches", r.matches), stat("mean points", fmt(r.mean_points, 2)),
    stat("first place", pct(r.first_share)), stat("faults", faultText(r.faults)),
    stat("failed matches", r.failed_matches));
  const rows = d.matches.map((m) => {
    const table = el("td", {class: "table-cell"});
    m.players.forEach((p, i) => {
      if (i) table.append(" · ");
      const who = el(p.entrant === r.id ? "strong" : "a", p.entrant === r.id ? {} : {href: "/league/e/" + p.entrant}, p.name);
      table.append(who);
    });
    if (m.status !== "done") table.append(el("div", {class: "reason small"}, m.error || m.status));
    const replay = el("td", {});
    if (m.replay) replay.append(el("a", {href: "/league/m/" + m.match, class: "replay-link", "data-match": m.match}, "Replay ▶"));
    else replay.append(el("span", {class: "muted"}, "–"));
    return el("tr", {class: "status-" + m.status},
      el("td", {class: "num"}, m.match), table, el("td", {class: "num", "data-label": "Points"}, m.points ?? "–"),
      el("td", {class: "num", "data-label": "Place"}, m.place ?? "–"), el("td", {class: "when"}, ago(m.finished_at)), replay);
  });
  $("e-matches-body").replaceChildren(...(rows.length ? rows : [el("tr", {}, el("td", {colspan: "6", class: "muted"}, "No match yet."))]));
  $("e-errors-hidden").hidden = d.errors_shown;
  $("e-errors").replaceChildren(...d.faults.map((f) => el("details", {class: "fault"},
    el("summary", {}, `match ${f.match} (attempt ${f.attempt}): ${f.status}` + (f.stand_in ? `, a stand-in (${f.stand_in}) took the seat` : "")),
    el("pre", {}, f.detail || "(no detail)"))));
  if (d.entry_output) $("e-errors").prepend(el("details", {class: "fault entry-output"},
    el("summary", {}, "when it entered: " + (r.reason || "its build and check")), el("pre", {}, d.entry_output)));
  if (d.errors_shown && !d.faults.length && !d.entry_output) $("e-errors").replaceChildren(el("p", {class: "muted"}, "No error so far."));
  $("e-events").replaceChildren(...d.events.map((ev) => el("li", {}, el("span", {class: "when"}, ago(ev.at) + " "), ev.text)));
}

async function pollEntrant(id) {
  try {
    const d = await api("/api/league/entrants/" + id);
    if (d.version !== entrantVersion) { renderEntrant(d); entrantVersion = d.version; }
    setLive("live · updated " + new Date().toLocaleTimeString(), true);
  } catch (e) {
    setLive("reconnecting… (" + e.message + ")", false);
  }
  setTimeout(() => pollEntrant(id), POLL_MS);
}

// ---- a match -------------------------------------------------------------------------------
async function showMatch(id) {
  $("m-title").textContent = `Match ${id}`;
  setLive("replay", true);
  try {
    const data = await api(`/api/league/matches/${id}/replay`);
    Replay.mount($("replay-view"), data);
  } catch (e) { $("m-message").textContent = "✗ " + e.message; }
}

const path = location.pathname;
if (path.startsWith("/league/e/")) { $("entrant-page").hidden = false; pollEntrant(encodeURIComponent(path.slice(10))); }
else if (path.startsWith("/league/m/")) { $("match-page").hidden = false; showMatch(encodeURIComponent(path.slice(10))); }
else { $("board-page").hidden = false; pollBoard(); }
