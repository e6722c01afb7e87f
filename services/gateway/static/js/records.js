// 战绩 (history), replays and rankings: what their controls do. Every step of
// a replay comes from the server (the ``replay`` command: the rules engine
// replays the game's record there); this page only draws it.

import { S, render, call, toast } from "./store.js";
import { errorText } from "./text.js";

/** An operator's replay link opened this page (``#replay=<game>&link=<token>``). */
export function linkFromHash() {
  const h = new URLSearchParams(location.hash.slice(1));
  const game = h.get("replay");
  return game && h.get("link") ? { game_id: game, link: h.get("link") } : null;
}

async function openHistory() {
  const r = await call("history", { limit: 20 });
  if (!r.ok) { toast(errorText(r)); return; }
  S.history = { games: r.games, next: r.next };
  S.screen = "history";
  render();
}

async function moreHistory() {
  if (!S.history || !S.history.next) return;
  const r = await call("history", { limit: 20, before: S.history.next });
  if (!r.ok) { toast(errorText(r)); return; }
  S.history = { games: [...S.history.games, ...r.games], next: r.next };
  render();
}

/** Show step ``step`` of game ``gameId`` (asked from the server). */
export async function replayStep(gameId, step, link = null) {
  const args = { game_id: gameId, step };
  const lk = link || (S.replay && S.replay.game_id === gameId ? S.replay.link : null);
  if (lk) args.link = lk;
  const r = await call("replay", args);
  if (!r.ok) { toast(errorText(r)); return false; }
  S.replay = { ...r, link: lk };
  S.screen = "replay";
  render();
  return true;
}

function stepBy(where) {
  const rp = S.replay;
  if (!rp) return;
  const last = rp.steps - 1;
  let to = rp.step;
  if (where === "first") to = 0;
  else if (where === "last") to = last;
  else if (where === "prev") to = Math.max(0, rp.step - 1);
  else if (where === "next") to = Math.min(last, rp.step + 1);
  else if (where === "nextTrick") to = rp.tricks.find((t) => t > rp.step) ?? last;
  else if (where === "prevTrick") to = [...rp.tricks].reverse().find((t) => t < rp.step) ?? 0;
  if (to !== rp.step) replayStep(rp.game_id, to);
}

async function openRankings(server) {
  const srv = server || S.server || (S.servers[0] && S.servers[0].server);
  if (!srv) return;
  const r = await call("rankings", { server: srv });
  if (!r.ok) { toast(errorText(r)); return; }
  S.rankings = r;
  S.screen = "rankings";
  render();
}

function back() {
  if (S.screen === "replay" && S.history && S.me) { S.screen = "history"; render(); return; }
  S.screen = S.room ? "table" : S.server ? "rooms" : "servers";
  render();
}

/** Clicks on ``data-rec`` controls (the lobby's are bound in render.js). */
export function bindRecords() {
  document.addEventListener("click", (e) => {
    const el = e.target.closest("[data-rec]");
    if (!el || el.disabled) return;
    const a = el.dataset.rec;
    if (a === "history") openHistory();
    else if (a === "more") moreHistory();
    else if (a === "replay") replayStep(el.dataset.game, 0);
    else if (a === "step") stepBy(el.dataset.to);
    else if (a === "rankings") openRankings(el.dataset.server);
    else if (a === "back") back();
  });
  // The slider asks for its step once let go (``change``), not at every pixel.
  document.addEventListener("change", (e) => {
    if (e.target.id === "rp-range" && S.replay) replayStep(S.replay.game_id, Number(e.target.value));
    else if (e.target.id === "rk-server") openRankings(e.target.value);
  });
}
