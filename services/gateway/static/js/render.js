// Drawing the screens from the client's state (app.js owns the state).

import { cardHtml, backHtml, rowHtml, cardText, suitSymbol, isJoker } from "./cards.js";
import { GAME_NAMES, STATE_NAMES, SEATS, BIDS, PHASES, REASONS } from "./text.js";
import { trickEntries, trickWinner } from "./state.js";

const $ = (sel) => document.querySelector(sel);
let ACT = null;
let handKey = "";
let lastScreen = "";

/** Set ``el``'s HTML only when it changed: a button under the mouse is not
 * replaced by an identical one (a click is a press and a release on one element). */
function setHtml(el, html) {
  if (el._html === html) return false;
  el.innerHTML = html;
  el._html = html;
  tick(window.paiju ? window.paiju.S : null);
  return true;
}

export function esc(s) {
  return String(s ?? "").replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

// -- avatars (generated: initials on a colour from the player id) -----------------------

function hue(id) {
  let h = 0;
  for (const ch of String(id)) h = (h * 31 + ch.charCodeAt(0)) % 360;
  return h;
}

function initials(name) {
  const n = String(name || "?").trim();
  const parts = n.split(/[\s_\-.]+/).filter(Boolean);
  if (/^[\x00-\x7f]+$/.test(n) && parts.length > 1) return (parts[0][0] + parts[parts.length - 1][0]).toUpperCase();
  return /^[\x00-\x7f]/.test(n) ? n.slice(0, 2).toUpperCase() : n.slice(0, 1);
}

export function avatar(player, name, extra = "") {
  return `<span class="avatar ${extra}" style="background:hsl(${hue(player)},55%,42%)">${esc(initials(name))}</span>`;
}

// -- events of the page ------------------------------------------------------------------

export function bind(actions) {
  ACT = actions;
  document.addEventListener("click", (e) => {
    const el = e.target.closest("[data-act]");
    if (!el || el.disabled) return;
    const a = el.dataset.act;
    if (a === "sit") ACT.sit(el.dataset.room, Number(el.dataset.seat));
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
  window.addEventListener("resize", () => { handKey = ""; if (window.paiju) renderHand(window.paiju.S); });
}

let toastTimer = null;
export function toast(text, bad = true) {
  const el = $("#toast");
  el.textContent = text;
  el.className = `show ${bad ? "bad" : ""}`;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.className = ""; }, 3500);
}

// -- the whole page ------------------------------------------------------------------------

export function render(S) {
  const screen = S.me ? S.screen : "login";
  for (const el of document.querySelectorAll(".screen")) el.hidden = el.id !== `screen-${screen}`;
  document.body.dataset.screen = screen;
  if (screen !== lastScreen) { handKey = ""; lastScreen = screen; }
  renderTop(S);
  if (screen === "login") $("#login-status").textContent = S.connected ? "" : "正在连接服务器…";
  else if (screen === "servers") renderServers(S);
  else if (screen === "rooms") renderRooms(S);
  else if (screen === "table") renderTable(S);
  const modal = $("#modal");
  modal.hidden = !S.modal;
  if (!S.modal) modal.innerHTML = "";
  else {
    modal.innerHTML = `<div class="modal-bg" data-act="modalBg"><div class="modal-box" role="dialog">` +
      `<div class="modal-head"><b>${esc(S.modal.title)}</b><button class="x" data-act="closeModal">✕</button></div>` +
      `<div class="modal-body">${S.modal.html}</div></div></div>`;
  }
}

function renderTop(S) {
  const me = S.me;
  setHtml($("#top"), `<span class="logo">🂡 牌局 <small>paiju</small></span>` +
    (me ? `<span class="who">${avatar(me.player, me.name, "sm")}<b id="me-name">${esc(me.name)}</b>` +
      `<span class="coins">💰 <span id="me-coins">${me.coins}</span></span></span>` : "") +
    `<span class="conn ${S.connected ? "on" : "off"}" id="conn-state">${S.connected ? "已连接" : "重连中…"}</span>` +
    (me ? `<button class="link" data-act="logout">退出</button>` : ""));
}

// -- lobby -----------------------------------------------------------------------------------

function serverTerms(s) {
  return `底分 ${s.base} · 最低 ${s.min_coins} 金币 · 手续费 ${Math.round((s.fee_rate || 0) * 100)}%`;
}

function renderServers(S) {
  const byGame = {};
  for (const s of S.servers) (byGame[s.game] ||= []).push(s);
  setHtml($("#screen-servers"), `<h2>金币服务器</h2>` + Object.entries(byGame).map(([game, list]) =>
    `<div class="game-group"><h3>${esc(GAME_NAMES[game] || game)}</h3><div class="servers">` +
    list.map((s) => `<button class="server" data-act="openServer" data-server="${esc(s.server)}">` +
      `<span class="sname">${esc(s.name)}</span><span class="sterms">${esc(serverTerms(s))}</span>` +
      `<span class="srooms">${s.rooms} 个房间 · ${s.seats || SEATS[s.game]} 人</span></button>`).join("") +
    `</div></div>`).join(""));
}

function roomSize(S, room) {
  const srv = S.servers.find((x) => x.server === room.server);
  return room.size || (srv && srv.seats) || SEATS[room.game] || 4;
}

function roomTile(S, room) {
  const n = roomSize(S, room);
  const started = room.state === "started";
  const seats = [];
  for (let i = 0; i < n; i++) {
    const angle = Math.PI / 2 - (i * 2 * Math.PI) / n; // counter-clockwise: the next seat on the right
    const pos = `left:${(50 + 40 * Math.cos(angle)).toFixed(1)}%;top:${(50 + 38 * Math.sin(angle)).toFixed(1)}%`;
    const p = room.seats.find((s) => s.seat === i);
    if (p) {
      seats.push(`<div class="rseat taken" style="${pos}" data-seat="${i}">${avatar(p.player, p.name, "sm")}` +
        `<span class="nm">${esc(p.name)}</span>${p.ready && !started ? `<span class="hand-up" title="已准备">✋</span>` : ""}</div>`);
    } else if (started) {
      seats.push(`<div class="rseat closed" style="${pos}" data-seat="${i}" title="游戏已开始">·</div>`);
    } else {
      seats.push(`<div class="rseat free" style="${pos}" data-act="sit" data-room="${esc(room.room)}" data-seat="${i}" title="坐下">坐下</div>`);
    }
  }
  const short = room.room.slice(room.room.lastIndexOf("-") + 1);
  return `<div class="room state-${room.state}" data-room="${esc(room.room)}" data-state="${room.state}">` +
    `<div class="rhead"><span>${esc(short)} 号桌</span><span class="rstate">${STATE_NAMES[room.state] || room.state}</span></div>` +
    `<div class="rtable"><div class="tabletop">${started ? `<span class="cardicon" title="游戏中">🂠</span>` : ""}</div>${seats.join("")}</div></div>`;
}

function renderRooms(S) {
  const srv = S.servers.find((x) => x.server === S.server);
  const rooms = [...S.rooms.values()].filter((r) => r.server === S.server).sort((a, b) => a.room.localeCompare(b.room));
  setHtml($("#screen-rooms"), `<div class="bar"><button data-act="backToServers">← 服务器</button>` +
    `<h2>${esc(srv ? srv.name : S.server)}</h2><span class="terms">${srv ? esc(serverTerms(srv)) : ""}</span>` +
    `<span class="legend"><i class="lgd idle"></i>空闲 <i class="lgd waiting"></i>等待 <i class="lgd started"></i>已开始</span></div>` +
    `<div class="rooms">${rooms.map((r) => roomTile(S, r)).join("")}</div>`);
}

// -- the room and the game --------------------------------------------------------------------

const POS = {
  2: ["bottom", "top"],
  3: ["bottom", "right", "left"],
  4: ["bottom", "right", "top", "left"],
  5: ["bottom", "right", "topright", "topleft", "left"],
};

function mySeatOf(S) {
  if (S.game) return S.game.mySeat;
  const me = S.room && S.room.seats.find((s) => s.player === S.me.player);
  return me ? me.seat : 0;
}

function seatCount(S) {
  if (S.game) return S.game.n;
  return S.room ? roomSize(S, S.room) : 4;
}

function posOf(S, seat) {
  const n = seatCount(S);
  return (POS[n] || POS[4])[(seat - mySeatOf(S) + n) % n];
}

function trumpText(g) {
  if (!g) return "";
  if (g.game === "doudizhu") return g.landlord !== null && g.landlord !== undefined ? "" : "";
  if (g.game === "daa") return g.bigA ? `<span class="badge trump">大A <b class="${"HD".includes(g.bigA) ? "red" : ""}">${suitSymbol(g.bigA)}A</b></span>` : "";
  if (g.trump === undefined) return "";
  if (g.trump === null || g.trump === "" || g.noTrump) return `<span class="badge trump" id="trump">当前主 <b>🃏 无主</b></span>`;
  return `<span class="badge trump" id="trump">当前主 <b class="${"HD".includes(g.trump) ? "red" : ""}">${suitSymbol(g.trump)}</b></span>`;
}

function playerSeats(S) {
  // Names and ids from the game, coins and ready marks from the room.
  const out = new Map();
  if (S.room) for (const s of S.room.seats) out.set(s.seat, { ...s });
  const g = S.game;
  if (g && g.phase !== "finished") {
    for (const s of g.seats) out.set(s.seat, { ...(out.get(s.seat) || {}), ...s, ready: false });
  }
  return out;
}

function scoreText(S, g, seat) {
  if (!g) return "";
  if (g.game === "doudizhu") {
    if (g.landlord === null || g.landlord === undefined) return "";
    return seat === g.landlord ? `<span class="badge ll">地主</span>` : `<span class="badge farmer">农民</span>`;
  }
  if (g.game === "daa") {
    const bits = [];
    if (g.places[seat]) bits.push(`第${g.places[seat]}名`);
    if (g.revealed === seat) bits.push("亮明");
    return bits.join(" ");
  }
  const cap = g.captured ? g.captured[seat] : null;
  let s = cap !== null && cap !== undefined ? `得分 <b>${cap}</b>` : "";
  if (g.game === "shengji" && g.dealer === seat) s += ` <span class="badge ll">庄</span>`;
  return s;
}

function playZone(S, g, seat, pos) {
  const p = g && g.plays[seat];
  let inner = "";
  if (p) {
    if (p.pass) inner = `<span class="say">不出</span>`;
    else if (p.bid) inner = `<span class="say">${BIDS[p.bid] || p.bid}</span>`;
    else if (p.cards) inner = rowHtml(p.cards, "small");
    if (p.note) inner = `<span class="say sm">${esc(p.note)}</span>` + inner;
    if (p.taken) inner += `<span class="say sm">收回 ${p.taken.length} 张</span>`;
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
    if (seat === mine) continue;
    const p = players.get(seat);
    if (!p) {
      html.push(`<div class="pbox empty pos-${pos}" data-seat="${seat}"><span class="avatar none">空</span><span class="pname">空位</span></div>`);
      continue;
    }
    const turn = g && g.turn && g.turn.seat === seat && g.phase !== "finished";
    const inGame = g && g.phase !== "finished";
    const count = inGame ? g.handCounts[seat] : null;
    html.push(`<div class="pbox pos-${pos} ${turn ? "turn" : ""} ${p.disconnected ? "offline" : ""}" data-seat="${seat}">` +
      avatar(p.player, p.name) +
      `<div class="pinfo"><div class="pname">${esc(p.name)}</div>` +
      `<div class="pcoins">💰 ${p.coins ?? "—"}</div><div class="pscore">${scoreText(S, g, seat)}</div></div>` +
      (!inGame && p.ready ? `<span class="ready-mark" title="已准备">✋</span>` : "") +
      (inGame ? `<div class="pcount">${backHtml("mini")}<span>${count}</span></div>` : "") +
      (turn ? `<div class="turnmark" title="轮到此玩家">⏳<span class="timer" data-deadline="${g.turn.deadline || ""}"></span></div>` : "") +
      (p.disconnected ? `<div class="offline-mark">断线 <span class="timer" data-deadline="${p.hold_until || ""}"></span></div>` : "") +
      `</div>`);
  }
  setHtml($("#seats"), html.join(""));
}

function settlementHtml(S) {
  const r = S.result;
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
  const reason = REASONS[r.reason] ? `<div class="reason">${REASONS[r.reason]}</div>` : "";
  const err = r.settlement_error ? `<div class="reason">结算未完成：${esc(r.settlement_error)}</div>` : "";
  return `<div id="settlement" class="settle"><h3>本局结算表</h3>${reason}${err}` +
    `<table><thead><tr><th>用户名</th><th>分数</th><th>金币</th><th>手续费</th></tr></thead><tbody>${body}</tbody></table>` +
    `<button id="btn-ready" class="big" data-act="ready">开 始</button></div>`;
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
    // shengji shows the kitty while the dealer buries; what it buries stays hidden.
    if (g.kitty && g.kitty.length && (g.game !== "shengji" || g.phase === "burying")) {
      bits.push(`<div class="kitty"><span class="lbl">底牌</span>${rowHtml(g.kitty, "small")}</div>`);
    } else if (g.game === "doudizhu" && g.landlord === null) {
      bits.push(`<div class="kitty"><span class="lbl">底牌</span><div class="cardrow">${backHtml("small")}${backHtml("small")}${backHtml("small")}</div></div>`);
    }
    html = `<div class="center-info">${bits.join("")}</div>`;
  } else if (room) {
    const me = room.seats.find((s) => s.player === S.me.player);
    if (me && !me.ready) {
      const dl = room.ready_deadline || room.ready_deadline_ms;
      html = `<div class="center-info"><button id="btn-ready" class="big" data-act="ready">开 始</button>` +
        (dl ? `<div class="note warn">请在 <span class="timer" data-deadline="${dl}"></span> 秒内点开始，否则将被请出房间</div>` : "") + `</div>`;
    } else {
      html = `<div class="center-info"><div class="note">已准备，等待其他玩家开始…</div></div>`;
    }
  }
  setHtml($("#center"), html);
}

