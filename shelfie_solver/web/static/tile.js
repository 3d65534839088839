// shelfie-solve serve: the tile game's page (docs/serve.md, "The tile page"). One plain module (with api.js), no
// build step, no network beyond this server. The position lives in this page's URL, after the '#'
// (never sent to the server but in a request body), in the keys of a `tile advise` position file
// (docs/tile.md); every number shown is the JSON of `tile advise --format json`.

import { api, token } from "./api.js";

const $ = (id) => document.getElementById(id);
const SHOWN = 6;                      // moves shown before "Show all"
const UNDO_STEPS = 100;               // positions kept for Undo (a 4-player game has fewer moves)

let I = null;                         // GET /api/tile/info: types, usable cells, cards, goals
let P = null;                         // the position (position-file keys, no bag: T2 counts it)
let cards = [];                       // the personal card (name) per seat, "" unknown: page-only (T8)
let advice = null;                    // POST /api/tile/advise: the JSON of tile advise
let revision = null;                  // serve --tile FILE: the file's revision (SHA-256) this page read
let undo = [];                        // the position before each Apply, oldest first: {position, cards}
                                      // (docs/serve.md "Undo"); kept in this history entry's state
const ui = { tool: 0, view: 0, all: false, busy: false };

// --- talking to the server ------------------------------------------------------------------

function say(text, kind = "info") {
  const box = $("message");
  box.textContent = text;
  box.className = text ? kind : "";
}

// --- the position and the URL ---------------------------------------------------------------

const S = () => I.side;
const usable = (n) => I.usable[String(n)];

function emptyPosition(players) {
  return { players, first: 1, turn: 1, goals: [1, 2].slice(0, I.common_goals), personal: "", end_token: 0,
    board: usable(players).map((row) => [...row].map((u) => (u === "1" ? "." : "-")).join("")),
    shelf: Array.from({ length: players }, () => ({ rows: Array(I.rows).fill(".".repeat(I.columns)),
      taken: [0, 0].slice(0, I.common_goals) })) };
}

function fromUrl() {
  const params = new URLSearchParams(location.hash.slice(1));
  const text = params.get("position");
  if (text) {
    try {
      const raw = JSON.parse(text);
      if (raw && typeof raw === "object" && Array.isArray(raw.board) && Array.isArray(raw.shelf)) {
        delete raw.bag;
        P = raw;
        cards = (params.get("cards") || "").split(",").slice(0, P.shelf.length);
        while (cards.length < P.shelf.length) cards.push("");
        if (P.personal) cards[P.turn - 1] = String(P.personal);
        return true;
      }
    } catch { /* below: a fresh position */ }
    say("The position in the URL could not be read: a fresh one is shown.", "error");
  }
  P = emptyPosition(2);
  cards = ["", ""];
  return false;
}

function toUrl() {
  P.personal = cards[P.turn - 1] || "";
  const hash = `#position=${encodeURIComponent(JSON.stringify(P))}&cards=${cards.map(encodeURIComponent).join(",")}`;
  history.replaceState({ undo }, "", location.pathname + location.search + hash);  // a reload keeps Undo's positions
}

function changed() {                  // any edit: the advice was for another position
  advice = null;
  ui.all = false;
  toUrl();
  render();
}

function setPlayers(n) {
  const old = P.players;
  const u = usable(n);
  let dropped = 0;
  P.board = P.board.map((row, r) => [...row].map((ch, c) => {
    if (u[r][c] === "1") return ch === "-" ? "." : ch;
    if (ch !== "-" && ch !== ".") dropped += 1;
    return "-";
  }).join(""));
  while (P.shelf.length < n) P.shelf.push({ rows: Array(I.rows).fill(".".repeat(I.columns)), taken: P.goals.map(() => 0) });
  P.shelf = P.shelf.slice(0, n);
  cards = cards.concat(Array(n).fill("")).slice(0, n);
  P.players = n;
  for (const key of ["first", "turn", "end_token"]) if (P[key] > n) P[key] = key === "end_token" ? 0 : 1;
  for (const s of P.shelf) s.taken = s.taken.map(() => 0);
  changed();
  if (dropped) say(`${dropped} tile${dropped === 1 ? "" : "s"} removed: those cells are not used with ${n} players (T3).`, "error");
  else if (old !== n) say(`${n} players: ${usable(n).join("").split("1").length - 1} living-room cells (T3).`);
}

function setCell(row, col) {
  const letter = ui.tool < 0 ? "." : I.types[ui.tool].letter;
  const line = [...P.board[row]];
  line[col] = line[col] === letter ? "." : letter;  // the same type again clears the cell
  P.board[row] = line.join("");
  changed();
}

