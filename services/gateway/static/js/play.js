// Playing: the server's hints, its check of the selection, acting.

import { S, render, call, toast } from "./store.js";
import { errorText } from "./text.js";
import * as R from "./render.js";

/** Take the server's hints (the ``hints`` command's ``actions``, as
 * ``your_turn`` and the view carry them too). */
export function useHints(g, actions) {
  g.hints = actions;
  g.hintsReady = true;
  if (g.my && g.my.phase === "declaring") {
    g.my.declare_options = g.hints.filter((a) => a.type === "declare").map((a) => a.cards);
  } else if (g.my) {
    g.my.can_pass = g.hints.some((a) => a.type === "pass");
  }
}

/** The hints carried by ``ev`` (``your_turn``, a view) where it has them, else
 * asked of the server. */
export function hintsFrom(ev) {
  const g = S.game;
  if (g && Array.isArray(ev.hints)) useHints(g, ev.hints);
  else fetchHints();
}

export async function fetchHints() {
  const g = S.game;
  if (!g) return;
  const r = await call("hints");
  if (S.game !== g) return;
  if (r.ok) useHints(g, r.actions);
  else { g.hints = []; g.hintsReady = true; }
  render();
}

export function selectionAction(g) {
  const cards = [...g.sel].sort((a, b) => a - b).map((i) => g.hand[i]);
  return { type: g.my && g.my.phase === "burying" ? "bury" : "play", cards };
}

/** Ask the server whether the selection may be played (the play button's state). */
export async function scheduleCheck() {
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
  // Enter pressed while the check was asked (keys.js): play once it is legal.
  if (g.wantPlay) { g.wantPlay = false; if (g.check.state === "legal") await act(selectionAction(g)); }
}

export async function act(action) {
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

