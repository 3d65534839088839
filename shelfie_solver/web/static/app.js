// shelfie-solve serve: the page at the table (docs/serve.md). One plain module (with api.js), no build step,
// no network beyond this server. Every number shown comes from the server's JSON, which is the
// JSON of `play ... --format json`; this file only lays it out and sends taps back as actions.

import { api, token } from "./api.js";

const $ = (id) => document.getElementById(id);
const LOCK = '<svg class="lock" viewBox="0 0 16 16" aria-hidden="true"><rect x="3" y="7" width="10" height="8" rx="1.5" ' +
  'fill="#5a3d00"/><path d="M5 7V5a3 3 0 0 1 6 0v2" stroke="#5a3d00" stroke-width="2" fill="none"/></svg>';

let S = null;            // the last state from GET /api/state or a write
let review = null;       // GET /api/review: every player's difference to the best (the last answer, any position)
const ui = { slots: [], locked: [], mode: "roll", told: false, selected: [], busy: false, all: false,
  preview: null,          // the option a finger (or the pointer, or the focus) is on: outlined instead of the best
  redo: null,             // after an Undo: the write that makes the undone action again, until the next action
  rules: false,           // "rules": the rule ids (D1-D20, docs/rules.md) shown in every text
  others: true,           // the other players' sheets open
  pending: null };        // the action a confirmation (the dialog) waits for

//: Options shown before "Show all" (every option is one tap away): few, so the sheet under the advice is near.
const SHOWN = 3;

// --- talking to the server ------------------------------------------------------------------

async function load(note, kind = "info") {
  try {
    S = attachShown(await api("GET", "/api/state"));
  } catch (error) {
    if (error.status === 404) { await showNew(); return; }  // no game file yet: the New game screen
    say(error.message, "error");
    return;
  }
  document.body.classList.remove("new-game");
  resetEntry();
  render();
  say(note || "", kind);
  loadReview();
}

//: The review (every player's difference to the best) is asked for once the page has been idle this long after
//: a write, so it does not share the server with the next tap's write. It is cheap: the server goes on from each
//: player's last review (only the actions since, median 9 ms; 0.17 s when each was reviewed from the game's start),
//: and meanwhile every sheet keeps its last line (no placeholder flashing on each tap).
const REVIEW_AFTER_MS = 300;
let reviewTimer = null;

function reviewSoon() {
  clearTimeout(reviewTimer);
  reviewTimer = setTimeout(loadReview, REVIEW_AFTER_MS);
}

async function loadReview() {
  const digest = S.digest;
  try {
    const answer = await api("GET", "/api/review");
    if (S && answer.digest === S.digest && digest === S.digest) {
      review = answer;
      renderSheets();
    }
  } catch {                         // the difference to the best is extra: the game goes on without it
    if (S && digest === S.digest) { review = false; renderSheets(); }
  }
}

async function write(kind, body, redo = null) {
  if (ui.busy) return;
  ui.busy = true;
  document.body.setAttribute("aria-busy", "true");
  let answer = null, failure = null;
  try {
    answer = await api("POST", `/api/${kind}`, { revision: S.revision, digest: S.digest, ...body });
  } catch (error) {
    failure = error;
  }
  ui.busy = false;
  document.body.removeAttribute("aria-busy");
  if (answer) {
    S = attachShown(answer);
    ui.redo = redo ? { ...redo, digest: S.digest } : null;  // Redo is offered until the next action
    resetEntry();
    render();
    if (!turn().over && turn().dice === null) window.scrollTo(0, 0);  // a new turn starts at the top
    say(S.done.join(" "), "info");
    reviewSoon();
  } else if (failure.status === 409) {
    await load("Another page or the terminal acted first: the game was reloaded and nothing was applied. " +
      "Check the dice and tap again.", "error");
  } else {
    say(failure.message, "error");
    renderEntry();
  }
}

function showStop() {           // the stop is binding (D7, POST /api/stop): asked once, then the dice are final
  const t = turn();
  ask(`Stop with ${t.dice}?`, `The dice are final: no re-roll this turn (D7), ${t.rerolls_left} ` +
    `re-roll${t.rerolls_left === 1 ? "" : "s"} left unused. Undo takes the stop back.`, "Stop and mark",
  () => write("stop", {}));
}

function ask(title, text, yes, action) {   // one confirmation in the page before a tap that costs a turn
  ui.pending = action;
  $("confirm-title").textContent = plain(title);
  $("confirm-text").textContent = plain(text);
  $("confirm-yes").textContent = yes;
  $("confirm").showModal();
  $("confirm-no").focus();
}

function say(text, kind) {     // every message in one place (#message); an error is brought into view
  const box = $("message");
  box.textContent = plain(text);
  box.className = text ? kind : "";
  if (text && kind === "error") reveal(box);
}

//: Space kept between the sticky header (or the screen's bottom) and a node reveal() scrolls to, px.
const REVEAL_MARGIN = 8;

function reveal(node) {          // scroll the least that shows `node` whole below the sticky header; nothing if it shows
  const top = $("turn").closest("header").getBoundingClientRect().bottom + REVEAL_MARGIN;
  const box = node.getBoundingClientRect();
  const bottom = window.innerHeight - REVEAL_MARGIN;
  if (box.top >= top && box.bottom <= bottom) return;
  // taller than the room: its top under the header; else the nearest edge (up: its top, down: its bottom)
  const by = box.top < top || box.height > bottom - top ? box.top - top : box.bottom - bottom;
  window.scrollBy({ top: by, behavior: "instant" });
}

// --- what is showing ------------------------------------------------------------------------