function setShelf(seat, row, col) {
  const letter = ui.tool < 0 ? "." : I.types[ui.tool].letter;
  const rows = P.shelf[seat].rows.map((r) => [...r]);
  rows[row][col] = rows[row][col] === letter ? "." : letter;
  P.shelf[seat].rows = rows.map((r) => r.join(""));
  changed();
}

// --- drawing --------------------------------------------------------------------------------

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "onclick") node.addEventListener("click", value);
    else if (key === "onchange") node.addEventListener("change", value);
    else if (value !== false && value !== null && value !== undefined) node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

const typeIndex = (letter) => I.types.findIndex((t) => t.letter === letter);
const typeName = (letter) => (typeIndex(letter) >= 0 ? I.types[typeIndex(letter)].name : "no tile");
const cellName = (r, c) => `r${r + 1}c${c + 1}`;
const goalName = (id) => (I.goals.find((g) => g.id === id) || { text: `T-CG${id}` }).text;

function render() {
  $("turn").textContent = `Tile game · ${P.players} players · seat ${P.turn} to move`;
  renderUndo();
  renderSetup();
  renderPalette();
  renderBoard();
  renderShelves();
  renderAdvice();
}

function choice(label, values, current, pick, words = String) {
  const row = el("div", { class: "row", role: "group", "aria-label": label }, el("span", { class: "label" }, label));
  for (const v of values) {
    row.append(el("button", { type: "button", "data-value": String(v), "aria-pressed": String(v === current),
      onclick: () => pick(v) }, words(v)));
  }
  return row;
}

function select(label, id, options, current, pick, caption = null) {
  const node = el("select", { id, "aria-label": label, onchange: (e) => pick(e.target.value) });
  for (const [value, words] of options) {
    node.append(el("option", { value: String(value), selected: String(value) === String(current) }, words));
  }
  return el("div", { class: "row pick" }, el("label", { class: "label", for: id }, label), node,
    caption ? el("p", { class: "caption", id: `${id}-words` }, caption) : null);
}

function renderUndo() {             // greyed with nothing to undo, as the dice page's Undo
  const button = $("undo");
  const words = undo.length ? `take back the last Apply (${undo.length} kept)` :
    "nothing to undo: no move has been applied on this page yet";
  button.disabled = undo.length === 0;
  const last = undo.length ? undo[undo.length - 1].words : null;
  button.textContent = last ? `Undo: ${last}` : "Undo";
  button.title = words;
  button.setAttribute("aria-label", `Undo: ${words}`);
}

function renderSetup() {
  const box = $("setup");
  box.replaceChildren();
  const seats = Array.from({ length: P.players }, (_, i) => i + 1);
  box.append(choice("Players", I.players, P.players, setPlayers));
  box.append(choice("To move", seats, P.turn, (v) => { P.turn = v; changed(); }, (v) => `seat ${v}`));
  box.append(choice("First", seats, P.first, (v) => { P.first = v; changed(); }, (v) => `seat ${v}`));
  const goals = I.goals.map((g) => [g.id, g.text]);
  box.append(select("Goal A", "goal-1", goals, P.goals[0], (v) => { P.goals[0] = Number(v); changed(); }));
  box.append(select("Goal B", "goal-2", [["", "none (first game, one goal)"], ...goals], P.goals[1] ?? "", (v) => {
    P.goals = v === "" ? [P.goals[0]] : [P.goals[0], Number(v)];
    for (const s of P.shelf) s.taken = P.goals.map((_, i) => s.taken[i] || 0);
    changed();
  }));
  const card = I.cards.find((c) => c.name === cards[P.turn - 1]);   // its words in full under the select (they wrap)
  box.append(select(`Seat ${P.turn}'s card`, "personal", [["", "? pick the personal card (T20)"],
    ...I.cards.map((c) => [c.name, `card ${c.name}`])], cards[P.turn - 1] || "", (v) => {
    cards[P.turn - 1] = v;
    changed();
  }, card ? `Card ${card.name}: ${card.words}` : null));
  box.append(select("End token", "end-token", [[0, "nobody yet (T23)"], ...seats.map((s) => [s, `seat ${s} (full shelf)`])],
    P.end_token, (v) => { P.end_token = Number(v); changed(); }));
}

