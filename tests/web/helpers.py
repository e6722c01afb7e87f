"""Shared steps of the browser tests (tests/web/): opening a signed-in page,
seating bots, playing the browser player's turns by clicking until the
settlement table, and checking that table.

The browser player only clicks what a person would: cards, the bid / declare /
hint / pass / play / reveal buttons and, once, the right mouse button. The hint
button only selects cards that the server's ``hints`` offered; the play
button's state always comes from the server's ``check``.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paiju.tools.bots import Bot, Stats
from tests.platform_procs import Platform

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

#: What the page shows now, read in one go.
SNAPSHOT_JS = """() => {
  const q = (s) => document.querySelector(s);
  const play = q('#btn-play');
  return {
    screen: document.body.dataset.screen,
    settle: !!q('#settlement'),
    bids: [...document.querySelectorAll('.bid-btn')].map((b) => b.dataset.kind),
    declare: document.querySelectorAll('.declare-btn.lit').length,
    play: !!play,
    check: play ? play.dataset.check : null,
    disabled: play ? play.disabled : null,
    hints: q('#btn-hint') ? q('#btn-hint').dataset.hints : null,
    pass: !!q('#btn-pass'),
    reveal: !!q('#btn-reveal'),
    phase: q('#felt') ? q('#felt').dataset.phase : null,
    hand: [...document.querySelectorAll('#hand .card')].map((c) => c.dataset.card),
    connected: !!q('#conn-state.on'),
  };
}"""


@dataclass
class Played:
    """What the browser player did in one game."""

    turns: int = 0
    bids: int = 0
    declares: int = 0
    reveals: int = 0
    passes: int = 0
    right_clicks: int = 0
    illegal_checked: bool = False
    reconnected: bool = False
    shots: list[str] = field(default_factory=list)


async def open_page(browser: Any, platform: Platform, viewport: dict[str, int],
                    name: str) -> Any:
    """A new page signed in as ``name`` (development login by clicking)."""
    ctx = await browser.new_context(viewport=viewport, device_scale_factor=1,
                                    is_mobile=viewport["width"] < 500)
    page = await ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # read by the tests: no script errors
    await page.goto(f"http://127.0.0.1:{platform.gateway_port}/")
    await page.fill("#login-name", name)
    await page.click("#login-btn")
    await page.wait_for_selector(".server")
    return page


class RecordingBot(Bot):
    """A :class:`paiju.tools.bots.Bot` that keeps every event it received (``events``,
    in order), for checks of what other players were sent. ``never_bid``: in
    斗地主's bidding it always declines (a ``no_…`` action), so that a browser
    player who calls becomes the landlord and leads."""

    def __init__(self, *args: Any, never_bid: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.events: list[dict[str, Any]] = []
        self.never_bid = never_bid

    async def _choose(self, turn: dict[str, Any]) -> dict[str, Any] | None:
        declines = [a for a in turn.get("hints") or [] if str(a.get("type", "")).startswith("no_")]
        if self.never_bid and declines:
            return dict(declines[0])
        return await super()._choose(turn)

    def _on_event(self, ev: dict[str, Any]) -> None:
        self.events.append(ev)
        super()._on_event(ev)


async def sit_and_start(page: Any, server: str, room: str, seat: int, others: int) -> None:
    """Sit at ``room`` / ``seat`` by clicking, wait for the others' ready
    marks, press start and wait for the game."""
    await page.click(f'.server[data-server="{server}"]')
    await page.wait_for_selector(f'.room[data-room="{room}"]')
    await page.click(f'.room[data-room="{room}"] .rseat.free[data-seat="{seat}"]')
    await page.wait_for_selector("#btn-ready")
    # the bots sign in, sit and press start on a platform that may have just
    # started, on a loaded machine: a bound for their arrival, not their speed
    await page.wait_for_function(
        "(n) => document.querySelectorAll('#seats .ready-mark').length === n",
        arg=others, timeout=60000)
    await page.click("#btn-ready")
    # a press of a bot undone meanwhile (its presence not yet seen) is made
    # again within its 5 s wait: the same bound as for their arrival
    await page.wait_for_function("() => !!window.paiju.S.game", timeout=60000)


def start_bots(platform: Platform, game: str, room: str, seats: list[int],
               games: int = 1, think: tuple[float, float] = (0.15, 0.35),
               declare_p: float = 0.5, never_bid: bool = False
               ) -> list[tuple[RecordingBot, asyncio.Task[None]]]:
    """Bots at ``seats`` of ``room`` (they sit, press start and play);
    ``declare_p`` as :class:`paiju.tools.bots.Bot` (0: they never declare),
    ``never_bid`` as :class:`RecordingBot`."""
    stats = Stats()
    run = secrets.token_hex(3)
    out = []
    for seat in seats:
        bot = RecordingBot(platform.gateway_url, f"bot{seat}-{run}", game, room, seat, games,
                           think, stats, random.Random(seat), declare_p=declare_p,
                           never_bid=never_bid)
        out.append((bot, asyncio.create_task(bot.run())))
    return out


async def stop_bots(bots: list[tuple[RecordingBot, asyncio.Task[None]]], wait: float = 10) -> None:
    """Let finished bots end; cancel the rest."""
    for bot, task in bots:
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(task), timeout=wait)
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
            with contextlib.suppress(BaseException):
                await bot.client.close()


async def wait_room(page: Any, room: str, state: str, ready_marks: int = 0,
                    timeout: float = 30) -> None:
    """Wait until the room list shows ``room`` in ``state`` with at least
    ``ready_marks`` raised hands."""
    await page.wait_for_function(
        """([room, state, marks]) => {
          const el = document.querySelector(`.room[data-room="${room}"]`);
          return el && el.dataset.state === state &&
            el.querySelectorAll('.hand-up').length >= marks;
        }""", arg=[room, state, ready_marks], timeout=timeout * 1000)


#: Whether the page's game holds a declaration (叫主 / 亮大A) of the browser player.
DECLARED_MINE_JS = """() => { const g = window.paiju.S.game;
  return !!(g && g.declared && g.declared.seat === g.mySeat); }"""


def _timeout(e: Exception) -> bool:
    """Whether ``e`` is Playwright's TimeoutError (the package is optional here)."""
    return "Timeout" in type(e).__name__


