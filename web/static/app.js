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
  for (const [name, p] of Object.entries(PRESETS)) {
    preset.append(el("option", {value: name}, `${p.label} (${name})`));
  }
  preset.value = "web";
  preset.addEventListener("change", fillPreset);
  fillPreset();
  for (const mode of ["cpu", "hotseat", "room"]) {
    $("mode-" + mode).addEventListener("click", () => createTable(mode));
  }
}

// One rule of the menu in words: its name (Japanese and English), one line, the key small.
function ruleControl(t) {
  const name = t.ja ? `${t.ja} · ${t.label}` : t.label;
  const id = "rule-" + t.key;
  const words = [el("span", {class: "rule-explain"}, t.explain),
                 el("span", {class: "rule-key", title: "--rule " + t.key + "=…"}, t.key)];
  if (t.kind === "bool") {
    return el("div", {class: "rule"},
      el("input", {type: "checkbox", id, "data-rule": t.key, checked: t.value}),
      el("label", {for: id, class: "rule-name"}, name), ...words);
  }
  return el("div", {class: "rule choice"},
    el("label", {for: id, class: "rule-name"}, name),
    el("select", {id, "data-rule": t.key},
      ...t.choices.map((c) => el("option", {value: c.value, selected: c.value === t.value},
                                 c.label))),
    ...words);
}

function groupedRules(p, toggles) {
  return p.groups.map(([group, heading]) => {
    const mine = toggles.filter((t) => t.group === group);
    return mine.length ? el("fieldset", {class: "rule-group"}, el("legend", {}, heading),
                            ...mine.map(ruleControl)) : null;
  }).filter((x) => x);
}

function fillPreset() {
  const p = PRESETS[$("preset").value];
  $("preset-about").replaceChildren(p.explain,
    el("span", {class: "sets"}, "Sets: " + (p.sets.join(", ") || "none of the special rules")));
  const players = $("players");
  players.replaceChildren();
  for (const n of p.player_counts) {
    players.append(el("option", {value: n, selected: n === p.players}, n));
  }
  const box = $("rounds-box");
  box.replaceChildren(p.rounds.length
    ? el("select", {id: "games"}, ...p.rounds.map((r) => el("option", {value: r}, r)))
    : el("input", {id: "games", type: "number", min: 1, max: 100, value: 3}));
  $("toggles").replaceChildren(...groupedRules(p, p.toggles.filter((t) => t.main)));
  $("more-toggles").replaceChildren(...groupedRules(p, p.toggles.filter((t) => !t.main)));
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
const T = {id: null, token: null, ws: null, state: null, selected: new Set(), refused: false,
           fieldKey: null, fieldCards: []};
const REDUCED_MOTION = window.matchMedia("(prefers-reduced-motion: reduce)");

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
  for (const tab of document.querySelectorAll(".tab")) {
    tab.addEventListener("click", () => showView(tab.dataset.view));
  }
  window.addEventListener("resize", fanHand);
  connect();
}