const turn = () => S.status.turn;
const sides = () => S.layout.sides;
const sideIndex = (code) => sides().findIndex((s) => s.code === code);
const sideName = (code) => (sides()[sideIndex(code)] || { name: code }).name;

function splitCodes(text) {       // dice codes as the server writes them (PPBCCJ), one die each
  const codes = sides().map((s) => s.code).sort((a, b) => b.length - a.length);
  const out = [];
  let i = 0;
  while (i < text.length) {
    const code = codes.find((c) => text.startsWith(c, i));
    if (!code) { i += 1; continue; }
    out.push(code);
    i += code.length;
  }
  return out;
}

function resetEntry() {
  ui.all = false;
  ui.selected = [];
  ui.told = false;
  const t = turn();
  if (t.over) {
    ui.mode = "over";
  } else if (t.dice === null) {
    ui.mode = "roll";
    ui.slots = Array(S.layout.dice).fill(null);
  } else {
    ui.slots = splitCodes(t.dice);
    ui.mode = t.rerolls_left > 0 ? "hold" : "final";
  }
  ui.locked = ui.slots.map(() => false);
}

// --- numbers in a player's units ------------------------------------------------------------

//: Every figure of the advice as the terminal's tables print it (the server's `shown`, from the exact values):
//: the page never rounds a float it shows (a chance on a .x5 boundary would read 0.1 apart from the CLI).
function attachShown(state) {
  for (const name of ["holds", "markings", "shelves"]) {
    const list = state.advice[name] || [];
    const texts = (state.shown && state.shown[name]) || [];
    list.forEach((entry, i) => { entry.shown = texts[i] || {}; });
  }
  return state;
}

function chance(entry) {          // an entry's chance to win, 0..1, when the advice gives one
  if (entry.win_chance_float !== undefined) return entry.win_chance_float;
  if (typeof entry.win_chance === "number") return entry.win_chance;
  if (typeof entry.win_chance === "string" && entry.win_chance.includes("/")) {
    const [p, q] = entry.win_chance.split("/").map(Number);
    return p / q;
  }
  if (S.unit.percent && typeof entry.value_float === "number") return entry.value_float;
  return null;
}

//: A rule id in parentheses ("(D19)", "(D8-D10)", "(unchecked, D4, D9)", "(D7: 1 re-roll left)"): shown only
//: with "rules" on (the ids are docs/rules.md's; a player reads the words).
const RULE_ID = /(?:[,;]\s*|\s*)\bD\d+(?:[-\u2013/]D?\d+)?\b(?=[^()]*\))/g;

function plain(text) {
  if (ui.rules || typeof text !== "string") return text;
  return text.replace(RULE_ID, "").replace(/\(\s*[:,;]\s*/g, "(").replace(/\s*\(\s*\)/g, "");
}

const key = (entry) => entry.win_chance ?? entry.value;   // the exact value (p/q): equal texts are an exact tie

//: Decimals of every chance on the page: one, as `play status`, `play advise` and the terminal's tables
//: (advise.words.chance_cell, which writes the server's `shown`), on the hold and the marking screens alike.
const PLACES = 1;

function chanceText(entry) {      // the table's cell (the server's text): 43.6%, a certainty 100% / 0%, <0.1%
  return entry.shown.value;
}

function kind(entry) {            // beside every chance: exact (the last turns) or the fitted model's estimate
  return entry.win_chance_exact ? "exact" : "estimate";
}

function valueText(entry) {
  const win = chance(entry);
  if (win !== null) return `${chanceText(entry)} chance to win (${kind(entry)})`;
  return `${entry.shown.value} ${unitShort(S.unit)}`;
}

function unitShort(unit) {
  if (unit.percent) return "chance to win";
  if (unit.label.includes("1/1000")) return "win-chance score (1/1000)";
  if (unit.label.includes("points")) return "points (final score)";
  return unit.label;
}

function diffText(option, best, isFirst) {  // the server's `short`: the figures as shown apart; a loss never reads 0
  if (key(option) === key(best)) return isFirst ? "best" : "tied";
  // percentage points of the chance: "pp", never "pt" beside the row's game points ("6.67 pts", D19)
  return chance(option) !== null ? `\u2212${option.shown.short} pp` : `\u2212${option.shown.short}`;
}

function decided(entries) {       // every choice exactly the same chance to win: the game is decided (or a wash)
  if (entries.length < 2 || chance(entries[0]) === null) return null;
  const first = key(entries[0]);
  return entries.every((e) => key(e) === first) ? first : null;
}

function decidedWords(value, verb) {
  const who = turn().player;
  if (value === "1/1") return `${who}: you have won whatever you ${verb}.`;
  if (value === "0/1") return `${who}: you can no longer win, whatever you ${verb}.`;
  return `${who}: whatever you ${verb}, the chance to win is the same.`;
}

function reasonText(advice, digits) {  // the server's reason written at the page's precision (its table's cells)
  const texts = advice.reason_by_places;
  return (texts && texts[digits]) || advice.reason || null;
}

// --- drawing --------------------------------------------------------------------------------

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "vars") for (const [name, v] of Object.entries(value)) node.style.setProperty(name, v);
    else if (value !== false && value !== null && value !== undefined) node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(plain(child));
  return node;
}

function render() {
  renderTurn();
  renderEntry();
  renderAdvice();
  renderWarnings();
  renderSheets();
  renderRollout();
}

// --- the rollout (GET /api/rollout, docs/rollout.md): the position's chance by play-outs ------

const ROLLOUT_GAMES = 200;
let rollout = null;      // the last answer of GET /api/rollout, shown while the game is at its digest

