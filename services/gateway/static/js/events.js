// Events from the server (docs/client-protocol.md, shared/spec/events.md):
// the rooms of the watched server, and each game event applied to the game.

import { S, say, nameOf, saveRoom, render, toast, call, markResultSeen } from "./store.js";
import { displaySort, cardsText } from "./cards.js";
import { REASONS, actionText } from "./text.js";
import { newGame, seatOf, keepSelection, newCardOf } from "./state.js";
import { requestView, applyViewEvent } from "./view.js";
import { hintsFrom, scheduleCheck } from "./play.js";
import * as R from "./render.js";
import { showBubble } from "./social.js";
import { soundOfEvent } from "./sound.js";

const PRIVATE = new Set(["hand", "your_turn", "kitty", "view", "counter"]);

// -- rooms ---------------------------------------------------------------------------

function roomChanged(ev) {
  const key = ev.room;
  const old = S.rooms.get(key);
  if (old && ev.version !== undefined && old.version !== undefined && ev.version < old.version) return;
  if (ev.server === S.server && !ev.private) S.rooms.set(key, ev);  // a private room is in no list
  if (S.watch && S.watch.room.room === key) S.watch.room = ev;
  if (S.room && S.room.room === key) {
    if (ev.version !== undefined && S.room.version !== undefined && ev.version < S.room.version) return;
    const mine = ev.seats.some((s) => s.player === S.me.player);
    if (!mine) {
      const running = S.game && S.game.phase !== "finished";
      if (S.leaving === key && !running) {
        // My own 退出 outside a game, before its reply: no kick (leaveNow goes on).
        leaveTable();
        return;
      }
      S.room = null;
      saveRoom();
      if (running) {
        // Out of the room at the end of my game (an escape): the lobby frees
        // the room before the table announces game_finished, which follows.
        const id = S.game.id;
        setTimeout(() => { if (!S.room && S.game && S.game.id === id && S.game.phase !== "finished") leaveTable(); }, 5000);
        return;
      }
      if (S.result && S.result.mySeat !== null && S.result.escapedSeat === S.result.mySeat) {
        // My escape's table came first: keep it, as a dialog over the room list.
        S.modal = { title: "本局结算表", html: R.settlementTable(S, S.result) };
      } else if (ev.private && ev.owner !== S.me.player) toast("你已被房主请出好友房");
      else toast("你已被请出房间（未在规定时间内开始，或金币不足）");
      leaveTable();
    } else {
      S.room = ev;
      const me = ev.seats.find((s) => s.player === S.me.player);
      if (me && typeof me.coins === "number" && me.coins > 0) S.me.coins = me.coins;
    }
  }
}

/** Back to the room list (my seat is gone). */
function leaveTable() {
  S.room = null;
  S.game = null;
  S.result = null;
  saveRoom();
  S.screen = "rooms";
  render();
}

// -- events --------------------------------------------------------------------------

