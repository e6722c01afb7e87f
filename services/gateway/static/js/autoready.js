// Auto-ready (再来一局): a toggle remembered in localStorage; while it is on,
// the page sends the room's ``ready`` itself once a settlement table has been
// shown for SHOW_MS (so the player reads it first), as the 开始 button does.

const KEY = "paiju.autoReady";
/** How long a settlement table is shown before the automatic ``ready``. */
export const SHOW_MS = 3000;

let armed = null;   // the result the timer is armed for
let timer = null;

/** Whether auto-ready is on (in this browser). */
export function autoReadyOn() {
  try { return localStorage.getItem(KEY) === "1"; } catch { return false; }
}

/** Turn auto-ready on or off (remembered in this browser). */
export function setAutoReady(on) {
  try { localStorage.setItem(KEY, on ? "1" : "0"); } catch { /* private mode: this page only */ }
  if (!on) disarm();
}

function disarm() {
  if (timer) clearTimeout(timer);
  timer = null;
  armed = null;
}

/** After each redraw: arm the automatic ``ready`` when my settlement table
 * is shown at a room where I sit and have not pressed 开始; ``ready`` is the
 * page's own 开始 action. */
export function autoReadyCheck(S, ready) {
  const room = S.room;
  const me = room && S.me && room.seats.find((s) => s.player === S.me.player);
  const shown = S.screen === "table" && S.result && !S.modal && me && !me.ready;
  if (!autoReadyOn() || !shown) {
    if (armed && armed !== S.result) disarm();
    return;
  }
  if (armed === S.result) return;
  disarm();
  armed = S.result;
  const result = S.result;
  timer = setTimeout(() => {
    timer = null;
    if (autoReadyOn() && S.result === result) ready();
  }, SHOW_MS);
}

/** The toggle's HTML (a button with id ``id`` that says whether it is on). */
export function autoReadyHtml(id) {
  const on = autoReadyOn();
  return `<button id="${id}" class="toggle${on ? " on" : ""}" data-act="autoReady" aria-pressed="${on}">` +
    `自动开始：${on ? "开" : "关"}</button>`;
}
