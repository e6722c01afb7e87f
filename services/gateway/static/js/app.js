// The paiju web client: sign-in, coin servers, rooms, the room and the game.
// It speaks only docs/client-protocol.md; every rules decision (is this play
// legal? what may I bid or declare?) comes from the server (check, hints,
// your_turn), never from a copy of the rules here.

import { Conn } from "./conn.js";
import { displaySort, cardsText } from "./cards.js";
import { errorText, BIDS, REASONS, GAME_NAMES } from "./text.js";
import {
  newGame, gameFromView, seatOf, keepSelection, indicesOf, newCardOf, trickEntries,
} from "./state.js";
import * as R from "./render.js";

const PRIVATE = new Set(["hand", "your_turn", "kitty", "view"]);
const DECLARING_GAMES = new Set(["hunzhan", "shengji", "daa"]);

export const S = {
  conn: null,
  connected: false,
  me: null,                 // {player, name, coins}
  token: sessionStorage.getItem("paiju.token") || "",
  screen: "login",
  servers: [],
  server: null,             // the server whose rooms are listed / watched
  rooms: new Map(),         // room id -> room (room_changed shape)
  room: null,               // my room
  game: null,
  result: null,             // the last game_finished (settlement table)
  oldGames: new Set(),
  log: [],
  modal: null,              // {title, html}
  viewPending: false,
};

// -- helpers -----------------------------------------------------------------------

export function toast(text, bad = true) { R.toast(text, bad); }

function say(text) {
  S.log.push(text);
  if (S.log.length > 300) S.log.shift();
}

export function nameOf(seat) {
  const g = S.game;
  const s = g && g.seats.find((x) => x.seat === seat);
  if (s && s.name) return s.name;
  const r = S.room && S.room.seats.find((x) => x.seat === seat);
  return r ? r.name : `座位${seat + 1}`;
}

function saveRoom() {
  if (S.room) sessionStorage.setItem("paiju.room", JSON.stringify({ server: S.room.server, room: S.room.room }));
  else sessionStorage.removeItem("paiju.room");
}

function render() { R.render(S); }

async function call(cmd, args) {
  const r = await S.conn.call(cmd, args);
  return r;
}

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

/** Ask for my whole ``view`` and redraw from it (after a reconnect or a gap in
 * an event ``seq``). Events can overtake the reply: where the page had already
 * seen later events than the view holds, the view is applied and asked again. */
async function requestView() {
  if (S.viewPending) return;
  S.viewPending = true;
  const r = await call("view");
  S.viewPending = false;
  if (r.ok) {
    const old = S.game;
    const stale = old && r.view && old.id === r.view.game_id &&
      (old.pub > (r.view.seq || 0) || old.priv > (r.view.player_seq || 0));
    applyView(r.view);
    if (stale && S.game && S.game.phase !== "finished") { requestView(); return; }
  } else if (r.error === "no_game" && S.game && S.game.phase !== "finished") S.game = null;
  render();
}

function applyView(v) {
  if (!v || !v.game_id) return;
  if (S.oldGames.has(v.game_id)) return;
  const g = gameFromView(v);
  if (S.game && S.game.id === g.id) g.sel = keepSelection(S.game.hand, S.game.sel, g.hand);
  S.game = g;
  if (S.result && S.result.game_id !== g.id) S.result = null;
  S.screen = "table";
  if (g.my) fetchHints();
  render();
}

/** The ``view`` event a reconnect brings: the view's fields at the top level,
 * but its ``seq`` is my private sequence number (the view's public ``seq`` is
 * overwritten by it). It is drawn at once; the ``view`` command, asked next,
 * brings the public ``seq`` too. An older one than what the page has is dropped. */
