// Drawing 战绩 (history), the replay viewer, the rankings and a player's card
// from the server's replies (records.js asks for them).

import { $, setHtml, esc, avatar } from "./dom.js";
import { rowHtml, suitIcon } from "./cards.js";
import { actionText as ownActionText, phaseText } from "./text.js";
import { tableName } from "./table_view.js";

const RESULT = { win: "胜", loss: "负", draw: "平" };
const ACTIONS = { pass: "不出", bury: "扣底", reveal: "亮明", end_declare: "叫主结束",
  timeout: "超时", escape: "逃跑", declare: "叫主", play: "出牌" };

function when(ms) {
  const d = new Date(ms);
  const p = (n) => String(n).padStart(2, "0");
  return `${d.getMonth() + 1}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

function signed(n) { return n > 0 ? `+${n}` : String(n); }

/** A game's title as the servers that play it give it (the server names games). */
function gameTitle(S, game) {
  const srv = (S.servers || []).find((x) => x.game === game);
  return (srv && srv.game_title) || game;
}

function serverName(S, id) {
  const s = S.servers.find((x) => x.server === id);
  return s ? s.name : id;
}

function bar(title, extra = "", back = true) {
  return `<div class="bar">${back ? `<button data-rec="back">← 返回</button>` : ""}<h2>${title}</h2>${extra}</div>`;
}

export function renderHistory(S) {
  const h = S.history || { games: [], next: 0 };
  const rows = h.games.map((g) => `<div class="hist-row ${g.result}" data-game="${esc(g.game_id)}">` +
    `<span class="h-when">${when(g.ts_ms)}</span>` +
    `<span class="h-where">${esc(gameTitle(S, g.game))} · ${esc(serverName(S, g.server))} · ${esc(tableName(g.room))}</span>` +
    `<span class="h-res">${RESULT[g.result]}</span>` +
    `<span class="h-pts">${signed(g.points)} 分</span>` +
    `<span class="h-coins">${signed(g.coins)} 金币${g.fee ? `（手续费 ${g.fee}）` : ""}</span>` +
    // Where some at the table are partners they are not all 对手.
    `<span class="h-opp">${g.partners ? "同桌" : "对手"}：${g.opponents.map(esc).join("、")}</span>` +
    (g.reason === "escape" ? `<span class="h-escape">逃跑结束</span>` : "") +
    `<button class="h-replay" data-rec="replay" data-game="${esc(g.game_id)}">回放</button></div>`).join("");
  setHtml($("#screen-history"), bar("我的战绩", `<button data-rec="shares">我的分享</button><button data-rec="rankings">排行榜</button>`) +
    (rows ? `<div class="hist">${rows}</div>` : `<p class="note">还没有结算过的牌局</p>`) +
    (h.next ? `<button id="hist-more" data-rec="more">更多</button>` : ""));
}

function actionText(rp, a) {
  if (!a) return "发牌";
  const who = a.seat === null || a.seat === undefined ? "" : `${esc(seatName(rp, a.seat))} `;
  const cards = a.cards && a.cards.length ? rowHtml(a.cards, "small") : "";
  // The game's own word for declaring (大A: 亮大A), as its rules name it.
  const declare = (rp.rules && rp.rules.declare_label) || ACTIONS.declare;
  const words = a.type === "declare" ? declare : a.type === "end_declare" ? `${declare}结束`
    : ownActionText(rp, a.type) || ACTIONS[a.type] || a.type;
  return `${who}${esc(words)}${cards}`;
}

function seatName(rp, seat) {
  const p = rp.players.find((x) => x.seat === seat);
  return p ? p.name : `座位${seat + 1}`;
}

/** The cards on the table now: the trick running, or the one the step just ended. */
function trickNow(f) {
  const t = f.table || {};
  const plays = (tr) => (Array.isArray(tr) ? tr : (tr && tr.plays) || []);
  const now = plays(t.trick);
  return now.length ? now : f.trick_won ? plays(t.last_trick) : [];
}

function roleOf(rp, seat) {
  const t = rp.frame.table || {};
  if (t.landlord === seat) return "地主";
  if (t.declarer === seat) return (rp.rules && rp.rules.declare_label) || "叫主";
  if (t.dealer === seat) return "庄家";
  return "";
}

export function renderReplay(S) {
  const rp = S.replay;
  if (!rp) return;
  const f = rp.frame;
  const trick = trickNow(f);
  const played = new Map(trick.map((e) => [e.seat, e]));
  const seats = rp.players.map((p) => {
    const e = played.get(p.seat);
    const out = e ? `<span class="rp-label">本墩</span>` +
      (e.type === "pass" ? `<span class="rp-pass">不出</span>` : rowHtml(e.cards, "small")) : "";
    const role = roleOf(rp, p.seat);
    return `<div class="rp-seat ${(f.to_act || []).includes(p.seat) ? "to-act" : ""}" data-seat="${p.seat}">` +
      `<div class="rp-who">${avatar(p.player, p.name, "sm")}<b>${esc(p.name)}</b>${role ? `<i class="rp-role">${role}</i>` : ""}` +
      `<span class="rp-count">${f.hands[p.seat].length} 张</span></div>` +
      `<div class="rp-hand" data-cards="${f.hands[p.seat].length}">${rowHtml(f.hands[p.seat], "small")}</div>` +
      `<div class="rp-out">${out}</div></div>`;
  }).join("");
  const t = f.table || {};
  const extra = [t.kitty ? `底牌 ${rowHtml(t.kitty, "small")}` : "",
    typeof t.trump === "string" ? `主 ${suitIcon(t.trump) || esc(t.trump)}` : t.no_trump ? "无主" : "",
    t.multiplier ? `倍数 ${t.multiplier}` : ""].filter(Boolean).map((x) => `<span class="rp-extra">${x}</span>`).join("");
  const end = f.result ? `<div class="rp-end"><b>结束</b> ` + rp.players.map((p) =>
    `${esc(p.name)} ${signed(f.result.points[p.seat])} 分`).join("，") +
    (rp.settlement.length ? `<div class="rp-settle">` + rp.settlement.map((r) =>
      `${esc(seatName(rp, r.seat))} ${signed(r.coins)} 金币`).join("，") + `</div>` : "") + `</div>` : "";
  const last = rp.steps - 1;
  // The trick under way (the first is 第 1 墩), or the one just won at this step.
  const won = rp.tricks.filter((x) => x <= rp.step).length;
  const trickNo = rp.tricks.includes(rp.step) ? won : Math.min(won + 1, rp.tricks.length);
  setHtml($("#screen-replay"), bar(`回放 · ${esc(gameTitle(S, rp.game))}`,
    `<span class="terms">${esc(tableName(rp.room))}${rp.finished_at ? ` · ${when(rp.finished_at)}` : ""}${rp.viewer === "operator" ? " · 管理员" : rp.viewer === "shared" ? " · 分享的回放" : ""}</span>` +
    (S.me && rp.viewer === "player" ? `<button id="rp-share" data-rec="share">分享</button>` : ""),
    !!S.me) +
    `<div class="rp-controls">` +
    `<button id="rp-first" data-rec="step" data-to="first" ${rp.step === 0 ? "disabled" : ""}>开始</button>` +
    `<button id="rp-prev-trick" data-rec="step" data-to="prevTrick" ${rp.step === 0 ? "disabled" : ""}>上一墩</button>` +
    `<button id="rp-prev" data-rec="step" data-to="prev" ${rp.step === 0 ? "disabled" : ""}>上一步</button>` +
    `<span id="rp-step" data-step="${rp.step}" data-steps="${rp.steps}">${rp.step} / ${last}</span>` +
    `<button id="rp-next" data-rec="step" data-to="next" ${rp.step === last ? "disabled" : ""}>下一步</button>` +
    `<button id="rp-next-trick" data-rec="step" data-to="nextTrick" ${rp.step === last ? "disabled" : ""}>下一墩</button>` +
    `<button id="rp-last" data-rec="step" data-to="last" ${rp.step === last ? "disabled" : ""}>结束</button>` +
    `<input id="rp-range" type="range" min="0" max="${last}" value="${rp.step}" aria-label="步骤"></div>` +
    `<div class="rp-info"><span id="rp-action">${actionText(rp, f.action)}</span>` +
    `<span>${esc(phaseText(rp, f.phase))} · <span id="rp-trick">第 ${trickNo} 墩</span> / ${rp.tricks.length}</span>${extra}</div>` +
    `<div class="rp-seats">${seats}</div>${end}`);
}

/** A new shared link with 复制 (a dialog's body). */
export function shareHtml(url) {
  return `<div id="share-box"><p class="note">持有链接的人无需登录即可观看这局的回放（所有手牌可见），直到你撤销。</p>` +
    `<input id="share-link" readonly value="${esc(url)}" aria-label="分享链接">` +
    `<button id="share-copy" data-rec="copy">复制</button> <button data-rec="shares">我的分享</button></div>`;
}

/** My active shares (``shares``, each with ``url``), each with 撤销. */
export function sharesHtml(list) {
  if (!list.length) return `<div id="shares-list"><p class="note">没有分享中的回放</p></div>`;
  return `<div id="shares-list">` + list.map((x) => `<div class="share-row" data-share="${esc(x.share)}">` +
    `<span class="sh-when">${when(x.created_ms)}</span>` +
    `<a class="sh-link" href="${esc(x.url)}" target="_blank" rel="noopener">${esc(x.game_id)}</a>` +
    `<button class="sh-revoke" data-rec="revoke" data-share="${esc(x.share)}">撤销</button></div>`).join("") + `</div>`;
}

/** A clickable name that opens ``player``'s card. */
export function nameButton(player, name, cls = "") {
  return `<button class="link pcard ${cls}" data-rec="card" data-player="${esc(player)}">${esc(name)}</button>`;
}

/** A time played (ms) in words: 45 秒, 12 分, 2 小时 5 分. */
export function duration(ms) {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} 秒`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} 分` : `${Math.floor(m / 60)} 小时 ${m % 60} 分`;
}

function percent(rate) { return `${Math.round(rate * 1000) / 10}%`; }

/** A player's card: avatar, name and one block of figures per game (the
 * ``stats`` reply); figures carry ``data-stat`` for tests. */
export function cardHtml(S, r) {
  const item = (key, label, value) => `<div class="st"><span>${label}</span><b data-stat="${key}">${value}</b></div>`;
  const games = r.games.map((g) => `<section class="card-game" data-game="${esc(g.game)}"><h4>${esc(gameTitle(S, g.game))}</h4><div class="st-grid">` +
    item("games", "局数", g.games) + item("wins", "胜", g.wins) + item("losses", "负", g.losses) +
    item("draws", "平", g.draws) + item("win_rate", "胜率", percent(g.win_rate)) +
    item("best", "最佳一局", signed(g.best)) + item("worst", "最差一局", signed(g.worst)) +
    item("escapes", "逃跑", g.escapes) + item("coins", "净金币", signed(g.coins)) +
    item("played", "时长", duration(g.played_ms)) +
    `</div></section>`).join("");
  return `<div id="player-card" data-player="${esc(r.player)}"><div class="card-who">${avatar(r.player, r.name, "lg")}<b id="card-name">${esc(r.name)}</b></div>` +
    (games || `<p class="note">还没有结算过的牌局</p>`) + `<p class="note">金币为结算后（已扣手续费）</p></div>`;
}

const WINDOWS = [["week", "本周", "近 7 天"], ["season", "本赛季", "本月（UTC）"], ["all", "总榜", "全部时间"]];

export function renderRankings(S) {
  const r = S.rankings;
  if (!r) return;
  const win = WINDOWS.find(([w]) => w === r.window) || WINDOWS[0];
  const byGame = {};
  for (const s of S.servers) (byGame[s.game] ||= []).push(s);
  const pick = `<label class="rk-pick">服务器 <select id="rk-server">` + Object.entries(byGame).map(([game, list]) =>
    `<optgroup label="${esc(gameTitle(S, game))}">` + list.map((s) =>
      `<option value="${esc(s.server)}" ${s.server === r.server ? "selected" : ""}>${esc(s.name)}</option>`).join("") +
    `</optgroup>`).join("") + `</select></label>`;
  const row = (x, mine) => `<tr class="${mine ? "mine" : ""}" data-player="${esc(x.player)}"><td>${x.rank}</td>` +
    `<td>${avatar(x.player, x.name, "sm")} ${nameButton(x.player, x.name, "rk-name")}</td><td class="num">${signed(x.coins)}</td><td class="num">${x.games}</td></tr>`;
  const me = S.me ? S.me.player : "";
  const body = r.rows.map((x) => row(x, x.player === me)).join("");
  setHtml($("#screen-rankings"), bar(`排行榜 · <span id="rk-title" data-server="${esc(r.server)}">${esc(serverName(S, r.server))}</span>`, `<button data-rec="history">我的战绩</button>`) +
    `<div class="rk-tabs">${pick}</div>` +
    `<div class="rk-windows" role="tablist">` + WINDOWS.map(([w, label]) =>
      `<button role="tab" class="rk-win ${w === win[0] ? "on" : ""}" aria-selected="${w === win[0]}" data-rec="rankings" data-window="${w}" data-server="${esc(r.server)}">${label}</button>`).join("") + `</div>` +
    `<p class="note">${win[2]}赢得的金币（结算后，不含赠送）· ${r.players} 人上榜</p>` +
    `<div id="rk-me" class="rk-me">${r.me ? `我的排名：第 <b>${r.me.rank}</b> 名，${signed(r.me.coins)} 金币，${r.me.games} 局` : `我在这里${win[2]}没有结算过的牌局`}</div>` +
    (body ? `<table class="rk"><thead><tr><th>名次</th><th>玩家</th><th>金币</th><th>局数</th></tr></thead><tbody>${body}</tbody></table>` : `<p class="note">还没有人上榜</p>`));
}