function timerHtml(deadline) {
  return deadline ? `<span class="clock">⏱ <span class="timer" data-deadline="${deadline}"></span></span>` : "";
}

function declareGroups(options) {
  const groups = { S: [], H: [], C: [], D: [], NT: [] };
  for (const cards of options) {
    const plain = cards.find((c) => !isJoker(c));
    groups[plain ? plain[1] : "NT"].push(cards);
  }
  return groups;
}

export function renderActions(S) {
  const g = S.game;
  const el = $("#actions");
  if (!el) return;
  let html = "";
  if (g && g.my && g.phase !== "finished") {
    const my = g.my;
    if (my.phase === "declaring") {
      const groups = declareGroups(my.declare_options || []);
      const slot = (key, label, red) => {
        const opts = groups[key];
        if (!opts.length) return `<button class="declare-btn off" disabled data-suit="${key}"><span class="${red ? "red" : ""}">${label}</span></button>`;
        return opts.map((cards) => `<button class="declare-btn lit" data-act="declare" data-suit="${key}" data-cards='${JSON.stringify(cards)}' title="${esc(cards.map(cardText).join(" "))}">` +
          `<span class="${red ? "red" : ""}">${label}</span>${cards.length > 1 ? `<small>×${cards.length}</small>` : ""}</button>`).join("");
      };
      const what = g.game === "daa" ? "亮大A" : "叫主";
      html = `<div class="declare-area" id="declare-area"><span class="lbl">${what}区</span>` +
        slot("S", "♠") + slot("H", "♥", true) + slot("C", "♣") + slot("D", "♦", true) +
        (g.game === "daa" ? "" : slot("NT", "🃏 无主")) +
        `<span class="note">${my.deadline ? `<span class="timer" data-deadline="${my.deadline}"></span> 秒后不叫视为放弃` : `发牌中，有牌即可${what}`}</span></div>`;
    } else if (my.phase === "bidding" || my.phase === "robbing") {
      const kinds = g.hints.map((a) => a.type).filter((t) => BIDS[t]);
      html = `<div class="bar-btns">${kinds.map((k) => `<button class="bid-btn ${k.startsWith("no_") ? "" : "primary"}" data-act="bid" data-kind="${k}">${BIDS[k]}</button>`).join("")}` +
        `${timerHtml(my.deadline)}</div>`;
    } else if (my.phase === "play" || my.phase === "burying") {
      const bury = my.phase === "burying";
      const c = g.check;
      const reveal = g.hints.some((a) => a.type === "reveal");
      const need = bury ? `<span class="note">请选择要扣底的牌</span>` : "";
      html = `<div class="bar-btns">` +
        `<button id="btn-hint" data-act="hint" data-hints="${g.hintsReady ? g.hints.length : ""}">提示</button>` +
        (my.can_pass && !bury ? `<button id="btn-pass" data-act="pass">不出</button>` : "") +
        `<button id="btn-play" class="primary" data-act="play" data-check="${c.state}" ${c.state === "legal" ? "" : "disabled"}>${bury ? "扣底" : "出牌"}</button>` +
        (reveal ? `<button id="btn-reveal" data-act="reveal">亮明</button>` : "") +
        timerHtml(my.deadline) + need +
        (c.state === "illegal" ? `<span class="why" id="check-why">${esc(c.error)}</span>` : "") + `</div>`;
    }
  } else if (g && g.turn && g.phase !== "finished" && g.turn.seat !== g.mySeat) {
    html = `<div class="bar-btns wait">等待 <b>${esc(nameFromGame(g, g.turn.seat))}</b> ${PHASES[g.turn.phase] || ""}</div>`;
  } else if (g && g.phase === "dealing") {
    html = `<div class="bar-btns wait">发牌中…</div>`;
  }
  setHtml(el, html);
}