async def declare(page: Any, limit: float = 8.0) -> bool:
    """Declare by clicking the first lit declare button, as a person would,
    until the page shows the browser player's declaration (True).

    The declare area is drawn again while cards are dealt (a new card can
    add an option), so the button found may be replaced before or during the
    click: each try looks the button up afresh, and a click the page did not
    take (pressed on one button, released on its replacement) is tried again
    once the declaration has had 2 s to come back. False when no button is lit
    any more (declaring closed, or nothing left to declare over another
    player's declaration), or none took within ``limit`` seconds."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if await page.evaluate(DECLARED_MINE_JS):
            return True
        button = page.locator(".declare-btn.lit").first
        if not await button.count():
            return False
        try:
            await button.click(timeout=1000)
            await page.wait_for_function(DECLARED_MINE_JS, timeout=2000)
        except Exception as e:
            if not _timeout(e):
                raise
    return bool(await page.evaluate(DECLARED_MINE_JS))


#: Whether two cards of different rank (not the two jokers) are illegal for
#: the browser player now, on its turn of play. In doudizhu they always are:
#: its only two-card plays are a pair and the rocket (seed: 牌型). In every
#: game here they are when another seat's single card lies in the trick (not
#: a finished one): a trick game follows with the lead's count (seeds: 跟牌
#: of hunzhan and shengji), daa beats a single with a single or a bomb (a
#: pair or a throw can be legal when following a pair, or when leading in
#: shengji). doudizhu is named so that its check does not wait on the deal
#: giving the player a single to follow.
TWO_RANKS_ILLEGAL_JS = """() => { const g = window.paiju.S.game;
  return !!g && (g.game === 'doudizhu' || !g.trickOver && Object.entries(g.plays).some(
    ([seat, p]) => Number(seat) !== g.mySeat && p.cards && p.cards.length === 1)); }"""


def two_cards_of_different_rank(hand: list[str]) -> tuple[int, int] | None:
    """Indices of two cards that no game here plays together (different ranks,
    not the two jokers)."""
    for i, a in enumerate(hand):
        for j in range(i + 1, len(hand)):
            b = hand[j]
            if a[0] != b[0] and {a, b} != {"SJ", "BJ"} and "J" not in (a[1], b[1]):
                return i, j
    return None


async def play_to_settlement(page: Any, artifacts: Path, prefix: str, *,
                             reconnect: str = "", limit: float = 150,
                             call: bool = False) -> Played:
    """Play the browser player's turns by clicking until the settlement table
    shows. ``reconnect``: ``reload`` (reload the page) or ``drop`` (drop the
    WebSocket) once, at the browser player's second turn of play. ``call``:
    in 斗地主's bidding it calls (or robs) where it can, instead of choosing
    at random."""
    done = Played()
    rng = random.Random(7)
    end = time.monotonic() + limit
    while time.monotonic() < end:
        s = await page.evaluate(SNAPSHOT_JS)
        if s["settle"]:
            return done
        if s["bids"]:
            calls = [k for k in s["bids"] if not k.startswith("no_")]
            kind = calls[0] if call and calls else rng.choice(s["bids"])
            await page.click(f'.bid-btn[data-kind="{kind}"]')
            done.bids += 1
            await page.wait_for_timeout(150)
            continue
        if s["declare"] and not done.declares:
            if await declare(page):
                done.declares += 1
            continue
        if s["play"] and s["hints"] not in (None, "") and s["phase"] in ("play", "burying"):
            await my_turn(page, artifacts, prefix, s, done, reconnect)
            continue
        await page.wait_for_timeout(50)
    raise AssertionError(f"no settlement table within {limit} s: {s}")


async def my_turn(page: Any, artifacts: Path, prefix: str, s: dict[str, Any], done: Played,
                  reconnect: str) -> None:
    """One turn of play: 亮明 where offered (it does not end the turn: the
    caller comes back for the play), (once) an illegal selection, then a hinted
    legal one."""
    if s["reveal"]:
        await page.click("#btn-reveal", timeout=3000)
        await page.wait_for_function(
            "() => { const g = window.paiju.S.game;"
            " return !g || g.revealed === g.mySeat; }", timeout=5000)
        await page.wait_for_selector("#btn-reveal", state="detached", timeout=5000)
        done.reveals += 1
        return
    if not done.illegal_checked and s["phase"] == "play" and \
            await page.evaluate(TWO_RANKS_ILLEGAL_JS):
        pair = two_cards_of_different_rank(s["hand"])
        if pair is not None:
            for i in pair:
                await page.click(f'#hand .card[data-i="{i}"]')
            await page.wait_for_function(
                "() => { const b = document.querySelector('#btn-play');"
                " return !b || ['legal', 'illegal'].includes(b.dataset.check); }")
            state = await page.evaluate(
                "() => { const b = document.querySelector('#btn-play');"
                " return b && [b.dataset.check, b.disabled,"
                " (document.querySelector('#check-why') || {}).textContent]; }")
            if state is not None:
                assert state[0] == "illegal" and state[1] is True, state
                assert state[2], "the refusal is shown in words"
                done.illegal_checked = True
                await page.screenshot(path=str(artifacts / f"{prefix}_illegal.png"))
            for i in pair:  # unselect
                with contextlib.suppress(Exception):
                    await page.click(f'#hand .card[data-i="{i}"]', timeout=2000)
    done.turns += 1
    if reconnect and done.turns == 2 and not done.reconnected:
        hand_before = sorted(s["hand"])
        if reconnect == "reload":
            await page.reload()
        else:
            await page.evaluate("() => window.paiju.actions.drop()")
            await page.wait_for_selector("#conn-state.off", timeout=5000)
        await page.wait_for_selector("#conn-state.on", timeout=15000)
        await page.wait_for_function(
            "(n) => document.querySelectorAll('#hand .card').length === n",
            arg=len(hand_before), timeout=15000)
        after = await page.evaluate(SNAPSHOT_JS)
        assert sorted(after["hand"]) == hand_before, "the same hand after reconnecting"
        done.reconnected = True
        return
    try:
        # The page's own hint list (the server's ``hints``): anything to play?
        playable = await page.evaluate(
            "() => window.paiju.S.game.hints.some((a) => a.type === 'play' || a.type === 'bury')")
        if not playable:
            await page.click("#btn-pass", timeout=3000)
            done.passes += 1
        else:
            await page.click("#btn-hint", timeout=3000)
            await page.wait_for_function(
                "() => { const b = document.querySelector('#btn-play');"
                " return !b || ['legal', 'illegal'].includes(b.dataset.check); }", timeout=5000)
            now = await page.evaluate(SNAPSHOT_JS)
            if now["check"] == "legal":
                assert now["disabled"] is False
                if not done.shots and done.turns >= 3:
                    shot = artifacts / f"{prefix}_game.png"
                    await page.screenshot(path=str(shot))
                    done.shots.append(shot.name)
                    await look_at_scores_and_last_trick(page, artifacts, prefix)
                if done.right_clicks == 0:
                    await page.click("#felt", button="right")  # the seed: right-click plays
                    done.right_clicks += 1
                else:
                    await page.click("#btn-play", timeout=3000)
        await page.wait_for_function(
            "() => !document.querySelector('#btn-play') ||"
            " document.querySelector('#btn-play').dataset.check === 'none'", timeout=5000)
    except Exception as e:  # the turn moved on (a timeout) while clicking: go on
        if not _timeout(e):
            raise


async def look_at_scores_and_last_trick(page: Any, artifacts: Path, prefix: str) -> None:
    """看分 and 上一轮 open at any time (here: during the player's own turn)."""
    for button, title in (("#btn-scores", "看分"), ("#btn-last", "上一轮")):
        await page.click(button, timeout=3000)
        await page.wait_for_selector(".modal-box", timeout=3000)
        assert await page.inner_text(".modal-head b") == title
        await page.screenshot(path=str(artifacts / f"{prefix}_{button[5:]}.png"))
        await page.click(".modal-head .x", timeout=3000)
        await page.wait_for_selector(".modal-box", state="detached", timeout=3000)


async def check_settlement(page: Any, artifacts: Path, prefix: str, me: str,
                           seats: int) -> list[list[str]]:
    """The settlement table: one row per player, own row first; its 开始
    button starts the next game's readiness. Returns the rows' texts."""
    shot = artifacts / f"{prefix}_settlement.png"
    await page.wait_for_timeout(300)
    await page.screenshot(path=str(shot))
    rows: list[list[str]] = await page.evaluate(
        "() => [...document.querySelectorAll('#settlement tbody tr')].map((tr) =>"
        " [tr.className, ...[...tr.children].map((td) => td.textContent)])")
    assert len(rows) == seats, rows
    assert rows[0][0] == "mine" and rows[0][1] == me, rows
    for row in rows:
        assert re.fullmatch(r"[+-]?\d+", row[2]) and re.fullmatch(r"[+-]?\d+", row[3]), row
        assert int(row[4]) >= 0, row
    headers = await page.evaluate(
        "() => [...document.querySelectorAll('#settlement th')].map((th) => th.textContent)")
    assert headers == ["用户名", "分数", "金币", "手续费"]
    assert await page.is_visible("#settlement #btn-ready")
    log = await page.evaluate("() => window.paiju.S.log")
    assert not [line for line in log if line.startswith(f"{me} 超时")], \
        "the browser player acted on every turn of its own"
    return rows


async def no_horizontal_overflow(page: Any) -> None:
    """Nothing wider than the viewport."""
    width = await page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], width