function applyViewEvent(ev) {
  const v = ev.view || ev;
  if (!v.game_id || S.oldGames.has(v.game_id)) return;
  const g = S.game;
  const same = g && g.id === v.game_id;
  if (same && typeof ev.seq === "number" && ev.seq <= g.priv) return;
  applyView({ ...v, seq: same ? g.pub : 0, player_seq: typeof ev.seq === "number" ? ev.seq : 0 });
  requestView();
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

function roomChanged(ev) {
  const key = ev.room;
  const old = S.rooms.get(key);
  if (old && ev.version !== undefined && old.version !== undefined && ev.version < old.version) return;
  if (ev.server === S.server) S.rooms.set(key, ev);
  if (S.room && S.room.room === key) {
    if (ev.version !== undefined && S.room.version !== undefined && ev.version < S.room.version) return;
    const mine = ev.seats.some((s) => s.player === S.me.player);
    if (!mine) {
      toast(S.game && S.game.phase !== "finished" ? "你已离开牌局" : "你已被请出房间（未在规定时间内开始，或金币不足）");
      S.room = null;
      S.game = null;
      S.result = null;
      saveRoom();
      S.screen = "rooms";
    } else {
      S.room = ev;
      const me = ev.seats.find((s) => s.player === S.me.player);
      if (me && typeof me.coins === "number" && me.coins > 0) S.me.coins = me.coins;
    }
  }
}

// -- events --------------------------------------------------------------------------

function onEvent(ev) {
  const t = ev.type;
  if (window.paijuDebug) console.log("event", JSON.stringify(ev));
  if (t === "room_changed") { roomChanged(ev); render(); return; }
  if (t === "balance_changed") {
    if (S.me && typeof ev.coins === "number") S.me.coins = ev.coins;
    render();
    return;
  }
  if (t === "view") { applyViewEvent(ev); return; }
  if (!ev.game_id) return;
  if (S.oldGames.has(ev.game_id) && t !== "game_finished") return;
  if (t === "game_started") {
    const mySeat = seatOf(ev.seats, S.me.player);
    if (mySeat === null) return;
    S.game = newGame(ev, mySeat);
    S.result = null;
    S.screen = "table";
    if (S.room) S.room = { ...S.room, state: "started" };
    say(`新的一局${GAME_NAMES[ev.game] || ev.game}开始`);
    render();
    return;
  }
  const g = S.game;
  if (!g || g.id !== ev.game_id) {
    if (!S.oldGames.has(ev.game_id)) requestView();
    return;
  }
  // seq: public events carry the game's public seq, private ones my own.
  if (typeof ev.seq === "number") {
    const key = PRIVATE.has(t) ? "priv" : "pub";
    if (ev.seq <= g[key]) return;
    if (ev.seq > g[key] + 1) requestView();
    g[key] = ev.seq;
  }
  const handler = HANDLERS[t];
  if (handler) handler(g, ev);
  render();
}

function clearTrickIfOver(g) {
  if (g.trickOver) { g.plays = {}; g.trickOver = false; }
}

const HANDLERS = {
  dealing(g, ev) {
    const before = g.handCounts;
    g.handCounts = [...ev.cards_dealt_per_seat];
    g.dealing = { dealt: ev.dealt ?? 0, total: ev.total ?? 0, done: !!ev.done };
    if (ev.dealt === undefined && ev.done) {
      g.dealAnim = true; // dealt at once: animate it here
      R.dealBurst(g, g.handCounts);
    } else {
      R.flyCards(g, before, g.handCounts);
    }
    if (ev.done && g.phase === "dealing") g.phase = DECLARING_GAMES.has(g.game) ? "declaring" : "bidding";
  },
  declared(g, ev) {
    g.declared = { seat: ev.seat, cards: ev.cards };
    if (g.game === "daa") g.bigA = ev.big_a ?? g.bigA;
    else { g.trump = ev.trump ?? null; g.noTrump = !!ev.no_trump; }
    g.plays = { [ev.seat]: { cards: ev.cards, note: g.game === "daa" ? "亮大A" : "叫主" } };
    say(`${nameOf(ev.seat)} ${g.game === "daa" ? "亮大A" : "叫主"} ${cardsText(ev.cards)}`);
  },
  declaring_closed(g, ev) {
    if (g.game === "daa") g.bigA = ev.big_a ?? g.bigA;
    else { g.trump = ev.trump ?? null; g.noTrump = ev.no_trump ?? ev.trump === null; }
    if (ev.dealer !== undefined) g.dealer = ev.dealer;
    g.plays = {};
    if (g.my && g.my.phase === "declaring") g.my = null;
    if (ev.redeal) { say("无人叫主，重新发牌"); return; }
    g.phase = g.game === "shengji" ? "burying" : "play";
    // The hand's order now follows the trump: the server's view has it.
    requestView();
  },
  bid(g, ev) {
    g.plays[ev.seat] = { bid: ev.kind };
    g.multiplier = ev.multiplier ?? g.multiplier;
    say(`${nameOf(ev.seat)} ${BIDS[ev.kind] || ev.kind}`);
  },
  kitty_shown(g, ev) {
    g.kitty = ev.cards || [];
    if (ev.landlord !== undefined) {
      g.landlord = ev.landlord;
      g.plays = {};
      say(`${nameOf(ev.landlord)} 当地主`);
    }
  },
  kitty(g, ev) { g.myKitty = ev.cards || []; },
  turn(g, ev) {
    g.turn = { seat: ev.seat, deadline: ev.deadline, phase: ev.phase };
    if (ev.phase) g.phase = ev.phase;
    if (ev.seat !== g.mySeat && g.my && g.my.phase !== "declaring") g.my = null;
  },
  your_turn(g, ev) {
    g.my = { phase: ev.phase, deadline: ev.deadline, can_pass: !!ev.can_pass,
      declare_options: ev.declare_options || [] };
    g.hints = [];
    g.hintsReady = false;
    g.hintIdx = 0;
    if (ev.phase !== "declaring") {
      g.phase = ev.phase;
      g.check = { state: "none", error: "" };
      fetchHints();
      if (g.sel.size) scheduleCheck();
    }
  },
  played(g, ev) {
    clearTrickIfOver(g);
    g.plays[ev.seat] = { cards: ev.cards, combination: ev.combination };
    if (ev.seat !== g.mySeat) g.handCounts[ev.seat] = Math.max(0, g.handCounts[ev.seat] - ev.cards.length);
  },
  passed(g, ev) {
    clearTrickIfOver(g);
    g.plays[ev.seat] = { pass: true };
  },
  taken_back(g, ev) {
    const p = g.plays[ev.seat] || {};
    g.plays[ev.seat] = { ...p, taken: ev.cards };
    if (ev.seat !== g.mySeat) g.handCounts[ev.seat] += ev.cards.length;
    say(`${nameOf(ev.seat)} 收回 ${ev.cards.length} 张牌`);
  },
  trick_won(g, ev) {
    g.trickOver = true;
    // A trick's points go to its winner (a later ``scores`` event, where the
    // game sends one, says the same).
    if (ev.points && ["hunzhan", "shengji"].includes(g.game)) {
      if (!g.captured) g.captured = new Array(g.n).fill(0);
      g.captured[ev.seat] += ev.points;
    }
    g.lastWinner = ev.seat;
    if (ev.points) say(`${nameOf(ev.seat)} 赢得本轮 ${ev.points} 分`);
    const id = g.id;
    setTimeout(() => {
      if (S.game && S.game.id === id && S.game.trickOver) { clearTrickIfOver(S.game); render(); }
    }, 2500);
  },
  revealed(g, ev) { g.revealed = ev.seat; say(`${nameOf(ev.seat)} 亮明`); },
  player_out(g, ev) { g.places[ev.seat] = ev.place; say(`${nameOf(ev.seat)} 第 ${ev.place} 个出完`); },
  timed_out(g, ev) { say(`${nameOf(ev.seat)} 超时（连续 ${ev.count} 次）`); },
  escaped(g, ev) { say(`${nameOf(ev.seat)} 逃跑`); },
  seat_disconnected(g, ev) {
    const s = g.seats.find((x) => x.seat === ev.seat);
    if (s) { s.disconnected = true; s.hold_until = ev.hold_until; }
    say(`${nameOf(ev.seat)} 断线，等待重连`);
  },
  seat_reconnected(g, ev) {
    const s = g.seats.find((x) => x.seat === ev.seat);
    if (s) { s.disconnected = false; s.hold_until = null; }
    say(`${nameOf(ev.seat)} 已重连`);
  },
  scores(g, ev) {
    if (ev.captured) g.captured = ev.captured;
    if (ev.defender_points !== undefined) g.defenderPoints = ev.defender_points;
  },
  hand(g, ev) {
    const cards = g.phase === "dealing" ? displaySort(ev.cards) : [...ev.cards];
    g.newCard = g.phase === "dealing" ? newCardOf(g.hand, cards) : null;
    g.sel = keepSelection(g.hand, g.sel, cards);
    g.hand = cards;
    g.handCounts[g.mySeat] = cards.length;
    if (g.sel.size) scheduleCheck();
  },
  game_finished(g, ev) {
    g.turn = null;
    g.my = null;
    S.oldGames.add(g.id);
    if (ev.reason === "redeal") { say(REASONS.redeal); return; }
    g.phase = "finished";
    g.trickOver = true;
    S.result = { ...ev, seats: g.seats, mySeat: g.mySeat, game: g.game };
    if (ev.reason === "escape") say(REASONS.escape);
    say("本局结束");
  },
};

// -- play ------------------------------------------------------------------------------

async function fetchHints() {
  const g = S.game;
  if (!g) return;
  const r = await call("hints");
  if (S.game !== g) return;
  g.hints = r.ok ? r.actions : [];
  g.hintsReady = true;
  if (g.my && g.my.phase === "declaring") {
    g.my.declare_options = g.hints.filter((a) => a.type === "declare").map((a) => a.cards);
  } else if (g.my && r.ok) {
    g.my.can_pass = g.hints.some((a) => a.type === "pass");
  }
  render();
}

function selectionAction(g) {
  const cards = [...g.sel].sort((a, b) => a - b).map((i) => g.hand[i]);
  return { type: g.my && g.my.phase === "burying" ? "bury" : "play", cards };
}

/** Ask the server whether the selection may be played (the play button's state). */
async function scheduleCheck() {
  const g = S.game;
  if (!g) return;
  const n = ++g.checkN;
  if (!g.sel.size || !g.my || !["play", "burying"].includes(g.my.phase)) {
    g.check = { state: "none", error: "" };
    R.renderActions(S);
    return;
  }
  g.check = { state: "pending", error: "" };
  R.renderActions(S);
  const r = await call("check", { action: selectionAction(g) });
  if (S.game !== g || g.checkN !== n) return;
  g.check = r.ok && r.legal ? { state: "legal", error: "" }
    : { state: "illegal", error: r.ok ? errorText({ error: r.error, message: r.message }) : errorText(r) };
  R.renderActions(S);
}

async function act(action) {
  const g = S.game;
  const my = g && g.my;
  const r = await call("act", { action });
  if (!r.ok) { toast(errorText(r)); return false; }
  // The events the action caused (maybe my next turn already) can come
  // before its reply: only a turn that is still the one acted on ends here.
  // 亮明 (reveal) does not end the turn; a declare is no turn of play.
  if (S.game === g && action.type === "bury") g.myKitty = [...action.cards];
  if (S.game === g && !["declare", "reveal"].includes(action.type) && g.my === my) {
    g.my = null;
    g.sel = new Set();
    g.check = { state: "none", error: "" };
  }
  if (S.game === g && action.type === "reveal") fetchHints();
  render();
  return true;
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