function nameFromGame(g, seat) {
  const s = g.seats.find((x) => x.seat === seat);
  return s ? s.name : `座位${seat + 1}`;
}

export function renderHand(S) {
  const g = S.game;
  const el = $("#hand");
  if (!g || g.phase === "finished" || S.screen !== "table") {
    if (handKey !== "none") { el.innerHTML = ""; handKey = "none"; }
    return;
  }
  // While the shengji dealer buries, the cards it took from the kitty are marked.
  const fromKitty = g.phase === "burying" && g.my && g.my.phase === "burying" ? [...(g.myKitty || [])] : [];
  const key = `${g.id}|${g.hand.join(",")}|${[...g.sel].join(",")}|${el.clientWidth}|${fromKitty.join(",")}`;
  if (key === handKey) return;
  handKey = key;
  const phone = window.matchMedia("(max-width: 700px)").matches;
  const cw = phone ? 46 : 72;
  const minStep = phone ? 21 : 26;
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
      cards.push(cardHtml(c, cls, `data-act="toggle" data-i="${i}" style="${style}"`));
    }
    parts.push(`<div class="hand-row">${cards.join("")}</div>`);
  }
  el.innerHTML = parts.join("");
  el.dataset.count = String(n);
  if (anim) g.dealAnim = false;
  g.newCard = null;
}