#: The display's parts (settlement lines, role badges, the 倍数 row, the
#: side buttons, 看分 / 上一轮 and their cards, the keyboard's cursor card)
#: that are cut now: out of the viewport, outside the box that clips them, or
#: with text wider than themselves; the cursor card also hidden under a
#: neighbour (its focus ring must show whole). [selector, why, detail].
CUT_JS = """() => {
  const W = document.documentElement.clientWidth;
  const sels = ['#settle-lines dt', '#settle-lines dd', '#seats .badge', '.side .badge',
    '.side .ginfo .row', '.side-btns button', '#actions button', '.modal-box',
    '.modal-box table.scores', '.modal-box .cardrow', '.modal-box .card', '.hand .card.cursor'];
  const bad = [];
  const clipper = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const cs = getComputedStyle(p);
      if (cs.overflowX !== 'visible') return p;
    }
    return null;
  };
  for (const sel of sels) {
    for (const el of document.querySelectorAll(sel)) {
      const r = el.getBoundingClientRect();
      if (!r.width || getComputedStyle(el).visibility === 'hidden') continue;
      const ring = sel.endsWith('cursor') ? 3 : 0;  // the focus ring's width
      if (ring && !el.closest('.hand:focus-within')) continue;  // the ring shows with focus only
      if (r.left - ring < -0.5 || r.right + ring > W + 0.5)
        bad.push([sel, 'viewport', [r.left, r.right, W]]);
      const box = clipper(el);
      if (box) {
        const q = box.getBoundingClientRect();
        if (r.left - ring < q.left - 0.5 || r.right + ring > q.right + 0.5)
          bad.push([sel, 'clipped by ' + (box.id || box.className),
            [r.left, r.right, q.left, q.right]]);
      }
      if (!el.classList.contains('card') && el.innerText.trim()) {
        // the text as drawn (a Range: scrollWidth misses a button's clipped text)
        const range = document.createRange();
        range.selectNodeContents(el);
        const t = range.getBoundingClientRect();
        const cs = getComputedStyle(el);
        const inner = [r.left + parseFloat(cs.borderLeftWidth),
          r.right - parseFloat(cs.borderRightWidth)];
        if (t.left < inner[0] - 0.5 || t.right > inner[1] + 0.5
            || el.scrollWidth > el.clientWidth + 1)
          bad.push([sel, 'text wider than its box', [t.left, t.right, inner, el.innerText]]);
      }
      if (ring) {
        const y = r.top + r.height / 2;
        for (const x of [r.left + 2, r.right - 2]) {
          const top = document.elementFromPoint(x, y);
          if (top && top !== el && !el.contains(top))
            bad.push([sel, 'under another element', [x, y, top.className]]);
        }
      }
    }
  }
  return bad;
}"""


async def nothing_cut(page: Any, where: str) -> None:
    """None of :data:`CUT_JS`'s parts is cut (and no horizontal overflow)."""
    await no_horizontal_overflow(page)
    bad = await page.evaluate(CUT_JS)
    assert not bad, f"{where}: {bad}"




#: Emoji code points in the page's rendered text (innerText of the body, an
#: open dialog included): pictographs and anything shown as emoji by default
#: (the suits ♠♥♣♦ are pictographs too: the client draws them as SVG).
EMOJI_JS = """() => [...document.body.innerText].filter((ch) =>
  /[\\p{Extended_Pictographic}\\p{Emoji_Presentation}]/u.test(ch))"""


async def no_emoji(page: Any, where: str) -> None:
    """The page's rendered text holds no emoji code point."""
    found = await page.evaluate(EMOJI_JS)
    assert not found, f"{where}: emoji code points {found}"


async def fresh_page(browser: Any, viewport: dict[str, int]) -> Any:
    """A page of a new browser context at ``viewport`` (a phone's below 500
    px wide) that keeps its script errors in ``page.errors``."""
    ctx = await browser.new_context(viewport=viewport, device_scale_factor=1,
                                    is_mobile=viewport["width"] < 500)
    page = await ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    return page
