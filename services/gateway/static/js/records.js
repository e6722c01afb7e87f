// 战绩 (history), replays, rankings and players' cards: what their controls do. Every step of
// a replay comes from the server (the ``replay`` command: the rules engine
// replays the game's record there); this page only draws it.

import { S, render, call, toast } from "./store.js";
import { errorText } from "./text.js";
import { cardHtml, shareHtml, sharesHtml } from "./records_view.js";

/** A replay link (an operator's or a player's shared one) opened this page (``#replay=<game>&link=<token>``). */
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
  if (!r.ok) {
    // A link refused (revoked, forged) is said on the page, not only in a toast.
    if (lk) S.linkRefused = errorText(r);
    toast(errorText(r));
    render();
    return false;
  }
  S.linkRefused = "";
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

/** The rankings of ``server`` (default: the one shown, mine, or the first)
 * over ``window`` (``week``, ``season``, ``all``; default: the one shown). */
async function openRankings(server, window) {
  const srv = server || (S.rankings && S.rankings.server) || S.server || (S.servers[0] && S.servers[0].server);
  if (!srv) return;
  const win = window || (S.rankings && S.rankings.window) || "week";
  const r = await call("rankings", { server: srv, window: win });
  if (!r.ok) { toast(errorText(r)); return; }
  S.rankings = r;
  S.screen = "rankings";
  render();
}

/** A player's card: name and stats per game (the ``stats`` command), as a
 * dialog over the screen; ``player`` empty: mine. */
async function openCard(player) {
  const r = await call("stats", player ? { player } : {});
  if (!r.ok) { toast(errorText(r)); return; }
  // At the table the game goes on under it (a passive dialog).
  S.modal = { title: `${r.name} 的资料`, passive: S.screen === "table", html: cardHtml(S, r) };
  render();
}

/** The page's address with a share's ``#replay=…&link=…``. */
function fullLink(link) { return `${location.origin}${location.pathname}${link}`; }

/** Share the replay shown: a new link, shown with 复制. */
async function share() {
  if (!S.replay) return;
  const r = await call("share_replay", { game_id: S.replay.game_id });
  if (!r.ok) { toast(errorText(r)); return; }
  S.modal = { title: "分享回放", html: shareHtml(fullLink(r.link)) };
  render();
}

async function copyLink() {
  const input = document.getElementById("share-link");
  if (!input) return;
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select();
    document.execCommand("copy");
  }
  toast("已复制链接", false);
}

/** My active shares, each with 撤销. */
async function openShares() {
  const r = await call("shares");
  if (!r.ok) { toast(errorText(r)); return; }
  S.modal = { title: "我的分享", html: sharesHtml(r.shares.map((x) => ({ ...x, url: fullLink(x.link) }))) };
  render();
}

async function revoke(shareId) {
  const r = await call("revoke_share", { share: shareId });
  if (!r.ok) { toast(errorText(r)); return; }
  toast("已撤销", false);
  await openShares();
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
    else if (a === "rankings") openRankings(el.dataset.server, el.dataset.window);
    else if (a === "card") openCard(el.dataset.player || "");
    else if (a === "back") back();
    else if (a === "share") share();
    else if (a === "copy") copyLink();
    else if (a === "shares") openShares();
    else if (a === "revoke") revoke(el.dataset.share);
  });
  // The slider asks for its step once let go (``change``), not at every pixel.
  document.addEventListener("change", (e) => {
    if (e.target.id === "rp-range" && S.replay) replayStep(S.replay.game_id, Number(e.target.value));
    else if (e.target.id === "rk-server") openRankings(e.target.value, S.rankings && S.rankings.window);
  });
}
