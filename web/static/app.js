// The pages of `daihinmin web`: the menu, a table (play, hot-seat, room, watch) and replay.
// Plain JS, no build step.  Every action is a <button>, so Tab/Enter/Space play the game.
"use strict";

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v === true) node.setAttribute(k, "");
    else if (v !== false && v !== null && v !== undefined) node.setAttribute(k, v);
  }
  for (const c of children) node.append(c instanceof Node ? c : String(c));
  return node;
}

async function api(path, body) {
  const res = await fetch(path, body === undefined ? {} : {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const data = await res.json();
  if (!res.ok) throw new Error(data.error || res.statusText);
  return data;
}

// ---- the menu ------------------------------------------------------------------------------
let PRESETS = {};

async function showMenu() {
  $("menu").hidden = false;
  PRESETS = await api("/api/presets");
  const preset = $("preset");
  for (const name of Object.keys(PRESETS)) preset.append(el("option", {value: name}, name));
  preset.value = "web";
  preset.addEventListener("change", fillPreset);
  fillPreset();
  for (const mode of ["cpu", "hotseat", "room"]) {
    $("mode-" + mode).addEventListener("click", () => createTable(mode));
  }
}

function fillPreset() {
  const p = PRESETS[$("preset").value];
  const players = $("players");
  players.replaceChildren();
  for (const n of p.player_counts) {
    players.append(el("option", {value: n, selected: n === p.players}, n));
  }
  const box = $("rounds-box");
  box.replaceChildren(p.rounds.length
    ? el("select", {id: "games"}, ...p.rounds.map((r) => el("option", {value: r}, r)))
    : el("input", {id: "games", type: "number", min: 1, max: 100, value: 3}));
  const main = $("toggles"), more = $("more-toggles");
  main.replaceChildren(el("legend", {}, "Local rules"));
  more.replaceChildren();
  for (const t of p.toggles) {
    let input;
    if (t.kind === "bool") {
      input = el("input", {type: "checkbox", "data-rule": t.key, checked: t.value});
    } else {
      input = el("select", {"data-rule": t.key},
        ...t.choices.map((c) => el("option", {value: c, selected: c === t.value}, c)));
    }
    (t.main ? main : more).append(el("label", {class: "toggle"}, input, " " + t.key));
  }
}

function menuSettings() {
  const rules = {};
  for (const input of document.querySelectorAll("[data-rule]")) {
    rules[input.dataset.rule] = input.type === "checkbox" ? input.checked : input.value;
  }
  return {preset: $("preset").value, players: Number($("players").value),
          games: Number($("games").value), level: $("level").value, rules,
          name: $("name").value};
}

async function createTable(mode) {
  try {
    const made = await api("/api/tables/new", {...menuSettings(), mode});
    localStorage.setItem("daihinmin:token:" + made.table, made.token);
    location.href = made.url;
  } catch (e) {
    $("menu-message").textContent = e.message;
  }
}

// ---- a table -------------------------------------------------------------------------------
const T = {id: null, token: null, ws: null, state: null, selected: new Set(), refused: false};

function showTable(id) {
  $("table").hidden = false;
  T.id = id;
  const fromLink = new URLSearchParams(location.hash.slice(1)).get("seat");
  if (fromLink) localStorage.setItem("daihinmin:token:" + id, fromLink);
  T.token = localStorage.getItem("daihinmin:token:" + id);
  $("share").value = location.origin + "/t/" + id;
  $("join").addEventListener("click", joinRoom);
  $("start").addEventListener("click", () => send({type: "start"}));
  $("curtain-button").addEventListener("click", () => send({type: "reveal"}));
  $("play").addEventListener("click", playSelected);
  $("pass").addEventListener("click", passTurn);
  $("give").addEventListener("click", giveSelected);
  connect();
}

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const query = T.token ? "?token=" + encodeURIComponent(T.token) : "";
  const ws = new WebSocket(`${proto}//${location.host}/ws/${T.id}${query}`);
  T.ws = ws;
  ws.onmessage = (ev) => receive(JSON.parse(ev.data));
  ws.onclose = () => {
    if (T.refused) return;
    say("Connection lost; reconnecting…");
    setTimeout(connect, 1000);
  };
}

function send(message) {
  if (T.ws && T.ws.readyState === WebSocket.OPEN) T.ws.send(JSON.stringify(message));
}

function say(text) {
  $("message").textContent = text;
  // a spectator has no hand panel (where #message is): the answer shows under the status line
  $("page-message").textContent = $("me").hidden ? text : "";
}

function receive(msg) {
  if (msg.type === "state") render(msg);
  else if (msg.type === "error") say("✗ " + msg.text);
  else if (msg.type === "explain") say(msg.text);
  else if (msg.type === "refused") {
    T.refused = true;
    $("status-line").textContent = msg.text;
    say(msg.text);
    $("status-line").append(" ", el("a", {href: "/t/" + T.id, onclick: watchInstead}, "Watch instead"));
  }
}

function watchInstead(ev) {
  ev.preventDefault();
  T.token = null; T.refused = false;
  connect();
}

async function joinRoom() {
  try {
    const joined = await api(`/api/tables/${T.id}/join`, {name: $("join-name").value});
    localStorage.setItem("daihinmin:token:" + T.id, joined.token);
    T.token = joined.token;
    T.ws.onclose = null;
    T.ws.close();
    connect();
  } catch (e) { say("✗ " + e.message); }
}

const FLAG_NAMES = {revolution: "革命 Revolution", eleven_back: "11バック 11-back",
                    lock: "しばり Lock", geki: "激しばり Geki-shibari",
                    reversed: "order reversed: 3 is strongest", backwards: "play goes backwards"};

function cardsView(cards) {
  return cards.map((c) => el("span", {class: "card" + (c.red ? " red" : "") + (c.joker ? " joker" : "")},
                             c.label));
}

function focusKey() {
  const a = document.activeElement;
  if (!a || a === document.body) return null;
  return a.dataset && a.dataset.card ? `#hand [data-card="${a.dataset.card}"]` : a.id ? "#" + a.id : null;
}

function render(s) {
  const key = focusKey();
  draw(s);
  const again = key && document.querySelector(key);
  if (again && document.activeElement !== again) again.focus();
}

function draw(s) {
  const previous = T.state;
  T.state = s;
  const promptChanged = !previous || !previous.prompt || !s.prompt || previous.prompt.id !== s.prompt.id;
  if (promptChanged) T.selected.clear();
  const statusText = s.status === "lobby" ? "Waiting for the host to start"
    : s.status === "over" ? "Match over" : s.status === "failed" ? s.error
    : s.status === "ended" ? `the ${s.source} stopped publishing`
    : `Game ${s.game} of ${s.games}`;
  $("status-line").textContent = `${s.rules} · ${s.players} players · ${s.mode} · ${statusText}`
    + (s.you === null && !s.curtain && s.mode !== "hotseat" ? " · watching" : "")
    + (s.notice ? " · " + s.notice : "")
    + (s.mode === "watch" ? (s.hands_shown ? " · hands shown by the host" : " · hands hidden") : "");
  // lobby
  $("lobby").hidden = s.mode !== "room" || s.status !== "lobby";
  const mine = s.you !== null ? s.seats[s.you] : null;
  $("join-box").hidden = !(s.status === "lobby" && !T.token && s.seats.some((x) => x.open));
  $("start").hidden = !(s.status === "lobby" && s.you === 0);
  // curtain (hot-seat)
  $("curtain").hidden = !s.curtain;
  if (s.curtain) $("curtain-text").textContent =
    `Pass the device to ${s.curtain_for}. ${s.curtain_for}: press the button when only you can see the screen.`;
  $("me").hidden = s.curtain || s.you === null;
  // seats
  const seats = $("seats");
  seats.replaceChildren(...s.seats.map((x) => {
    const tags = [];
    if (x.cpu) tags.push("CPU");
    if (x.open) tags.push("open seat");
    if (x.stand_in && s.status === "playing") tags.push("CPU plays (away)");
    if (x.passed) tags.push("passed");
    if (x.title) tags.push(`out: ${x.place}. ${x.title}`);
    return el("div", {class: "seat" + (x.turn ? " turn" : "") + (x.player === s.you ? " you" : ""),
                      "data-player": x.player},
      el("strong", {}, `${x.name}${x.player === s.you ? " (you)" : ""}`),
      el("span", {class: "count"}, x.count === null ? "" : `${x.count} cards`),
      el("span", {}, `class ${x.class}`),
      el("span", {class: "tags"}, tags.join(" · ")),
      el("span", {class: "points"}, `${s.totals[x.player]} pts`),
      ...(x.hand ? [el("div", {class: "cards seat-hand"}, ...cardsView(x.hand))] : []));
  }));
  // flags, field, last play
  const flags = $("flags");
  flags.replaceChildren(...Object.entries(s.flags || {}).filter(([k, v]) => v && FLAG_NAMES[k])
    .map(([k]) => el("span", {class: "flag flag-" + k}, FLAG_NAMES[k])));
  if (s.flags && s.flags.pile !== null && s.flags.pile !== undefined) flags.append(el("span", {class: "flag"}, `pile ${s.flags.pile}`));
  $("field").replaceChildren(...(s.field ? cardsView(s.field.cards) : [el("span", {class: "empty"}, "(empty)")]));
  $("last").textContent = s.last ? `Last play: ${s.last.name} — ${s.last.text}` : "";
  renderHand(s);
  renderScores(s);
  renderTournament(s);
  $("recent").start = s.recent_from || 1;
  $("recent").replaceChildren(...(s.recent || []).map((line) => el("li", {}, line)));
  if (s.status === "over" && s.seats.length) {
    const best = s.standings ? s.seats[s.standings[0]].name : "";
    say(`Match over: ${best} wins.`);
  }
}

function promptMoves(s) { return s.prompt && s.prompt.kind === "play" ? s.prompt.moves : []; }

function renderHand(s) {
  const hand = $("hand");
  const prompt = s.prompt;
  const playable = new Set();
  for (const m of promptMoves(s)) for (const c of m.cards) playable.add(c);
  $("hand-title").textContent = !prompt ? "Your hand"
    : prompt.kind === "play" ? "Your turn: choose cards to play"
    : prompt.kind === "exchange" ? `Exchange: choose ${prompt.count} card(s) to give back`
    : prompt.choice === "give" ? `7-pass: give up to ${prompt.count} card(s) to ${s.seats[prompt.receiver].name}`
    : `10-discard: discard up to ${prompt.count} card(s)`;
  hand.replaceChildren(...(s.hand || []).map((c) => {
    const chosen = T.selected.has(c.id);
    const dim = prompt && prompt.kind === "play" && !playable.has(c.id);
    return el("button", {type: "button", class: "card" + (c.red ? " red" : "") + (c.joker ? " joker" : "")
                         + (chosen ? " chosen" : "") + (dim ? " dim" : ""),
                         "data-card": c.id, "aria-pressed": chosen ? "true" : "false",
                         disabled: !prompt, "aria-label": c.label + (dim ? " (cannot be played now)" : ""),
                         onclick: () => toggleCard(c.id)}, c.label);
  }));
  updateActions();
}

function sameCards(a, set) {
  return a.length === set.size && a.every((c) => set.has(c));
}

function matchingMoves() {
  return promptMoves(T.state).filter((m) => !m.pass && sameCards(m.cards, T.selected));
}

function updateActions() {
  const s = T.state, prompt = s.prompt;
  const isPlay = prompt && prompt.kind === "play";
  const matching = isPlay ? matchingMoves() : [];
  $("play").hidden = !!prompt && !isPlay;
  $("pass").hidden = !!prompt && !isPlay;
  $("play").disabled = !isPlay || matching.length !== 1;  // several: the joker's place first
  $("pass").disabled = !isPlay || !prompt.moves.some((m) => m.pass);
  const choosing = prompt && !isPlay;
  $("give").hidden = !choosing;
  const n = T.selected.size;
  $("give").disabled = !choosing || (prompt.kind === "exchange" ? n !== prompt.count : n > prompt.count);
  $("give").textContent = !choosing ? "Give" : prompt.kind === "exchange" ? `Give back ${n}/${prompt.count}`
    : prompt.choice === "give" ? `Give ${n} card(s)` : `Discard ${n} card(s)`;
  const options = $("joker-options");
  options.replaceChildren(...(matching.length > 1 ? matching.map((m) =>
    el("button", {type: "button", "data-move": m.index, onclick: () => sendMove(m.index)},
       "Play " + m.text)) : []));
}

function toggleCard(id) {
  if (T.selected.has(id)) T.selected.delete(id); else T.selected.add(id);
  renderHand(T.state);
  const button = document.querySelector(`#hand [data-card="${id}"]`);
  if (button) button.focus();
  const prompt = T.state.prompt;
  if (prompt && prompt.kind === "play") {
    const matching = matchingMoves();
    if (T.selected.size === 0) say("");
    else if (matching.length === 1) say("Legal: " + matching[0].text);
    else if (matching.length > 1) say("The joker can stand in several places: choose one.");
    else send({type: "explain", cards: [...T.selected]});
  }
}

function sendMove(index) {
  send({type: "play", prompt: T.state.prompt.id, move: index});
  say("");
}

function playSelected() {
  const matching = matchingMoves();
  if (matching.length === 1) sendMove(matching[0].index);
}

function passTurn() {
  const pass = promptMoves(T.state).find((m) => m.pass);
  if (pass) sendMove(pass.index);
}

function giveSelected() {
  const prompt = T.state.prompt;
  send({type: prompt.kind, prompt: prompt.id, cards: [...T.selected]});
}

function renderScores(s) {
  const table = $("scores");
  const head = el("tr", {}, el("th", {}, "Game"), ...s.seats.map((x) => el("th", {}, x.name)));
  const rows = s.scores.map((r) => el("tr", {}, el("td", {}, r.game),
    ...r.points.map((p, i) => el("td", {}, `${p} (${r.places[i]}.)`))));
  const total = el("tr", {class: "total"}, el("th", {}, "Total"), ...s.totals.map((t) => el("th", {}, t)));
  table.replaceChildren(head, ...rows, total);
}

// A published tournament's table: which match this is, and the live standings.
function renderTournament(s) {
  const t = s.tournament;
  $("tournament").hidden = !t || !t.rows;
  if (!t || !t.rows) return;
  const m = s.match || {};
  $("tournament-progress").textContent = `table ${m.table || "?"} · match ${m.key || "?"} · `
    + `${t.done} of ${t.total} games · ${t.matches_done} matches done`
    + (t.failed ? ` · ${t.failed} failed` : "")
    + (t.lower_is_better ? " · fewer points are better" : "");
  const head = el("tr", {}, ...["#", "participant", "seat-games", "mean pts", "1st %", "μ", "σ",
                                "faults"].map((h) => el("th", {}, h)));
  const rows = t.rows.map((r, i) => el("tr", {}, el("td", {}, i + 1), el("td", {}, r.name),
    el("td", {}, r.games), el("td", {}, r.mean === null ? "-" : r.mean.toFixed(3)),
    el("td", {}, r.first === null ? "-" : r.first.toFixed(1)), el("td", {}, r.mu.toFixed(2)),
    el("td", {}, r.sigma.toFixed(2)), el("td", {}, r.faults)));
  if (t.more) rows.push(el("tr", {}, el("td", {colspan: 8}, `… and ${t.more} more`)));
  $("standings").replaceChildren(head, ...rows);
}

// ---- watch ---------------------------------------------------------------------------------
async function showWatch() {
  $("watch").hidden = false;
  const data = await api("/api/tables");
  const list = $("watch-list");
  list.replaceChildren(...data.tables.map((t) => el("li", {},
    el("a", {href: "/t/" + t.id, "data-table": t.id}, `${t.mode} · ${t.rules}: ${t.players.join(", ")}`),
    ` — ${t.status}, game ${t.game} of ${t.games}`)));
  if (!data.tables.length) list.append(el("li", {}, "No tables yet."));
  setTimeout(showWatch, 2000);  // tables come and go: keep the list fresh
}

// ---- replay --------------------------------------------------------------------------------
function showReplay() {
  $("replay").hidden = false;
  $("log-file").addEventListener("change", async (ev) => {
    const file = ev.target.files[0];
    if (!file) return;
    try {
      const res = await fetch("/api/replay", {method: "POST", body: await file.text()});
      const data = await res.json();
      if (!res.ok) throw new Error(data.error);
      $("replay-message").textContent = "";
      Replay.mount($("replay-view"), data);
    } catch (e) { $("replay-message").textContent = "✗ " + e.message; }
  });
}

// ---- routing -------------------------------------------------------------------------------
const path = location.pathname;
if (path.startsWith("/t/")) showTable(path.slice(3));
else if (path === "/watch") showWatch();
else if (path === "/replay") showReplay();
else showMenu();