function renderPalette() {
  const box = $("palette");
  box.replaceChildren();
  I.types.forEach((t, i) => box.append(el("button", { type: "button", class: `t${i}`, "data-type": t.letter,
    "aria-pressed": String(ui.tool === i), "aria-label": `place ${t.name} (${t.letter})`,
    onclick: () => { ui.tool = i; renderPalette(); renderHint(); } }, t.letter, el("small", {}, t.name))));
  box.append(el("button", { type: "button", class: "tx", "data-type": ".", "aria-pressed": String(ui.tool < 0),
    "aria-label": "clear a cell (no tile)", onclick: () => { ui.tool = -1; renderPalette(); renderHint(); } },
  "·", el("small", {}, "clear")));
  renderHint();
}

function renderHint() {
  const what = ui.tool < 0 ? "clear cells" : `place ${I.types[ui.tool].name} (${I.types[ui.tool].letter})`;
  $("hint").textContent = `Tap a type, then the cells: now ${what}. Tapping a cell again with its own type clears it. ` +
    "Shelves fill from the bottom (T4).";
}

function shownColumns() {             // 9 cells of 44 px do not fit 390 px: 8 columns at a time
  return ui.view === 0 ? [0, 1, 2, 3, 4, 5, 6, 7] : [1, 2, 3, 4, 5, 6, 7, 8];
}

function hits() {                     // the cells of the move a finger is on (the best by default)
  const best = advice && advice.moves[0];
  return new Set(best ? best.cells : []);
}

function renderBoard() {
  const view = $("board-view");
  view.replaceChildren();
  for (const [v, words] of [[0, "◀ columns 1-8"], [1, "columns 2-9 ▶"]]) {
    view.append(el("button", { type: "button", "data-view": String(v), "aria-pressed": String(ui.view === v),
      onclick: () => { ui.view = v; renderBoard(); } }, words));
  }
  const cols = shownColumns();
  const hidden = ui.view === 0 ? 8 : 0;
  const hiddenTiles = P.board.map((row, r) => [row[hidden], r]).filter(([ch]) => ch !== "-" && ch !== ".")
    .map(([ch, r]) => `${cellName(r, hidden)} ${ch}`);
  $("board-note").textContent = `(column ${hidden + 1} hidden${hiddenTiles.length ? `: ${hiddenTiles.join(", ")}` : ""})`;
  const box = $("board");
  box.replaceChildren();
  const best = hits();
  for (let r = 0; r < S(); r += 1) {
    for (const c of cols) {
      const ch = P.board[r][c];
      if (ch === "-") {
        box.append(el("span", { class: "off", "aria-hidden": "true", title: `${cellName(r, c)}: not used with ${P.players} players (T3)` }));
        continue;
      }
      const name = cellName(r, c);
      const t = typeIndex(ch);
      box.append(el("button", { type: "button", class: `cell ${t >= 0 ? `t${t}` : "none"}${best.has(name) ? " hit" : ""}`,
        "data-cell": name, "aria-label": `board ${name}: ${typeName(ch)}`, onclick: () => setCell(r, c) },
      t >= 0 ? ch : el("small", {}, name)));
    }
  }
}

function renderShelves() {
  const box = $("shelves");
  box.replaceChildren();
  const card = I.cards.find((c) => c.name === cards[P.turn - 1]);
  const asks = new Map(card ? Object.entries(card.asks).map(([letter, cell]) => [cell, letter]) : []);
  const best = advice && advice.moves[0];
  P.shelf.forEach((shelf, seat) => {
    const active = seat === P.turn - 1;
    const tokens = I.tokens[String(P.players)];
    const article = el("article", { class: `shelf${active ? " active" : ""}`, "aria-label": `seat ${seat + 1}'s shelf` });
    article.append(el("h3", {}, `Seat ${seat + 1}${active ? " · to move" : ""}`));
    P.goals.forEach((g, slot) => article.append(select(`Token ${slot === 0 ? "A" : "B"}: ${goalName(g)}`, `taken-${seat + 1}-${slot + 1}`,
      [[0, "not taken"], ...tokens.map((t) => [t, `took ${t} points (T18)`])], shelf.taken[slot] || 0,
      (v) => { shelf.taken[slot] = Number(v); changed(); })));
    const grid = el("div", { class: "grid5" });
    for (let r = 0; r < I.rows; r += 1) {
      for (let c = 0; c < I.columns; c += 1) {
        const ch = shelf.rows[r][c];
        const t = typeIndex(ch);
        const name = cellName(r, c);
        const ask = active ? asks.get(name) : undefined;
        const hit = active && best && best.column === c + 1;
        grid.append(el("button", { type: "button", class: `cell ${t >= 0 ? `t${t}` : "empty"}${ask ? " ask" : ""}${hit ? " hit" : ""}`,
          "data-seat": String(seat + 1), "data-cell": name,
          "aria-label": `seat ${seat + 1} shelf ${name}: ${typeName(ch)}${ask ? `; the card asks ${typeName(ask)}` : ""}`,
          onclick: () => setShelf(seat, r, c) }, t >= 0 ? ch : (ask ? el("small", { class: "muted" }, ask.toLowerCase()) : "")));
      }
    }
    article.append(grid);
    box.append(article);
  });
}

