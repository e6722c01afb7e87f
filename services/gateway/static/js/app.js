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
import { S, toast, saveRoom, render, call, resultSeen, markResultSeen, afterRender } from "./store.js";
import { onEvent } from "./events.js";
import { requestView, applyFreshView } from "./view.js";
import { selectionAction, scheduleCheck, act } from "./play.js";
import { bindKeys } from "./keys.js";
import * as R from "./render.js";
import { bindRecords, linkFromHash, replayStep } from "./records.js";
import { socialActions } from "./watch.js";
import { reliefActions } from "./relief.js";
import { privateActions, joinFromHash, bindJoinForm } from "./private.js";
import { rulesActions } from "./rules.js";
import { autoReadyOn, setAutoReady, autoReadyCheck } from "./autoready.js";
import { sound, play, bindSound, clockTick, soundDialogHtml } from "./sound.js";

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
  bindJoinForm(actions);
  window.addEventListener("hashchange", () => { if (S.me) joinFromHash(actions); });
  afterRender.push((s) => autoReadyCheck(s, actions.ready));
  bindSound();
  setInterval(() => clockTick(S, S.conn ? S.conn.now() : Date.now()), 250);
  bindRecords();
  S.replayLink = linkFromHash();
  bindKeys(actions, S);
  S.conn.connect();
  render();
  setInterval(() => R.tick(S), 250);
}

async function onOpen() {
  S.connected = true;
  render();
  if (S.replayLink && !S.me) {
    // An operator's replay link: the viewer, no sign-in.
    await replayStep(S.replayLink.game_id, S.replay ? S.replay.step : 0, S.replayLink.link);
    return;
  }
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
    // Signed in elsewhere: this page says so and offers the seat back (在此登录).
    S.replaced = true;
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
  if (servers.ok) { S.servers = servers.servers; S.relief = servers.relief; }
  if (S.watch && !r.room) {
    // Watching before the socket dropped: watch again (a new connection).
    const watching = S.watch.room.room;
    S.watch = null;
    await openServer(S.server || watching.slice(0, watching.lastIndexOf("-")));
    await actions.watch(watching);
    return;
  }
  if (r.room) {
    S.watch = null;
    // Seated (from this tab, another tab, browser or device): straight back to the table.
    await enterRoom(r.room, r.view, r.last_result);
  } else {
    if (S.room) { S.room = null; saveRoom(); }
    if (S.game && S.game.phase !== "finished") S.game = null;
    if (S.server) await openServer(S.server);
    else S.screen = "servers";
    showMissedResult(r.last_result, null);
  }
  render();
  await joinFromHash(actions);
}

/** Back at my seat after signing in: the room, its server's rooms, and the
 * game from the reply's ``view`` (public ``seq``); a game that ended while I
 * was away shows its settlement table. */
async function enterRoom(room, view, last) {
  const r = await call("rooms", { server: room.server });
  S.server = room.server;
  S.rooms = r.ok ? new Map(r.rooms.map((x) => [x.room, x])) : new Map([[room.room, room]]);
  await call("watch_server", { server: room.server });
  const fresh = S.rooms.get(room.room);
  S.room = fresh && fresh.version !== undefined && room.version !== undefined && fresh.version > room.version ? fresh : room;
  saveRoom();
  S.screen = "table";
  if (view && view.game_id) {
    const had = S.game && S.game.id === view.game_id && S.game.phase !== "finished";
    applyFreshView(view);
    // This page showed the game before its socket dropped: check once more
    // with the `view` command that nothing went by meanwhile.
    if (had) await requestView();
  } else if (S.room.state === "started") {
    await requestView();
  } else {
    if (S.game && S.game.phase !== "finished") S.game = null;
    showMissedResult(last || S.room.last_result, S.room);
  }
  render();
}

/** A game of mine that ended while I was away (``last_result`` of the
 * sign-in reply): its settlement table, once per browser, where it ended in
 * the last 15 minutes. In my room it stands in the middle as after any game
 * (with the start button); elsewhere it opens as a dialog. */
function showMissedResult(last, room) {
  if (!last || !last.game_id || !(last.settlement || []).length) return;
  if (S.result && S.result.game_id === last.game_id) return;
  if (resultSeen(last) || S.conn.now() - (last.ended_ms || 0) > 15 * 60 * 1000) return;
  markResultSeen(last.game_id);
  S.oldGames.add(last.game_id);
  const mine = last.settlement.find((x) => x.player === S.me.player);
  const seats = last.settlement.map((x) => ({ seat: x.seat, player: x.player, name: resultName(x, room) }));
  const res = { ...last, reason: last.reason || "", seats, mySeat: mine ? mine.seat : null, missed: true };
  if (room && room.room === last.room) {
    S.result = res;
    S.game = null;
  } else {
    S.modal = { title: "你离开期间牌局已结束", html: R.settlementTable(S, res) };
  }
}

