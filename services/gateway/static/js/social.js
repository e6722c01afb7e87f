// Watching a game (旁观), quick start (快速开始) and quick chat (快捷聊天),
// docs/client-protocol.md "Spectators", "Quick start" and "Quick chat".
// The phrases are a fixed set (the server refuses anything else) and the
// emotes are drawn here as SVG faces (no emoji font).

import { $, setHtml, esc } from "./dom.js";

/** The quick chat phrases: id -> words (services/gateway/application/commands/chat.py PHRASES). */
export const PHRASES = {
  hello: "大家好",
  hurry: "快点吧，等到花儿都谢了",
  well_played: "打得漂亮！",
  good_luck: "祝你好运",
  thanks: "谢谢",
  sorry: "不好意思，手滑了",
  oops: "哎呀",
  bye: "再见了",
};

const FACE = `<circle cx="50" cy="50" r="44" fill="#ffd23f" stroke="#b98b00" stroke-width="5"/>`;
const EYES = `<circle cx="35" cy="40" r="6" fill="#3a2500"/><circle cx="65" cy="40" r="6" fill="#3a2500"/>`;
/** The emotes: id -> [label, SVG body] (services/gateway/application/commands/chat.py EMOTES). */
export const EMOTES = {
  smile: ["微笑", `${FACE}${EYES}<path d="M30 60q20 18 40 0" fill="none" stroke="#3a2500" stroke-width="6" stroke-linecap="round"/>`],
  laugh: ["大笑", `${FACE}<path d="M28 42l10-6 10 6M52 42l10-6 10 6" fill="none" stroke="#3a2500" stroke-width="5" stroke-linecap="round"/><path d="M26 56h48q-4 26-24 26T26 56z" fill="#7a1f1f"/>`],
  cry: ["哭", `${FACE}<path d="M28 42h14M58 42h14" stroke="#3a2500" stroke-width="6" stroke-linecap="round"/><path d="M34 48q-6 14 0 22q6-8 0-22zM66 48q-6 14 0 22q6-8 0-22z" fill="#4aa3ff"/><path d="M36 74q14-12 28 0" fill="none" stroke="#3a2500" stroke-width="6" stroke-linecap="round"/>`],
  angry: ["生气", `<circle cx="50" cy="50" r="44" fill="#ff7a45" stroke="#b33b00" stroke-width="5"/><path d="M26 30l18 10M74 30l-18 10" stroke="#3a1200" stroke-width="6" stroke-linecap="round"/>${EYES}<path d="M34 74q16-14 32 0" fill="none" stroke="#3a1200" stroke-width="6" stroke-linecap="round"/>`],
  thumbs_up: ["赞", `<path d="M14 46h16v44H14z" fill="#f2b705" stroke="#a87800" stroke-width="4"/><path d="M34 48l16-34c8 0 12 6 10 14l-4 14h26c6 0 10 6 8 12l-8 28c-2 6-6 8-12 8H34z" fill="#ffd23f" stroke="#a87800" stroke-width="4" stroke-linejoin="round"/>`],
  surprised: ["惊讶", `${FACE}<circle cx="35" cy="38" r="8" fill="#fff" stroke="#3a2500" stroke-width="4"/><circle cx="65" cy="38" r="8" fill="#fff" stroke="#3a2500" stroke-width="4"/><ellipse cx="50" cy="68" rx="9" ry="12" fill="#3a2500"/>`],
};

/** An emote drawn as SVG (``cls``: more classes). */
export function emoteSvg(id, cls = "") {
  const e = EMOTES[id];
  if (!e) return "";
  return `<svg class="emote ${cls}" viewBox="0 0 100 100" role="img" aria-label="${esc(e[0])}">${e[1]}</svg>`;
}

/** How long a bubble stays at its seat, ms. */
export const BUBBLE_MS = 4000;

/** A chat event at ``seat``: the bubble shows for BUBBLE_MS. */
export function showBubble(S, ev, redraw) {
  const until = Date.now() + BUBBLE_MS;
  S.bubbles[ev.seat] = { say: ev.say, kind: ev.kind, name: ev.name, until };
  setTimeout(() => {
    const b = S.bubbles[ev.seat];
    if (b && b.until === until) { delete S.bubbles[ev.seat]; redraw(); }
  }, BUBBLE_MS);
}

/** The bubbles at the seats (``posOf(seat)``: the seat's place on the felt). */
export function renderBubbles(S, posOf) {
  const el = $("#bubbles");
  if (!el) return;
  const html = Object.entries(S.bubbles).map(([seat, b]) => {
    const body = b.kind === "emote" ? emoteSvg(b.say) : esc(PHRASES[b.say] || b.say);
    return `<div class="bubble at-${posOf(Number(seat))} ${b.kind}" data-seat="${seat}" data-say="${esc(b.say)}">${body}</div>`;
  }).join("");
  setHtml(el, html);
}

/** The spectator count and, for a seated player, the chat button and (when
 * open) the panel of phrases and emotes. */
export function renderChat(S, seated) {
  const el = $("#chatbox");
  if (!el) return;
  const watchers = watchersHtml(S.spectators);
  if (!seated) { setHtml(el, watchers); return; }
  const panel = S.chatOpen ? `<div class="chat-panel" id="chat-panel">` +
    `<div class="phrases">${Object.entries(PHRASES).map(([id, words]) =>
      `<button class="phrase" data-act="chat" data-say="${id}">${esc(words)}</button>`).join("")}</div>` +
    `<div class="emotes">${Object.keys(EMOTES).map((id) =>
      `<button class="emote-btn" data-act="chat" data-say="${id}" title="${esc(EMOTES[id][0])}">${emoteSvg(id)}</button>`).join("")}</div>` +
    `</div>` : "";
  setHtml(el, `<button id="btn-chat" class="chat-btn ${S.chatOpen ? "open" : ""}" data-act="toggleChat" aria-label="快捷聊天">` +
    `<svg class="ic" viewBox="0 0 100 100" aria-hidden="true"><path d="M10 14h80v54H42L22 88V68H10z"/></svg> 聊天</button>${watchers}${panel}`);
}

/** The spectator count badge (旁观 N) of the room at the table. */
export function watchersHtml(count) {
  if (!count) return "";
  return `<span class="watchers" id="watchers" title="旁观人数"><svg class="ic" viewBox="0 0 100 100" aria-hidden="true">` +
    `<path d="M4 50C20 24 80 24 96 50C80 76 20 76 4 50z" fill="none" stroke="currentColor" stroke-width="9"/><circle cx="50" cy="50" r="14"/></svg> 旁观 <b>${count}</b></span>`;
}

/** The 快速开始 button of ``game``. */
export function quickStartButton(game, label = "快速开始") {
  return `<button class="quick primary" data-act="quickStart" data-game="${esc(game)}">${esc(label)}</button>`;
}
