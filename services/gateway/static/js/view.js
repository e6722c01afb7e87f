// The server's ``view``: asked after a reconnect or a gap in an event
// ``seq``, and the game redrawn from it.

import { S, render, call } from "./store.js";
import { gameFromView, keepSelection } from "./state.js";
import { hintsFrom } from "./play.js";

/** Ask for my whole ``view`` and redraw from it (after a reconnect or a gap in
 * an event ``seq``). Events can overtake the reply: where the page had already
 * seen later events than the view holds, the view is applied and asked again. */
export async function requestView() {
  if (S.viewPending) return;
  S.viewPending = true;
  const r = await call("view");
  S.viewPending = false;
  if (r.ok) {
    if (typeof r.spectators === "number") S.spectators = r.spectators;
    applyFreshView(r.view);
  }
  else if (r.error === "no_game" && S.game && S.game.phase !== "finished") S.game = null;
  render();
}

/** Apply a ``view`` with its public ``seq`` (a reply); where the page had
 * already seen later events of that game than the view holds, ask again. */
export function applyFreshView(v) {
  const old = S.game;
  const stale = old && v && old.id === v.game_id &&
    (old.pub > (v.seq || 0) || old.priv > (v.player_seq || 0));
  applyView(v);
  if (stale && S.game && S.game.phase !== "finished") requestView();
}

/** Redraw the game from a ``view`` whose ``seq`` is the public one (the
 * ``view`` command's reply, the sign-in reply's ``view``). */
export function applyView(v) {
  if (!v || !v.game_id) return;
  if (S.oldGames.has(v.game_id)) return;
  const g = gameFromView(v);
  if (S.game && S.game.id === g.id) g.sel = keepSelection(S.game.hand, S.game.sel, g.hand);
  S.game = g;
  if (S.result && S.result.game_id !== g.id) S.result = null;
  S.screen = "table";
  if (g.my) hintsFrom(v);
  render();
}

/** The ``view`` event a reconnect brings: the view's fields at the top level;
 * its own ``seq`` is my private sequence number and the table's public one is
 * ``public_seq``. It is drawn at once (a server without ``public_seq``: the
 * ``view`` command, asked next, brings it). An older one than what the page
 * has is dropped; one at the page's own ``seq`` is drawn (the gateway's repair
 * of a gap sends the view at the player's last ``seq``). */
export function applyViewEvent(ev) {
  const v = ev.view || ev;
  if (!v.game_id || S.oldGames.has(v.game_id)) return;
  const g = S.game;
  const same = g && g.id === v.game_id;
  if (same && typeof ev.seq === "number" && ev.seq < g.priv) return;
  const pub = typeof v.public_seq === "number" ? v.public_seq : null;
  applyView({ ...v, seq: pub ?? (same ? g.pub : 0), player_seq: typeof ev.seq === "number" ? ev.seq : 0 });
  if (pub === null) requestView();
}
