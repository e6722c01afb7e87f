"""The web client in real headless Chromium: the two other games and the
paths the first tests never took.

- shengji (one deck, server shengji-1deck-10) with the browser player as the
  dealer: the bots never declare (``declare_p=0``), the browser player clicks
  the first declare button that lights up during the deal (a redeal when its
  hand has no 3: the next deal is tried), so it is the first declarer and
  thus the first game's dealer (rulings.md "shengji"). It sees the kitty,
  selects kitty-size cards (five first: the 扣底 button stays disabled) and
  buries them; the game goes on to the settlement table. The buried cards
  leave the hand, and no bot is ever sent them (checked by field).
- daa: one browser player and four bots to the settlement table, clicking 亮明
  where the hints offer it.
- A gap in an event ``seq``: the page drops one public event (a bot's play)
  and, later, one private event (its own hand) as if they were lost; the next
  event shows the gap, the page asks ``view`` and the hand, the hand counts and
  the trick are drawn again as the server's view has them. Then the socket
  closes at the player's turn: after signing in again the page draws the
  server's view likewise; the game goes on to the settlement table.

Screenshots (artifacts/web/): shengji_bury.png, shengji_game.png,
shengji_settlement.png, daa_game.png, daa_settlement.png, gap_redrawn.png.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.platform_procs import Platform
from tests.web.counter_steps import counter_steps_hold, watch_counter
from tests.web.helpers import (
    DESKTOP,
    SNAPSHOT_JS,
    RecordingBot,
    check_settlement,
    declare,
    open_page,
    play_to_settlement,
    start_bots,
    stop_bots,
)

pytestmark = pytest.mark.timeout(240)

#: Bots think 0.05–0.1 s a move: a game fits the test.
QUICK = (0.05, 0.1)


@pytest.fixture(scope="module")
def platform_env() -> dict[str, str]:
    """A quicker paced deal here (30 ms a card; the declaring window after the
    deal stays 5 s, time enough to click)."""
    return {"TABLE_DEAL_INTERVAL_MS": "30"}


#: The game as the page holds it, read in one go.
GAME_JS = """() => {
  const g = window.paiju.S.game;
  if (!g) return null;
  return {
    id: g.id, phase: g.phase, dealer: g.dealer, mySeat: g.mySeat,
    my: g.my ? g.my.phase : null, hintsReady: !!g.hintsReady, revealed: g.revealed,
    lit: document.querySelectorAll('.declare-btn.lit').length,
  };
}"""

#: Every card of ``ev`` by field: [(field path, card)]. Cards travel only in
#: lists of card strings (records.md notation) under these keys.
CARD_KEYS = {"cards", "hand", "kitty_shown", "buried", "declared", "kitty"}


def cards_by_field(ev: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """Each card string found under a card key of ``ev`` (nested objects and
    lists of objects included, e.g. a view's trick), with its field path."""
    if isinstance(ev, dict):
        for k, v in ev.items():
            here = f"{path}.{k}" if path else k
            if k in CARD_KEYS and isinstance(v, list):
                for c in v:
                    if isinstance(c, str):
                        yield here, c
            yield from cards_by_field(v, here)
    elif isinstance(ev, list):
        for i, v in enumerate(ev):
            yield from cards_by_field(v, f"{path}[{i}]")


async def sit_down(page: Any, server: str, room: str, seat: int) -> None:
    """Open ``server``'s rooms and sit at ``room`` / ``seat`` by clicking."""
    await page.click(f'.server[data-server="{server}"]')
    await page.wait_for_selector(".room")
    await page.click(f'.room[data-room="{room}"] .rseat.free[data-seat="{seat}"]')
    await page.wait_for_selector("#btn-ready")


async def press_start(page: Any, others: int) -> None:
    """Wait for the others' ready marks, then press start."""
    await page.wait_for_function(
        "(n) => document.querySelectorAll('#seats .ready-mark').length === n",
        arg=others, timeout=20000)
    await page.click("#btn-ready")
    await page.wait_for_function("() => !!window.paiju.S.game", timeout=20000)


async def declare_until_dealer(page: Any, max_deals: int = 8, limit: float = 70) -> int:
    """Click the first declare button that lights up in each deal until the
    browser player is the dealer in the bury step; returns how many deals it
    took (a deal without a 3 in the player's hand is redealt)."""
    deals: list[str] = []
    clicked: set[str] = set()
    end = time.monotonic() + limit
    while time.monotonic() < end:
        g = await page.evaluate(GAME_JS)
        if g is not None:
            if g["id"] not in deals:
                deals.append(g["id"])
                assert len(deals) <= max_deals, f"no 3 to declare in {max_deals} deals"
            if g["lit"] and g["id"] not in clicked:
                await declare(page)
                clicked.add(g["id"])
                continue
            if g["phase"] in ("burying", "play"):
                assert g["dealer"] == g["mySeat"], f"the first declarer deals: {g}"
                if g["my"] == "burying":
                    return len(deals)
        await page.wait_for_timeout(30)
    raise AssertionError(f"not the dealer within {limit} s after {len(deals)} deals")


@pytest.mark.slow
async def test_shengji_dealer_buries(platform: Platform, browser: Any,
                                     artifacts: Path) -> None:
    """shengji, one deck: the browser player declares, deals, sees the kitty,
    buries six cards by clicking (five keep 扣底 disabled) and plays to the
    settlement; the buried cards leave its hand and reach no other player."""
    me = f"庄家{secrets.token_hex(2)}"
    room = "shengji-1deck-10-01"
    page = await open_page(browser, platform, DESKTOP, me)
    await watch_counter(page)
    await sit_down(page, "shengji-1deck-10", room, 0)
    bots = start_bots(platform, "shengji", room, [1, 2, 3], think=QUICK, declare_p=0)
    try:
        await press_start(page, 3)
        deals = await declare_until_dealer(page)
        assert deals >= 1
        # The bury step: the hand holds the kitty, the 扣底 button waits for six cards.
        await page.wait_for_function(
            "() => { const b = document.querySelector('#btn-hint');"
            " return b && b.dataset.hints !== ''; }", timeout=10000)
        assert (await page.inner_text("#btn-play")).replace(" ", "") == "扣底"
        kitty = await page.eval_on_selector_all(
            "#center .kitty .card", "els => els.map((e) => e.dataset.card)")
        assert len(kitty) == 6, "one deck: a kitty of 6 (seed 底牌), shown in the middle"
        side_kitty = await page.eval_on_selector_all(
            "#side .kit .card", "els => els.map((e) => e.dataset.card)")
        assert sorted(side_kitty) == sorted(kitty), "the dealer's kitty in the side panel"
        before = (await page.evaluate(SNAPSHOT_JS))["hand"]
        assert len(before) == 12 + 6 and set(kitty) <= set(before), before
        # Five of the lowest cards of the hand it held (the hand is highest
        # first) and the lowest kitty card: a choice the hints do not make.
        own = [i for i in range(len(before) - 1, -1, -1) if before[i] not in kitty][:5]
        low_kitty = max(i for i, c in enumerate(before) if c in kitty)
        for i in own:
            await page.click(f'#hand .card[data-i="{i}"]')
        await page.wait_for_function(
            "() => document.querySelector('#btn-play').dataset.check === 'illegal'",
            timeout=5000)
        assert await page.is_disabled("#btn-play")
        assert await page.inner_text("#check-why"), "the refusal in words"
        await page.click(f'#hand .card[data-i="{low_kitty}"]')
        await page.wait_for_function(
            "() => document.querySelector('#btn-play').dataset.check === 'legal'",
            timeout=5000)
        assert await page.locator("#hand .card.sel").count() == 6
        await page.screenshot(path=str(artifacts / "shengji_bury.png"))
        buried = sorted(before[i] for i in [*own, low_kitty])
        await page.click("#btn-play")
        await page.wait_for_function(
            "() => document.querySelectorAll('#hand .card').length === 12", timeout=5000)
        after = (await page.evaluate(SNAPSHOT_JS))["hand"]
        assert sorted(after) == sorted(set(before) - set(buried)), "the buried cards left"
        side_kitty = await page.eval_on_selector_all(
            "#side .kit .card", "els => els.map((e) => e.dataset.card)")
        assert sorted(side_kitty) == buried, "the side panel shows what was buried"

        done = await play_to_settlement(page, artifacts, "shengji", limit=80)
        assert done.turns >= 2 and done.illegal_checked
        await check_settlement(page, artifacts, "shengji", me, 4)
        assert await counter_steps_hold(page, "shengji", platform.data / "table.db") > 0
        game_id = await page.evaluate("() => window.paiju.S.result.game_id")
        assert not page.errors, page.errors
    finally:
        await stop_bots(bots)
    check_kitty_hidden([b for b, _ in bots], game_id, buried, kitty)


def check_kitty_hidden(bots: list[RecordingBot], game_id: str, buried: list[str],
                       kitty: list[str]) -> None:
    """No bot was sent the buried cards before the end (one deck: every card
    is unique): no ``kitty`` event and no ``buried`` field, none of them in a
    play, and a buried card from the dealer's own hand in no field at all (the
    shown kitty's cards only in ``kitty_shown`` and in the game's display of
    the kitty shown while the dealer buries, ``display.kitty``)."""
    for bot in bots:
        events = [ev for ev in bot.events if ev.get("game_id") == game_id]
        types = [ev["type"] for ev in events]
        assert "game_finished" in types and "kitty_shown" in types, types
        events = events[:types.index("game_finished")]
        assert "kitty" not in types, f"{bot.name} was sent the kitty"
        seen = [(ev["type"], where, c) for ev in events for where, c in cards_by_field(ev)]
        assert seen, "the bots' events carry cards (the check looks at the right fields)"
        assert not [s for s in seen if s[1].endswith("buried")], seen
        leaks = [s for s in seen if s[2] in buried and not (s[2] in kitty and (
            s[0] == "kitty_shown" or s[1] == "display.kitty.cards"))]
        assert not leaks, f"{bot.name} saw buried cards: {leaks}"
        shown = [c for ev in events if ev["type"] == "kitty_shown" for c in ev["cards"]]
        assert sorted(shown) == sorted(kitty), "everyone saw the kitty before the bury"


@pytest.mark.slow
async def test_daa_full_game(platform: Platform, browser: Any, artifacts: Path) -> None:
    """daa: the browser player and four bots play to the settlement table; the
    declare (亮大A) and 亮明 buttons are clicked where they light up."""
    me = f"大A{secrets.token_hex(2)}"
    room = "daa-10-01"
    page = await open_page(browser, platform, DESKTOP, me)
    await watch_counter(page)
    await sit_down(page, "daa-10", room, 0)
    bots = start_bots(platform, "daa", room, [1, 2, 3, 4], think=QUICK)
    try:
        await press_start(page, 4)
        done = await play_to_settlement(page, artifacts, "daa", limit=80)
        assert done.turns >= 1
        assert done.shots == ["daa_game.png"], done
        rows = await check_settlement(page, artifacts, "daa", me, 5)
        # rulings.md "daa": every outcome's points sum to zero (e.g. 2k + k − 3·k).
        assert sum(int(r[2]) for r in rows) == 0, rows
        assert await counter_steps_hold(page, "daa", platform.data / "table.db") > 0
        # Every 亮明 is told on the page: the browser player's own (clicked where
        # the hints offered it) and the bots' (their ``revealed`` events).
        log = await page.evaluate("() => window.paiju.S.log")
        names = {bot.seat: bot.name for bot, _ in bots}
        names[0] = me
        game_id = await page.evaluate("() => window.paiju.S.result.game_id")
        revealed = {ev["seat"] for bot, _ in bots for ev in bot.events
                    if ev.get("type") == "revealed" and ev.get("game_id") == game_id}
        assert (0 in revealed) == (done.reveals == 1), (revealed, done)
        for seat in revealed:
            assert f"{names[seat]} 亮明" in log, (seat, log)
        assert not page.errors, page.errors
    finally:
        await stop_bots(bots)


#: Counts the page's ``view`` commands (window.__probe.views).
PROBE_JS = """() => {
  const conn = window.paiju.S.conn;
  const call = conn.call.bind(conn);
  window.__probe = { views: 0, dropped: null, viewsAtDrop: 0 };
  conn.call = (cmd, args) => {
    if (cmd === 'view') window.__probe.views += 1;
    return call(cmd, args);
  };
}"""

#: Lose the next event of a kind as if the network had (``public``: another
#: seat's ``played``; ``private``: my own ``hand``): the page never sees it.
#: ``drawnAtGap``: the hand the page draws when the next private event (the
#: one whose ``seq`` shows the gap) arrives, before the page handles it.
DROP_JS = """(kind) => {
  const S = window.paiju.S, conn = S.conn, probe = window.__probe;
  const pass = conn.hooks.onEvent;
  const PRIVATE = ['hand', 'your_turn', 'kitty', 'view', 'counter'];
  const drawn = () => [...document.querySelectorAll('#hand .card')].map((c) => c.dataset.card);
  probe.dropped = null;
  probe.drawnAtGap = null;
  conn.hooks.onEvent = (ev) => {
    const hit = kind === 'public'
      ? ev.type === 'played' && S.game && ev.seat !== S.game.mySeat
      : ev.type === 'hand';
    if (!hit) { pass(ev); return; }
    probe.dropped = ev;
    probe.viewsAtDrop = probe.views;
    conn.hooks.onEvent = (next) => {
      if (PRIVATE.includes(next.type)) { probe.drawnAtGap = drawn(); conn.hooks.onEvent = pass; }
      pass(next);
    };
  };
}"""

#: My turn of play, with the hints in and no view on its way.
MY_PLAY_TURN_JS = """() => {
  const S = window.paiju.S, g = S.game;
  return !!(g && g.my && g.my.phase === 'play' && g.hintsReady && !S.viewPending &&
    document.querySelector('#btn-hint'));
}"""

#: What the page draws: the hand, the others' card counts, the cards before each seat.
DRAWN_JS = """() => ({
  hand: [...document.querySelectorAll('#hand .card')].map((c) => c.dataset.card),
  counts: Object.fromEntries([...document.querySelectorAll('#seats .pbox[data-seat]')].map(
    (b) => [b.dataset.seat, Number((b.querySelector('.pcount span') || {}).textContent)])),
  zones: Object.fromEntries([...document.querySelectorAll('#seats .pzone[data-seat]')].map(
    (z) => [z.dataset.seat, [...z.querySelectorAll('.card')].map((c) => c.dataset.card)])),
  pub: window.paiju.S.game.pub,
})"""


async def wait_my_play_turn(page: Any, limit: float = 40) -> None:
    """Until the browser player's turn of play (clicking a lit declare button
    during a deal, so that the game does not wait for a redeal)."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if await page.evaluate(MY_PLAY_TURN_JS):
            return
        if await page.locator(".declare-btn.lit").count():
            await declare(page)
        await page.wait_for_timeout(50)
    raise AssertionError(f"no turn of play within {limit} s")


async def play_a_hint(page: Any) -> list[str]:
    """Select the first hinted play, play it; the cards played."""
    await page.click("#btn-hint")
    await page.wait_for_function(
        "() => document.querySelector('#btn-play').dataset.check === 'legal'", timeout=5000)
    cards: list[str] = await page.eval_on_selector_all(
        "#hand .card.sel", "els => els.map((e) => e.dataset.card)")
    # A click pressed on the play button and released on its redrawn copy is
    # lost: while the same legal selection waits, click again.
    for _ in range(3):
        await page.click("#btn-play")
        try:
            await page.wait_for_function(
                "() => !document.querySelector('#btn-play') ||"
                " document.querySelector('#btn-play').dataset.check === 'none'", timeout=5000)
            return cards
        except Exception as e:
            if "Timeout" not in type(e).__name__:
                raise
    state = await page.evaluate(
        "() => [document.querySelector('#toast').textContent, window.paiju.S.log.slice(-5)]")
    raise AssertionError(f"the hinted play {cards} was not played: {state}")


async def play_until_a_bot_plays(page: Any, limit: float = 30) -> None:
    """Play a hint at each of the browser player's turns until another seat's
    play went by (the one ``DROP_JS`` loses): a player who wins the trick
    leads the next one before any other seat plays."""
    end = time.monotonic() + limit
    while not await page.evaluate("() => !!window.__probe.dropped"):
        assert time.monotonic() < end, f"no other seat played within {limit} s"
        if await page.evaluate(MY_PLAY_TURN_JS):
            await play_a_hint(page)
        await page.wait_for_timeout(50)


async def assert_drawn_as_view(page: Any) -> dict[str, Any]:
    """The page draws what the server's view says now (at the browser player's
    turn, while the game waits for it): the hand in the server's order, each
    other seat's card count, the cards of the trick before each seat, and the
    page's public ``seq`` is the view's. Returns the view."""
    reply = await page.evaluate("async () => await window.paiju.S.conn.call('view')")
    assert reply["ok"], reply
    view = reply["view"]
    drawn = await page.evaluate(DRAWN_JS)
    assert drawn["hand"] == view["hand"], (drawn["hand"], view["hand"])
    for seat, count in enumerate(view["hand_counts"]):
        if seat != view["seat"]:
            assert drawn["counts"][str(seat)] == count, (seat, drawn["counts"], view["hand_counts"])
    for entry in view["trick"]:
        assert drawn["zones"][str(entry["seat"])] == entry["cards"], (drawn["zones"], view["trick"])
    assert drawn["pub"] == view["seq"]
    return dict(view)


@pytest.mark.slow
async def test_event_gap_asks_view_and_redraws(platform: Platform, browser: Any,
                                               artifacts: Path) -> None:
    """hunzhan: a lost public event (a bot's play) and later a lost private one
    (the player's own hand after its play): each time the next event's ``seq``
    shows the gap, the page asks ``view`` and draws the hand, the others' card
    counts and the trick as the view has them."""
    me = f"断档{secrets.token_hex(2)}"
    room = "hunzhan-10-01"
    page = await open_page(browser, platform, DESKTOP, me)
    await sit_down(page, "hunzhan-10", room, 0)
    bots = start_bots(platform, "hunzhan", room, [1, 2, 3], think=QUICK)
    try:
        await press_start(page, 3)
        await page.evaluate(PROBE_JS)
        await wait_my_play_turn(page)

        # A bot's play is lost: its card count would stay too high without the view.
        await page.evaluate(DROP_JS, "public")
        await play_until_a_bot_plays(page)
        await page.wait_for_function(
            "() => window.__probe.views > window.__probe.viewsAtDrop", timeout=10000)
        dropped = await page.evaluate("() => window.__probe.dropped")
        assert dropped["type"] == "played" and dropped["cards"], dropped
        await wait_my_play_turn(page)
        await assert_drawn_as_view(page)

        # My own hand after my play is lost: the played cards would stay in it.
        hand_before = (await page.evaluate(DRAWN_JS))["hand"]
        await page.evaluate(DROP_JS, "private")
        played = await play_a_hint(page)
        await page.wait_for_function("() => !!window.__probe.drawnAtGap", timeout=15000)
        assert await page.evaluate("() => window.__probe.dropped.type") == "hand"
        assert await page.evaluate("() => window.__probe.drawnAtGap") == hand_before, \
            "the hand event was lost: until the gap shows, the page draws the played cards"
        await page.wait_for_function(
            "() => window.__probe.views > window.__probe.viewsAtDrop", timeout=15000)
        await wait_my_play_turn(page)
        view = await assert_drawn_as_view(page)
        left = list(hand_before)
        for c in played:
            left.remove(c)
        assert sorted(view["hand"]) == sorted(left), "the view's hand lacks what was played"
        await page.screenshot(path=str(artifacts / "gap_redrawn.png"))

        # The socket closes at my turn: the page signs in again, asks ``view``
        # and draws the same (the game held my turn meanwhile).
        views = await page.evaluate("() => window.__probe.views")
        await page.evaluate("() => window.paiju.actions.drop()")
        await page.wait_for_selector("#conn-state.off", timeout=5000)
        await page.wait_for_selector("#conn-state.on", timeout=15000)
        await page.wait_for_function("(n) => window.__probe.views > n", arg=views, timeout=15000)
        await wait_my_play_turn(page)
        await assert_drawn_as_view(page)
        # And the game goes on from the redrawn page to its end.
        done = await play_to_settlement(page, artifacts, "gap", limit=60)
        assert done.turns >= 1
        await check_settlement(page, artifacts, "gap", me, 4)
        assert not page.errors, page.errors
    finally:
        await stop_bots(bots, wait=0.1)
