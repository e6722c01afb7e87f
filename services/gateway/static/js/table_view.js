// The room and the game around the felt: the seats, the middle (deal, kitty,
// settlement, start button) and the right panel. The player's own controls
// and hand are in controls.js.

import { $, setHtml, esc, avatar, aiMark } from "./dom.js";
import { backHtml, rowHtml, suitIcon } from "./cards.js";
import { icon, withSuitIcons } from "./icons.js";
import { REASONS, actionText, phaseText } from "./text.js";
import { nameFromGame } from "./state.js";
import { autoReadyHtml } from "./autoready.js";
import { roomSize } from "./lobby_view.js";
import { renderActions, renderHand } from "./controls.js";
import { renderBubbles, renderChat } from "./social.js";
import { rateText } from "./modals.js";
import { nameButton } from "./records_view.js";
import { inviteHtml, kickButton } from "./private.js";
import { rulesButton, ruleLink } from "./rules.js";

const POS = {
  2: ["bottom", "top"],
  3: ["bottom", "right", "left"],
  4: ["bottom", "right", "top", "left"],
  5: ["bottom", "right", "topright", "topleft", "left"],
};

/** The room at the table: mine, or the one I watch (旁观). */
function tableRoom(S) {
  return S.room || (S.watch && S.watch.room) || null;
}

function mySeatOf(S) {
  if (S.watch && !S.room) return 0; // a spectator sees seat 0 at the bottom
  if (S.game) return S.game.mySeat;
  const me = S.room && S.room.seats.find((s) => s.player === S.me.player);
  return me ? me.seat : 0;
}

function seatCount(S) {
  if (S.game) return S.game.n;
  return tableRoom(S) ? roomSize(S, tableRoom(S)) : 4;
}

function posOf(S, seat) {
  const n = seatCount(S);
  return (POS[n] || POS[4])[(seat - mySeatOf(S) + n) % n];
}

/** Who declared (叫主 / 亮大A) beside the trump: ``（张三）``, or "". */
function declaredBy(g) {
  return g.declared && g.declared.seat !== undefined ? `<span class="by" id="trump-by">（${esc(nameFromGame(g, g.declared.seat))}）</span>` : "";
}

/** The trump (or the big A) as the game's display gives it: a label, a suit
 * and a rank, or words where there is no suit (无主). */
function trumpText(g) {
  const t = g && g.display && g.display.trump;
  if (!t) return "";
  const face = t.suit
    ? `<b class="${"HD".includes(t.suit) ? "red" : ""}">${suitIcon(t.suit)}${esc(t.rank || "")}</b>`
    : `<b>${esc(t.text || "")}</b>`;
  const note = t.note ? ` <small class="tnote" id="trump-note">${esc(t.note)}</small>` : "";
  return `<span class="badge trump" id="trump">${esc(t.label || "")} ${face}${note}${declaredBy(g)}</span>`;
}

function playerSeats(S) {
  // Names and ids from the game, coins and ready marks from the room.
  const out = new Map();
  const room = tableRoom(S);
  if (room) for (const s of room.seats) out.set(s.seat, { ...s });
  const g = S.game;
  if (g && g.phase !== "finished") {
    for (const s of g.seats) out.set(s.seat, { ...(out.get(s.seat) || {}), ...s, ready: false });
  }
  return out;
}

/** A seat's points (得分) and badges (地主, 庄, 第N名 …) from the game's display. */
function scoreText(S, g, seat) {
  const d = (g && g.display) || {};
  const bits = [];
  const points = d.points ? d.points[seat] : null;
  if (points !== null && points !== undefined) bits.push(`得分 <b>${points}</b>`);
  for (const b of (d.badges || [])[seat] || []) {
    bits.push(b.kind === "plain" ? esc(b.text) : `<span class="badge ${esc(b.kind)}">${esc(b.text)}</span>`);
  }
  return bits.join(" ");
}

/** The role everyone knows ``seat`` has (the server's ``roles``), or "". */
function roleOf(g, seat) {
  return (g && g.phase !== "finished" && g.roles && g.roles[seat]) || "";
}

