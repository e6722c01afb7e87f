// The 看分 and 上一轮 dialogs.

import { esc } from "./dom.js";
import { icon } from "./icons.js";
import { rowHtml } from "./cards.js";
import { trickEntries, trickWinner, nameFromGame } from "./state.js";

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
  if (scores.multiplier !== undefined) html += multiplierHtml(S, scores);
  return html || `<p>本游戏不计分牌。</p>`;
}

/** 看分 of a game without point cards (斗地主): the multiplier, what made it
 * (抢地主 and bombs, each ×2) and every seat's cards left. */
function multiplierHtml(S, scores) {
  const left = (scores.cards_left || []).map((n, seat) =>
    `<tr><td>${esc(nameIn(S, seat))}</td><td>${n} 张</td></tr>`).join("");
  return `<p id="scores-multiplier">倍数 <b>×${scores.multiplier}</b>（抢地主 ${scores.robs} 次，炸弹 ${scores.bombs} 个）</p>` +
    (left ? `<table class="scores"><thead><tr><th>玩家</th><th>剩余</th></tr></thead><tbody>${left}</tbody></table>` : "");
}

export function lastTrickHtml(S, trick) {
  const t = trick && trick.last_trick;
  const entries = trickEntries(t);
  if (!entries.length) return `<p>还没有上一轮。</p>`;
  const winner = trickWinner(t, trick.last_trick_winner);
  return `<table class="scores"><tbody>` + entries.map((e) => `<tr class="${e.seat === winner ? "mine" : ""}"><td>${esc(nameIn(S, e.seat))}${e.seat === winner ? ` ${icon("trophy", "win-ic")}` : ""}</td>` +
    `<td>${e.pass ? "不出" : e.taken ? `收回 ${e.taken.length} 张` : rowHtml(e.cards, "mini2")}</td></tr>`).join("") + `</tbody></table>` +
    (t && t.points !== undefined ? `<p>本轮分数：${t.points}</p>` : "");
}


/** The 退出 warning during a game: quitting is an escape (seed 000 例外:
 * 主动退出的玩家被视为逃跑), settled as rulings.md "Escapes" says; ``points``
 * is what the server's view says the escape costs now (or null). */
export function leaveWarningHtml(S, points) {
  const srv = S.room && S.servers.find((x) => x.server === S.room.server);
  const coins = typeof points === "number" && srv ? coinsOf(points, srv) : null;
  const cost = coins !== null
    ? `按逃跑结算，你现在退出将得 <b id="escape-coins">${coins}</b> 金币` +
      `（<span id="escape-points">${points}</span> 分，${rateText(srv)}）`
    : typeof points === "number"
      ? `按逃跑结算，你现在退出得 <b id="escape-points">${points}</b> 分`
      : "按逃跑结算，你将被扣分、扣金币，赔给其他玩家";
  return `<div id="leave-warning"><p class="warn">牌局进行中，主动退出的玩家被视为<b>逃跑</b>：本局立即结束，${cost}。</p>` +
    `<div class="modal-btns"><button id="btn-leave-confirm" class="danger" data-act="confirmLeave">确认退出</button>` +
    `<button id="btn-leave-cancel" data-act="closeModal">继续游戏</button></div></div>`;
}

/** The coins ``points`` come to on server ``srv``: every ``unit`` points
 * (the game's smallest unit of points, 5 in 混战) are ``base`` coins, as the
 * ledger settles them (before the winners' fee). */
export function coinsOf(points, srv) {
  return Math.trunc(points / (srv.unit || 1)) * srv.base;
}

/** The points-to-coins step of server ``srv`` in words (每 5 分 10 金币). */
export function rateText(srv) {
  return `底分 ${esc(srv.base)}，每 ${esc(srv.unit || 1)} 分 ${esc(srv.base)} 金币`;
}