function renderRollout() {
  const box = $("rollout");
  const games = S.status.sheets.length;
  box.hidden = turn().over || games < 2;
  const out = $("rollout-result");
  if (!rollout || rollout.digest !== S.digest) { out.textContent = ""; return; }
  // the figures as the command's table prints them (the server's): they add up to 100%
  const seats = rollout.position.seats.map((s) => `${s.player} ${s.shown} (95% ${s.ci95_shown})`);
  out.textContent = `Rollout of ${rollout.games} games (seed ${rollout.seed}), ${rollout.policies[0]} in every seat: ` +
    seats.join(", ") + ". Ties shared (D20)." + (rollout.note ? ` ${rollout.note}` : "");
  out.textContent = plain(out.textContent);
}

//: While a rollout runs: whether the player has done anything else (a tap, a key, a scroll of their own);
//: if not, its result is brought into view when it arrives, else the page is left where the player put it.
const waiting = { rollout: false, elsewhere: false, scrollY: 0 };

//: A scroll of the player's own moves the page more than this (px) from where Rollout was tapped.
const SCROLLED_AWAY = 24;

function busyElsewhere(event) {
  if (!waiting.rollout) return;
  if (event.type === "scroll" && Math.abs(window.scrollY - waiting.scrollY) <= SCROLLED_AWAY) return;
  if (event.type !== "scroll" && event.target && event.target.closest && event.target.closest("#rollout")) return;
  waiting.elsewhere = true;
}
for (const type of ["pointerdown", "keydown", "scroll"]) window.addEventListener(type, busyElsewhere, { passive: true, capture: true });

async function runRollout() {
  const button = $("rollout-run");
  const out = $("rollout-result");
  button.disabled = true;
  Object.assign(waiting, { rollout: true, elsewhere: false, scrollY: window.scrollY });
  out.textContent = `Rolling out ${ROLLOUT_GAMES} games…`;
  reveal(out);
  waiting.scrollY = window.scrollY;
  try {
    const answer = await api("GET", `/api/rollout?games=${ROLLOUT_GAMES}`);
    rollout = answer;
    if (answer.digest !== S.digest) out.textContent = "The game moved on meanwhile: tap Rollout again.";
    else renderRollout();
  } catch (error) {
    out.textContent = error.message;
  } finally {
    button.disabled = false;
    waiting.rollout = false;
    if (!waiting.elsewhere && out.textContent) reveal(out);
  }
}

function renderTurn() {
  const t = turn();
  const box = $("turn");
  if (t.over) {
    const a = S.advice;
    box.textContent = plain(`Game over after ${a.rounds} round${a.rounds === 1 ? "" : "s"} · winner${a.winners.length > 1 ? "s" : ""}: ${a.winners.join(", ")}`);
  } else if (t.dice === null) {
    box.textContent = `Round ${t.round} · ${t.player} to roll`;
  } else {
    box.textContent = `Round ${t.round} · ${t.player} · ${t.rerolls_left} re-roll${t.rerolls_left === 1 ? "" : "s"} left`;
  }
  renderHistory();
}

function renderHistory() {        // Undo names what it takes back; Redo makes it again, until the next action
  const undo = $("undo"), redo = $("redo");
  const last = S.last_action;
  undo.disabled = !last || S.actions === 0;
  undo.textContent = last ? `Undo: ${last.words}` : "Undo";
  const again = ui.redo && ui.redo.digest === S.digest ? ui.redo : null;
  redo.hidden = !again;
  redo.textContent = again ? `Redo: ${again.words}` : "Redo";
  $("history").hidden = undo.disabled && redo.hidden;   // nothing to take back or redo: no empty row
}

function dieButton(i) {
  const code = ui.slots[i];
  const entering = ui.mode === "roll" || (ui.mode === "reroll" && !ui.locked[i]);
  if (code === null) {
    return el("button", { type: "button", class: "die empty", "aria-label": `die ${i + 1}: not entered yet`,
      disabled: true }, "?");
  }
  const name = sideName(code);
  const used = usedDice();
  const uses = used.indices.has(i) ? ` uses${used.preview ? " preview" : ""}` : "";
  const attrs = { type: "button", class: `die s${sideIndex(code)}${uses}`, "data-uses": uses ? "true" : null };
  if (entering) {
    attrs["aria-label"] = `die ${i + 1}: ${name}; tap to clear`;
    attrs.onclick = () => { ui.slots[i] = null; renderEntry(); };
  } else if (ui.mode === "hold") {
    attrs["aria-pressed"] = ui.locked[i] ? "true" : "false";
    attrs["aria-label"] = `die ${i + 1}: ${name}, ${ui.locked[i] ? "held" : "not held"}; tap to ${ui.locked[i] ? "release" : "hold"}`;
    attrs.onclick = () => { ui.locked[i] = !ui.locked[i]; renderEntry(); };
  } else {
    attrs["aria-pressed"] = ui.locked[i] ? "true" : "false";
    attrs["aria-label"] = `die ${i + 1}: ${name}${ui.locked[i] ? ", held" : ""}`;
    attrs.disabled = true;
  }
  const node = el("button", attrs, code, el("small", {}, name));
  if (ui.locked[i]) node.insertAdjacentHTML("beforeend", LOCK);
  return node;
}

function advisedOption() {       // the option outlined: the one a finger is on, else the best; null for none
  const a = S.advice;
  const list = ui.mode === "final" ? a.markings : (ui.mode === "hold" ? a.holds : null);
  if (!list || !list.length) return null;
  return list[ui.preview !== null && ui.preview < list.length ? ui.preview : 0];
}

function usedDice() {             // the dice the outlined marking uses (its groups), or the outlined hold keeps
  const option = advisedOption();
  const indices = new Set();
  if (option) {
    const codes = splitCodes(ui.mode === "final" ? (option.groups || []).join("") : option.keep);
    for (const code of codes) {
      const i = ui.slots.findIndex((c, j) => c === code && !indices.has(j));
      if (i >= 0) indices.add(i);
    }
  }
  return { indices, preview: ui.preview !== null };
}

