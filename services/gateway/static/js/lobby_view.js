// The top bar, the coin servers and the rooms of a server.

import { $, setHtml, esc, avatar, aiMark } from "./dom.js";
import { icon } from "./icons.js";
import { STATE_NAMES } from "./text.js";
import { quickStartButton } from "./social.js";
import { reliefButton } from "./relief.js";
import { privateButton } from "./private.js";
import { rulesButton } from "./rules.js";

export function renderTop(S) {
  const me = S.replaced ? null : S.me;
  setHtml($("#top"), `<span class="logo">${icon("S", "logo-ic")} 牌局 <small>paiju</small></span>` +
    (me ? `<span class="who">${avatar(me.player, me.name, "sm")}<button class="link pcard" id="btn-my-card" data-rec="card" data-player="${esc(me.player)}" title="我的资料"><b id="me-name">${esc(me.name)}</b></button>` +
      `<span class="coins">${icon("coin")} <span id="me-coins">${me.coins}</span></span></span>` : "") +
    (me ? `<span class="top-nav"><button class="link" id="btn-history" data-rec="history">战绩</button>` +
      `<button class="link" id="btn-rankings" data-rec="rankings">排行</button></span>` : "") +
    `<span class="conn ${S.connected ? "on" : "off"}" id="conn-state">${S.replaced ? "已在别处登录" : S.connected ? "已连接" : "重连中…"}</span>` +
    (me ? `<button class="link" id="btn-logout" data-act="logout">登出</button>` : ""));
}

// -- lobby -----------------------------------------------------------------------------------

export function serverTerms(s) {
  if (s.practice) return "练习场 · 不计金币 · 机器人陪练";
  return `底分 ${s.base} · 最低 ${s.min_coins} 金币 · 手续费 ${Math.round((s.fee_rate || 0) * 100)}%`;
}

export function renderServers(S) {
  const byGame = {};
  for (const s of S.servers) (byGame[s.game] ||= []).push(s);
  setHtml($("#servers-list"), `<h2>金币服务器</h2>` + Object.entries(byGame).map(([game, list]) =>
    `<div class="game-group"><h3><span class="gtitle">${esc(list[0].game_title || game)}</span> ${quickStartButton(game)} ${rulesButton(game, `btn-rules-${game}`)} ${reliefButton(game, list)}</h3><div class="servers">` +
    list.map((s) => `<div class="server-cell"><button class="server" data-act="openServer" data-server="${esc(s.server)}">` +
      `<span class="sname">${esc(s.name)}</span><span class="sterms">${esc(serverTerms(s))}</span>` +
      `<span class="srooms">${s.rooms} 个房间 · ${s.seats} 人</span></button>${privateButton(s.server)}</div>`).join("") +
    `</div></div>`).join(""));
}

export function roomSize(S, room) {
  const srv = S.servers.find((x) => x.server === room.server);
  return room.size || (srv && srv.seats) || 4;
}

function roomTile(S, room) {
  const n = roomSize(S, room);
  const started = room.state === "started";
  const short = room.room.slice(room.room.lastIndexOf("-") + 1);
  const seats = [];
  for (let i = 0; i < n; i++) {
    const angle = Math.PI / 2 - (i * 2 * Math.PI) / n; // counter-clockwise: the next seat on the right
    const pos = `left:${(50 + 40 * Math.cos(angle)).toFixed(1)}%;top:${(50 + 38 * Math.sin(angle)).toFixed(1)}%`;
    const p = room.seats.find((s) => s.seat === i);
    if (p) {
      const away = p.connected === false;
      seats.push(`<div class="rseat taken ${away ? "away" : ""}" style="${pos}" data-seat="${i}" title="${esc(p.name)}${p.ai ? "(机器人)" : ""}${away ? "（已离开）" : ""}">${avatar(p.player, p.name, "sm")}` +
        `<span class="nm">${esc(p.name)}</span>${aiMark(p)}${p.ready && !started ? `<span class="hand-up" title="已准备">${icon("hand")}</span>` : ""}</div>`);
    } else if (started) {
      seats.push(`<div class="rseat closed" style="${pos}" data-seat="${i}" title="游戏已开始">·</div>`);
    } else {
      seats.push(`<div class="rseat free" style="${pos}" data-act="sit" data-room="${esc(room.room)}" data-seat="${i}" title="坐下" role="button" tabindex="0" aria-label="${esc(short)} 号桌 座位${i + 1} 坐下">坐下</div>`);
    }
  }
  const srv = S.servers.find((x) => x.server === room.server);
  // A seated player watches no other game (the server refuses it: seated_elsewhere).
  const watch = started && !S.room && (!srv || srv.spectators !== false) ?
    `<button class="watch-btn" data-act="watch" data-room="${esc(room.room)}">旁观</button>` : "";
  return `<div class="room state-${room.state}" data-room="${esc(room.room)}" data-state="${room.state}">` +
    `<div class="rhead"><span>${esc(short)} 号桌</span><span class="rstate">${STATE_NAMES[room.state] || room.state}</span></div>` +
    `<div class="rtable"><div class="tabletop">${started ? `<span class="cardicon" title="游戏中">${icon("back")}</span>` : ""}</div>${seats.join("")}</div>${watch}</div>`;
}

export function renderRooms(S) {
  const srv = S.servers.find((x) => x.server === S.server);
  const rooms = [...S.rooms.values()].filter((r) => r.server === S.server).sort((a, b) => a.room.localeCompare(b.room));
  setHtml($("#screen-rooms"), `<div class="bar"><button data-act="backToServers">← 服务器</button>` +
    `<h2>${esc(srv ? srv.name : S.server)}</h2><span class="terms">${srv ? esc(serverTerms(srv)) : ""}</span>` +
    (srv ? quickStartButton(srv.game) + rulesButton(srv.game, "btn-rules-rooms") : "") +
    `<span class="legend"><i class="lgd idle"></i>空闲 <i class="lgd waiting"></i>等待 <i class="lgd started"></i>已开始</span></div>` +
    `<div class="rooms">${rooms.map((r) => roomTile(S, r)).join("")}</div>`);
}
