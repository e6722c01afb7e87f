// Sounds and alerts, synthesised in the page with Web Audio (no audio
// files): my turn, each of the last 5 seconds of my clock, 报单 / 报双, a bomb
// or the rocket, the game's end. Mute and volume are remembered in
// localStorage. While it is my turn and the tab is hidden, the tab's title
// flashes. ``sound.hook(name)`` (tests, other modules) hears every sound the
// page plays, muted or not.

const KEY = "paiju.sound";
const TITLE_MARK = "【轮到你了】";

/** Notes of each sound: [frequency Hz, start s, length s, wave]. */
const NOTES = {
  turn: [[660, 0, 0.12, "sine"], [880, 0.13, 0.16, "sine"]],
  tick: [[1200, 0, 0.05, "square"]],
  alert: [[988, 0, 0.1, "triangle"], [988, 0.14, 0.1, "triangle"], [988, 0.28, 0.1, "triangle"]],
  bomb: [[110, 0, 0.35, "sawtooth"], [70, 0.05, 0.45, "square"]],
  rocket: [[220, 0, 0.15, "sawtooth"], [440, 0.12, 0.15, "sawtooth"], [880, 0.24, 0.3, "sawtooth"]],
  win: [[523, 0, 0.14, "sine"], [659, 0.14, 0.14, "sine"], [784, 0.28, 0.3, "sine"]],
  lose: [[392, 0, 0.18, "sine"], [330, 0.18, 0.18, "sine"], [262, 0.36, 0.35, "sine"]],
  over: [[523, 0, 0.14, "sine"], [392, 0.16, 0.3, "sine"]],
};

export const sound = {
  /** Called with each sound's name before it plays (muted too); null: none. */
  hook: null,
  /** The names played so far on this page (the last 50). */
  played: [],
};

let ctx = null;

/** ``{muted, volume}`` as remembered (volume 0..1, default 0.6). */
export function soundSettings() {
  let v = {};
  try { v = JSON.parse(localStorage.getItem(KEY) || "{}") || {}; } catch { v = {}; }
  const volume = typeof v.volume === "number" ? Math.min(1, Math.max(0, v.volume)) : 0.6;
  return { muted: !!v.muted, volume };
}

/** Remember ``{muted?, volume?}``. */
export function setSound(change) {
  const next = { ...soundSettings(), ...change };
  try { localStorage.setItem(KEY, JSON.stringify(next)); } catch { /* this page only */ }
}

/** Play sound ``name`` (one of NOTES) unless muted. */
export function play(name) {
  sound.played.push(name);
  if (sound.played.length > 50) sound.played.shift();
  if (sound.hook) sound.hook(name);
  const { muted, volume } = soundSettings();
  const notes = NOTES[name];
  if (muted || !volume || !notes) return;
  try {
    ctx ||= new (window.AudioContext || window.webkitAudioContext)();
    if (ctx.state === "suspended") ctx.resume();
    const t0 = ctx.currentTime + 0.01;
    for (const [freq, at, len, wave] of notes) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = wave;
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, t0 + at);
      gain.gain.exponentialRampToValueAtTime(0.25 * volume, t0 + at + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, t0 + at + len);
      osc.connect(gain).connect(ctx.destination);
      osc.start(t0 + at);
      osc.stop(t0 + at + len + 0.02);
    }
  } catch { /* no Web Audio here: silence */ }
}

// -- the game's moments -------------------------------------------------------------------

/** A game event (docs/client-protocol.md) of game ``g`` as sounds: my turn
 * (not the declaring window's), 报单 / 报双, a bomb or the rocket, the end. */
export function soundOfEvent(g, ev) {
  const t = ev.type;
  if (t === "your_turn" && ev.phase !== "declaring") {
    play("turn");
    flashTitle();
  } else if (t === "played") {
    const calls = Array.isArray(ev.announce) ? ev.announce : [];
    if (calls.includes("王炸")) play("rocket");
    else if (calls.includes("炸弹")) play("bomb");
    if (calls.includes("报单") || calls.includes("报双")) play("alert");
  } else if (t === "game_finished" && ev.reason !== "redeal" && ev.reason !== "void") {
    const pts = ev.result && Array.isArray(ev.result.points) && g.mySeat !== null
      ? ev.result.points[g.mySeat] : null;
    play(typeof pts !== "number" ? "over" : pts > 0 ? "win" : pts < 0 ? "lose" : "over");
  }
}

let lastTick = "";

/** Each of the last 5 seconds of my turn's clock ticks once (called often). */
export function clockTick(S, now) {
  const g = S && S.game;
  const dl = g && g.my && g.phase !== "finished" && g.my.phase !== "declaring" ? Number(g.my.deadline) : 0;
  if (!dl) return;
  const left = Math.ceil((dl - now) / 1000);
  const key = `${dl}:${left}`;
  if (left >= 1 && left <= 5 && key !== lastTick) {
    lastTick = key;
    play("tick");
  }
}

// -- the tab's title --------------------------------------------------------------------------

let flashTimer = null;
let plainTitle = null;

function myTurnNow() {
  const S = window.paiju && window.paiju.S;
  return !!(S && S.game && S.game.my && S.game.phase !== "finished");
}

function stopFlash() {
  if (flashTimer) clearInterval(flashTimer);
  flashTimer = null;
  if (plainTitle !== null) document.title = plainTitle;
  plainTitle = null;
}

/** While the tab is hidden and it is my turn, the title alternates with 【轮到你了】. */
export function flashTitle() {
  if (!document.hidden || flashTimer) return;
  plainTitle = document.title;
  document.title = TITLE_MARK + plainTitle;
  flashTimer = setInterval(() => {
    if (!document.hidden || !myTurnNow()) { stopFlash(); return; }
    document.title = document.title.startsWith(TITLE_MARK) ? plainTitle : TITLE_MARK + plainTitle;
  }, 1000);
}

// -- the controls (a dialog from the top bar's 声音 button) ------------------------------------

/** The sound dialog's HTML: mute and volume. */
export function soundDialogHtml() {
  const { muted, volume } = soundSettings();
  return `<div class="sound-box"><label><input type="checkbox" id="sound-mute"${muted ? " checked" : ""}> 静音</label>` +
    `<label>音量 <input type="range" id="sound-volume" min="0" max="100" step="5" value="${Math.round(volume * 100)}"></label>` +
    `<button id="sound-test" data-act="soundTest">试听</button></div>`;
}

/** Listen to the dialog's controls and stop the title's flashing when the tab shows. */
export function bindSound() {
  document.addEventListener("change", (e) => {
    if (e.target.id === "sound-mute") setSound({ muted: e.target.checked });
  });
  document.addEventListener("input", (e) => {
    if (e.target.id === "sound-volume") setSound({ volume: Number(e.target.value) / 100 });
  });
  document.addEventListener("visibilitychange", () => { if (!document.hidden) stopFlash(); });
}
