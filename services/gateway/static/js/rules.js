// Rules at hand (规则说明), docs/client-protocol.md "Rules": the 规则 buttons
// and the panel they open. The words are the game package's (the ``rules``
// command); a settlement line opens the section the reply's ``lines`` names.

import { S, toast, render, call } from "./store.js";
import { esc } from "./dom.js";
import { errorText } from "./text.js";

const cache = new Map();  // game -> the rules reply

/** A 规则 button of ``game`` (``id``: the element's id, optional). */
export function rulesButton(game, id = "") {
  if (!game) return "";
  return `<button class="rules-btn"${id ? ` id="${esc(id)}"` : ""} data-act="openRules" data-game="${esc(game)}">规则</button>`;
}

/** A settlement line's label as a link to the rule behind it. */
export function ruleLink(game, label) {
  if (!game) return esc(label);
  return `<button class="link rule-link" data-act="openRules" data-game="${esc(game)}" data-label="${esc(label)}" title="查看规则">${esc(label)}</button>`;
}

async function rulesOf(game) {
  if (cache.has(game)) return cache.get(game);
  const r = await call("rules", { game });
  if (r.ok) cache.set(game, r);
  return r;
}

function panelHtml(r, open) {
  return `<div class="rules-panel" id="rules-panel" data-game="${esc(r.game)}">` + r.sections.map((s) =>
    `<section class="rule${s.id === open ? " open" : ""}" id="rule-${esc(s.id)}" data-rule="${esc(s.id)}">` +
    `<h4>${esc(s.title)}</h4><p>${esc(s.text)}</p></section>`).join("") + `</div>`;
}

/** The actions app.js adds: ``openRules(game, label)`` (label: a settlement
 * line's, to open at the section that produced it). */
export function rulesActions() {
  return {
    async openRules(game, label) {
      const r = await rulesOf(game);
      if (!r.ok) { toast(errorText(r)); return; }
      const open = label ? (r.lines || {})[label] || "" : "";
      S.modal = { title: r.title, passive: true, html: panelHtml(r, open) };
      render();
      if (open) {
        const el = document.getElementById(`rule-${open}`);
        if (el) el.scrollIntoView({ block: "start" });
      }
    },
  };
}