function playZone(S, g, seat, pos) {
  const p = g && g.plays[seat];
  let inner = "";
  if (p) {
    if (p.pass) inner = `<span class="say">不出</span>`;
    else if (p.bid) inner = `<span class="say">${actionText(g, p.bid) || p.bid}</span>`;
    else if (p.cards) inner = rowHtml(p.cards, "small");
    if (p.note) inner = `<span class="say sm">${esc(p.note)}</span>` + inner;
    if (p.taken) inner += `<span class="say sm">收回 ${p.taken.length} 张</span>`;
    if (p.announce && p.announce.length) inner += `<span class="announce" role="status">${p.announce.map(esc).join(" ")}</span>`;
  }
  return `<div class="pzone zone-${pos} ${g && g.trickOver ? "over" : ""}" data-seat="${seat}">${inner}</div>`;
}

function renderSeats(S) {
  const g = S.game;
  const n = seatCount(S);
  const players = playerSeats(S);
  const mine = mySeatOf(S);
  const html = [];
  for (let seat = 0; seat < n; seat++) {
    const pos = posOf(S, seat);
    if (g && g.phase !== "finished") html.push(playZone(S, g, seat, pos));
    else if (g && S.result) html.push(playZone(S, g, seat, pos));
    if (seat === mine && !(S.watch && !S.room)) continue;
    const p = players.get(seat);
    if (!p) {
      html.push(`<div class="pbox empty pos-${pos}" data-seat="${seat}"><span class="avatar none">空</span><span class="pname">空位</span></div>`);
      continue;
    }
    const turn = g && g.turn && g.turn.seat === seat && g.phase !== "finished";
    const inGame = g && g.phase !== "finished";
    const count = inGame ? g.handCounts[seat] : null;
    const away = inGame ? !!p.disconnected : p.connected === false;
    const role = roleOf(g, seat);
    const label = [p.ai ? `${p.name}(机器人)` : p.name, role, inGame ? `${count} 张牌` : p.ready ? "已准备" : "",
      turn ? "轮到此玩家" : "", away ? "断线" : ""].filter(Boolean).join("，");
    html.push(`<div class="pbox pos-${pos} ${turn ? "turn" : ""} ${away ? "offline" : ""}" data-seat="${seat}" role="group" aria-label="${esc(label)}">` +
      avatar(p.player, p.name) +
      `<div class="pinfo"><div class="pname">${nameButton(p.player, p.name)}</div>${aiMark(p)}` +
      `<div class="pcoins">${icon("coin")} ${p.coins ?? "—"}</div><div class="pscore">${scoreText(S, g, seat)}${role ? ` <span class="badge role" data-role="${esc(role)}">${esc(role)}</span>` : ""}</div></div>` +
      (!inGame && p.ready ? `<span class="ready-mark" title="已准备">${icon("hand")}</span>` : "") +
      (inGame ? `<div class="pcount">${backHtml("mini")}<span>${count}</span></div>` : "") +
      (turn ? `<div class="turnmark" title="轮到此玩家">${icon("hourglass")}<span class="timer" data-deadline="${g.turn.deadline || ""}"></span></div>` : "") +
      (away ? awayMark(S, p, inGame) : "") + kickButton(S.room, p, inGame) +
      `</div>`);
  }
  setHtml($("#seats"), html.join(""));
}

/** An away seat: during a game its remaining hold (``hold_until``, else
 * ``budget_left_ms`` from now); outside one, when the lobby stands it up. */
function awayMark(S, p, inGame) {
  const now = S.conn ? S.conn.now() : Date.now();
  let until = null;
  if (inGame) until = p.hold_until || (typeof p.budget_left_ms === "number" ? now + p.budget_left_ms : null);
  else {
    const srv = S.room && S.servers.find((x) => x.server === S.room.server);
    if (p.away_since && srv && srv.idle_disconnect_seconds) until = p.away_since + srv.idle_disconnect_seconds * 1000;
  }
  return `<div class="offline-mark" title="${inGame ? "断线，座位保留中" : "已离开"}">${inGame ? "断线" : "离开"}` +
    (until ? ` <span class="timer" data-deadline="${until}"></span>秒` : "") + `</div>`;
}

/** The room's number as players say it (``07 号桌``), never the raw id. */
export function tableName(roomId) {
  if (/-x[0-9a-f]{12}$/.test(String(roomId))) return "好友房";  // a private room's id says nothing
  return `${String(roomId).slice(String(roomId).lastIndexOf("-") + 1)} 号桌`;
}

