// Small drawing tools shared by the views: query, escaping, a change-only
// innerHTML, avatars, the toast and the countdown timers.

import { icon } from "./icons.js";

export const $ = (sel) => document.querySelector(sel);

/** Set ``el``'s HTML only when it changed: a button under the mouse is not
 * replaced by an identical one (a click is a press and a release on one element). */
export function setHtml(el, html) {
  if (el._html === html) return false;
  el.innerHTML = html;
  el._html = html;
  tick(window.paiju ? window.paiju.S : null);
  return true;
}

export function esc(s) {
  return String(s ?? "").replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

// -- avatars (generated: initials on a colour from the player id) -----------------------

function hue(id) {
  let h = 0;
  for (const ch of String(id)) h = (h * 31 + ch.charCodeAt(0)) % 360;
  return h;
}

function initials(name) {
  const n = String(name || "?").trim();
  const parts = n.split(/[\s_\-.]+/).filter(Boolean);
  if (/^[\x00-\x7f]+$/.test(n) && parts.length > 1) return (parts[0][0] + parts[parts.length - 1][0]).toUpperCase();
  return /^[\x00-\x7f]/.test(n) ? n.slice(0, 2).toUpperCase() : n.slice(0, 1);
}

export function avatar(player, name, extra = "") {
  return `<span class="avatar ${extra}" style="background:hsl(${hue(player)},55%,42%)">${esc(initials(name))}</span>`;
}


let toastTimer = null;
export function toast(text, bad = true) {
  const el = $("#toast");
  el.textContent = text;
  el.className = `show ${bad ? "bad" : ""}`;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.className = ""; }, 3500);
}

export function timerHtml(deadline) {
  return deadline ? `<span class="clock">${icon("clock")} <span class="timer" data-deadline="${deadline}"></span></span>` : "";
}

// -- time ------------------------------------------------------------------------------------------

export function tick(S) {
  const now = S && S.conn ? S.conn.now() : Date.now();
  for (const el of document.querySelectorAll(".timer[data-deadline]")) {
    const d = Number(el.dataset.deadline);
    if (!d) { el.textContent = ""; continue; }
    const left = Math.max(0, Math.ceil((d - now) / 1000));
    el.textContent = String(left);
    el.classList.toggle("urgent", left <= 5);
  }
}

/** The AI player mark under a seated player's name: "(机器人)" where the room's seat says ``ai``. */
export function aiMark(p) {
  return p && p.ai ? `<div class="ai-mark">(机器人)</div>` : "";
}