export function onEvent(ev) {
  const t = ev.type;
  if (window.paijuDebug) console.log("event", JSON.stringify(ev));
  if (t === "room_changed") { roomChanged(ev); render(); return; }
  if (t === "balance_changed") {
    if (S.me && typeof ev.coins === "number") S.me.coins = ev.coins;
    render();
    return;
  }
  if (t === "view") { applyViewEvent(ev); return; }
  if (t === "chat") { showBubble(S, ev, render); render(); return; }
  if (t === "spectators") {
    const here = (S.room && S.room.room) || (S.watch && S.watch.room.room);
    if (ev.room === here) { S.spectators = ev.count; render(); }
    return;
  }
  if (!ev.game_id) return;
  if (S.oldGames.has(ev.game_id) && t !== "game_finished") return;
  if (t === "game_started") {
    const mySeat = seatOf(ev.seats, S.me.player);
    if (mySeat === null && !S.watch) return;
    // A new game (not a redeal of the last one) starts a fresh side log.
    if (!S.game || S.game.phase === "finished") S.log = [];
    S.game = newGame(ev, mySeat);
    S.result = null;
    S.screen = "table";
    if (S.room) S.room = { ...S.room, state: "started" };
    say(`新的一局${(ev.rules && ev.rules.title) || ev.game}开始`);
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
  showData(g, ev);
  // 记牌器: a spectator takes the public one any public event carries, a
  // seat its own private ``counter`` events.
  if (Array.isArray(ev.counter) && (t === "counter" ? g.mySeat !== null : g.mySeat === null)) {
    g.counter = ev.counter;
  }
  // The game's display (trump, badges, points, kitty …) after this event.
  if (ev.display) {
    g.display = ev.display;
    if (ev.display.points) g.captured = [...ev.display.points];
  }
  const handler = HANDLERS[t];
  if (handler) handler(g, ev);
  soundOfEvent(g, ev);
  render();
}

/** Display data any event may carry (the server's): every seat's
 * card count (``hand_counts``), the public roles (``roles``), the game's
 * multiplier (``multiplier``). */
function showData(g, ev) {
  if (Array.isArray(ev.hand_counts) && ev.hand_counts.length === g.n) g.handCounts = [...ev.hand_counts];
  if (Array.isArray(ev.roles)) g.roles = [...ev.roles];
  if (typeof ev.multiplier === "number") g.multiplier = ev.multiplier;
}

/** The trick on the table as 上一轮 shows it ({plays: [{seat, cards | pass}], winner, points}). */
function snapshotTrick(g, winner, points) {
  const plays = Object.entries(g.plays).filter(([, p]) => p.cards || p.pass)
    .map(([seat, p]) => (p.pass ? { seat: Number(seat), pass: true } : { seat: Number(seat), cards: p.cards }));
  return { plays, winner: winner ?? undefined, points };
}

/** 看分 of the game so far, kept for after the game (the server forgets it then). */
async function keepScores(g) {
  const r = await call("scores");
  if (r.ok && r.scores) g.lastScores = r.scores;
}

function clearTrickIfOver(g) {
  if (g.trickOver) { g.plays = {}; g.trickOver = false; }
}

/** Consecutive timeouts of one seat that make an escape (seed 000 超时不出). */
const TIMEOUTS_TO_ESCAPE = 4;

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
    if (ev.done && g.phase === "dealing") g.phase = g.rules.phase_after_deal || "play";
  },
  declared(g, ev) {
    g.declared = { seat: ev.seat, cards: ev.cards };
    const what = g.rules.declare_label || "叫主";
    g.plays = { [ev.seat]: { cards: ev.cards, note: what } };
    say(`${nameOf(ev.seat)} ${what} ${cardsText(ev.cards)}`);
  },
  declaring_closed(g, ev) {
    if (ev.dealer !== undefined) g.dealer = ev.dealer;
    g.plays = {};
    if (g.my && g.my.phase === "declaring") g.my = null;
    if (ev.redeal) { say("无人叫主，重新发牌"); return; }
    g.phase = g.rules.phase_after_declaring || "play";
    // The hand's order now follows the trump: the server's view has it.
    requestView();
  },
  bid(g, ev) {
    g.plays[ev.seat] = { bid: ev.kind };
    say(`${nameOf(ev.seat)} ${actionText(g, ev.kind) || ev.kind}`);
  },
  kitty_shown(g, ev) {
    if (ev.landlord !== undefined) {
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
      hintsFrom(ev);
      if (g.sel.size) scheduleCheck();
    }
  },
  played(g, ev) {
    clearTrickIfOver(g);
    // ``announce``: what the play calls out (王炸, 炸弹, 报单), the server's words.
    const announce = Array.isArray(ev.announce) ? ev.announce : [];
    g.plays[ev.seat] = { cards: ev.cards, combination: ev.combination, announce };
    if (ev.seat !== g.mySeat) g.handCounts[ev.seat] = Math.max(0, g.handCounts[ev.seat] - ev.cards.length);
    if (announce.length) say(`${nameOf(ev.seat)} ${announce.join(" ")}`);
  },
  buried(g, ev) { say(`${nameOf(ev.seat)} 扣底 ${ev.count} 张`); },
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
    g.lastWinner = ev.seat;
    g.lastTrick = snapshotTrick(g, ev.seat, ev.points);
    if (ev.points) keepScores(g);
    if (ev.points) say(`${nameOf(ev.seat)} 赢得本轮 ${ev.points} 分`);
    const id = g.id;
    setTimeout(() => {
      if (S.game && S.game.id === id && S.game.trickOver) { clearTrickIfOver(S.game); render(); }
    }, 2500);
  },
  revealed(g, ev) { g.revealed = ev.seat; say(`${nameOf(ev.seat)} 亮明`); },
  player_out(g, ev) { say(`${nameOf(ev.seat)} 第 ${ev.place} 个出完`); },
  timed_out(g, ev) {
    say(`${nameOf(ev.seat)} 超时（连续 ${ev.count} 次）`);
    // The 4th timeout in a row is an escape (seed 000 超时不出; rulings.md):
    // the 2nd and 3rd of mine say so before it comes.
    if (ev.seat === g.mySeat && ev.count >= 2 && ev.count < TIMEOUTS_TO_ESCAPE) {
      const left = TIMEOUTS_TO_ESCAPE - ev.count;
      toast(`你已连续超时 ${ev.count} 次，再超时 ${left} 次将按逃跑处理`);
      g.timeoutWarning = ev.count;
    }
  },
  escaped(g, ev) { g.escapedSeat = ev.seat; say(`${nameOf(ev.seat)} 逃跑`); },
  seat_disconnected(g, ev) {
    const s = g.seats.find((x) => x.seat === ev.seat);
    if (s) { s.disconnected = true; s.hold_until = ev.hold_until; s.budget_left_ms = ev.budget_left_ms; }
    say(`${nameOf(ev.seat)} 断线，等待重连`);
  },
  seat_reconnected(g, ev) {
    const s = g.seats.find((x) => x.seat === ev.seat);
    if (s) { s.disconnected = false; s.hold_until = null; if (ev.budget_left_ms !== undefined) s.budget_left_ms = ev.budget_left_ms; }
    say(`${nameOf(ev.seat)} 已重连`);
  },
  scores(g, ev) {
    if (ev.captured) g.captured = ev.captured;
    if (ev.defender_points !== undefined) g.defenderPoints = ev.defender_points;
    // The point cards each seat won (分牌), for 看分 after the game.
    if (ev.captured && Array.isArray(ev.cards)) {
      g.lastScores = { scores: ev.captured.map((points, seat) => ({ points, cards: ev.cards[seat] || [] })),
        defender_points: ev.defender_points };
    }
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
    if (ev.reason === "redeal") { if (S.log[S.log.length - 1] !== REASONS.redeal) say(REASONS.redeal); return; }
    // The last plays (a game's final trick may end without trick_won).
    if (!g.trickOver && Object.keys(g.plays).length) g.lastTrick = snapshotTrick(g, null, undefined);
    g.phase = "finished";
    g.trickOver = true;
    const detail = (ev.result && ev.result.detail) || {};
    const escaped = detail.escaped ?? detail.escapee ?? g.escapedSeat ?? null;
    S.result = { ...ev, seats: g.seats, mySeat: g.mySeat, game: g.game,
      escapedSeat: ev.reason === "escape" ? escaped : null };
    // Seen under every id it may come back by (after a redeal the deal's id
    // is not the sitting's): no 你离开期间牌局已结束 for it at the next sign-in.
    for (const id of new Set([g.id, ev.game_id, ev.record_id])) if (id) markResultSeen(id);
    S.lastGame = g;
    g.room = S.room ? S.room.room : null;
    say("本局结束");
    if (!S.room && !S.watch) {
      // I am out of the room (my escape): the table as a dialog over the room list.
      S.modal = { title: "本局结算表", html: R.settlementTable(S, S.result) };
      leaveTable();
    }
  },
};
