// Relief coins (救济金), docs/client-protocol.md "Relief": the 领取救济金
// button of a game whose every server is above my coins, and the claim it
// sends. One claim id per game is kept until the claim is answered, so a
// second click or a retry after a lost reply is the same claim (the ledger
// pays it once).

import { S, toast, render, call } from "./store.js";
import { esc } from "./dom.js";
import { errorText } from "./text.js";

/** A claim's own words for ``not_eligible`` (the rules' code of that name means another thing). */
const NOT_ELIGIBLE = "你的金币还够进入这个游戏的房间，不能领取救济金";

/** Whether relief applies to a game whose servers are ``list``: offered,
 * and my coins below every server's minimum. */
export function reliefApplies(list) {
  if (!S.relief || !S.me || !list.length) return false;
  return S.me.coins < Math.min(...list.map((s) => s.min_coins));
}

/** The 领取救济金 button of ``game``, or "" where relief does not apply. */
export function reliefButton(game, list) {
  if (!reliefApplies(list)) return "";
  return `<button class="relief" data-act="claimRelief" data-game="${esc(game)}" ` +
    `title="每次 ${S.relief.coins} 金币，每天 ${S.relief.per_day} 次">领取救济金</button>`;
}

const pending = {};  // game -> the claim id not yet answered
const busy = new Set();

function newClaim() {
  return `c${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
}

/** The actions app.js adds: ``claimRelief(game)``. */
export function reliefActions() {
  return {
    async claimRelief(game) {
      if (busy.has(game)) return;  // a click while the claim is on its way
      busy.add(game);
      const claim = (pending[game] ||= newClaim());
      let r;
      try {
        r = await call("relief", { game, claim });
      } finally {
        busy.delete(game);
      }
      if (!r.ok) {
        // a claim that was answered is done; one that may not have arrived is retried as is
        if (!["unavailable", "busy", "internal", "not_connected"].includes(r.error)) delete pending[game];
        toast(r.error === "not_eligible" ? NOT_ELIGIBLE : errorText(r));
        return;
      }
      delete pending[game];
      if (S.me) S.me.coins = r.coins;
      toast(`领取救济金 ${r.granted} 金币，今天还可领 ${r.claims_left} 次`, false);
      render();
    },
  };
}