/** 本局结算表 of ``r`` (a game_finished or a missed last_result): my own row
 * first, and who escaped where the game ended by an escape. */
export function settlementTable(S, r) {
  const rows = [...(r.settlement || [])];
  const name = (row) => {
    const s = r.seats.find((x) => x.player === row.player || x.seat === row.seat);
    return s ? s.name : row.player;
  };
  rows.sort((a, b) => (b.player === S.me.player) - (a.player === S.me.player) || (a.seat ?? 0) - (b.seat ?? 0));
  const signed = (x) => (x > 0 ? `+${x}` : `${x}`);
  let body = rows.map((row) => `<tr class="${row.player === S.me.player ? "mine" : ""}">` +
    `<td>${esc(name(row))}</td><td>${signed(row.points)}</td><td class="${row.coins > 0 ? "win" : row.coins < 0 ? "lose" : ""}">${signed(row.coins)}</td><td>${row.fee}</td></tr>`).join("");
  if (!rows.length && r.result) {
    body = r.seats.map((s) => `<tr class="${s.seat === r.mySeat ? "mine" : ""}"><td>${esc(s.name)}</td><td>${signed(r.result.points[s.seat])}</td><td>—</td><td>—</td></tr>`).join("");
  }
  let why = REASONS[r.reason] || "";
  if (r.reason === "escape" && r.escapedSeat !== null && r.escapedSeat !== undefined) {
    const s = r.seats.find((x) => x.seat === r.escapedSeat);
    const who = r.escapedSeat === r.mySeat ? "你" : s ? s.name : `座位${r.escapedSeat + 1}`;
    why = `${who}逃跑，牌局结束`;
  }
  const reason = (why ? `<div class="reason" id="settle-reason">${esc(why)}</div>` : "") + resultLines(S, r);
  const missed = r.missed ? `<div class="note">你离开期间这局已经结束</div>` : "";
  const err = r.settlement_error ? `<div class="reason">结算未完成：${esc(r.settlement_error)}</div>` : "";
  // The step from points to coins (混战: every 5 points are the base's coins).
  const where = r.server || (S.room && S.room.server) || S.server;
  const srv = S.servers.find((x) => x.server === where);
  const rate = srv && rows.length ? `<div class="note" id="settle-rate">分数换算金币：${rateText(srv)}</div>` : "";
  return `<div class="settle-table">${missed}${reason}${err}` +
    `<table><thead><tr><th>用户名</th><th>分数</th><th>金币</th><th>手续费</th></tr></thead><tbody>${body}</tbody></table>${rate}</div>`;
}

/** The game a settlement ``r`` is of (its own ``game``, else its server's). */
function gameOfResult(S, r) {
  if (r.game) return r.game;
  const where = r.server || (S.room && S.room.server);
  // A last_result names only its room; a room's id is its server's and a number.
  const srv = S.servers.find((x) => x.server === where) ||
    S.servers.find((x) => r.room && r.room.replace(/-[0-9]+$/, "") === x.server);
  return srv ? srv.game : "";
}

/** The server's settlement lines (``game_finished.lines``: label, the
 * seats' names, value), e.g. 地主胜 张三 / 倍数 ×8 / 出完顺序 A、B. */
function resultLines(S, r) {
  const lines = r.lines || [];
  if (!lines.length) return "";
  const who = (seat) => {
    const s = r.seats.find((x) => x.seat === seat);
    return seat === r.mySeat ? "你" : s ? s.name : `座位${seat + 1}`;
  };
  const game = gameOfResult(S, r);
  return `<dl class="settle-lines" id="settle-lines">` + lines.map((l) =>
    `<div class="sline"><dt>${ruleLink(game, l.label)}</dt><dd>` +
    (l.seats && l.seats.length ? `<span class="who">${l.seats.map((x) => esc(who(x))).join("、")}</span>` : "") +
    (l.value !== undefined && l.value !== null ? ` <b>${withSuitIcons(esc(l.value))}</b>` : "") +
    `</dd></div>`).join("") + `</dl>`;
}

