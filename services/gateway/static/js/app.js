// The paiju web client: sign-in, coin servers, rooms, the room and the game.
// It speaks only docs/client-protocol.md; every rules decision (is this play
// legal? what may I bid or declare?) comes from the server (check, hints,
// your_turn), never from a copy of the rules here.
//
// This module: the connection, sign-in, the lobby and what the page's
// controls do; it starts the page. The controller is split by purpose: store.js (the state), events.js (what
// the server sends), view.js (redrawing from the server's view), play.js
// (hints, check, act); render.js and the views draw.

import { Conn } from "./conn.js";
import { errorText } from "./text.js";
import { indicesOf, trickEntries } from "./state.js";
import { S, toast, saveRoom, render, call } from "./store.js";
import { onEvent } from "./events.js";
import { requestView } from "./view.js";
import { selectionAction, scheduleCheck, act } from "./play.js";
import * as R from "./render.js";

export { S };

// -- connection and sign-in ------------------------------------------------------------

function wsUrl() {
  const q = new URLSearchParams(location.search);
  if (q.get("ws")) return q.get("ws");
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
}

export function start() {
  S.conn = new Conn(wsUrl(), { onEvent, onOpen, onClose });
  R.bind(actions);
  S.conn.connect();
  render();
  setInterval(() => R.tick(S), 250);
}

async function onOpen() {
  S.connected = true;
  render();
  if (S.token) {
    const r = await call("auth", { token: S.token });
    if (r.ok) { await signedIn(r); return; }
    if (r.error === "bad_token") {
      S.token = "";
      sessionStorage.removeItem("paiju.token");
      S.screen = "login";
      toast(errorText(r));
      render();
    }
  }
}

function onClose(code, again) {
  S.connected = false;
  if (code === 4001) {
    toast("你的账号在别处登录，本页面已断开");
    S.screen = "login";
  } else if (again && S.me) {
    toast(errorText({ error: "disconnected" }), false);
  }
  render();
}

async function signedIn(r) {
  if (S.me) toast("已重新连接", false);
  S.me = { player: r.player, name: r.name, coins: r.coins };
  await S.conn.sync();
  const servers = await call("servers");
  if (servers.ok) S.servers = servers.servers;
  const saved = JSON.parse(sessionStorage.getItem("paiju.room") || "null");
  if (saved) {
    await restoreRoom(saved.server, saved.room);
  } else if (S.server) {
    await openServer(S.server);
  } else {
    S.screen = "servers";
  }
  render();
}

/** After a reconnect: find my seat in the room I sat in, and my game. */
async function restoreRoom(server, roomId) {
  const r = await call("rooms", { server });
  const room = r.ok ? r.rooms.find((x) => x.room === roomId) : null;
  const mine = room && room.seats.some((s) => s.player === S.me.player);
  if (!mine) {
    S.room = null;
    S.game = null;
    saveRoom();
    await openServer(server);
    return;
  }
  S.server = server;
  S.rooms = new Map(r.rooms.map((x) => [x.room, x]));
  await call("watch_server", { server });
  S.room = room;
  S.screen = "table";
  if (room.state === "started") await requestView();
  render();
}

// -- lobby -------------------------------------------------------------------------

async function openServer(server) {
  const r = await call("rooms", { server });
  if (!r.ok) { toast(errorText(r)); return; }
  S.server = server;
  S.rooms = new Map(r.rooms.map((x) => [x.room, x]));
  await call("watch_server", { server });
  S.screen = "rooms";
  render();
}

// -- what the page's controls do (render.js binds them) ----------------------------------

export const actions = {
  async login(name) {
    name = (name || "").trim();
    if (!name) { toast("请输入名字"); return; }
    const r = await call("login", { name });
    if (!r.ok) { toast(errorText(r)); return; }
    S.token = r.token;
    sessionStorage.setItem("paiju.token", r.token);
    await signedIn(r);
  },
  async logout() {
    sessionStorage.clear();
    location.reload();
  },
  openServer,
  async backToServers() {
    S.screen = "servers";
    const r = await call("servers");
    if (r.ok) S.servers = r.servers;
    render();
  },
  async sit(roomId, seat) {
    const r = await call("sit", { room: roomId, seat });
    if (!r.ok) { toast(errorText(r)); return; }
    S.room = r.room;
    S.game = null;
    S.result = null;
    saveRoom();
    S.screen = "table";
    render();
  },
  async stand() {
    const r = await call("stand");
    if (!r.ok) { toast(errorText(r)); return; }
    const server = S.room ? S.room.server : S.server;
    S.room = null;
    S.game = null;
    S.result = null;
    saveRoom();
    await openServer(server);
  },
  async ready() {
    const r = await call("ready");
    if (!r.ok) { toast(errorText(r)); return; }
    if (r.room && (!S.room || r.room.version === undefined || S.room.version === undefined ||
        r.room.version >= S.room.version)) S.room = r.room;
    S.result = null;
    if (S.game && S.game.phase === "finished") S.game = null;
    render();
  },
  toggle(i) {
    const g = S.game;
    if (!g) return;
    if (g.sel.has(i)) g.sel.delete(i); else g.sel.add(i);
    R.renderHand(S);
    scheduleCheck();
  },
  async play() {
    const g = S.game;
    if (!g || g.check.state !== "legal") return;
    await act(selectionAction(g));
  },
  async pass() { await act({ type: "pass" }); },
  async bid(kind) { await act({ type: kind }); },
  async reveal() { await act({ type: "reveal" }); },
  async declare(cards) { await act({ type: "declare", cards }); },
  hint() {
    const g = S.game;
    if (!g || !g.my) return;
    const want = g.my.phase === "burying" ? "bury" : "play";
    const plays = g.hints.filter((a) => a.type === want && a.cards);
    if (!plays.length) { toast(g.my.can_pass ? "没有能管上的牌，请点不出" : "没有可出的牌", false); return; }
    const a = plays[g.hintIdx++ % plays.length];
    const sel = indicesOf(g.hand, a.cards);
    if (!sel) return;
    g.sel = sel;
    R.renderHand(S);
    scheduleCheck();
  },
  async scores() {
    const r = await call("scores");
    if (!r.ok) { toast(errorText(r)); return; }
    S.modal = { title: "看分", html: R.scoresHtml(S, r.scores) };
    render();
  },
  async lastTrick() {
    const r = await call("last_trick");
    if (!r.ok) { toast(errorText(r)); return; }
    S.modal = { title: "上一轮", html: R.lastTrickHtml(S, r.trick) };
    render();
  },
  closeModal() { S.modal = null; render(); },
  drop() { S.conn.drop(); },
};

// For the browser tests and for debugging in the console.
window.paiju = { S, actions, trickEntries };

start();
