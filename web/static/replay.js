// Stepping through a match log's frames (made by daihinmin.web.replay_frames): turn by turn,
// game by game, or playing on by itself.  Used by the /replay page and by the offline file
// `daihinmin replay LOG --html FILE` writes (which inlines this script).
"use strict";

const Replay = (() => {
  const RANKS = "x3456789TJQKA2x";
  const SUITS = "♠♥♦♣";

  function label(c) {
    if (c >= 60) return "JK";
    const r = RANKS[c >> 2];
    return SUITS[c & 3] + (r === "T" ? "10" : r);
  }

  function make(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function cardRow(cards) {
    const row = make("div", "cards");
    for (const c of cards) {
      const red = c < 60 && ((c & 3) === 1 || (c & 3) === 2);
      row.append(make("span", "card" + (red ? " red" : "") + (c >= 60 ? " joker" : ""), label(c)));
    }
    return row;
  }

  const FLAGS = {revolution: "革命 Revolution", eleven_back: "11バック 11-back", lock: "しばり Lock",
                 geki: "激しばり Geki-shibari", reversed: "order reversed", backwards: "play goes backwards"};

  function mount(root, data) {
    let g = 0, t = 0, timer = null;
    root.replaceChildren();
    root.classList.add("replay");
    const title = make("h2", "", `${data.rules} · seed ${data.seed} · ${data.games.length} of ${data.games_planned} games`
      + (data.complete ? "" : " (incomplete log)"));
    const controls = make("div", "controls");
    const where = make("p", "where");
    where.id = "replay-where";
    where.setAttribute("aria-live", "polite");
    const board = make("div", "board");
    const left = make("div", "hands");
    const right = make("div", "centre");
    board.append(left, right);
    const scores = make("table", "scores");
    root.append(title, controls, where, board, make("h2", "", "Scores"), scores);

    function button(text, id, action) {
      const b = make("button", "", text);
      b.type = "button"; b.id = id;
      b.addEventListener("click", () => { stop(); action(); show(); });
      controls.append(b);
      return b;
    }
    const frames = () => data.games[g].frames;
    button("|◀ First game", "replay-first", () => { g = 0; t = 0; });
    button("◀◀ Previous game", "replay-prev-game", () => { if (g > 0) { g--; t = 0; } });
    button("◀ Previous turn", "replay-prev", () => {
      if (t > 0) t--; else if (g > 0) { g--; t = frames().length - 1; } });
    button("Next turn ▶", "replay-next", next);
    button("Next game ▶▶", "replay-next-game", () => { if (g < data.games.length - 1) { g++; t = 0; } });
    const play = make("button", "", "Play ▶");
    play.type = "button"; play.id = "replay-play";
    play.addEventListener("click", () => {
      if (timer) { stop(); return; }
      play.textContent = "Pause ⏸";
      timer = setInterval(() => { if (!next()) stop(); show(); }, 700);
    });
    controls.append(play);

    function next() {
      if (t < frames().length - 1) { t++; return true; }
      if (g < data.games.length - 1) { g++; t = 0; return true; }
      return false;
    }
    function stop() {
      if (timer) clearInterval(timer);
      timer = null;
      play.textContent = "Play ▶";
    }

    function show() {
      if (!data.games.length) { where.textContent = "The log has no finished game."; return; }
      const game = data.games[g], f = game.frames[t];
      where.textContent = `Game ${game.game} · turn ${f.turn} of ${game.frames.length - 1} · ${f.text}`
        + (f.notes && f.notes.length ? " — " + f.notes.join("; ") : "");
      left.replaceChildren(...f.hands.map((hand, p) => {
        const row = make("div", "hand-row" + (f.turn_player === p && !f.over ? " turn" : ""));
        row.dataset.player = p;
        const tags = [data.names[p], `${hand.length} cards`];
        if (f.passed[p]) tags.push("passed");
        if (f.places[p]) tags.push(`out ${f.places[p]}.`);
        row.append(make("span", "who", tags.join(" · ")), cardRow(hand));
        return row;
      }));
      const flags = make("div", "");
      flags.id = "replay-flags";
      for (const [k, v] of Object.entries(f.flags)) if (v) flags.append(make("span", "flag flag-" + k, FLAGS[k]));
      right.replaceChildren(flags, make("h3", "", "Field"),
        f.field ? cardRow(f.field.cards) : make("p", "empty", "(empty)"),
        ...(f.exchange && f.exchange.length ? [make("h3", "", "Exchange"),
          ...f.exchange.map((line) => make("p", "", line))] : []));
      const head = document.createElement("tr");
      head.append(make("th", "", "Game"), ...data.names.map((n) => make("th", "", n)));
      const rows = data.games.slice(0, g + (f.over ? 1 : 0)).map((r) => {
        const tr = document.createElement("tr");
        tr.append(make("td", "", r.game), ...r.points.map((pt, i) => make("td", "", `${pt} (${r.places[i]}.)`)));
        return tr;
      });
      scores.replaceChildren(head, ...rows);
    }
    show();
  }
  return {mount, label};
})();
