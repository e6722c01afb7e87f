// Card notation of shared/spec/records.md ("TS", "5H", "BJ") as HTML.
// No rules live here: only how a card looks and a neutral display order
// (used while a paced deal runs, before the server's game order is known).

import { icon, suitIcon } from "./icons.js";

export { suitIcon };

const SUIT_SYMBOL = { S: "♠", H: "♥", C: "♣", D: "♦" };
const RANK_TEXT = { T: "10" };

export function suitSymbol(s) { return SUIT_SYMBOL[s] || ""; }

export function isJoker(c) { return c === "BJ" || c === "SJ"; }

/** "♠10", "大王" — a card as short text. */
export function cardText(c) {
  if (c === "BJ") return "大王";
  if (c === "SJ") return "小王";
  return suitSymbol(c[1]) + (RANK_TEXT[c[0]] || c[0]);
}

export function cardsText(cards) { return (cards || []).map(cardText).join(" "); }

const SUIT_WORD = { S: "黑桃", H: "红桃", C: "梅花", D: "方块" };

/** "黑桃10", "大王" — a card in words (what a screen reader says). */
export function cardWords(c) {
  if (c === "BJ") return "大王";
  if (c === "SJ") return "小王";
  return (SUIT_WORD[c[1]] || "") + (RANK_TEXT[c[0]] || c[0]);
}

function esc(s) { return String(s).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`); }

/** One card element; ``extra`` adds classes, ``attrs`` attributes. Suits and
 * jokers are SVG (icons.js): 大王 a red crown on a gold-edged card, 小王 a
 * black star on a plain one. */
export function cardHtml(c, extra = "", attrs = "") {
  // A card is an image (its words the label) unless ``attrs`` gives a role (the hand's options).
  const role = attrs.includes("role=") ? "" : `role="img"`;
  if (isJoker(c)) {
    const big = c === "BJ";
    return `<div class="card joker ${big ? "red joker-big" : "black joker-small"} ${extra}" data-card="${c}" ${role} aria-label="${big ? "大王" : "小王"}" ${attrs}>` +
      `<span class="corner">${big ? "大<br>王" : "小<br>王"}</span><span class="pip">${icon(big ? "crown" : "star")}</span></div>`;
  }
  const suit = c[1];
  const red = suit === "H" || suit === "D";
  const rank = RANK_TEXT[c[0]] || c[0];
  return `<div class="card ${red ? "red" : "black"} ${extra}" data-card="${esc(c)}" ${role} aria-label="${esc(cardWords(c))}" ${attrs}>` +
    `<span class="corner">${rank}<br>${suitIcon(suit)}</span>` +
    `<span class="pip">${suitIcon(suit)}</span></div>`;
}

export function backHtml(extra = "") { return `<div class="card back ${extra}"></div>`; }

/** A small face-up row of cards (played cards, kitty, 看分). */
export function rowHtml(cards, extra = "small") {
  return `<div class="cardrow">${(cards || []).map((c) => cardHtml(c, extra)).join("")}</div>`;
}

const RANKS = "AKQJT98765432";
const SUITS = "SHCD";

/** Neutral display order while dealing: jokers, then by suit, high to low. */
export function displaySort(cards) {
  const key = (c) => (c === "BJ" ? -2 : c === "SJ" ? -1 : SUITS.indexOf(c[1]) * 20 + RANKS.indexOf(c[0]));
  return [...cards].sort((a, b) => key(a) - key(b));
}
