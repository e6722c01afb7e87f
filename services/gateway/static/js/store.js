// The client's state and the small helpers every part of the controller
// uses: the log, names of seats, the saved room, drawing, calls.

import * as R from "./render.js";

export const S = {
  conn: null,
  connected: false,
  replaced: false,          // signed in elsewhere: this page was closed (4001)
  me: null,                 // {player, name, coins}
  token: sessionStorage.getItem("paiju.token") || "",
  screen: "login",
  servers: [],
  server: null,             // the server whose rooms are listed / watched
  rooms: new Map(),         // room id -> room (room_changed shape)
  room: null,               // my room
  leaving: null,            // the room my 退出 (leave) is on its way out of, or null
  game: null,
  result: null,             // the last game_finished (settlement table)
  lastGame: null,           // the game just played (看分 and 上一轮 after it)
  oldGames: new Set(),
  log: [],
  modal: null,              // {title, html}
  viewPending: false,
  watch: null,              // the room I watch (旁观): {room, count}, or null
  spectators: 0,            // how many watch the room at the table
  bubbles: {},              // seat -> {say, kind, until}: quick chat bubbles
  chatOpen: false,
};

// -- helpers -----------------------------------------------------------------------

export function toast(text, bad = true) { R.toast(text, bad); }

export function say(text) {
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

export function saveRoom() {
  if (S.room) sessionStorage.setItem("paiju.room", JSON.stringify({ server: S.room.server, room: S.room.room }));
  else sessionStorage.removeItem("paiju.room");
}

/** What runs after each redraw (auto-ready, sounds): functions of ``S``. */
export const afterRender = [];

export function render() {
  R.render(S);
  for (const f of afterRender) f(S);
}

export async function call(cmd, args) {
  const r = await S.conn.call(cmd, args);
  return r;
}


// -- settlement tables seen (in every tab of this browser) --------------------------

/** Whether this browser has shown the settlement table of ``gameId``. */
export function seenResult(gameId) {
  return (localStorage.getItem("paiju.seen") || "").split(",").includes(gameId);
}

/** Whether the room's last result ``last`` was shown already: by the room's
 * game id or by the id of the deal played out (``record_id``; after a redeal
 * the page knew the game by that one). */
export function resultSeen(last) {
  return seenResult(last.game_id) || (!!last.record_id && seenResult(last.record_id));
}

/** Remember that the settlement table of ``gameId`` was shown (the last 20). */
export function markResultSeen(gameId) {
  const list = (localStorage.getItem("paiju.seen") || "").split(",").filter((x) => x && x !== gameId);
  list.push(gameId);
  localStorage.setItem("paiju.seen", list.slice(-20).join(","));
}
