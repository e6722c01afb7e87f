// Private rooms (好友房), docs/client-protocol.md "Private rooms": the 好友房
// button of each server (open_room), the 输入房间号 box and the #join=<code>
// link (join_code), the invite code and its link at the table, and the
// owner's 踢出 (kick) of a seat that is not playing.

import { S, toast, render, call } from "./store.js";
import { $, esc } from "./dom.js";
import { errorText } from "./text.js";
import { serverTerms } from "./lobby_view.js";

/** The 好友房 button of ``server``. */
export function privateButton(server) {
  return `<button class="private-btn" data-act="openPrivate" data-server="${esc(server)}">好友房</button>`;
}

/** The invite code of a ``#join=<code>`` link, or null. */
export function codeFromHash() {
  const code = new URLSearchParams(location.hash.slice(1)).get("join");
  return code || null;
}

/** The invite link of ``code`` (this page with ``#join=<code>``). */
export function inviteLink(code) {
  return `${location.origin}${location.pathname}${location.search}#join=${code}`;
}

/** The code of the private room I sit in, where this page knows it. */
export function inviteOf(room) {
  if (!room || !room.private) return null;
  if (!S.invite) {
    try { S.invite = JSON.parse(sessionStorage.getItem("paiju.invite") || "null"); } catch { S.invite = null; }
  }
  return S.invite && S.invite.room === room.room ? S.invite.code : null;
}

function remember(room, code) {
  S.invite = { room: room.room, code: code.replace(/[\s-]/g, "").toUpperCase() };
  sessionStorage.setItem("paiju.invite", JSON.stringify(S.invite));
}

/** The side panel's rows of a private room: its code and the copy button. */
export function inviteHtml(room) {
  if (!room || !room.private) return "";
  const code = inviteOf(room);
  return `<div class="row private-row"><span>好友房</span><b id="invite-code">${esc(code || "")}</b></div>` +
    (code ? `<div class="row"><button id="btn-copy-invite" data-act="copyInvite">复制邀请链接</button></div>` : "");
}

/** The owner's 踢出 of ``seat`` (a private room outside a game). */
export function kickButton(room, p, inGame) {
  if (!room || !room.private || inGame || !S.me || room.owner !== S.me.player || p.player === S.me.player) return "";
  return `<button class="kick-btn" data-act="kick" data-seat="${p.seat}" aria-label="踢出 ${esc(p.name)}">踢出</button>`;
}

/** How a rule option a private room may choose is offered: its label and each value's words. */
const CHOICE_WORDS = { decks: ["牌数", (n) => `${n} 副`] };

/** The selects of ``srv``'s choices (docs/client-protocol.md ``servers``), the server's value chosen. */
function choiceSelects(srv) {
  return Object.entries(srv.choices || {}).map(([key, values]) => {
    const [label, word] = CHOICE_WORDS[key] || [key, (v) => String(v)];
    const current = (srv.options || {})[key];
    const opts = values.map((v, i) => `<option value="${i}"${v === current ? " selected" : ""}>${esc(word(v))}</option>`).join("");
    return `<p><label>${esc(label)} <select class="private-choice" data-choice="${esc(key)}">${opts}</select></label></p>`;
  }).join("");
}

/** The options chosen in the dialog's selects of ``srv``. */
function chosen(srv) {
  const options = {};
  document.querySelectorAll(".private-choice").forEach((sel) => {
    const values = (srv.choices || {})[sel.dataset.choice];
    if (values) options[sel.dataset.choice] = values[Number(sel.value)];
  });
  return options;
}

function inviteDialog(code) {
  const link = inviteLink(code);
  return `<div class="invite"><p>把房间号或链接发给朋友：</p>` +
    `<div class="invite-code" id="invite-dialog-code">${esc(code)}</div>` +
    `<input id="invite-link" readonly value="${esc(link)}" aria-label="邀请链接">` +
    `<div class="modal-btns"><button id="btn-copy-link" class="primary" data-act="copyInvite">复制链接</button>` +
    `<button data-act="closeModal">好的</button></div></div>`;
}

/** The actions app.js adds; ``seatedIn(room)`` shows the table of the room I now sit in. */
export function privateActions(seatedIn) {
  return {
    /** 好友房 of ``server``: what the room will be (the server's game, options, stake and fee). */
    openPrivate(server) {
      const srv = S.servers.find((x) => x.server === server);
      if (!srv) return;
      const opts = Object.entries(srv.options || {})
        .filter(([k]) => k !== "turn_seconds" && !(k in (srv.choices || {})))
        .map(([k, v]) => `${esc(k)}: ${esc(v)}`).join(" · ");
      S.modal = { title: "开好友房", html: `<div class="private-new"><p><b>${esc(srv.name)}</b></p>` +
        `<p>${esc(serverTerms(srv))}</p>${opts ? `<p>规则：${opts}</p>` : ""}${choiceSelects(srv)}` +
        `<p>好友房不在房间列表中，朋友凭房间号或链接加入；输赢与手续费同本服务器。</p>` +
        `<div class="modal-btns"><button id="btn-create-private" class="primary" data-act="createPrivate" data-server="${esc(server)}">创建</button>` +
        `<button data-act="closeModal">取消</button></div></div>` };
      render();
    },
    async createPrivate(server) {
      const srv = S.servers.find((x) => x.server === server);
      const options = srv ? chosen(srv) : {};
      const r = await call("open_room", Object.keys(options).length ? { server, options } : { server });
      if (!r.ok) { S.modal = null; toast(errorText(r)); render(); return; }
      remember(r.room, r.code);
      await seatedIn(r.room);
      S.modal = { title: "好友房已开好", html: inviteDialog(r.code) };
      render();
    },
    /** Join by ``code`` (the 输入房间号 box, or a #join link). */
    async joinCode(code) {
      code = (code || "").trim();
      if (!code) { toast("请输入房间号"); return; }
      const r = await call("join_code", { code });
      if (!r.ok) { toast(errorText(r)); return; }
      remember(r.room, code);
      const box = $("#join-code");
      if (box) box.value = "";
      await seatedIn(r.room);
    },
    async kick(seat) {
      const r = await call("kick", { seat });
      if (!r.ok) { toast(errorText(r)); return; }
      if (S.room && r.room.room === S.room.room && r.room.version >= S.room.version) S.room = r.room;
      render();
    },
    async copyInvite() {
      const code = S.invite && S.invite.code;
      if (!code) return;
      try {
        await navigator.clipboard.writeText(inviteLink(code));
        toast("邀请链接已复制", false);
      } catch {
        toast(inviteLink(code), false);
      }
    },
  };
}

/** After signing in: join the room of a ``#join=<code>`` link (once: the link leaves the address). */
export async function joinFromHash(actions) {
  const code = codeFromHash();
  if (!code) return;
  history.replaceState(null, "", `${location.pathname}${location.search}`);
  if (S.room) { toast("你已经坐在一个房间里了"); return; }
  await actions.joinCode(code);
}

/** Bind the 输入房间号 form. */
export function bindJoinForm(actions) {
  $("#join-form").addEventListener("submit", (e) => { e.preventDefault(); actions.joinCode($("#join-code").value); });
}