function renderSide(S) {
  const me = S.me;
  const room = S.room;
  const g = S.game;
  const srv = room && S.servers.find((x) => x.server === room.server);
  const mySeat = mySeatOf(S);
  const bits = [];
  if (g && g.phase !== "finished") {
    bits.push(`<div class="row"><span>阶段</span><b id="phase">${PHASES[g.phase] || g.phase}</b></div>`);
    const t = trumpText(g);
    if (t) bits.push(`<div class="row">${t}</div>`);
    if (g.game === "doudizhu") {
      if (g.landlord !== null && g.landlord !== undefined) bits.push(`<div class="row"><span>地主</span><b id="landlord">${esc(nameFromGame(g, g.landlord))}</b></div>`);
      bits.push(`<div class="row"><span>倍数</span><b>×${g.multiplier}</b></div>`);
    }
    const mine = scoreText(S, g, mySeat);
    if (mine) bits.push(`<div class="row"><span>我的</span><span>${mine}</span></div>`);
    if (g.myKitty && g.myKitty.length && g.game === "shengji") bits.push(`<div class="row kit"><span>底牌</span>${rowHtml(g.myKitty, "mini2")}</div>`);
  }
  const started = room && room.state === "started" && g && g.phase !== "finished";
  setHtml($("#side"),
    `<div class="me">${me ? avatar(me.player, me.name, "lg") : ""}<div><div class="pname">${esc(me ? me.name : "")}</div>` +
    `<div class="pcoins">💰 ${me ? me.coins : ""}</div></div></div>` +
    `<div class="info">` + (room ? `<div class="row"><span>服务器</span><b>${esc(srv ? srv.name : room.server)}</b></div>` +
      `<div class="row"><span>房间</span><b>${esc(room.room)}</b></div>` +
      `<div class="row"><span>游戏</span><b>${esc(GAME_NAMES[room.game] || room.game)}</b></div>` +
      (srv ? `<div class="row"><span>底分</span><b>${srv.base}</b></div><div class="row"><span>手续费</span><b>${Math.round(srv.fee_rate * 100)}%</b></div>` : "") : "") +
    `</div><div class="ginfo">${bits.join("")}</div>` +
    `<div class="side-btns"><button id="btn-scores" data-act="scores">看分</button><button id="btn-last" data-act="lastTrick">上一轮</button>` +
    (!started ? `<button id="btn-stand" data-act="stand">站起</button>` : "") + `</div>` +
    `<div class="log" id="log">${S.log.slice(-12).map((l) => `<div>${esc(l)}</div>`).join("")}</div>`);
  const log = $("#log");
  log.scrollTop = log.scrollHeight;
}