function setPreview(index) {      // a finger on an option: its cells and dice outlined instead of the best's
  if (ui.preview === index) return;
  ui.preview = index;
  renderDiceOnly();
  renderSheets();
}

function renderDiceOnly() {
  if (!S || ui.mode === "over" || (ui.mode === "roll" && ui.told)) return;
  $("dice").replaceChildren(...ui.slots.map((_, i) => dieButton(i)));
}

function holdButtonWords(hold) {  // the advised hold as the primary button: "Keep CC, re-roll 4"
  const n = ui.slots.length - splitCodes(hold.keep).length;
  if (!hold.reroll) return "Stop: keep all and mark";
  return hold.keep ? `Keep ${hold.keep}, re-roll ${n}` : `Re-roll all ${n}`;
}

function renderEntry() {
  const t = turn();
  const hint = $("hint"), dice = $("dice"), faces = $("faces"), actions = $("actions");
  dice.replaceChildren();
  faces.replaceChildren();
  actions.replaceChildren();
  if (ui.mode === "over") {
    hint.textContent = "The game is over and stays in its file. Undo takes back the last action; " +
      "for another game, start serve with a new file name.";
    return;
  }
  if (!(ui.mode === "roll" && ui.told)) ui.slots.forEach((_, i) => dice.append(dieButton(i)));
  const entering = ui.mode === "roll" || ui.mode === "reroll";
  if (entering && !ui.told) {
    const full = ui.slots.every((c) => c !== null);
    for (const [index, side] of sides().entries()) {
      faces.append(el("button", { type: "button", class: `face s${index}`, "aria-label": `${side.name} (${side.code})`,
        disabled: full || ui.busy, onclick: () => tapFace(side.code) }, side.code, el("small", {}, side.name)));
    }
  }
  if (ui.mode === "roll") {
    if (ui.told) {
      hint.textContent = plain(`Told: tap the items ${t.player} marked on their sheet below (no dice; unchecked, D4, D9), then Record.`);
      actions.append(el("button", { type: "button", onclick: () => { ui.told = false; ui.selected = []; render(); } },
        "Back to the dice"));
      const open = openShelves(t.seat - 1);
      const failed = el("div", { class: "actions told-fail", role: "group",
        "aria-label": "a failed result told: the shelf given up (D13)" }, el("span", { class: "hint" }, "Or a failed result (D13), shelf given up:"));
      for (const shelf of open) {
        const items = availableItems(t.seat - 1, shelf);
        failed.append(el("button", { type: "button", "aria-label": `told: gave up shelf ${shelf}`, "data-shelf": String(shelf),
          onclick: () => ask(`Give up shelf ${shelf}?`, `A failed result for ${t.player} (D13): the ${items.length} available ` +
            `item${items.length === 1 ? "" : "s"} of shelf ${shelf} ${items.length === 1 ? "is" : "are"} eliminated (${items.join(" ")}); marked items stay and still score.`,
          `Give up shelf ${shelf}`, () => write("fail", { shelf: String(shelf) })) }, String(shelf)));
      }
      actions.append(failed);
    } else {
      const entered = ui.slots.filter((c) => c !== null).length;
      hint.textContent = `${t.player}: tap the faces rolled (${entered} of ${ui.slots.length}); tap a die to clear it.`;
      actions.append(el("button", { type: "button", disabled: entered === 0,
        onclick: () => { ui.slots = ui.slots.map(() => null); renderEntry(); } }, "Clear"));
      actions.append(el("button", { type: "button", id: "told",
        onclick: () => { ui.told = true; ui.selected = []; render(); } }, "Told: they marked…"));
    }
  } else if (ui.mode === "hold") {
    const held = ui.locked.filter(Boolean).length;
    const best = S.advice.holds && S.advice.holds[0];
    hint.textContent = held ? `Held ${ui.slots.filter((_, i) => ui.locked[i]).join("")}: Re-roll the others, or tap the advised hold.`
      : "Tap the advised hold; or tap dice to hold them, then Re-roll.";
    if (best) {
      actions.append(el("button", { type: "button", class: "primary wide-action", id: "advised",
        "aria-label": `advised: ${holdButtonWords(best)}`, onclick: () => applyHold(best) }, holdButtonWords(best)));
    }
    actions.append(el("button", { type: "button", class: "secondary", id: "reroll", disabled: held === ui.slots.length,
      onclick: startReroll }, held ? `Re-roll ${ui.slots.length - held} (held ${held})` : "Re-roll all"));
    // the advice is to stop: the primary button is the Stop ("Stop: keep all and mark"), not a second one beside it
    if (!best || best.reroll) actions.append(el("button", { type: "button", class: "secondary", id: "stop", onclick: showStop }, "Stop"));
  } else if (ui.mode === "reroll") {
    const need = ui.locked.filter((l) => !l).length;
    const entered = ui.slots.filter((c, i) => !ui.locked[i] && c !== null).length;
    hint.textContent = `Re-roll: tap the ${need} new ${need === 1 ? "face" : "faces"} (${entered} of ${need}).`;
    actions.append(el("button", { type: "button", onclick: () => { resetEntry(); ui.mode = "hold"; render(); } },
      "Back"));
  } else if (ui.mode === "final") {
    const most = S.layout.combinations_per_turn;
    const advice = S.advice;
    hint.textContent = plain(advice.failed
      ? "Nothing can be marked (D13): tap the shelf to give up below."
      : `Tap the best marking below (outlined on the sheet of ${t.player}), or tap up to ${most} items there, then Mark.`);
    if (t.rerolls_left > 0) {
      actions.append(el("button", { type: "button", onclick: () => { resetEntry(); render(); } }, "Back to holds"));
    }
  }
}

