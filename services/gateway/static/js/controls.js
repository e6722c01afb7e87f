// The player's own controls: the declare area, the bid buttons, the play
// buttons with the server's check, and the hand.

import { $, setHtml, esc, timerHtml } from "./dom.js";
import { cardHtml, cardText, isJoker, suitIcon } from "./cards.js";
import { actionText, phaseText } from "./text.js";
import { nameFromGame } from "./state.js";

let handKey = "";

/** Draw the hand again at the next renderHand (a new screen, a resize). */
export function resetHand() { handKey = ""; }

function declareGroups(options) {
  const groups = { S: [], H: [], C: [], D: [], NT: [] };
  for (const cards of options) {
    const plain = cards.find((c) => !isJoker(c));
    groups[plain ? plain[1] : "NT"].push(cards);
  }
  return groups;
}

/** The declare area's note: while cards are dealt, that one may declare at
 * once; after the deal, the window's countdown (``declaring_until``). */
function declareNote(g, my, what) {
  const until = my.deadline || g.declaringUntil;
  if (g.phase === "dealing" && !g.dealing.done) return `发牌中，有牌即可${what}`;
  return until ? `<span class="timer" data-deadline="${until}"></span> 秒后不叫视为放弃` : "";
}

export function renderActions(S) {
  const g = S.game;
  const el = $("#actions");
  if (!el) return;
  let html = "";
  if (S.watch && !S.room) {
    const who = g && g.turn && g.phase !== "finished" ? ` · 等待 <b>${esc(nameFromGame(g, g.turn.seat))}</b> ${phaseText(g, g.turn.phase)}` : "";
    html = `<div class="bar-btns wait" id="watching-note">旁观中${who}</div>`;
  } else if (g && g.my && g.phase !== "finished") {
    const my = g.my;
    if (my.phase === "declaring") {
      const groups = declareGroups(my.declare_options || []);
      const slot = (key, label, red) => {
        const opts = groups[key];
        if (!opts.length) return `<button class="declare-btn off" disabled data-suit="${key}"><span class="${red ? "red" : ""}">${suitIcon(key) || label}</span></button>`;
        return opts.map((cards) => `<button class="declare-btn lit" data-act="declare" data-suit="${key}" data-cards='${JSON.stringify(cards)}' title="${esc(cards.map(cardText).join(" "))}">` +
          `<span class="${red ? "red" : ""}">${suitIcon(key) || label}</span>${cards.length > 1 ? `<small>×${cards.length}</small>` : ""}</button>`).join("");
      };
      const what = g.rules.declare_label || "叫主";
      html = `<div class="declare-area" id="declare-area"><span class="lbl">${what}区</span>` +
        slot("S", "♠") + slot("H", "♥", true) + slot("C", "♣") + slot("D", "♦", true) +
        (g.rules.no_trump_declare === false ? "" : slot("NT", "无主")) +
        `<span class="note" id="declare-note">${declareNote(g, my, what)}</span></div>`;
    } else if (g.hints.some((a) => actionText(g, a.type))) {
      // The game's own named actions (斗地主's 叫地主 / 不叫 …) as buttons.
      const kinds = g.hints.map((a) => a.type).filter((t) => actionText(g, t));
      html = `<div class="bar-btns">${kinds.map((k) => `<button class="bid-btn ${k.startsWith("no_") ? "" : "primary"}" data-act="bid" data-kind="${k}">${actionText(g, k)}</button>`).join("")}` +
        `${timerHtml(my.deadline)}</div>`;
    } else if (my.phase === "play" || my.phase === "burying") {
      const bury = my.phase === "burying";
      const c = g.check;
      const reveal = g.hints.some((a) => a.type === "reveal");
      // How many to bury: as many as the kitty the dealer took (a bury hint's size).
      const hint = g.hints.find((a) => a.type === "bury");
      const n = (hint && hint.cards && hint.cards.length) || (g.myKitty || []).length;
      const need = bury ? `<span class="bury-need" id="bury-need">请选择 ${n} 张牌扣底</span>` : "";
      html = `<div class="bar-btns">` +
        `<button id="btn-hint" data-act="hint" data-hints="${g.hintsReady ? g.hints.length : ""}">提示</button>` +
        (my.can_pass && !bury ? `<button id="btn-pass" data-act="pass">不出</button>` : "") +
        `<button id="btn-play" class="primary" data-act="play" data-check="${c.state}" ${c.state === "legal" ? "" : "disabled"}>${bury ? "扣底" : "出牌"}</button>` +
        (reveal ? `<button id="btn-reveal" data-act="reveal">亮明</button>` : "") +
        timerHtml(my.deadline) + need +
        (c.state === "illegal" ? `<span class="why" id="check-why">${esc(c.error)}</span>` : "") + `</div>`;
    }
  } else if (g && g.turn && g.phase !== "finished" && g.turn.seat !== g.mySeat) {
    html = `<div class="bar-btns wait">等待 <b>${esc(nameFromGame(g, g.turn.seat))}</b> ${phaseText(g, g.turn.phase)}</div>`;
  } else if (g && g.phase === "dealing") {
    html = `<div class="bar-btns wait">发牌中…</div>`;
  }
  setHtml(el, html);
}


