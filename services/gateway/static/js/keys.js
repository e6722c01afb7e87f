// Playing with the keyboard. At the table:
//   ← → (Home End)  move the cursor along the hand (the hand takes the focus)
//   Space           select / unselect the card under the cursor
//   Enter           play (or, while burying, bury) the selected cards
//   P               不出 (pass)          H   提示 (hint)
//   1 … 9           the n-th button of the action bar (bids, declares, 亮明 …)
//   Escape          close a dialog
// A focused button keeps its own Space and Enter; Tab moves through every
// button, seat and room as usual, and an element drawn as a button
// (role="button", e.g. a free seat of a room) answers Enter and Space.
// No rules here: what may be played is still the server's ``check``.

let ACT = null;
let STATE = null;

export function bindKeys(actions, state) {
  ACT = actions;
  STATE = state;
  document.addEventListener("keydown", onKey);
}

function actionButtons() {
  return [...document.querySelectorAll("#actions button:not([disabled])")];
}

function moveCursor(g, to) {
  const n = g.hand.length;
  if (!n) return;
  g.cursor = Math.max(0, Math.min(n - 1, to));
  ACT.redrawHand();
  const card = document.querySelector(`#hand .card[data-i="${g.cursor}"]`);
  if (card) card.focus({ preventScroll: true });
}

function onKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const t = e.target instanceof Element ? e.target : null;
  if (t && t.closest("input, textarea, select")) return;
  const S = STATE;
  if (S.modal) {
    if (e.key === "Escape") { e.preventDefault(); ACT.closeModal(); return; }
    if (!S.modal.passive) return; // 看分 and 上一轮 leave the game's keys on
  }
  const fake = t && t.closest('[role="button"][data-act]');
  if (fake && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); fake.click(); return; }
  const g = S.game;
  if (S.screen !== "table" || !g || g.phase === "finished") return;
  const onButton = t && t.closest("button");
  const key = e.key;
  if (key === "ArrowLeft" || key === "ArrowRight" || key === "Home" || key === "End") {
    e.preventDefault();
    const cur = g.cursor || 0;
    moveCursor(g, key === "Home" ? 0 : key === "End" ? g.hand.length - 1 : cur + (key === "ArrowLeft" ? -1 : 1));
  } else if (key === " " && !onButton) {
    e.preventDefault();
    if (g.hand.length) ACT.toggle(g.cursor || 0);
  } else if (key === "Enter" && !onButton) {
    e.preventDefault();
    ACT.playWhenChecked();
  } else if (key === "p" || key === "P") {
    if (document.querySelector("#btn-pass")) { e.preventDefault(); ACT.pass(); }
  } else if (key === "h" || key === "H") {
    if (document.querySelector("#btn-hint")) { e.preventDefault(); ACT.hint(); }
  } else if (/^[1-9]$/.test(key)) {
    const b = actionButtons()[Number(key) - 1];
    if (b) { e.preventDefault(); b.click(); }
  }
}