/** The ready-kick countdown of the room (``ready_deadline``) while I am not ready. */
function readyCountdown(room, me) {
  const dl = room && (room.ready_deadline || room.ready_deadline_ms);
  if (!dl || !me || me.ready) return "";
  return `<div class="note warn" id="ready-countdown">请在 <span class="timer" data-deadline="${dl}"></span> 秒内点开始，否则将被请出房间</div>`;
}

function settlementHtml(S) {
  if (S.watch && !S.room) {
    return `<div id="settlement" class="settle"><h3>本局结算表</h3>${settlementTable(S, S.result)}` +
      `<div class="note" id="watch-next">旁观中，等待下一局…</div></div>`;
  }
  const room = S.room;
  const me = room && room.seats.find((s) => s.player === S.me.player);
  return `<div id="settlement" class="settle"><h3>本局结算表</h3>${settlementTable(S, S.result)}` +
    (me && me.ready ? `<div class="note">已准备，等待其他玩家开始…</div>` : `<button id="btn-ready" class="big" data-act="ready">开 始</button>`) +
    (me ? `<div class="auto-ready">${autoReadyHtml("btn-auto-ready")}</div>` : "") +
    readyCountdown(room, me) + missingHtml(S, room) + `</div>`;
}

/** Who must come back before the game can start (``missing``). */
function missingHtml(S, room) {
  const gone = (room && room.missing) || [];
  const names = gone.filter((p) => p !== S.me.player).map((p) => {
    const s = room.seats.find((x) => x.player === p);
    return s ? s.name : p;
  });
  if (!names.length) return "";
  return `<div class="note warn" id="missing">等待 ${names.map(esc).join("、")} 回来才能开始</div>`;
}

function renderCenter(S) {
  const g = S.game;
  const room = S.room;
  let html = "";
  if (S.result) {
    html = settlementHtml(S);
  } else if (g && g.phase !== "finished") {
    const bits = [];
    if (g.phase === "dealing") {
      bits.push(`<div class="deck">${backHtml()}${backHtml()}${backHtml()}</div>`);
      if (g.dealing.total) bits.push(`<div class="note">发牌 ${g.dealing.dealt}/${g.dealing.total}</div>`);
    }
    // The kitty as the game shows it: its cards, or face down.
    const kitty = g.display && g.display.kitty;
    if (kitty && kitty.cards && kitty.cards.length) {
      bits.push(`<div class="kitty"><span class="lbl">底牌</span>${rowHtml(kitty.cards, "small")}</div>`);
    } else if (kitty && kitty.backs) {
      bits.push(`<div class="kitty"><span class="lbl">底牌</span><div class="cardrow">${backHtml("small").repeat(kitty.backs)}</div></div>`);
    }
    html = `<div class="center-info">${bits.join("")}</div>`;
  } else if (S.watch && !S.room) {
    html = `<div class="center-info"><div class="note" id="watch-next">旁观中，等待下一局…</div></div>`;
  } else if (room) {
    const me = room.seats.find((s) => s.player === S.me.player);
    if (me && !me.ready) {
      html = `<div class="center-info"><button id="btn-ready" class="big" data-act="ready">开 始</button>` +
        readyCountdown(room, me) + missingHtml(S, room) + `</div>`;
    } else {
      html = `<div class="center-info"><div class="note">已准备，等待其他玩家开始…</div>${missingHtml(S, room)}</div>`;
    }
  }
  setHtml($("#center"), html);
}