// Narrow screens: the table, the scores and the turns are tabs (wide screens show all three).
function showView(view) {
  document.querySelector(".layout").dataset.view = view;
  for (const tab of document.querySelectorAll(".tab")) {
    tab.setAttribute("aria-pressed", String(tab.dataset.view === view));
  }
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

const FLAG_NAMES = {revolution: "革命 Revolution", eleven_back: "イレブンバック 11-back",
                    lock: "縛り Lock", geki: "激縛り Strict lock",
                    reversed: "order reversed: 3 is strongest", backwards: "play goes backwards"};
const MODE_NAMES = {cpu: "against the CPUs", hotseat: "hot-seat", room: "room", watch: "watching"};

function counted(n, noun, plural) { return `${n} ${n === 1 ? noun : plural || noun + "s"}`; }
function ordinal(n) {
  const tail = n % 100 >= 11 && n % 100 <= 13 ? "th" : ["th", "st", "nd", "rd"][n % 10] || "th";
  return n + tail;
}

// A card face drawn in CSS: the index in two corners and a pip (a letter for J, Q, K).
function cardFace(c, tag, attrs) {
  const joker = c.joker || c.label === "JK";
  const suit = joker ? "★" : c.label[0];
  const rank = joker ? "JOKER" : c.label.slice(1);
  const face = !joker && "JQK".includes(rank);
  const cls = "pcard" + (c.red ? " red" : "") + (joker ? " joker" : "") + (face ? " face" : "")
    + (attrs && attrs.class ? " " + attrs.class : "");
  const index = (where) => el("span", {class: "idx " + where, "aria-hidden": "true"},
                              el("b", {}, rank), ...(joker ? [] : [el("i", {}, suit)]));
  return el(tag || "span", {...(attrs || {}), class: cls, ...(tag ? {} : {"aria-label": c.label})},
            index("tl"), el("span", {class: "pip", "aria-hidden": "true"}, face ? rank + suit : suit),
            index("br"));
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

function viewerSeat(s) {
  if (s.you !== null && s.you !== undefined) return s.you;
  return 0;
}

function draw(s) {
  const previous = T.state;
  T.state = s;
  const promptChanged = !previous || !previous.prompt || !s.prompt || previous.prompt.id !== s.prompt.id;
  if (promptChanged) T.selected.clear();
  const statusText = s.status === "lobby" ? "waiting for the host to start"
    : s.status === "over" ? "match over" : s.status === "failed" ? s.error
    : s.status === "ended" ? `the ${s.source} stopped publishing`
    : `game ${s.game} of ${s.games}`;
  $("status-line").textContent = `${s.rules} · ${s.players} players · ${MODE_NAMES[s.mode] || s.mode} · ${statusText}`
    + (s.you === null && !s.curtain && s.mode !== "hotseat" && s.mode !== "watch" ? " · watching" : "")
    + (s.notice ? " · " + s.notice : "")
    + (s.mode === "watch" ? (s.hands_shown ? " · hands shown by the host" : " · hands hidden") : "");
  // lobby
  $("lobby").hidden = s.mode !== "room" || s.status !== "lobby";
  $("join-box").hidden = !(s.status === "lobby" && !T.token && s.seats.some((x) => x.open));
  $("start").hidden = !(s.status === "lobby" && s.you === 0);
  // curtain (hot-seat)
  $("curtain").hidden = !s.curtain;
  if (s.curtain) $("curtain-text").textContent =
    `${s.curtain_for}'s turn. Hand the device to ${s.curtain_for}, who presses “Show my hand” `
    + "when nobody else can see the screen.";
  $("me").hidden = s.curtain || s.you === null;
  drawSeats(s);
  // flags, field, last play, whose turn
  const flags = $("flags");
  flags.replaceChildren(...Object.entries(s.flags || {}).filter(([k, v]) => v && FLAG_NAMES[k])
    .map(([k]) => el("span", {class: "flag flag-" + k}, FLAG_NAMES[k])));
  if (s.flags && s.flags.pile !== null && s.flags.pile !== undefined) {
    flags.append(el("span", {class: "flag flag-pile"}, `draw pile: ${counted(s.flags.pile, "card")}`));
  }
  drawField(s);
  $("last").textContent = s.last ? `Last play: ${s.last.name} — ${s.last.text}` : "";
  drawTurn(s);
  renderHand(s);
  renderScores(s);
  renderTournament(s);
  $("recent").start = s.recent_from || 1;
  $("recent").replaceChildren(...(s.recent || []).map((line) => el("li", {}, line)));
  const recent = $("recent");
  recent.scrollTop = recent.scrollHeight;  // the newest turn in view
  if (s.status === "over" && s.seats.length) {
    const best = s.standings ? s.seats[s.standings[0]].name : "";
    say(`Match over: ${best} wins.`);
  }
}

// ---- seats around the table: the viewer at the bottom, the others in play order over the top
function drawSeats(s) {
  const n = s.seats.length, bottom = viewerSeat(s);
  const others = [];
  for (let i = 1; i < n; i++) others.push(s.seats[(bottom + i) % n]);
  $("seats").replaceChildren(...others.map((x, i) => {
    const edge = i === 0 || i === others.length - 1 ? " edge"
      : others.length >= 4 && (i === 1 || i === others.length - 2) ? " near-edge" : "";
    return seatView(x, s, edge);
  }));
  const mine = s.seats[bottom];
  $("bottom-seat").replaceChildren(...(mine ? [seatView(mine, s, " bottom")] : []));
}

function tag(text, cls) { return el("span", {class: "tag" + (cls ? " " + cls : "")}, text); }

function seatView(x, s, extra) {
  const you = x.player === s.you;
  const playing = s.status === "playing";
  const tags = [];
  if (x.cpu) tags.push(tag("CPU"));
  if (x.open) tags.push(tag("open seat"));
  if (x.stand_in && playing) tags.push(tag("away · CPU plays", "away"));
  if (x.passed) tags.push(tag("passed", "passed"));
  if (x.title) tags.push(tag(`out ${ordinal(x.place)} · ${x.title}`, "out"));
  if (x.turn && playing && !you) tags.push(tag("to play", "thinking"));
  const name = el("span", {class: "who", title: x.name}, x.name);
  if (you && x.name.trim().toLowerCase() !== "you") name.append(el("span", {class: "you-mark"}, "you"));
  const klass = x.class && x.class !== "-" ? x.class : "no class yet";
  const points = s.totals ? counted(s.totals[x.player], "point") : "";
  const count = x.count === null || x.count === undefined ? "" : counted(x.count, "card");
  const body = [name, el("span", {class: "meta"}, [klass, points].filter((t) => t).join(" · "))];
  if (extra !== " bottom") {
    body.push(x.hand ? el("div", {class: "seat-hand"}, ...x.hand.map((c) => cardFace(c)))
                     : fan(x.count || 0));
  }
  body.push(el("span", {class: "meta count"}, count), el("span", {class: "tags"}, ...tags));
  return el("div", {class: "seat" + extra + (x.turn ? " turn" : "") + (you ? " you" : "")
                    + (x.passed ? " passed" : ""), "data-player": x.player,
                    "aria-label": `${x.name}: ${count}`}, ...body);
}

// A hand seen from across the table: its backs, fanned (at most 13 drawn; the count is in words).
function fan(count) {
  const shown = Math.min(count, 13), mid = (shown - 1) / 2;
  const box = el("div", {class: "fan", "aria-hidden": "true"});
  box.style.setProperty("--n", String(Math.max(0, shown - 1)));
  for (let i = 0; i < shown; i++) {
    const back = el("span", {class: "back"});
    back.style.setProperty("--i", String(i));
    back.style.transform = `rotate(${(i - mid) * 4}deg)`;
    box.append(back);
  }
  return box;
}

// ---- the field, with a short animation when cards land and when the trick clears -----------
function animate(node, frames, ms) {
  if (REDUCED_MOTION.matches || !node.animate) return;
  node.animate(frames, {duration: ms, easing: "ease-out"});
}

function seatNode(player) {
  return document.querySelector(`#seats [data-player="${player}"], #bottom-seat [data-player="${player}"]`);
}

function drawField(s) {
  const field = $("field");
  const cards = s.field ? s.field.cards : [];
  const key = cards.map((c) => c.id).join(",") + "|" + (s.last ? s.last.player : "");
  const before = field.getBoundingClientRect();
  const cleared = T.fieldCards.length && !cards.length;
  field.replaceChildren(...(cards.length ? cards.map((c) => cardFace(c))
    : [el("span", {class: "empty"}, s.status === "playing" ? "empty field: the leader plays anything" : "")]));
  if (key !== T.fieldKey && cards.length && s.last) {
    const from = seatNode(s.last.player);
    if (from) {
      const a = from.getBoundingClientRect(), b = field.getBoundingClientRect();
      const dx = a.left + a.width / 2 - (b.left + b.width / 2), dy = a.top + a.height / 2 - (b.top + b.height / 2);
      for (const card of field.children) {
        animate(card, [{transform: `translate(${dx}px, ${dy}px) scale(.5)`, opacity: .2},
                       {transform: "none", opacity: 1}], 320);
      }
    }
  }
  if (cleared && T.fieldKey !== key && !REDUCED_MOTION.matches) {  // the old trick sweeps away
    const ghost = el("div", {class: "ghost", "aria-hidden": "true"}, ...T.fieldCards.map((c) => cardFace(c)));
    const now = field.getBoundingClientRect();
    ghost.style.left = `${before.left - now.left}px`;
    field.append(ghost);
    const run = ghost.animate ? ghost.animate(
      [{opacity: 1, transform: "none"}, {opacity: 0, transform: "translateY(-2.5rem) scale(.7) rotate(-6deg)"}],
      {duration: 450, easing: "ease-in"}) : null;
    if (run) run.onfinish = () => ghost.remove(); else ghost.remove();
  }
  T.fieldKey = key;
  T.fieldCards = cards;
}

function drawTurn(s) {
  const banner = $("turn-banner");
  const prompt = s.prompt;
  banner.className = prompt ? "mine" : "";
  let text = "";
  if (prompt) {
    text = prompt.kind === "play" ? "Your turn"
      : prompt.kind === "exchange" ? "Your turn: cards to give back" : "Your turn: choose cards";
  } else if (s.curtain) {
    text = `Waiting for ${s.curtain_for}`;
  } else if (s.status === "playing") {
    const turn = s.seats.find((x) => x.turn);
    if (turn) text = turn.player === s.you ? "Your turn" : `${turn.name} to play…`;
  } else if (s.status === "over" && s.standings) {
    text = `Match over: ${s.seats[s.standings[0]].name} wins`;
  }
  banner.textContent = text;
}

// ---- your hand: a fanned row of cards that lift when chosen ---------------------------------
function promptMoves(s) { return s.prompt && s.prompt.kind === "play" ? s.prompt.moves : []; }

function renderHand(s) {
  const hand = $("hand");
  const prompt = s.prompt;
  const playable = new Set();
  for (const m of promptMoves(s)) for (const c of m.cards) playable.add(c);
  const count = (s.hand || []).length;
  $("hand-title").textContent = !prompt ? `Your hand · ${counted(count, "card")}`
    : prompt.kind === "play" ? "Your turn: choose cards to play"
    : prompt.kind === "exchange" ? `Exchange: choose ${counted(prompt.count, "card")} to give back`
    : prompt.choice === "give" ? `7-pass: give up to ${counted(prompt.count, "card")} to ${s.seats[prompt.receiver].name}`
    : `10-discard: discard up to ${counted(prompt.count, "card")}`;
  hand.replaceChildren(...(s.hand || []).map((c) => {
    const chosen = T.selected.has(c.id);
    const dim = prompt && prompt.kind === "play" && !playable.has(c.id);
    return cardFace(c, "button", {type: "button", class: (chosen ? "chosen" : "") + (dim ? " dim" : ""),
                    "data-card": c.id, "aria-pressed": chosen ? "true" : "false",
                    disabled: !prompt, "aria-label": c.label + (dim ? " (cannot be played now)" : ""),
                    onclick: () => toggleCard(c.id)});
  }));
  fanHand();
  updateActions();
}

// Overlap the cards so the hand fits its row, tilted a little round a point below the middle.
function fanHand() {
  const hand = $("hand");
  const cards = [...hand.children];
  if (!cards.length) return;
  const width = cards[0].offsetWidth, room = hand.clientWidth - 16, n = cards.length;
  const step = n > 1 ? Math.max(12, Math.min(width * 0.74, (room - width) / (n - 1))) : width;
  hand.style.setProperty("--step", `${step}px`);
  const mid = (n - 1) / 2, tilt = Math.min(2.2, 24 / n);
  cards.forEach((card, i) => {
    card.style.setProperty("--tilt", `${(i - mid) * tilt}deg`);
    card.style.zIndex = String(i + 1);
  });
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
    : prompt.choice === "give" ? `Give ${counted(n, "card")}` : `Discard ${counted(n, "card")}`;
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
    ...r.points.map((p, i) => el("td", {title: `${ordinal(r.places[i])} place`},
                                 `${p} (${ordinal(r.places[i])})`))));
  const total = el("tr", {class: "total"}, el("th", {}, s.lower_is_better ? "Total (fewest wins)" : "Total"),
                   ...s.totals.map((t) => el("th", {}, t)));
  table.replaceChildren(head, ...rows, total);
}

// A published tournament's table: which match this is, and the live standings.
function renderTournament(s) {
  const t = s.tournament;
  $("tournament").hidden = !t || !t.rows;
  if (!t || !t.rows) return;
  const m = s.match || {};
  $("tournament-progress").textContent = `table ${m.table || "?"} · match ${m.key || "?"} · `
    + `${t.done} of ${counted(t.total, "game")} · ${counted(t.matches_done, "match", "matches")} done`
    + (t.failed ? ` · ${t.failed} failed` : "")
    + (t.lower_is_better ? " · fewer points are better" : "");
  const head = el("tr", {}, ...["#", "participant", "seat-games", "mean points", "1st %", "μ", "σ",
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
    (t.status === "lobby" ? ` — waiting to start, ${counted(t.games, "game")}`
      : ` — ${t.status}, game ${t.game} of ${t.games}`)
    + (t.started ? ` · started ${new Date(t.started).toLocaleTimeString([], {hour: "2-digit", minute: "2-digit"})}` : ""),
    " ", el("span", {class: "table-id"}, "table " + t.id))));
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