// --- the advice -----------------------------------------------------------------------------

const PARTS = ["immediate", "groups", "personal", "tempo", "denial", "race"];

function fraction(text) {             // "p/q" of the JSON, for display only
  const [p, q] = String(text).split("/").map(Number);
  return p / q;
}

function signed(x) {                  // as core.report.signed: "+1.25", "-0.50"; what rounds to zero is "0.00"
  const text = x.toFixed(2);
  return Number(text) === 0 ? "0.00" : (x > 0 ? "+" : "") + text;
}

function fixed(x) {                   // as core.report.fixed: never "-0.00"
  const text = x.toFixed(2);
  return Number(text) === 0 ? "0.00" : text;
}

function why(m) {                     // the parts that are not zero, as tile advise's explanation
  const parts = PARTS.filter((p) => m[p] !== "0/1").map((p) => `${p} ${signed(fraction(m[p]))}`);
  const extra = m.goals.map((g) => `scores ${goalName(Number(g.replace("T-CG", "")))}`);
  if (m.end_token) extra.push("takes the end token (T23)");
  if (m.refill) extra.push(m.refill_outlook ? `triggers a refill (T16): next player's expected best gain ` +
    `${fixed(fraction(m.refill_outlook.next_player_gain))} (${m.refill_outlook.method})` : "triggers a refill (T16)");
  return (parts.join(", ") || "no change") + (extra.length ? `; ${extra.join(", ")}` : "");
}

function moveWords(m) {
  return `take ${m.cells.join(" ")} → column ${m.column}, bottom to top ${m.order}`;
}

function renderAdvice() {
  const box = $("advice");
  box.replaceChildren();
  if (!advice) return;
  const moves = advice.moves;
  if (!moves.length) { box.append(el("p", {}, "No legal move (T10-T14).")); return; }
  const best = moves[0];
  box.append(el("h2", {}, `${advice.legal_moves} legal moves, best first · points, difference to the best`));
  box.append(el("p", { class: "best", id: "best" }, `Best: ${moveWords(best)} — ${signed(best.value_float)} points`));
  box.append(el("p", { class: "reason" }, why(best)));
  const list = el("ul", { class: "options", "aria-label": "every move, best first" });
  (ui.all ? moves : moves.slice(0, SHOWN)).forEach((m, i) => {
    const tied = m.rank === best.rank;
    const loss = best.value_float - m.value_float;
    const diff = tied ? (i === 0 ? "best" : "tied") : loss < 0.005 ? "−<0.01" : `−${loss.toFixed(2)}`;
    const text = `${m.cells.join("+")}@${m.column}`;
    list.append(el("li", { class: `move${tied ? " top" : ""}`, "data-move": text },
      el("span", { class: "what" }, `#${m.rank} ${moveWords(m)} · `, el("span", { class: "diff" }, diff),
        el("span", { class: "why" }, `${signed(m.value_float)} points: ${why(m)}`)),
      el("button", { type: "button", class: i === 0 ? "primary apply" : "apply", "data-move": text,
        "aria-label": `apply rank ${m.rank}: ${moveWords(m)}, ${diff} to the best`, onclick: () => applyMove(text) }, "Apply")));
  });
  box.append(list);
  if (moves.length > SHOWN) {
    box.append(el("button", { type: "button", class: "more", id: "more", "aria-expanded": String(ui.all),
      onclick: () => { ui.all = !ui.all; renderAdvice(); } }, ui.all ? `Show the best ${SHOWN} only` : `Show all ${moves.length} moves`));
  }
  box.append(el("p", { class: "unit" }, "Values: points of the advisor's evaluation, one ply (score change now + " +
    "half the group and personal potentials + tempo + denial + the goal race; docs/tile.md). Red outline: the best move's cells and column."));
}

async function readFile() {         // serve --tile FILE: the position kept there wins over the URL's
  const kept = await api("GET", "/api/tile/file");
  revision = kept.revision;
  if (!kept.exists) return false;
  P = kept.position;
  delete P.bag;
  cards = cards.concat(Array(P.shelf.length).fill("")).slice(0, P.shelf.length);
  if (P.personal) cards[P.turn - 1] = String(P.personal);
  return true;
}