function sheetButton() {          // Mark / Record under the active sheet (in the page's flow: it covers nothing)
  const t = turn();
  if (ui.mode === "final" && !S.advice.failed) {
    return el("button", { type: "button", class: "primary", id: "mark-selected", disabled: ui.selected.length === 0,
      onclick: () => write("mark", { items: ui.selected }) },
    ui.selected.length ? `Mark ${ui.selected.join(" ")}` : "Mark (tap items above)");
  }
  if (ui.mode === "roll" && ui.told) {
    return el("button", { type: "button", class: "primary", id: "record-told", disabled: ui.selected.length === 0,
      onclick: () => write("told", { items: ui.selected }) },
    ui.selected.length ? `Record ${ui.selected.join(" ")} (told)` : `Record (tap the items ${t.player} marked)`);
  }
  return null;
}

function availableItems(seat, shelf) {   // the available items of a shelf (1-based) on a seat's sheet (D13)
  const row = S.status.sheets[seat].marks.split("/")[shelf - 1];
  return S.layout.shelves[shelf - 1].cells.filter((_, c) => row[c] === ".");
}

function openShelves(seat) {
  const rows = S.status.sheets[seat].marks.split("/");
  return rows.map((row, i) => (row.includes(".") ? i + 1 : null)).filter((s) => s !== null);
}

function tapFace(code) {
  const i = ui.slots.findIndex((c, j) => c === null && !(ui.mode === "reroll" && ui.locked[j]));
  if (i < 0) return;
  ui.slots[i] = code;
  const full = ui.slots.every((c) => c !== null);
  renderEntry();
  if (!full) return;
  if (ui.mode === "roll") {
    write("roll", { dice: ui.slots.join("") });
  } else {
    const keep = ui.slots.filter((_, j) => ui.locked[j]).join("");
    const fresh = ui.slots.filter((_, j) => !ui.locked[j]).join("");
    write("reroll", { keep: keep || "-", new: fresh });
  }
}

function startReroll() {
  ui.mode = "reroll";
  ui.slots = ui.slots.map((c, i) => (ui.locked[i] ? c : null));
  render();
}

function applyHold(hold) {
  const keep = splitCodes(hold.keep);
  const dice = splitCodes(turn().dice);
  if (keep.length === dice.length) { showStop(); return; }
  ui.slots = dice.slice();
  ui.locked = dice.map(() => false);
  for (const code of keep) {
    const i = dice.findIndex((c, j) => c === code && !ui.locked[j]);
    if (i >= 0) ui.locked[i] = true;
  }
  startReroll();
}

function renderAdvice() {
  const box = $("advice");
  box.replaceChildren();
  const advice = S.advice;
  const unit = S.unit;
  if (advice.over) {
    box.append(el("h2", {}, "Final scores (D19, D20)"));
    const list = el("ol", { class: "options" });
    for (const p of [...advice.players].sort((a, b) => b.score - a.score)) {
      list.append(el("li", {}, `${p.name}: ${p.score} points (${p.shelf_points} shelves, ${p.column_points} columns)` +
        (advice.winners.includes(p.name) ? " · winner" : "")));
    }
    box.append(list);
    return;
  }
  const reason = advice.reason || null;  // at the page's precision: reasonText(advice, digits)
  if (advice.holds && advice.holds.length && (ui.mode === "hold" || ui.mode === "reroll")) {
    const best = advice.holds[0];
    const digits = PLACES;
    const settled = decided(advice.holds);
    box.append(el("h2", {}, `${advice.holds.length} holds, best first · ${unitShort(unit)}`));
    if (settled !== null) {
      box.append(el("p", { class: "decided", id: "decided" }, decidedWords(settled, "roll")));
      box.append(el("p", { class: "best", id: "best" }, `${valueText(best)} with any hold.`));
    } else {
      box.append(el("p", { class: "best", id: "best" }, `Best: ${holdWords(best)} — ${valueText(best)}, ` +
        `${best.shown.points} points this turn`));
      if (reason) box.append(el("p", { class: "reason" }, reasonText(advice, digits)));
    }
    if (settled === null || ui.all) {
      const list = el("ul", { class: "options", "aria-label": "every hold, best first" });
      shown(advice.holds).forEach((hold, i) => list.append(el("li", {}, option(i, hold, best, holdWords(hold),
        `${valueNumber(hold)} · ${hold.shown.points} pts`, () => applyHold(hold)))));
      box.append(list);
    }
    more(box, advice.holds.length, "holds", settled !== null);
  } else if (advice.markings && advice.markings.length && ui.mode === "final") {
    const best = advice.markings[0];
    const digits = PLACES;
    const settled = decided(advice.markings);
    box.append(el("h2", {}, `${advice.markings.length} markings, best first · ${unitShort(unit)}`));
    if (settled !== null) {       // nothing to rank: the marking that scores the most, one tap
      const top = best;           // equal chances come by points now, the most first (the server's order)
      box.append(el("p", { class: "decided", id: "decided" }, decidedWords(settled, "mark")));
      box.append(el("p", { class: "best", id: "best" }, `${valueText(top)} with any marking; ` +
        `${top.cells.join(" + ")} scores the most: ${top.points >= 0 ? "+" : ""}${top.points} points now`));
      box.append(el("button", { type: "button", class: "primary wide-action", id: "mark-most",
        onclick: () => write("mark", { items: top.cells }) }, `Mark ${markLine(top)}`));
    } else {
      box.append(el("p", { class: "best", id: "best" }, `Best: mark ${best.cells.join(" + ")} — ` +
        `${valueText(best)}, ${best.points >= 0 ? "+" : ""}${best.points} points now`));
      if (reason) box.append(el("p", { class: "reason" }, reasonText(advice, digits)));
    }
    if (settled === null || ui.all) {
      const list = el("ul", { class: "options", "aria-label": "every marking, best first" });
      shown(advice.markings).forEach((m, i) => list.append(el("li", {}, option(i, m, best, markLine(m),
        `${valueNumber(m)} · ${m.points >= 0 ? "+" : ""}${m.points} pts`,
        () => write("mark", { items: m.cells })))));
      box.append(list);
    }
    more(box, advice.markings.length, "markings", settled !== null);
  } else if (advice.failed && ui.mode === "final") {
    const t = turn();
    box.append(el("h2", {}, "Failed result (D13): nothing can be marked"));
    box.append(el("p", { class: "best", id: "best" }, `Give up shelf ${advice.give_up_shelf}: it costs the least.`));
    if (reason) box.append(el("p", { class: "reason" }, reasonText(advice, PLACES)));
    const list = el("ul", { class: "options", "aria-label": "every shelf to give up, best first" });
    advice.shelves.forEach((s, i) => list.append(el("li", {}, el("button", { type: "button",
      class: `option${i === 0 ? " top" : ""}`, "data-shelf": String(s.shelf),
      onclick: () => ask(`Give up shelf ${s.shelf}?`, `A failed result for ${t.player} (D13): the ${s.items.length} available ` +
        `item${s.items.length === 1 ? "" : "s"} of shelf ${s.shelf} ${s.items.length === 1 ? "is" : "are"} eliminated (${s.items.join(" ")}); marked items on it stay ` +
        "marked and still score.", `Give up shelf ${s.shelf}`, () => write("fail", { shelf: String(s.shelf) })) },
    el("span", { class: "rank" }, `${i + 1}`),
    el("span", { class: "what" }, `Give up shelf ${s.shelf}: ${s.items.join(" ")} (${s.points} points)`),
    el("span", { class: "diff" }, s.shown.potential_change)))));
    box.append(list);
    box.append(el("p", { class: "unit" }, "Right: the line potential each shelf loses (docs/objectives.md); " +
      "marked items on it stay marked and still score (D13)."));
    return;
  } else {
    return;
  }
  const foot = el("div", { class: "advice-foot" });
  const toggle = box.querySelector("#more");
  if (toggle) foot.append(toggle);
  foot.append(el("details", { class: "unit" }, el("summary", {}, "What the numbers mean"),
    unit.note ? `Values: ${unit.note}` : `Values: ${unitShort(unit)}.`));
  box.append(foot);
}

