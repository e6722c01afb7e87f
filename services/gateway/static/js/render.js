// Drawing the screens from the client's state (app.js owns the state): the
// page's event binding and the whole-page render; the views are in
// lobby_view.js, table_view.js, controls.js and modals.js.

import { $, esc, setHtml } from "./dom.js";
import { renderTop, renderServers, renderRooms } from "./lobby_view.js";
import { renderTable } from "./table_view.js";
import { renderHand, resetHand } from "./controls.js";
import { renderHistory, renderReplay, renderRankings } from "./records_view.js";

export { esc, avatar, toast, tick } from "./dom.js";
export { renderActions, renderHand } from "./controls.js";
export { scoresHtml, lastTrickHtml, leaveWarningHtml } from "./modals.js";
export { settlementTable } from "./table_view.js";
export { flyCards, dealBurst } from "./anim.js";

let ACT = null;
let lastScreen = "";

// -- events of the page ------------------------------------------------------------------

export function bind(actions) {
  ACT = actions;
  document.addEventListener("click", (e) => {
    const el = e.target.closest("[data-act]");
    if (!el || el.disabled) return;
    const a = el.dataset.act;
    if (a === "sit") ACT.sit(el.dataset.room, Number(el.dataset.seat));
    else if (a === "watch") ACT.watch(el.dataset.room);
    else if (a === "quickStart") ACT.quickStart(el.dataset.game);
    else if (a === "claimRelief") ACT.claimRelief(el.dataset.game);
    else if (a === "openPrivate" || a === "createPrivate") ACT[a](el.dataset.server);
    else if (a === "kick") ACT.kick(Number(el.dataset.seat));
    else if (a === "openRules") ACT.openRules(el.dataset.game, el.dataset.label || "");
    else if (a === "chat") ACT.chat(el.dataset.say);
    else if (a === "openServer") ACT.openServer(el.dataset.server);
    else if (a === "toggle") ACT.toggle(Number(el.dataset.i));
    else if (a === "bid") ACT.bid(el.dataset.kind);
    else if (a === "declare") ACT.declare(JSON.parse(el.dataset.cards));
    else if (a === "login") ACT.login($("#login-name").value);
    else if (a === "modalBg") { if (e.target === el) ACT.closeModal(); }
    else if (ACT[a]) ACT[a]();
  });
  $("#login-form").addEventListener("submit", (e) => { e.preventDefault(); ACT.login($("#login-name").value); });
  // The seed: the right mouse button plays the selected cards.
  $("#screen-table").addEventListener("contextmenu", (e) => {
    if (e.target.closest(".side")) return;
    e.preventDefault();
    ACT.play();
  });
  window.addEventListener("resize", () => { resetHand(); if (window.paiju) renderHand(window.paiju.S); });
}

// -- the whole page ------------------------------------------------------------------------

export function render(S) {
  // An operator's replay link shows the replay viewer without a sign-in.
  // Replaced by a sign-in elsewhere: only that, and the way back (在此登录).
  const screen = S.replaced ? "replaced" : S.me ? S.screen
    : S.replay && S.replay.link ? "replay" : "login";
  for (const el of document.querySelectorAll(".screen")) el.hidden = el.id !== `screen-${screen}`;
  document.body.dataset.screen = screen;
  if (screen !== lastScreen) { resetHand(); lastScreen = screen; }
  renderTop(S);
  if (screen === "login") $("#login-status").textContent = S.connected ? S.linkRefused || "" : "正在连接服务器…";
  else if (screen === "servers") renderServers(S);
  else if (screen === "rooms") renderRooms(S);
  else if (screen === "table") renderTable(S);
  else if (screen === "history") renderHistory(S);
  else if (screen === "replay") renderReplay(S);
  else if (screen === "rankings") renderRankings(S);
  const modal = $("#modal");
  modal.hidden = !S.modal;
  // Change-only: a dialog's buttons are not replaced while the game redraws.
  // 看分 and 上一轮 are passive: they leave the hand and the buttons usable.
  setHtml(modal, !S.modal ? "" : `<div class="modal-bg ${S.modal.passive ? "passive" : ""}" data-act="modalBg"><div class="modal-box" role="dialog" aria-label="${esc(S.modal.title)}">` +
    `<div class="modal-head"><b>${esc(S.modal.title)}</b><button class="x" data-act="closeModal" aria-label="关闭">×</button></div>` +
    `<div class="modal-body">${S.modal.html}</div></div></div>`);
}
