// Cards flying from the deck to the seats while dealing.

import { $ } from "./dom.js";

function targetOf(g, seat) {
  const felt = $("#felt");
  if (!felt) return null;
  const f = felt.getBoundingClientRect();
  let r;
  if (seat === g.mySeat) r = $("#hand").getBoundingClientRect();
  else {
    const el = document.querySelector(`#seats .pbox[data-seat="${seat}"]`);
    if (!el) return null;
    r = el.getBoundingClientRect();
  }
  return { x: r.left + r.width / 2 - (f.left + f.width / 2), y: Math.min(r.top + r.height / 2, f.bottom) - (f.top + f.height / 2) };
}

function fly(g, seat) {
  const layer = $("#flylayer");
  const to = targetOf(g, seat);
  if (!layer || !to || !layer.animate) return;
  const el = document.createElement("div");
  el.className = "card back fly";
  layer.appendChild(el);
  const a = el.animate([{ transform: "translate(-50%,-50%) scale(.8)", opacity: 1 },
    { transform: `translate(calc(-50% + ${to.x}px), calc(-50% + ${to.y}px)) scale(.5)`, opacity: 0.3 }],
  { duration: 320, easing: "ease-in" });
  a.onfinish = () => el.remove();
  setTimeout(() => el.remove(), 500); // whatever the animation does
}

/** One card flies from the deck to each seat whose count grew (a paced deal). */
export function flyCards(g, before, after) {
  setTimeout(() => { after.forEach((c, s) => { if (c > (before[s] || 0)) fly(g, s); }); }, 0);
}

/** A whole deal at once (doudizhu): cards fly one round after another. */
export function dealBurst(g, counts) {
  const most = Math.max(...counts);
  for (let k = 0; k < most; k++) {
    setTimeout(() => counts.forEach((c, s) => { if (c > k) fly(g, s); }), 60 + k * 90);
  }
}