async function getAdvice() {
  if (ui.busy) return;
  toUrl();
  ui.busy = true;
  document.body.setAttribute("aria-busy", "true");
  try {
    if (I.file) {                     // written whole, on the revision this page read (409: reloaded)
      try {
        revision = (await api("POST", "/api/tile/file", { position: P, revision })).revision;
      } catch (error) {
        if (error.status === 409) {
          await readFile();
          undo = [];                  // the file's position is not one this page applied moves to
          toUrl();
          throw new Error(`${error.message}: reloaded, nothing was advised. Check the position and tap Advise again.`);
        }
        throw error;
      }
    }
    advice = (await api("POST", "/api/tile/advise", { position: P })).advice;
    ui.all = false;
    say("");
  } catch (error) {
    advice = null;
    say(error.message, "error");
    $("message").scrollIntoView({ block: "center" });
  }
  ui.busy = false;
  document.body.removeAttribute("aria-busy");
  render();
  if (advice) $("advice").scrollIntoView({ block: "start" });  // the advice in view, not below the fold
}

const snapshot = () => ({ position: JSON.parse(JSON.stringify(P)), cards: [...cards] });

async function applyMove(text) {
  if (ui.busy) return;
  ui.busy = true;
  try {
    toUrl();                          // P.personal set: the position as advised
    const before = { ...snapshot(), words: `seat ${P.turn}'s move ${text}` };  // Undo's label says what it takes back
    const answer = await api("POST", "/api/tile/apply", { position: P, move: text });
    undo = undo.concat([before]).slice(-UNDO_STEPS);
    P = answer.position;
    delete P.bag;
    advice = null;
    toUrl();
    render();
    const next = cards[P.turn - 1] ? "" : ` Pick seat ${P.turn}'s personal card, then Advise.`;
    say(answer.done.join(" ") + (answer.over ? ` Game over (T24): scores ${answer.scores.join(", ")}.` : next));
    window.scrollTo(0, 0);
  } catch (error) {
    say(error.message, "error");
  }
  ui.busy = false;
}

async function undoMove() {         // the position before the last Apply, and its advice again
  if (ui.busy || !undo.length) return;
  ui.busy = true;
  document.body.setAttribute("aria-busy", "true");
  const last = undo[undo.length - 1];
  try {
    if (I.file) {                     // written whole, on the revision this page read, as Advise (409: reloaded)
      try {
        revision = (await api("POST", "/api/tile/file", { position: last.position, revision })).revision;
      } catch (error) {
        if (error.status === 409) {
          await readFile();
          undo = [];
          advice = null;
          toUrl();
          throw new Error(`${error.message}: reloaded, nothing was undone; this page's earlier positions are ` +
            "dropped (the file's position is not one this page applied moves to).");
        }
        throw error;
      }
    }
    undo = undo.slice(0, -1);
    P = last.position;
    cards = last.cards;
    advice = null;
    ui.all = false;
    toUrl();
    const more = undo.length ? `${undo.length} more to undo` : "nothing more to undo";
    say(`Undone: seat ${P.turn}'s move taken back${I.file ? ` (${I.file} written)` : ""}; ${more}.`);
    advice = (await api("POST", "/api/tile/advise", { position: P })).advice;
  } catch (error) {
    say(error.message, "error");
  }
  ui.busy = false;
  document.body.removeAttribute("aria-busy");
  render();
  window.scrollTo(0, 0);
}

// --- start ----------------------------------------------------------------------------------

async function start() {
  try {
    I = await api("GET", "/api/tile/info");
  } catch (error) {
    say(error.message, "error");
    return;
  }
  const fromLink = fromUrl();
  const kept = history.state && Array.isArray(history.state.undo) ? history.state.undo : [];
  undo = fromLink && !I.file ? kept : [];  // serve --tile FILE: a reload reads the file afresh, no Undo
  if (I.file) {
    try {
      if (await readFile()) say(`The position kept in ${I.file} (serve --tile): Advise writes it back.`);
      else say(`No position in ${I.file} yet: the first Advise writes it (serve --tile).`);
    } catch (error) {
      say(error.message, "error");
    }
  }
  if (I.dice === false) $("to-dice").remove();  // serve --tile FILE without GAME: no dice game
  else if (token) $("to-dice").href = `/?token=${encodeURIComponent(token)}`;
  toUrl();
  render();
}

$("advise").addEventListener("click", getAdvice);
$("undo").addEventListener("click", undoMove);
start();