function shown(options) {
  return ui.all ? options : options.slice(0, SHOWN);
}

function more(box, count, words, hidden = false) {
  if (count <= SHOWN && !hidden) return;
  const label = ui.all ? (hidden ? `Hide the ${words}` : `Show the best ${SHOWN} only`) : `Show all ${count} ${words}`;
  box.append(el("button", { type: "button", class: "more", id: "more", "aria-expanded": ui.all ? "true" : "false",
    onclick: () => { ui.all = !ui.all; renderAdvice(); } }, label));
}

function markLine(m) {            // a marking's row: its items, each with the dice it uses (the dice are outlined too)
  return m.cells.map((c, i) => `${c} ${m.groups[i] || ""}`).join(" + ");
}

function valueNumber(entry) {  // a row's value, its unit named once in the heading
  const win = chance(entry);
  if (win !== null) return `${chanceText(entry)} (${kind(entry)})`;
  return entry.shown.value;
}

function option(i, entry, best, what, value, apply) {
  const diff = diffText(entry, best, i === 0);
  return el("button", { type: "button", class: `option${key(entry) === key(best) ? " top" : ""}`, onclick: apply,
    "data-rank": String(entry.rank),
    onpointerenter: () => setPreview(i), onpointerdown: () => setPreview(i), onfocus: () => setPreview(i),
    onpointerleave: () => setPreview(null), onblur: () => setPreview(null),
    "aria-label": `rank ${entry.rank}: ${what}, ${value}, ${diff === "best" || diff === "tied" ? diff : `${diff.replace(/ pp$/, " percentage points")} to the best`}` },
  el("span", { class: "rank" }, `#${entry.rank}`),
  el("span", { class: "what" }, what, el("br"), el("small", {}, value)),
  el("span", { class: "diff" }, diff));
}

function holdWords(hold) {
  if (!hold.reroll) return "stop";
  return hold.keep ? `keep ${hold.keep}, re-roll ${hold.reroll}` : `re-roll all ${hold.reroll}`;
}

function markWords(m) {
  return m.cells.map((c, i) => `${c} (${m.groups[i] || ""})`).join(" + ");
}

function renderWarnings() {
  const box = $("warnings");
  box.replaceChildren();
  const notes = S.advice.warnings || S.status.warnings || [];
  for (const note of notes) {
    const strong = /^(Last round|End near|End triggered|Blocking threat)/.test(note);
    box.append(el("li", { class: strong ? "strong" : "" }, note));
  }
}