function renderTable(S) {
  renderSeats(S);
  renderCenter(S);
  renderActions(S);
  renderHand(S);
  renderSide(S);
  const felt = $("#felt");
  felt.dataset.game = S.game ? S.game.game : (S.room ? S.room.game : "");
  felt.dataset.phase = S.game ? S.game.phase : "waiting";
}

// -- 看分 and 上一轮 -------------------------------------------------------------------------------

function nameIn(S, seat) {
  if (S.game) return nameFromGame(S.game, seat);
  const p = S.room && S.room.seats.find((s) => s.seat === seat);
  return p ? p.name : `座位${seat + 1}`;
}

export function scoresHtml(S, scores) {
  const rows = [];
  if (Array.isArray(scores.scores)) {
    scores.scores.forEach((s, seat) => rows.push(`<tr><td>${esc(nameIn(S, seat))}</td><td>${s.points}</td><td>${rowHtml(s.cards, "mini2")}</td></tr>`));
  } else if (Array.isArray(scores.captured)) {
    scores.captured.forEach((p, seat) => rows.push(`<tr><td>${esc(nameIn(S, seat))}</td><td>${p}</td><td></td></tr>`));
  }
  let html = rows.length ? `<table class="scores"><thead><tr><th>玩家</th><th>得分</th><th>分牌</th></tr></thead><tbody>${rows.join("")}</tbody></table>` : "";
  if (scores.defender_points !== undefined) html += `<p>闲家得分：<b>${scores.defender_points}</b></p>`;
  return html || `<p>本游戏不计分牌。</p>`;
}

