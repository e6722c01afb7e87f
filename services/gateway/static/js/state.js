// The client's model of a game, built from events and from ``view``
// (shared/spec/events.md). Pure data: no DOM here.

import { displaySort } from "./cards.js";

/** Trick entries of any game as [{seat, cards?, pass?, taken?}]. */
export function trickEntries(t) {
  if (!t) return [];
  const list = Array.isArray(t) ? t : (t.plays || []);
  const out = [];
  for (const e of list) {
    if (e.type === "taken_back") { out.push({ seat: e.seat, taken: e.cards }); continue; }
    if (e.pass || e.type === "pass") out.push({ seat: e.seat, pass: true });
    else out.push({ seat: e.seat, cards: e.cards || [] });
  }
  return out;
}

/** The winner of a finished trick object, where the game says it. */
export function trickWinner(t, fallback) {
  if (t && !Array.isArray(t) && t.winner !== undefined) return t.winner;
  return fallback;
}

/** A new game from ``game_started``. */
export function newGame(ev, mySeat) {
  const n = ev.seats.length;
  return {
    id: ev.game_id, game: ev.game, n, mySeat,
    seats: ev.seats.map((s) => ({ ...s, disconnected: false })),
    phase: "dealing", first: ev.first, dealer: ev.dealer ?? null,
    turnSeconds: ev.turn_seconds || 20,
    // What the server says of the game (engine.py client_rules / display).
    rules: ev.rules || {}, display: ev.display || {},
    hand: [], handCounts: new Array(n).fill(0), sel: new Set(), newCard: null, dealAnim: false,
    plays: {}, trickOver: false,
    turn: null, my: null, hints: [], hintIdx: 0,
    check: { state: "none", error: "" }, checkN: 0,
    declared: null, myKitty: [], captured: null, revealed: null, roles: null, multiplier: 1,
    // 记牌器 ([[rank, unseen], …]), null where the room's server has it off.
    counter: null,
    cursor: 0,
    dealing: { dealt: 0, total: 0, done: false }, declaringUntil: null,
    pub: ev.seq || 0, priv: 0,
  };
}

/** The name at ``seat`` in a game's seat list (``座位N`` where it has none). */
export function nameFromGame(g, seat) {
  const s = g.seats.find((x) => x.seat === seat);
  return s ? s.name : `座位${seat + 1}`;
}

/** The seat of ``player`` in a game_started / view seat list. */
export function seatOf(seats, player) {
  const s = seats.find((x) => x.player === player);
  return s ? s.seat : null;
}

/** Rebuild a game from a ``view`` (after a reconnect or a gap). */
export function gameFromView(v) {
  const g = newGame({ game_id: v.game_id, game: v.game, seats: v.seats, first: v.first,
    dealer: v.dealer, seq: v.seq, rules: v.rules, display: v.display }, v.seat);
  g.seats = v.seats.map((s) => ({ ...s }));
  g.phase = v.phase;
  g.hand = v.phase === "dealing" ? displaySort(v.hand || []) : [...(v.hand || [])];
  g.handCounts = [...(v.hand_counts || g.handCounts)];
  g.pub = v.seq || v.public_seq || 0;
  g.priv = v.player_seq || 0;
  if (v.dealing) g.dealing = { ...v.dealing };
  g.declaringUntil = v.declaring_until ?? null;
  for (const e of trickEntries(v.trick)) g.plays[e.seat] = e;
  // The bids so far while the seats bid (the bid buttons' words).
  if (v.phase === "bidding" || v.phase === "robbing") {
    for (const b of v.bids || []) g.plays[b.seat] = { bid: b.kind };
  }
  g.revealed = v.revealed ?? null;
  if (v.declaration) g.declared = { seat: v.declaration.seat, cards: v.declaration.cards };
  g.captured = v.captured || (g.display.points ? [...g.display.points] : null);
  if (g.rules.own_kitty_shown) {
    // The dealer's own kitty: what it buried, or (while burying) the shown kitty it took.
    g.myKitty = v.buried || (v.phase === "burying" && v.dealer === v.seat ? v.kitty_shown || [] : []);
  }
  const toAct = v.to_act || [];
  const deadlines = v.deadlines || {};
  const other = toAct.find((s) => s !== v.seat);
  const turnSeat = toAct.includes(v.seat) ? v.seat : other;
  if (turnSeat !== undefined) {
    g.turn = { seat: turnSeat, deadline: deadlines[String(turnSeat)] ?? null, phase: v.phase };
  }
  if (v.spectator) {
    // A spectator (旁观) acts in nothing.
  } else if (toAct.includes(v.seat)) {
    g.my = { phase: v.phase, deadline: deadlines[String(v.seat)] ?? null,
      can_pass: !!v.can_pass, declare_options: [...(v.declare_options || [])] };
  } else if ((v.declare_options || []).length || v.declaring_until ||
      (g.rules.declaring && (v.phase === "dealing" || v.phase === "declaring"))) {
    // The declaring window (the deal and the few seconds after it): the
    // declare buttons come back with the view's declare_options.
    g.my = { phase: "declaring", deadline: v.declaring_until ?? null, can_pass: false,
      declare_options: [...(v.declare_options || [])] };
  }
  g.escapePoints = typeof v.escape_points === "number" ? v.escape_points : null;
  g.roles = Array.isArray(v.roles) ? [...v.roles] : null;
  g.counter = Array.isArray(v.counter) ? v.counter : null;
  return g;
}

/** Keep the selected cards selected in a new hand (matching equal cards).
 * A selected card that left the hand is the one played, never its twin of a
 * second deck: the twin stays unselected. */
export function keepSelection(oldHand, sel, newHand) {
  const gone = [...oldHand];
  for (const c of newHand) {
    const i = gone.indexOf(c);
    if (i >= 0) gone.splice(i, 1);
  }
  const out = new Set();
  for (const c of [...sel].map((i) => oldHand[i])) {
    const g = gone.indexOf(c);
    if (g >= 0) { gone.splice(g, 1); continue; }
    const i = newHand.findIndex((x, k) => x === c && !out.has(k));
    if (i >= 0) out.add(i);
  }
  return out;
}

/** Indices of ``cards`` in ``hand`` (each hand card used once), or null. */
export function indicesOf(hand, cards) {
  const out = new Set();
  for (const c of cards) {
    const i = hand.findIndex((x, k) => x === c && !out.has(k));
    if (i < 0) return null;
    out.add(i);
  }
  return out;
}

/** The one card of ``after`` that ``before`` lacked (for the deal animation). */
export function newCardOf(before, after) {
  if (after.length !== before.length + 1) return null;
  const left = [...before];
  for (const c of after) {
    const i = left.indexOf(c);
    if (i < 0) return c;
    left.splice(i, 1);
  }
  return null;
}