/** The narrowest strip of a card in the hand on a phone (px). */
const TAP_PX = 24;

export function renderHand(S) {
  const g = S.game;
  const el = $("#hand");
  if (!g || g.phase === "finished" || S.screen !== "table") {
    if (handKey !== "none") { el.innerHTML = ""; handKey = "none"; }
    return;
  }
  // While the dealer buries, the cards it took from the kitty are marked.
  const fromKitty = g.phase === "burying" && g.my && g.my.phase === "burying" ? [...(g.myKitty || [])] : [];
  const n0 = g.hand.length;
  g.cursor = Math.max(0, Math.min(g.cursor || 0, n0 - 1));
  const key = `${g.id}|${g.hand.join(",")}|${[...g.sel].join(",")}|${el.clientWidth}|${fromKitty.join(",")}|${g.cursor}`;
  if (key === handKey) return;
  handKey = key;
  const focused = el.contains(document.activeElement);
  const phone = window.matchMedia("(max-width: 700px)").matches;
  const cw = phone ? 46 : 72;
  // What shows of each card is its tap target: at least 24 px wide on a
  // phone (WCAG 2.2, 2.5.8 target size), more rows where it must.
  const minStep = phone ? TAP_PX : 26;
  const maxStep = phone ? 30 : 44;
  const width = Math.max(200, el.clientWidth - 16);
  const n = g.hand.length;
  const perRow = Math.max(1, Math.floor((width - cw) / minStep) + 1);
  const rows = Math.max(1, Math.ceil(n / perRow));
  const each = Math.ceil(n / rows);
  const anim = g.dealAnim && n > 0;
  let newDone = false;
  const parts = [];
  for (let r = 0; r < rows; r++) {
    const start = r * each;
    const end = Math.min(n, start + each);
    const k = end - start;
    const step = k > 1 ? Math.min(maxStep, (width - cw) / (k - 1)) : 0;
    const cards = [];
    for (let i = start; i < end; i++) {
      const c = g.hand[i];
      let cls = g.sel.has(i) ? "sel" : "";
      const k = fromKitty.indexOf(c);
      if (k >= 0) { cls += " fromkitty"; fromKitty.splice(k, 1); }
      let style = i > start ? `margin-left:${(step - cw).toFixed(1)}px;` : "";
      if (anim) { cls += " deal"; style += `animation-delay:${i * 90}ms;`; }
      else if (!newDone && g.newCard && c === g.newCard) { cls += " new"; newDone = true; }
      if (i === g.cursor) cls += " cursor";
      // A listbox option each (screen readers: the card in words, selected or not);
      // one tab stop, the cursor (keys.js moves it).
      cards.push(cardHtml(c, cls, `data-act="toggle" data-i="${i}" role="option" aria-selected="${g.sel.has(i)}" ` +
        `tabindex="${i === g.cursor ? 0 : -1}" style="${style}"`));
    }
    parts.push(`<div class="hand-row">${cards.join("")}</div>`);
  }
  el.innerHTML = parts.join("");
  el.dataset.count = String(n);
  el.setAttribute("role", "listbox");
  el.setAttribute("aria-multiselectable", "true");
  el.setAttribute("aria-label", `手牌 ${n} 张（← → 移动，空格 选牌，回车 出牌，P 不出，H 提示，数字键 按钮）`);
  if (focused) { const c = el.querySelector(`.card[data-i="${g.cursor}"]`); if (c) c.focus({ preventScroll: true }); }
  if (anim) g.dealAnim = false;
  g.newCard = null;
}