function resultName(row, room) {
  if (row.player === S.me.player) return S.me.name;
  const s = room && room.seats.find((x) => x.player === row.player);
  return s ? s.name : row.name || `座位${row.seat + 1}`;
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

/** The game just played, where none runs now (for 看分 and 上一轮). */
function finishedGame() {
  if (S.game && S.game.phase !== "finished") return null;
  return S.lastGame && (!S.room || S.lastGame.room === S.room.room) ? S.lastGame : null;
}

/** Send ``leave`` (or ``cmd`` ``stand``): an escape during a game (its result
 * follows as events), else a stand (back to the room list). */
async function leaveNow(cmd = "leave") {
  // The lobby's room_changed without me may come before the reply: it is my
  // own leave then, not a kick (events.js roomChanged).
  const server = S.room ? S.room.server : S.server;
  S.leaving = S.room ? S.room.room : null;
  let r;
  try {
    r = await call(cmd);
  } finally {
    S.leaving = null;
  }
  if (!r.ok) { toast(errorText(r)); return; }
  if (r.escaped) { toast("你已退出，本局按逃跑结算", false); return; }
  S.room = null;
  S.game = null;
  S.result = null;
  saveRoom();
  await openServer(server);
}

/** The table of ``room``, where I now sit (a private room opened or joined). */
async function seatedIn(room) {
  S.watch = null;
  S.spectators = 0;
  if (!S.room || S.room.room !== room.room) S.log = [];
  S.room = room;
  S.server = room.server;
  S.game = null;
  S.result = null;
  S.bubbles = {};
  saveRoom();
  await call("watch_server", { server: room.server });
  S.screen = "table";
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
  /** 在此登录: sign in here again (the other page is the one replaced now). */
  takeBack() {
    S.replaced = false;
    S.conn.connect();
    render();
  },
  async logout() {
    sessionStorage.clear();
    location.reload();
  },
  openServer,
  async backToServers() {
    S.screen = "servers";
    const r = await call("servers");
    if (r.ok) { S.servers = r.servers; S.relief = r.relief; }
    render();
  },
  async sit(roomId, seat) {
    const r = await call("sit", { room: roomId, seat });
    if (!r.ok) { toast(errorText(r)); return; }
    S.watch = null;
    S.spectators = 0;
    if (!S.room || S.room.room !== r.room.room) S.log = [];  // another room's lines go
    S.room = r.room;
    S.game = null;
    S.result = null;
    saveRoom();
    S.screen = "table";
    render();
  },
  async stand() { await leaveNow("stand"); },
  /** 退出: during a game a warning first (quitting is an escape, seed 000
   * 例外, with the points the server says it costs); outside one, stand up. */
  async leave() {
    const g = S.game;
    if (!g || g.phase === "finished") { await leaveNow(); return; }
    const v = await call("view");
    const pts = v.ok && v.view && typeof v.view.escape_points === "number" ? v.view.escape_points : null;
    S.modal = { title: "退出牌局", html: R.leaveWarningHtml(S, pts) };
    render();
  },
  async confirmLeave() {
    S.modal = null;
    render();
    await leaveNow();
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
  /** 声音: the dialog of mute and volume (js/sound.js). */
  sound() {
    S.modal = { title: "声音", html: soundDialogHtml() };
    render();
  },
  soundTest() { play("turn"); },
  /** 自动开始 on or off (再来一局: js/autoready.js). */
  autoReady() {
    setAutoReady(!autoReadyOn());
    render();
  },
  toggle(i) {
    const g = S.game;
    if (!g) return;
    g.cursor = i;
    g.wantPlay = false;
    if (g.sel.has(i)) g.sel.delete(i); else g.sel.add(i);
    R.renderHand(S);
    scheduleCheck();
  },
  async play() {
    const g = S.game;
    if (!g || g.check.state !== "legal") return;
    await act(selectionAction(g));
  },
  /** Enter: play now where the server's check said legal; while it is
   * being asked, as soon as it answers legal. */
  async playWhenChecked() {
    const g = S.game;
    if (!g) return;
    if (g.check.state === "legal") await actions.play();
    else if (g.check.state === "pending") g.wantPlay = true;
  },
  redrawHand() { R.renderHand(S); },
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
  // 看分 and 上一轮: of the running game from the server; after the game, of
  // the game just played as the page kept it (the server has no game then).
  async scores() {
    const done = finishedGame();
    if (done) { S.modal = { title: "看分", passive: true, html: R.scoresHtml(S, done.lastScores || { captured: done.captured || [] }) }; render(); return; }
    const r = await call("scores");
    if (!r.ok) { toast(errorText(r)); return; }
    S.modal = { title: "看分", passive: true, html: R.scoresHtml(S, r.scores) };
    render();
  },
  async lastTrick() {
    const done = finishedGame();
    if (done) { S.modal = { title: "上一轮", passive: true, html: R.lastTrickHtml(S, { last_trick: done.lastTrick || null }) }; render(); return; }
    const r = await call("last_trick");
    if (!r.ok) { toast(errorText(r)); return; }
    S.modal = { title: "上一轮", passive: true, html: R.lastTrickHtml(S, r.trick) };
    render();
  },
  closeModal() { S.modal = null; render(); },
  ...socialActions(openServer),
  ...reliefActions(),
  ...privateActions(seatedIn),
  ...rulesActions(),
  drop() { S.conn.drop(); },
};

// For the browser tests and for debugging in the console.
window.paiju = { S, actions, trickEntries, sound };

start();