export function lastTrickHtml(S, trick) {
  const t = trick && trick.last_trick;
  const entries = trickEntries(t);
  if (!entries.length) return `<p>还没有上一轮。</p>`;
  const winner = trickWinner(t, trick.last_trick_winner);
  return `<table class="scores"><tbody>` + entries.map((e) => `<tr class="${e.seat === winner ? "mine" : ""}"><td>${esc(nameIn(S, e.seat))}${e.seat === winner ? " 🏆" : ""}</td>` +
    `<td>${e.pass ? "不出" : e.taken ? `收回 ${e.taken.length} 张` : rowHtml(e.cards, "mini2")}</td></tr>`).join("") + `</tbody></table>` +
    (t && t.points !== undefined ? `<p>本轮分数：${t.points}</p>` : "");
}

// -- time and animation ---------------------------------------------------------------------------

export function tick(S) {
  const now = S && S.conn ? S.conn.now() : Date.now();
  for (const el of document.querySelectorAll(".timer[data-deadline]")) {
    const d = Number(el.dataset.deadline);
    if (!d) { el.textContent = ""; continue; }
    const left = Math.max(0, Math.ceil((d - now) / 1000));
    el.textContent = String(left);
    el.classList.toggle("urgent", left <= 5);
  }
}

function targetOf(g, seat) {
  const felt = $("#felt");
  if (!felt) return null;
  const f = felt.getBoundingClientRect();
  let r;
  if (seat === g.mySeat) r = $("#hand").getBoundingClientRect();
  else {
    const el = document.querySelector(`#seats .pbox[data-seat="${seat}"]`);
    if (!el) return null;
    r = el.getBoundingClientRect();
  }
  return { x: r.left + r.width / 2 - (f.left + f.width / 2), y: Math.min(r.top + r.height / 2, f.bottom) - (f.top + f.height / 2) };
}

function fly(g, seat) {
  const layer = $("#flylayer");
  const to = targetOf(g, seat);
  if (!layer || !to || !layer.animate) return;
  const el = document.createElement("div");
  el.className = "card back fly";
  layer.appendChild(el);
  const a = el.animate([{ transform: "translate(-50%,-50%) scale(.8)", opacity: 1 },
    { transform: `translate(calc(-50% + ${to.x}px), calc(-50% + ${to.y}px)) scale(.5)`, opacity: 0.3 }],
  { duration: 320, easing: "ease-in" });
  a.onfinish = () => el.remove();
  setTimeout(() => el.remove(), 500); // whatever the animation does
}

/** One card flies from the deck to each seat whose count grew (a paced deal). */
export function flyCards(g, before, after) {
  setTimeout(() => { after.forEach((c, s) => { if (c > (before[s] || 0)) fly(g, s); }); }, 0);
}

/** A whole deal at once (doudizhu): cards fly one round after another. */
export function dealBurst(g, counts) {
  const most = Math.max(...counts);
  for (let k = 0; k < most; k++) {
    setTimeout(() => counts.forEach((c, s) => { if (c > k) fly(g, s); }), 60 + k * 90);
  }
}
