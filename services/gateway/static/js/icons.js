// Icons drawn as inline SVG (no emoji font needed): the four suits, the two
// jokers (大王 a crown, 小王 a star: told apart by shape, not colour alone),
// coins, the clock, the hourglass of the turn, the raised hand of a ready
// player, a card back, the trophy, the speaker of the sound settings and the logo. Each is an <svg class="ic
// ic-NAME"> sized 1em and drawn in the text colour unless it has its own.

const PATHS = {
  S: `<path d="M50 4C40 20 10 38 10 60c0 16 18 26 34 14l-6 22h24l-6-22c16 12 34 2 34-14C90 38 60 20 50 4z"/>`,
  H: `<path d="M50 92L12 54C-2 40 4 14 26 11c12-2 20 6 24 14 4-8 12-16 24-14 22 3 28 29 14 43z"/>`,
  C: `<circle cx="50" cy="28" r="20"/><circle cx="26" cy="58" r="20"/><circle cx="74" cy="58" r="20"/><path d="M44 50h12l6 46H38z"/>`,
  D: `<path d="M50 3l36 47-36 47-36-47z"/>`,
  crown: `<path d="M8 78L4 26l24 22L50 10l22 38 24-22-4 52z"/><rect x="8" y="82" width="84" height="12" rx="3"/>`,
  star: `<path d="M50 6l12 30 32 2-25 21 8 32-27-18-27 18 8-32L6 38l32-2z"/>`,
  coin: `<circle cx="50" cy="50" r="44" fill="#f2b705" stroke="#a87800" stroke-width="8"/><circle cx="50" cy="50" r="24" fill="none" stroke="#a87800" stroke-width="7"/>`,
  clock: `<circle cx="50" cy="54" r="38" fill="none" stroke="currentColor" stroke-width="10"/><path d="M50 54V32M50 54l16 10" stroke="currentColor" stroke-width="9" stroke-linecap="round" fill="none"/><rect x="38" y="2" width="24" height="10" rx="3"/>`,
  hourglass: `<path d="M18 6h64v10c0 16-18 26-22 34 4 8 22 18 22 34v10H18V84c0-16 18-26 22-34-4-8-22-18-22-34z" fill="none" stroke="currentColor" stroke-width="8"/><path d="M34 84c0-8 10-14 16-20 6 6 16 12 16 20z"/>`,
  hand: `<path d="M30 92C18 80 10 64 8 54c-2-8 8-12 12-4l10 16V18c0-8 12-8 12 0v30V10c0-8 12-8 12 0v38V14c0-8 12-8 12 0v36V24c0-8 12-8 12 0v40c0 12-4 22-12 28z"/>`,
  speaker: `<path d="M10 36h18l26-22v72L28 64H10z"/><path d="M66 32c8 10 8 26 0 36M76 20c16 16 16 44 0 60" fill="none" stroke="currentColor" stroke-width="8" stroke-linecap="round"/>`,
  back: `<rect x="14" y="4" width="72" height="92" rx="10" fill="#1e4fa8" stroke="#fff" stroke-width="5"/><path d="M30 24l40 52M70 24L30 76" stroke="#8fb0ee" stroke-width="6"/>`,
  trophy: `<path d="M28 8h44v26c0 14-10 24-22 24S28 48 28 34z"/><path d="M28 16H10c0 16 8 24 20 24M72 16h18c0 16-8 24-20 24" fill="none" stroke="currentColor" stroke-width="7"/><path d="M44 58h12v18H44zM30 80h40v12H30z"/>`,
};

/** The SVG of icon ``name`` (a key of PATHS), with extra classes ``cls``. */
export function icon(name, cls = "") {
  return `<svg class="ic ic-${name} ${cls}" viewBox="0 0 100 100" aria-hidden="true">${PATHS[name] || ""}</svg>`;
}

const SUIT_WORDS = { S: "黑桃", H: "红桃", C: "梅花", D: "方块" };

/** A suit (``S`` ``H`` ``C`` ``D``) as an SVG icon labelled in words. */
export function suitIcon(s) {
  if (!PATHS[s]) return "";
  return `<svg class="ic ic-suit suit-${s}" viewBox="0 0 100 100" role="img" aria-label="${SUIT_WORDS[s]}">${PATHS[s]}</svg>`;
}

const SUIT_OF_SYMBOL = { "\u2660": "S", "\u2665": "H", "\u2663": "C", "\u2666": "D" };

/** HTML of a line of text (already escaped) with each suit symbol drawn as its icon. */
export function withSuitIcons(escaped) {
  return escaped.replace(/[\u2660\u2665\u2663\u2666]/g, (ch) => {
    const s = SUIT_OF_SYMBOL[ch];
    return `<span class="${s === "H" || s === "D" ? "red" : ""}">${suitIcon(s)}</span>`;
  });
}