function renderSide(S) {
  const me = S.me;
  const room = tableRoom(S);
  const watching = !!(S.watch && !S.room);
  const g = S.game;
  const srv = room && S.servers.find((x) => x.server === room.server);
  const mySeat = mySeatOf(S);
  const bits = [];
  if (g && g.phase !== "finished") {
    bits.push(`<div class="row"><span>阶段</span><b id="phase">${esc(phaseText(g, g.phase))}</b></div>`);
    const t = trumpText(g);
    if (t) bits.push(`<div class="row">${t}</div>`);
    for (const r of (g.display && g.display.rows) || []) {
      const value = r.seat !== undefined && r.seat !== null ? nameFromGame(g, r.seat) : r.text;
      bits.push(`<div class="row"><span>${esc(r.label)}</span><b${r.id ? ` id="${esc(r.id)}"` : ""}>${esc(value ?? "")}</b></div>`);
    }
    const mine = watching ? "" : scoreText(S, g, mySeat);
    if (mine) bits.push(`<div class="row"><span>我的</span><span>${mine}</span></div>`);
    if (roleOf(g, mySeat)) bits.push(`<div class="row"><span>身份</span><b id="my-role">${esc(roleOf(g, mySeat))}</b></div>`);
    if (g.counter) bits.push(counterHtml(g.counter));
    if (g.myKitty && g.myKitty.length && g.rules.own_kitty_shown) bits.push(`<div class="row kit"><span>底牌</span>${rowHtml(g.myKitty, "mini2")}</div>`);
  }
  const started = room && room.state === "started" && g && g.phase !== "finished";
  // 看分 and 上一轮: public, so for spectators too.
  const looks = `<button id="btn-scores" data-act="scores">看分</button><button id="btn-last" data-act="lastTrick">上一轮</button>`;
  const sound = `<button id="btn-sound" data-act="sound">${icon("speaker")} 声音</button>`;
  const watched = S.watch && S.watch.room && S.servers.find((x) => x.server === S.watch.room.server);
  const rules = rulesButton((g && g.game) || (srv && srv.game) || (watched && watched.game) || "", "btn-rules");
  setHtml($("#side"),
    `<div class="me">${me ? avatar(me.player, me.name, "lg") : ""}<div><div class="pname">${me ? nameButton(me.player, me.name) : ""}</div>` +
    `<div class="pcoins">${icon("coin")} ${me ? me.coins : ""}</div></div></div>` +
    `<div class="info">` + (room ? `<div class="row"><span>服务器</span><b>${esc(srv ? srv.name : room.server)}</b></div>` +
      `<div class="row"><span>房间</span><b>${esc(tableName(room.room))}</b></div>` +
      `<div class="row"><span>游戏</span><b>${esc((srv && srv.game_title) || room.game)}</b></div>` +
      (srv && srv.practice ? `<div class="row"><span>金币</span><b>练习场，不计金币</b></div>` : "") +
      (srv && !srv.practice ? `<div class="row"><span>底分</span><b>${srv.base}</b></div><div class="row"><span>手续费</span><b>${Math.round(srv.fee_rate * 100)}%</b></div>` : "") +
      (watching ? "" : inviteHtml(room)) : "") +
    `</div><div class="ginfo">${bits.join("")}</div>` +
    (watching ? `<div class="side-btns"><span class="badge watching" id="watching">旁观中</span>` + looks + `<div class="side-row">${sound}${rules}</div>` +
      `<button id="btn-unwatch" class="danger" data-act="unwatch">离开旁观</button></div>` :
    `<div class="side-btns">${looks}` + `<div class="side-row">${room ? autoReadyHtml("btn-auto-ready-side") : ""}${sound}${rules}</div>` +
    (!started && room ? `<button id="btn-stand" data-act="stand">站起</button>` : "") +
    (room ? `<button id="btn-leave" class="danger" data-act="leave">退出</button>` : "") + `</div>`) +
    `<div class="log" id="log" aria-live="polite" aria-label="牌局记录">${S.log.slice(-12).map((l) => `<div>${withSuitIcons(esc(l))}</div>`).join("")}</div>`);
  const log = $("#log");
  log.scrollTop = log.scrollHeight;
}

/** The 记牌器 row: each rank and how many of it I have not seen (0 dimmed). */
function counterHtml(counter) {
  const names = { BJ: "大王", SJ: "小王", T: "10" };
  const cells = counter.map(([r, n]) =>
    `<span class="cc${n ? "" : " none"}" data-rank="${esc(r)}"><i>${esc(names[r] || r)}</i><b>${n}</b></span>`);
  return `<div class="row counter" id="card-counter" aria-label="记牌器"><span>记牌器</span><div class="cells">${cells.join("")}</div></div>`;
}

export function renderTable(S) {
  renderSeats(S);
  renderCenter(S);
  renderActions(S);
  renderHand(S);
  renderSide(S);
  renderBubbles(S, (seat) => posOf(S, seat));
  renderChat(S, !!S.room);
  const felt = $("#felt");
  felt.dataset.game = S.game ? S.game.game : (tableRoom(S) ? tableRoom(S).game : "");
  felt.dataset.watching = S.watch && !S.room ? "1" : "";
  felt.dataset.phase = S.game ? S.game.phase : "waiting";
}

