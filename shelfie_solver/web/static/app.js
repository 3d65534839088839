// shelfie-solve serve: the page at the table (docs/serve.md). One plain module (with api.js), no build step,
// no network beyond this server. Every number shown comes from the server's JSON, which is the
// JSON of `play ... --format json`; this file only lays it out and sends taps back as actions.

import { api, token } from "./api.js";

const $ = (id) => document.getElementById(id);
const LOCK = '<svg class="lock" viewBox="0 0 16 16" aria-hidden="true"><rect x="3" y="7" width="10" height="8" rx="1.5" ' +
  'fill="#5a3d00"/><path d="M5 7V5a3 3 0 0 1 6 0v2" stroke="#5a3d00" stroke-width="2" fill="none"/></svg>';

let S = null;            // the last state from GET /api/state or a write
let review = null;       // GET /api/review: every player's difference to the best
const ui = { slots: [], locked: [], mode: "roll", told: false, selected: [], busy: false, all: false };

//: Options shown before "Show all" (every option is one tap away).
const SHOWN = 6;

// --- talking to the server ------------------------------------------------------------------

async function load(note, kind = "info") {
  try {
    S = await api("GET", "/api/state");
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

async function loadReview() {
  const digest = S.digest;
  try {
    const answer = await api("GET", "/api/review");
    if (S && answer.digest === S.digest && digest === S.digest) {
      review = answer;
      renderSheets();
    }
  } catch { /* the difference to the best is extra: the game goes on without it */ }
}

async function write(kind, body) {
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
    S = answer;
    resetEntry();
    render();
    if (!turn().over && turn().dice === null) window.scrollTo(0, 0);  // a new turn starts at the top
    say(S.done.join(" "), "info");
    loadReview();
  } else if (failure.status === 409) {
    await load("Another page or the terminal acted first: the game was reloaded and nothing was applied. " +
      "Check the dice and tap again.", "error");
  } else {
    say(failure.message, "error");
    renderEntry();
  }
}

async function showStop() {     // the stop is an action (D7, POST /api/stop): the dice are final, then marked
  await write("stop", {});
}

function say(text, kind) {
  const box = $("message");
  box.textContent = text;
  box.className = text ? kind : "";
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

function num(value, places = 2) {
  return Number(value).toFixed(places);
}

function chance(entry) {          // an entry's chance to win, 0..1, when the advice gives one
  if (entry.win_chance_float !== undefined) return entry.win_chance_float;
  if (typeof entry.win_chance === "number") return entry.win_chance;
  if (typeof entry.win_chance === "string" && entry.win_chance.includes("/")) {
    const [p, q] = entry.win_chance.split("/").map(Number);
    return p / q;
  }
  return null;
}

function percent(p) {
  if (p > 0 && p < 0.0001) return "<0.01%";
  if (p < 1 && p > 0.9999) return ">99.99%";
  return `${(p * 100).toFixed(2)}%`;
}

function valueText(entry) {
  const unit = S.unit;
  const win = chance(entry);
  if (win !== null) return `${percent(win)} chance to win`;
  if (unit.percent) return `${percent(entry.value_float)} chance to win`;
  return `${num(entry.value_float)} ${unitShort(unit)}`;
}

function unitShort(unit) {
  if (unit.percent) return "chance to win";
  if (unit.label.includes("1/1000")) return "win-chance score (1/1000)";
  if (unit.label.includes("points")) return "points (final score)";
  return unit.label;
}

function diffText(option, best, isFirst) {
  if (option.rank === best.rank) return isFirst ? "best" : "tied";
  const winO = chance(option), winB = chance(best);
  const unit = S.unit;
  if (winO !== null && winB !== null) return small((winB - winO) * 100, "%");
  if (unit.percent) return small((best.value_float - option.value_float) * 100, "%");
  return small(best.value_float - option.value_float, "");
}

function small(loss, suffix) {    // a loss that is not exactly zero never reads as 0.00
  return loss < 0.005 ? `−<0.01${suffix}` : `−${loss.toFixed(2)}${suffix}`;
}

// --- drawing --------------------------------------------------------------------------------

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "onclick") node.addEventListener("click", value);
    else if (key === "vars") for (const [name, v] of Object.entries(value)) node.style.setProperty(name, v);
    else if (value !== false && value !== null && value !== undefined) node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

function render() {
  renderTurn();
  renderEntry();
  renderBar();
  renderAdvice();
  renderWarnings();
  renderSheets();
}

function renderTurn() {
  const t = turn();
  const box = $("turn");
  if (t.over) {
    const a = S.advice;
    box.textContent = `Game over after ${a.rounds} round${a.rounds === 1 ? "" : "s"} · winner${a.winners.length > 1 ? "s" : ""}: ${a.winners.join(", ")}`;
  } else if (t.dice === null) {
    box.textContent = `Round ${t.round} · ${t.player} to roll`;
  } else {
    box.textContent = `Round ${t.round} · ${t.player} · ${t.rerolls_left} re-roll${t.rerolls_left === 1 ? "" : "s"} left`;
  }
  $("undo").disabled = S.actions === 0;
}

function dieButton(i) {
  const code = ui.slots[i];
  const entering = ui.mode === "roll" || (ui.mode === "reroll" && !ui.locked[i]);
  if (code === null) {
    return el("button", { type: "button", class: "die empty", "aria-label": `die ${i + 1}: not entered yet`,
      disabled: true }, "?");
  }
  const name = sideName(code);
  const attrs = { type: "button", class: `die s${sideIndex(code)}` };
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
      hint.textContent = `Told: tap the items ${t.player} marked on their sheet below (no dice; unchecked, D4, D9), then Record.`;
      actions.append(el("button", { type: "button", onclick: () => { ui.told = false; ui.selected = []; render(); } },
        "Back to the dice"));
      const open = openShelves(t.seat - 1);
      const failed = el("div", { class: "actions told-fail", role: "group",
        "aria-label": "a failed result told: the shelf given up (D13)" }, el("span", { class: "hint" }, "Or a failed result (D13), shelf given up:"));
      for (const shelf of open) {
        failed.append(el("button", { type: "button", "aria-label": `told: gave up shelf ${shelf}`,
          onclick: () => write("fail", { shelf: String(shelf) }) }, String(shelf)));
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
    hint.textContent = "Tap dice to hold them, then Re-roll; or tap an option below.";
    actions.append(el("button", { type: "button", class: "primary", id: "reroll", disabled: held === ui.slots.length,
      onclick: startReroll }, `Re-roll ${ui.slots.length - held} ${ui.slots.length - held === 1 ? "die" : "dice"}`));
    actions.append(el("button", { type: "button", id: "stop", onclick: showStop }, "Stop: mark"));
  } else if (ui.mode === "reroll") {
    const need = ui.locked.filter((l) => !l).length;
    const entered = ui.slots.filter((c, i) => !ui.locked[i] && c !== null).length;
    hint.textContent = `Re-roll: tap the ${need} new ${need === 1 ? "face" : "faces"} (${entered} of ${need}).`;
    actions.append(el("button", { type: "button", onclick: () => { resetEntry(); ui.mode = "hold"; render(); } },
      "Back"));
  } else if (ui.mode === "final") {
    const most = S.layout.combinations_per_turn;
    const advice = S.advice;
    hint.textContent = advice.failed
      ? "Nothing can be marked (D13): tap the shelf to give up below."
      : `Tap the best marking below, or tap up to ${most} items on ${t.player}'s sheet, then Mark.`;
    if (t.rerolls_left > 0) {
      actions.append(el("button", { type: "button", onclick: () => { resetEntry(); render(); } }, "Back to holds"));
    }
  }
}

function renderBar() {
  const bar = $("bar");
  bar.replaceChildren();
  const t = turn();
  let button = null;
  if (ui.mode === "final" && !S.advice.failed) {
    button = el("button", { type: "button", class: "primary", id: "mark-selected", disabled: ui.selected.length === 0,
      onclick: () => write("mark", { items: ui.selected }) },
    ui.selected.length ? `Mark ${ui.selected.join(" ")}` : `Mark (tap items on ${t.player}'s sheet)`);
  } else if (ui.mode === "roll" && ui.told) {
    button = el("button", { type: "button", class: "primary", id: "record-told", disabled: ui.selected.length === 0,
      onclick: () => write("told", { items: ui.selected }) },
    ui.selected.length ? `Record ${ui.selected.join(" ")} (told)` : `Record (tap ${t.player}'s items)`);
  }
  bar.hidden = button === null;
  document.body.classList.toggle("with-bar", button !== null);
  if (button) bar.append(button);
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
  ui.slots = dice.slice();
  ui.locked = dice.map(() => false);
  for (const code of keep) {
    const i = dice.findIndex((c, j) => c === code && !ui.locked[j]);
    if (i >= 0) ui.locked[i] = true;
  }
  if (keep.length === dice.length) { showStop(); return; }
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
  const reason = advice.reason || null;
  if (advice.holds && advice.holds.length && (ui.mode === "hold" || ui.mode === "reroll")) {
    const best = advice.holds[0];
    box.append(el("h2", {}, `${advice.holds.length} holds, best first · ${unitShort(unit)}, difference to the best`));
    box.append(el("p", { class: "best", id: "best" }, `Best: ${holdWords(best)} — ${valueText(best)}, ` +
      `${num(best.points_float)} points this turn`));
    if (reason || best.reason) box.append(el("p", { class: "reason" }, reason || best.reason));
    const list = el("ul", { class: "options", "aria-label": "every hold, best first" });
    shown(advice.holds).forEach((hold, i) => list.append(el("li", {}, option(i, hold, best, holdWords(hold),
      `${valueNumber(hold)} · ${num(hold.points_float)} pts`, () => applyHold(hold)))));
    box.append(list);
    more(box, advice.holds.length, "holds");
  } else if (advice.markings && advice.markings.length && ui.mode === "final") {
    const best = advice.markings[0];
    box.append(el("h2", {}, `${advice.markings.length} markings, best first · ${unitShort(unit)}, difference to the best`));
    box.append(el("p", { class: "best", id: "best" }, `Best: mark ${markWords(best)} — ${valueText(best)}, ` +
      `${best.points >= 0 ? "+" : ""}${best.points} points now`));
    if (reason || best.reason) box.append(el("p", { class: "reason" }, reason || best.reason));
    const list = el("ul", { class: "options", "aria-label": "every marking, best first" });
    shown(advice.markings).forEach((m, i) => list.append(el("li", {}, option(i, m, best, markWords(m),
      `${valueNumber(m)} · ${m.points >= 0 ? "+" : ""}${m.points} pts, score ${m.score_after}`,
      () => write("mark", { items: m.cells })))));
    box.append(list);
    more(box, advice.markings.length, "markings");
  } else if (advice.failed && ui.mode === "final") {
    box.append(el("h2", {}, "Failed result (D13): nothing can be marked"));
    box.append(el("p", { class: "best", id: "best" }, `Give up shelf ${advice.give_up_shelf}: it costs the least.`));
    if (reason) box.append(el("p", { class: "reason" }, reason));
    const list = el("ul", { class: "options", "aria-label": "every shelf to give up, best first" });
    advice.shelves.forEach((s, i) => list.append(el("li", {}, el("button", { type: "button",
      class: `option${i === 0 ? " top" : ""}`, onclick: () => write("fail", { shelf: String(s.shelf) }) },
    el("span", { class: "rank" }, `${i + 1}`),
    el("span", { class: "what" }, `Give up shelf ${s.shelf}: ${s.items.join(" ")} (${s.points} points)`),
    el("span", { class: "diff" }, `${num(s.potential_change_float)}`)))));
    box.append(list);
    box.append(el("p", { class: "unit" }, "Right: the line potential each shelf loses (docs/objectives.md); " +
      "marked items on it stay marked and still score (D13)."));
    return;
  } else {
    return;
  }
  box.append(el("p", { class: "unit" }, unit.note ? `Values: ${unit.note}` : `Values: ${unitShort(unit)}.`));
}

function shown(options) {
  return ui.all ? options : options.slice(0, SHOWN);
}

function more(box, count, words) {
  if (count <= SHOWN) return;
  box.append(el("button", { type: "button", class: "more", id: "more", "aria-expanded": ui.all ? "true" : "false",
    onclick: () => { ui.all = !ui.all; renderAdvice(); } }, ui.all ? `Show the best ${SHOWN} only` : `Show all ${count} ${words}`));
}

function valueNumber(entry) {     // a row's value, its unit named once in the heading
  const win = chance(entry);
  const unit = S.unit;
  if (win !== null) return `${percent(win)} to win`;
  if (unit.percent) return `${percent(entry.value_float)} to win`;
  return num(entry.value_float);
}

function option(i, entry, best, what, value, apply) {
  return el("button", { type: "button", class: `option${entry.rank === best.rank ? " top" : ""}`, onclick: apply,
    "aria-label": `rank ${entry.rank}: ${what}, ${value}, ${diffText(entry, best, i === 0)} to the best` },
  el("span", { class: "rank" }, `#${entry.rank}`),
  el("span", { class: "what" }, what, el("br"), el("small", {}, value)),
  el("span", { class: "diff" }, diffText(entry, best, i === 0)));
}

function holdWords(hold) {
  if (!hold.reroll) return "stop (keep all)";
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
  const t = turn();
  const layout = S.layout;
  const n = S.status.sheets.length;
  const first = t.over ? 0 : t.seat - 1;
  const order = S.status.sheets.map((_, i) => S.status.sheets[(first + i) % n]);
  for (const sheet of order) {
    const seat = sheet.seat - 1;
    const active = !t.over && seat === t.seat - 1;
    const tappable = active && (ui.mode === "final" || (ui.mode === "roll" && ui.told));
    const rows = sheet.marks.split("/");
    const lines = S.lines[seat];
    const card = el("article", { class: `sheet${active ? " active" : ""}`, "aria-label": `${sheet.name}'s sheet` });
    card.append(el("h3", {}, el("span", {}, sheet.name), el("span", { class: "score" }, `${sheet.score} points`),
      active ? el("span", {}, "· to play") : null));
    const meta = [`${sheet.shelf_points} from shelves, ${sheet.column_points} from columns`,
      `closed shelves ${sheet.closed_shelves}`];
    const blocked = S.blocked[seat];
    if (blocked.length) meta.push(`blocked (D15): ${blocked.map((b) => `${b.line} by ${b.by}`).join(", ")}`);
    card.append(el("p", { class: "meta" }, meta.join(" · ")));
    const r = review && review.players[seat];
    if (r) {
      const loss = r.total_loss_float;
      const scale = review.unit.percent ? 100 : 1;
      const lossText = r.total_loss === "0/1" ? "0" : loss * scale < 0.005 ? "<0.01" : num(loss * scale);
      const words = review.unit.percent ? "percentage points of the chance to win" : unitShort(review.unit);
      card.append(el("p", { class: "meta delta", "data-seat": sheet.seat },
        `Difference to the best so far: ${lossText} ${words} over ${r.decisions} ` +
        `decision${r.decisions === 1 ? "" : "s"}` + (r.unchecked ? ` (${r.unchecked} told, not reviewed)` : "")));
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
        const attrs = { type: "button", class: `cell ${cls}${selected ? " selected" : ""}${tap ? " tap" : ""}`, "data-cell": name,
          "data-seat": sheet.seat, "aria-label": `${sheet.name} ${name}: ${value} points, ${words}` };
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
    box.append(card);
  }
}

function toggleItem(name) {
  const at = ui.selected.indexOf(name);
  if (at >= 0) ui.selected.splice(at, 1);
  else if (ui.selected.length < S.layout.combinations_per_turn) ui.selected.push(name);
  else say(`At most ${S.layout.combinations_per_turn} items a turn (D9).`, "error");
  renderEntry();
  renderBar();
  renderSheets();
}

// --- a new game (POST /api/new): only while the game file does not exist ---------------------

const fresh = { count: 2, names: ["", "", "", ""], first: null, info: null };

async function showNew() {
  try {
    fresh.info = await api("GET", "/api/new");
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
    S = answer;
    resetEntry();
    render();
    say(S.done.join(" "), "info");
    loadReview();
  } else if (failure.status === 409) {
    await load("The game was created first on another page or in the terminal: it is shown, nothing was overwritten.",
      "error");
  } else {
    say(failure.message, "error");
  }
}

// --- start ----------------------------------------------------------------------------------

$("undo").addEventListener("click", () => write("undo", { count: 1 }));
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

setInterval(poll, 3000);
load();