function renderSheets() {
  const box = $("sheets");
  box.replaceChildren();
  // whose position the review lines are of: "current" (this one), "pending" (the last one's, the new one asked)
  box.dataset.review = review === false ? "none" : review && review.digest === S.digest ? "current" : "pending";
  const t = turn();
  const layout = S.layout;
  const n = S.status.sheets.length;
  const first = t.over ? 0 : t.seat - 1;
  const order = S.status.sheets.map((_, i) => S.status.sheets[(first + i) % n]);
  const outlined = ui.mode === "final" ? advisedOption() : null;   // the best marking, or the one a finger is on
  const cards = [];
  for (const sheet of order) {
    const seat = sheet.seat - 1;
    const active = !t.over && seat === t.seat - 1;
    const tappable = active && (ui.mode === "final" || (ui.mode === "roll" && ui.told));
    const rows = sheet.marks.split("/");
    const lines = S.lines[seat];
    const card = el("article", { class: `sheet${active ? " active" : ""}`, "aria-label": `sheet of ${sheet.name}` });
    card.append(el("h3", {}, el("span", {}, sheet.name), el("span", { class: "score" }, `${sheet.score} points`),
      active ? el("span", {}, "· to play") : null));
    const meta = [`${sheet.shelf_points} from shelves, ${sheet.column_points} from columns`,
      `closed shelves ${sheet.closed_shelves}`];
    const blocked = S.blocked[seat];
    if (blocked.length) meta.push(`blocked (D15): ${blocked.map((b) => `${b.line} by ${b.by}`).join(", ")}`);
    const info = [el("p", { class: "meta" }, meta.join(" · "))];   // under the grid: the items come first
    const delta = deltaText(seat);
    if (delta !== null) {
      info.push(el("p", { class: `meta delta${delta.pending ? " pending" : ""}`, "data-seat": sheet.seat,
        "aria-busy": delta.pending ? "true" : null }, delta.text));
    }
    const grid = el("div", { class: "grid", vars: { "--cols": String(layout.columns.length) } });
    grid.append(el("span", { class: "label" }, ""));
    layout.columns.forEach((need, c) => grid.append(el("span", { class: "label", title: `column ${c + 1}: ${need} dice` },
      `c${c + 1}·${need}`)));
    grid.append(el("span", { class: "pts" }, "pts"));
    layout.shelves.forEach((shelf, s) => {
      grid.append(el("span", { class: "label" }, `r${shelf.number} ${shelf.label}`));
      shelf.values.forEach((value, c) => {
        const name = shelf.cells[c];
        const state = rows[s][c];
        const selected = tappable && ui.selected.includes(name);
        const cls = state === "o" ? "marked" : state === "x" ? "eliminated" : "";
        const words = state === "o" ? "marked" : state === "x" ? "eliminated" : "available";
        const tap = tappable && state === ".";
        const advised = active && outlined && outlined.cells.includes(name)
          ? (ui.preview !== null && ui.preview > 0 ? " preview" : " advised") : "";
        const attrs = { type: "button", class: `cell ${cls}${selected ? " selected" : ""}${tap ? " tap" : ""}${advised}`,
          "data-cell": name, "data-seat": sheet.seat, "data-advised": advised ? "true" : null,
          "aria-label": `${sheet.name} ${name}: ${value} point${value === 1 ? "" : "s"}, ${words}${advised ? ", in the outlined marking" : ""}` };
        if (tap) {
          attrs["aria-pressed"] = selected ? "true" : "false";
          attrs.onclick = () => toggleItem(name);
        } else {
          attrs.disabled = true;
        }
        grid.append(el("button", attrs, String(value)));
      });
      grid.append(el("span", { class: "pts" }, String(lines.shelves[s])));
    });
    grid.append(el("span", { class: "label" }, "pts"));
    lines.columns.forEach((p) => grid.append(el("span", { class: "pts" }, String(p))));
    grid.append(el("span", { class: "pts" }, el("strong", {}, String(sheet.score))));
    card.append(grid);
    const button = active ? sheetButton() : null;
    if (button) card.append(el("div", { class: "sheet-actions" }, button));
    card.append(...info);
    cards.push(card);
  }
  if (t.over || cards.length === 1) {
    box.append(...cards);
    return;
  }
  box.append(cards[0]);             // the active player's sheet directly under the advice, the others after it
  const others = el("details", { class: "others", id: "others", open: ui.others,
    ontoggle: (e) => { ui.others = e.target.open; } },
  el("summary", {}, `Other sheets: ${order.slice(1).map((sh) => `${sh.name} ${sh.score}`).join(", ")}`));
  others.append(...cards.slice(1));
  box.append(others);
}

function deltaText(seat) {        // a sheet's "Difference to the best so far" line: { text, pending }, or null for none
  if (review === false) return null;                    // the review failed: the game goes on without it
  const told = (n) => (n ? ` (${n} told, not reviewed)` : "");
  if (!review) return { text: "Difference to the best so far: …", pending: true };  // the page's first review
  // not in yet for this position: the last review's line stays (aria-busy) until it is, so a tap never
  // flashes a placeholder; only the player who acted can differ, a moment later
  const pending = review.digest !== S.digest;
  const r = review.players[seat];
  if (!r) return null;
  if (r.decisions === 0) return r.unchecked ? { text: `No decision reviewed yet${told(r.unchecked)}`, pending } : null;
  const lossText = r.total_loss_shown;   // as review's summary prints it (the server's text, from the exact loss)
  const words = review.unit.percent ? "percentage points of the chance to win" : unitShort(review.unit);
  return { text: `Difference to the best so far: ${lossText} ${words} over ${r.decisions} ` +
    `decision${r.decisions === 1 ? "" : "s"}${told(r.unchecked)}`, pending };
}

function toggleItem(name) {
  const at = ui.selected.indexOf(name);
  if (at >= 0) ui.selected.splice(at, 1);
  else if (ui.selected.length < S.layout.combinations_per_turn) ui.selected.push(name);
  else say(`At most ${S.layout.combinations_per_turn} items a turn (D9).`, "error");
  renderEntry();
  renderSheets();
}

// --- a new game (POST /api/new): only while the game file does not exist ---------------------

const fresh = { count: 2, names: ["", "", "", ""], first: null, info: null };

async function showNew(info = null) {
  try {
    fresh.info = info || await api("GET", "/api/new");
  } catch (error) {
    say(error.message, "error");
    return;
  }
  S = null;
  document.body.classList.add("new-game");
  $("turn").textContent = "New game";
  renderNew();
}

function playerNames() {          // an empty field is its placeholder, Player1 ... (one word, as play new)
  return fresh.names.slice(0, fresh.count).map((n, i) => n.trim() || `Player${i + 1}`);
}

function renderNew() {
  const box = $("newgame"), info = fresh.info;
  box.replaceChildren();
  box.append(el("p", { class: "hint" }, `No game in ${info.file} yet: this screen creates it, as play new does. ` +
    `Board: ${info.board} (the server's, serve --board).`));
  box.append(el("h2", {}, "Players (D1)"));
  const counts = el("div", { class: "actions choice", role: "group", "aria-label": "number of players (D1)" });
  for (let n = 1; n <= info.max_players; n += 1) {
    counts.append(el("button", { type: "button", "data-count": String(n), "aria-pressed": String(n === fresh.count),
      onclick: () => { fresh.count = n; if (fresh.first !== null && fresh.first >= n) fresh.first = null; renderNew(); } },
    n === 1 ? "1 (solo)" : String(n)));
  }
  box.append(counts);
  box.append(el("p", { class: "hint" }, "Names in seat order (clockwise, D5), one word each:"));
  const names = el("div", { class: "names" });
  for (let i = 0; i < fresh.count; i += 1) {
    const input = el("input", { type: "text", id: `name-${i + 1}`, "aria-label": `player ${i + 1}'s name`,
      placeholder: `Player${i + 1}`, value: fresh.names[i], autocomplete: "off", spellcheck: "false", maxlength: "40" });
    input.addEventListener("input", () => { fresh.names[i] = input.value; renderFirst(); });
    names.append(el("label", { for: `name-${i + 1}` }, `${i + 1}`), input);
  }
  box.append(names);
  box.append(el("h2", {}, "Who plays first (D5)"));
  box.append(el("div", { id: "first", class: "actions choice", role: "group", "aria-label": "who plays first (D5)" }));
  renderFirst();
  box.append(el("button", { type: "button", class: "primary wide", id: "create", onclick: createGame }, "Start the game"));
}

function renderFirst() {
  const box = $("first");
  box.replaceChildren();
  const choices = [[null, "Drawn at random"], ...playerNames().map((name, i) => [i, name])];
  for (const [seat, words] of choices) {
    box.append(el("button", { type: "button", "data-first": seat === null ? "random" : String(seat + 1),
      "aria-pressed": String(seat === fresh.first), onclick: () => { fresh.first = seat; renderFirst(); } }, words));
  }
}

async function createGame() {
  if (ui.busy) return;
  ui.busy = true;
  const players = playerNames();
  let answer = null, failure = null;
  try {
    answer = await api("POST", "/api/new", { players, first: fresh.first === null ? null : players[fresh.first] });
  } catch (error) {
    failure = error;
  }
  ui.busy = false;
  if (answer) {
    document.body.classList.remove("new-game");
    S = attachShown(answer);
    resetEntry();
    render();
    say(S.done.join(" "), "info");
    reviewSoon();
  } else if (failure.status === 409) {
    await load("The game was created first on another page or in the terminal: it is shown, nothing was overwritten.",
      "error");
  } else {
    say(failure.message, "error");
  }
}

// --- start ----------------------------------------------------------------------------------

$("undo").addEventListener("click", () => {
  const last = S && S.last_action;
  write("undo", { count: 1 }, last && last.redo ? { kind: last.kind, body: last.redo, words: last.words } : null);
});
$("redo").addEventListener("click", () => {   // the undone action sent again, on the revision the page shows
  const again = ui.redo;
  if (again && again.digest === S.digest) write(again.kind, again.body);
});
$("confirm-yes").addEventListener("click", () => {
  const action = ui.pending;
  ui.pending = null;
  $("confirm").close();
  if (action) action();
});
$("confirm-no").addEventListener("click", () => { ui.pending = null; $("confirm").close(); });
$("confirm").addEventListener("close", () => { ui.pending = null; });
$("rules").addEventListener("click", () => {
  ui.rules = !ui.rules;
  $("rules").setAttribute("aria-pressed", String(ui.rules));
  if (S) render(); else if (fresh.info) renderNew();
});
$("rollout-run").addEventListener("click", runRollout);
if (token) $("to-tile").href = `/tile?token=${encodeURIComponent(token)}`;

async function poll() {           // another page or the terminal may act on the same file
  if (!S && fresh.info && !ui.busy && document.visibilityState === "visible") {
    try {                         // the New game screen: another page or `play new` may create it
      if ((await api("GET", "/api/new")).exists) await load("The game was created on another page or in the terminal.");
    } catch { /* the next poll tries again */ }
    return;
  }
  if (!S || ui.busy || document.visibilityState !== "visible") return;
  try {
    const now = await api("GET", "/api/revision");
    if (now.digest !== S.digest && !ui.busy) {
      await load("The game changed on another page or in the terminal: reloaded.");
    }
  } catch { /* the server may be stopping; the next poll tries again */ }
}

async function start() {           // a missing game file is the New game screen, asked first: no 404 logged
  let info = null;
  try { info = await api("GET", "/api/new"); } catch { /* the state's answer then says what is wrong */ }
  if (info && !info.exists) { await showNew(info); return; }
  await load();
}

setInterval(poll, 3000);
start();
