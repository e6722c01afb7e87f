"""A full game of each of the four games played with the keyboard only at
1280 px, bots at the other seats, in real Chromium against the
real platform; at the settlement table (and doudizhu's and daa's turns) the
page is also looked at 390 px: nothing of the display's parts cut
(``helpers.nothing_cut``).

Each game checks what the issue asks of it, from the events the bots were
sent (never from the page's own computing):

- every game: sign-in, server, seat and 开始 by Tab and Enter; play by
  ← → Space Enter P H and digits (tests/web/keyboard.py); the hand is a
  listbox of options labelled in words (黑桃10), every button has a name,
  every seat a label with the player's name; the server's settlement lines
  (``game_finished.lines``) are shown with the players' names.
- doudizhu: the 倍数 panel at each turn is 2^robs × 2^(bombs and rockets so
  far) (rulings.md "doudizhu"); at each turn of play the other seats' card
  counts are 17 (the landlord 20, with the kitty: seed 002) less what they
  played; every bomb, rocket and every seat left with
  one card is announced (炸弹 / 王炸 / 报单); the lines say 地主胜 / 农民胜
  as the seat that ran out says, the multiplier (× 2 for spring), the bombs.
- shengji (one deck): the browser player declares (bots never do), deals and
  buries with the keyboard; a second keyboard player sees the dealer's count
  at 12 after 扣底 (seed 底牌: 一副牌每方得12张) less what it played; the
  lines: 上台 exactly when the defenders have ≥ 40 (seed table 一), the next
  dealer the dealer's 下家 on 上台 else its partner (seed 抢庄 / 上台).
- daa: the declarer is shown as 主方 during the game; the lines name 主方
  and 次方 (or the solo) as the big-A holders' hands say, and the finishing
  order as the player_out events say.
- hunzhan: the keyboard game to the settlement table; 当前主 names who
  declared; 上一轮 during a turn: readable cards, the hand still usable; the
  lines give each seat's points X (its tricks' points) and X − 60 (seed 000
  积分), 最高分 and 下局先摸牌 (the last trick's winner).

Screenshots (artifacts/web/): keys_<game>_keys_turn.png, keys_doudizhu_turn_390.png,
keys_daa_turn_390.png, keys_daa_roles_390.png (where a role badge showed),
keys_<game>_settle_1280.png, keys_<game>_settle_390.png, keys_doudizhu_call.png
(where a call was shown), keys_shengji_counts.png.
"""

from __future__ import annotations

import asyncio
import re
import secrets
from pathlib import Path
from typing import Any

import pytest

from tests.platform_procs import Platform
from tests.web.counter_steps import counter_steps_hold, watch_counter
from tests.web.helpers import (
    DESKTOP,
    PHONE,
    RecordingBot,
    no_emoji,
    nothing_cut,
    start_bots,
    stop_bots,
)
from tests.web.keyboard import (
    KeyPlay,
    open_by_keyboard,
    play_by_keyboard,
    sit_by_keyboard,
    start_by_keyboard,
    tab_to,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(200)]

QUICK = (0.05, 0.1)
SUITS = "♠♥♣♦"


@pytest.fixture(scope="module")
def platform_env() -> dict[str, str]:
    """A quick paced deal (30 ms a card)."""
    return {"TABLE_DEAL_INTERVAL_MS": "30"}


def game_events(bot: RecordingBot, game_id: str) -> list[dict[str, Any]]:
    return [ev for ev in bot.events if ev.get("game_id") == game_id]


def check_labels(done: KeyPlay, names: list[str]) -> None:
    """Screen-reader labels at the player's first turn (LABELS_JS)."""
    lab = done.labels
    assert lab["hand"] == "listbox", lab
    assert lab["cards"], lab
    for role, label, selected in lab["cards"]:
        assert role == "option" and selected in ("true", "false"), lab["cards"]
        assert re.fullmatch(r"(黑桃|红桃|梅花|方块)(10|[2-9AJQK])|大王|小王", label or ""), label
    assert lab["buttons"] and all(name for _, name in lab["buttons"]), lab["buttons"]
    assert len(lab["seats"]) == len(names), lab["seats"]
    for name in names:
        assert any(label and name in label for label in lab["seats"]), (name, lab["seats"])


async def shown_lines(page: Any) -> list[tuple[str, str]]:
    out: list[list[str]] = await page.evaluate(
        "() => [...document.querySelectorAll('#settlement #settle-lines .sline')].map((l) =>"
        " [l.querySelector('dt').innerText.trim(), l.querySelector('dd').innerText.trim()])")
    return [(a, b) for a, b in out]


def expected_lines(lines: list[dict[str, Any]], names: dict[int, str]) -> list[tuple[str, str]]:
    """The server's lines as the page should read them: the seats' names
    (``你`` for the page's own), the value without suit symbols (drawn as SVG)."""
    out = []
    for line in lines:
        who = "、".join(names[s] for s in line.get("seats", []))
        value = "".join(ch for ch in line.get("value", "") if ch not in SUITS)
        out.append((line["label"], " ".join(x for x in (who, value) if x)))
    return out


async def settle_and_look(page: Any, artifacts: Path, prefix: str, finished: dict[str, Any],
                          names: dict[int, str]) -> list[tuple[str, str]]:
    """The settlement table shows the server's lines; at 1280 and at 390 px,
    without overflow or emoji. Returns the lines shown."""
    await page.wait_for_selector("#settlement #settle-lines", timeout=10000)
    lines = await shown_lines(page)
    assert lines == expected_lines(finished["lines"], names), (lines, finished["lines"])
    await no_emoji(page, f"{prefix} settlement")
    await page.screenshot(path=str(artifacts / f"{prefix}_settle_1280.png"))
    await page.set_viewport_size(PHONE)
    await page.wait_for_timeout(200)
    await nothing_cut(page, f"{prefix} settlement at 390 px")
    assert await page.is_visible("#settle-lines")
    box = await page.evaluate("() => { const r = document.querySelector('#settle-lines')"
                              ".getBoundingClientRect(); return [r.left, r.right]; }")
    assert box[0] >= 0 and box[1] <= PHONE["width"], box
    await page.screenshot(path=str(artifacts / f"{prefix}_settle_390.png"))
    await page.set_viewport_size(DESKTOP)
    return lines


async def look_at_phone_size(page: Any, artifacts: Path, name: str) -> None:
    """The table at 390 px wide (nothing cut: the 倍数 row, the role badges,
    the buttons, the focused cursor card; a screenshot), then 1280 again."""
    await page.set_viewport_size(PHONE)
    await page.wait_for_timeout(150)
    await nothing_cut(page, f"{name} at 390 px")
    await no_emoji(page, name)
    await page.screenshot(path=str(artifacts / f"{name}_390.png"))
    await page.set_viewport_size(DESKTOP)
    await page.wait_for_timeout(100)


async def finished_of(bot: RecordingBot, page: Any) -> tuple[str, dict[str, Any]]:
    game_id: str = await page.evaluate("() => window.paiju.S.result.game_id")
    for _ in range(50):
        ev = [e for e in game_events(bot, game_id) if e["type"] == "game_finished"]
        if ev:
            return game_id, ev[0]
        await asyncio.sleep(0.1)
    raise AssertionError("the bot was not told of the end")


#: shengji ranks high to low (seed 牌的大小, side suits: A K … 4).
SJ_RANKS = "AKQJT9876432"


def assert_hand_order(hand: list[str], trump: str) -> None:
    """The hand as players hold it (seed 004 主牌 / 牌的大小): the trumps (jokers,
    5s, 3s, 2s, the trump suit) first, 大王 小王 5 3 2 high to low; then each
    side suit in one run, high to low."""
    def trump_card(c: str) -> bool:
        return c in ("BJ", "SJ") or c[0] in "532" or c[1] == trump
    n = sum(1 for c in hand if trump_card(c))
    assert all(trump_card(c) for c in hand[:n]), ("trumps first", hand)
    power = ["BJ", "SJ", "5", "3", "2"]
    def tkey(c: str) -> tuple[int, int, int]:
        head = c if c in ("BJ", "SJ") else c[0]
        if head in power:
            return (power.index(head), 0 if c[1] == trump else 1, 0)
        return (len(power), 0, SJ_RANKS.index(c[0]))
    keys = [tkey(c) for c in hand[:n]]
    assert keys == sorted(keys), ("trumps high to low", hand)
    suits = [c[1] for c in hand[n:]]
    runs = [s for i, s in enumerate(suits) if i == 0 or suits[i - 1] != s]
    assert len(runs) == len(set(runs)), ("each side suit together", hand)
    for s in set(suits):
        ranks = [SJ_RANKS.index(c[0]) for c in hand[n:] if c[1] == s]
        assert ranks == sorted(ranks), ("side suit high to low", hand)


async def keyboard_seat(browser: Any, platform: Platform, server: str, room: str,
                        seat: int, name: str) -> Any:
    page = await open_by_keyboard(browser, platform, DESKTOP, name)
    await sit_by_keyboard(page, server, room, seat)
    return page


async def test_doudizhu_by_keyboard(platform: Platform, browser: Any, artifacts: Path) -> None:
    me = f"键{secrets.token_hex(2)}"
    room = "doudizhu-10-03"
    page = await keyboard_seat(browser, platform, "doudizhu-10", room, 0, me)
    bots = start_bots(platform, "doudizhu", room, [1, 2], think=QUICK)
    watcher = bots[0][0]
    names = {0: "你", 1: bots[0][0].name, 2: bots[1][0].name}

    def expected_multiplier(game_id: str) -> int:
        evs = game_events(watcher, game_id)
        robs = sum(1 for e in evs if e["type"] == "bid" and e["kind"] == "rob")
        bombs = sum(1 for e in evs if e["type"] == "played"
                    and e["combination"] in ("bomb", "rocket"))
        return int(2 ** (robs + bombs))

    def cards_left(game_id: str) -> dict[int, int] | None:
        """Each seat's cards by the seed (17, the landlord 17 + 3 of the
        kitty) less what it played; None before the kitty is shown."""
        evs = game_events(watcher, game_id)
        shown = [e for e in evs if e["type"] == "kitty_shown"]
        if not shown:
            return None
        left = {s: 20 if s == shown[0]["landlord"] else 17 for s in range(3)}
        for e in evs:
            if e["type"] == "played":
                left[e["seat"]] -= len(e["cards"])
        return left

    async def counts_check(p: Any, game_id: str) -> None:
        # the count beside each other seat, at my turn (nobody else can play)
        end = asyncio.get_running_loop().time() + 3
        while True:
            want = cards_left(game_id)
            if want is None:
                return
            shown = {s: int(await p.inner_text(f'#seats .pbox[data-seat="{s}"] .pcount span'))
                     for s in (1, 2)}
            if shown == {s: want[s] for s in (1, 2)}:
                done_counts.append(shown)
                return
            assert asyncio.get_running_loop().time() < end, (shown, want)
            await asyncio.sleep(0.1)

    done_counts: list[dict[int, int]] = []

    async def on_turn(p: Any, done: KeyPlay) -> None:
        game_id = await p.evaluate("() => window.paiju.S.game.id")
        if await p.evaluate("() => window.paiju.S.game.phase") == "play":
            await counts_check(p, game_id)
        want = expected_multiplier(game_id)
        await p.wait_for_function(
            "(m) => [...document.querySelectorAll('#side .row')].some((r) =>"
            " r.innerText.replace(/\\s/g, '') === '倍数×' + m)", arg=want, timeout=3000)
        done.multipliers.append((game_id, want))
        if len(done.multipliers) == 1:
            await look_at_phone_size(p, artifacts, "keys_doudizhu_turn")
        shot = artifacts / "keys_doudizhu_call.png"
        if await p.query_selector(".pzone .announce") and not shot.exists():
            await p.screenshot(path=str(shot))

    try:
        await start_by_keyboard(page)
        done = await play_by_keyboard(page, artifacts, "keys_doudizhu", declare=False,
                                      on_turn=on_turn)
        assert done.turns >= 1 and done.space_checked and done.multipliers
        assert done_counts, "the other seats' card counts were checked at a turn of play"
        check_labels(done, [names[1], names[2]])
        game_id, fin = await finished_of(watcher, page)
        evs = game_events(watcher, game_id)
        landlord = next(e["landlord"] for e in evs if e["type"] == "kitty_shown")
        played: dict[int, int] = {0: 0, 1: 0, 2: 0}
        plays_by: dict[int, int] = {0: 0, 1: 0, 2: 0}
        log = await page.evaluate("() => window.paiju.S.log")
        for e in evs:
            if e["type"] != "played":
                continue
            s = e["seat"]
            played[s] += len(e["cards"])
            plays_by[s] += 1
            left = (20 if s == landlord else 17) - played[s]
            who = me if s == 0 else names[s]
            calls = {"bomb": "炸弹", "rocket": "王炸"}
            if e["combination"] in calls:
                assert f"{who} {calls[e['combination']]}" in " | ".join(log), (e, log)
            if left == 1:
                assert any(line.startswith(who) and "报单" in line for line in log), (s, log)
        winner = next(s for s in played if played[s] == (20 if s == landlord else 17))
        bombs = sum(1 for e in evs if e["type"] == "played"
                    and e["combination"] in ("bomb", "rocket"))
        farmers = [s for s in range(3) if s != landlord]
        spring = (all(plays_by[s] == 0 for s in farmers) if winner == landlord
                  else plays_by[landlord] == 1)
        lines = dict(await settle_and_look(page, artifacts, "keys_doudizhu", fin, names))
        if winner == landlord:
            assert lines["地主胜"] == names[landlord], lines
        else:
            assert lines["农民胜"] == "、".join(names[s] for s in farmers), lines
        assert lines["倍数"] == f"×{expected_multiplier(game_id) * (2 if spring else 1)}"
        assert lines["炸弹"] == str(bombs)
        assert ("春天" in lines or "反春" in lines) == spring
        assert not page.errors, page.errors
    finally:
        await stop_bots(bots, wait=0.1)


async def test_shengji_by_keyboard(platform: Platform, browser: Any, artifacts: Path) -> None:
    room = "shengji-1deck-10-02"
    me, other = f"升{secrets.token_hex(2)}", f"级{secrets.token_hex(2)}"
    page = await keyboard_seat(browser, platform, "shengji-1deck-10", room, 0, me)
    page2 = await keyboard_seat(browser, platform, "shengji-1deck-10", room, 1, other)
    bots = start_bots(platform, "shengji", room, [2, 3], think=QUICK, declare_p=0)
    watcher = bots[0][0]
    counts: list[tuple[int, int]] = []

    async def count_check(p: Any, done: KeyPlay) -> None:
        g = await p.evaluate("() => { const g = window.paiju.S.game;"
                             " return { id: g.id, dealer: g.dealer, phase: g.phase }; }")
        if g["phase"] != "play" or g["dealer"] == 1 or counts:
            return
        dealer = g["dealer"]
        out = sum(len(e["cards"]) for e in game_events(watcher, g["id"])
                  if e["type"] == "played" and e["seat"] == dealer)
        shown = await p.inner_text(f'#seats .pbox[data-seat="{dealer}"] .pcount span')
        counts.append((int(shown), 12 - out))
        await p.screenshot(path=str(artifacts / "keys_shengji_counts.png"))

    orders: list[list[str]] = []

    async def order_check(p: Any, done: KeyPlay) -> None:
        g = await p.evaluate("() => ({ phase: window.paiju.S.game.phase,"
                             " trump: window.paiju.S.game.trump })")
        if g["phase"] == "play" and len(orders) < 3:
            hand = await p.evaluate(
                "() => [...document.querySelectorAll('#hand .card')].map((c) => c.dataset.card)")
            assert_hand_order(hand, g["trump"])
            orders.append(hand)

    try:
        await asyncio.gather(start_by_keyboard(page), start_by_keyboard(page2))
        done, _ = await asyncio.gather(
            play_by_keyboard(page, artifacts, "keys_shengji", declare=True, limit=170,
                             on_turn=order_check),
            play_by_keyboard(page2, artifacts, "keys_shengji2", declare=False, limit=170,
                             on_turn=count_check))
        assert done.declares >= 1 and done.buries == 1, done
        assert counts and counts[0][0] == counts[0][1], counts
        assert orders, "the hand was looked at in play"
        check_labels(done, [other, bots[0][0].name, bots[1][0].name])
        game_id, fin = await finished_of(watcher, page)
        dealer = fin["result"]["detail"]["dealer"]
        assert dealer == 0, "the first declarer deals (seed 抢庄)"
        names = {0: "你", 1: other, 2: bots[0][0].name, 3: bots[1][0].name}
        lines = dict(await settle_and_look(page, artifacts, "keys_shengji", fin, names))
        pts = int(lines["闲家得分"])
        defenders = f"{names[1]}、{names[3]}"
        if pts >= 40:  # seed 局分计算 (一): 40 points and more go up
            assert lines["上台"] == defenders and lines["下台"] == f"{names[0]}、{names[2]}"
            assert lines["下局庄家"] == names[1]  # the dealer's 下家
        else:
            assert lines["未上台"] == defenders and "上台" not in lines
            assert lines["下局庄家"] == names[2]  # the dealer's partner
        assert lines["庄家"] == names[0]
        trick_pts = sum(e.get("points", 0) for e in game_events(watcher, game_id)
                        if e["type"] == "trick_won" and e["seat"] in (1, 3))
        assert pts >= trick_pts
        if "未抠底" in lines["底牌"]:
            assert pts == trick_pts, (pts, trick_pts)
        assert not page.errors and not page2.errors, (page.errors, page2.errors)
    finally:
        await stop_bots(bots, wait=0.1)


async def test_daa_by_keyboard(platform: Platform, browser: Any, artifacts: Path) -> None:
    me = f"大{secrets.token_hex(2)}"
    room = "daa-10-03"
    page = await keyboard_seat(browser, platform, "daa-10", room, 0, me)
    bots = start_bots(platform, "daa", room, [1, 2, 3, 4], think=QUICK, declare_p=0.7)
    watcher = bots[0][0]
    names = {0: "你", **{bot.seat: bot.name for bot, _ in bots}}

    badges_looked: list[bool] = []

    async def roles(p: Any, done: KeyPlay) -> None:
        if not done.roles_seen:
            await look_at_phone_size(p, artifacts, "keys_daa_turn")
        elif not badges_looked and await p.query_selector("#seats .badge.role"):
            badges_looked.append(True)  # a role badge at 390 px too
            await look_at_phone_size(p, artifacts, "keys_daa_roles")
        done.roles_seen.append(await p.evaluate(
            "() => [[...document.querySelectorAll('#seats .pbox')].map((b) =>"
            " [Number(b.dataset.seat), (b.querySelector('.badge.role') || {}).textContent || '']),"
            " (document.querySelector('#my-role') || {}).textContent || '']"))

    try:
        await start_by_keyboard(page)
        done = await play_by_keyboard(page, artifacts, "keys_daa", declare=False, on_turn=roles)
        check_labels(done, [names[s] for s in (1, 2, 3, 4)])
        game_id, fin = await finished_of(watcher, page)
        evs = game_events(watcher, game_id)
        declared = [e for e in evs if e["type"] == "declared"]
        single = [e for e in declared if len(e["cards"]) == 1]
        counter = [e for e in declared if len(e["cards"]) == 2]
        if single and not counter and done.roles_seen:
            d = single[0]["seat"]
            seen = done.roles_seen[0]
            role_of = dict(seen[0])
            # a declarer holding the other big A too may reveal it before the
            # first play (rulings.md daa): then it is a named solo, 名双大A
            revealed = any(e["type"] == "revealed" and e["seat"] == d for e in evs)
            want = "名双大A" if revealed else "主方"
            assert (seen[1] if d == 0 else role_of[d]) == want, (d, seen, revealed)
        big = next(e["big_a"] for e in evs if e["type"] == "declaring_closed")
        # who holds the big A: each seat's first hand after the declaring closed
        holders: list[int] = []
        for bot, _ in bots:
            hand = game_events(bot, game_id)
            closed = next(i for i, e in enumerate(hand) if e["type"] == "declaring_closed")
            h = next(e["cards"] for e in hand[closed:] if e["type"] == "hand")
            holders += [bot.seat] * h.count("A" + big)
        holders += [0] * (2 - len(holders))  # two decks: two big-A cards; the rest are mine
        lines = dict(await settle_and_look(page, artifacts, "keys_daa", fin, names))
        assert lines["大A"] == "A"  # the suit is drawn as SVG
        if len(set(holders)) == 1:
            assert (lines.get("名双大A") or lines.get("暗双大A")) == names[holders[0]], lines
        else:
            assert {lines["主方"], lines["次方"].split(" ")[0]} == {names[s] for s in holders}
            if single and not counter:
                assert lines["主方"] == names[single[0]["seat"]]
        order = [e["seat"] for e in evs if e["type"] == "player_out"]
        assert lines["出完顺序"] == "、".join(names[s] for s in order), (lines, order)
        assert not page.errors, page.errors
    finally:
        await stop_bots(bots, wait=0.1)


async def test_hunzhan_by_keyboard(platform: Platform, browser: Any, artifacts: Path) -> None:
    """hunzhan by keyboard; 当前主 names who declared it; 上一轮 (opened with
    Tab and Enter) has cards big enough to read and leaves the hand usable
    during the player's own turn (the game's keys too); Escape closes it."""
    me = f"混{secrets.token_hex(2)}"
    room = "hunzhan-10-03"
    page = await open_by_keyboard(browser, platform, DESKTOP, me)
    await watch_counter(page)
    await sit_by_keyboard(page, "hunzhan-10", room, 0)
    bots = start_bots(platform, "hunzhan", room, [1, 2, 3], think=QUICK)
    watcher = bots[0][0]
    names = {0: me, **{bot.seat: bot.name for bot, _ in bots}}
    looked: list[str] = []

    async def last_trick_dialog(p: Any, done: KeyPlay) -> None:
        g = await p.evaluate("() => { const g = window.paiju.S.game;"
                             " return { id: g.id, phase: g.phase, last: !!g.lastTrick }; }")
        if g["phase"] != "play" or not g["last"] or looked:
            return
        declared = [e for e in game_events(watcher, g["id"]) if e["type"] == "declared"]
        assert declared, "a game in play had a declaration"
        trump = await p.inner_text("#trump")
        assert names[declared[-1]["seat"]] in trump, ("当前主 names the declarer", trump)
        await tab_to(p, "#btn-last")
        await p.keyboard.press("Enter")
        await p.wait_for_selector(".modal-bg.passive .modal-box .card", timeout=4000)
        width = await p.evaluate("() => document.querySelector('.modal-box .card')"
                                 ".getBoundingClientRect().width")
        assert width >= 40, f"上一轮's cards are {width} px wide"
        under = await p.evaluate("""() => { const c = document.querySelector('#hand .card');
          const r = c.getBoundingClientRect();
          const el = document.elementFromPoint(r.left + 8, r.top + r.height / 2);
          return !!el && !!el.closest('#hand'); }""")
        assert under, "the dialog leaves the hand reachable"
        await p.screenshot(path=str(artifacts / "keys_hunzhan_last_trick.png"))
        await p.keyboard.press("End")
        assert await p.evaluate("() => !!document.activeElement.closest('#hand')")
        await p.keyboard.press("Escape")
        await p.wait_for_selector(".modal-box", state="detached", timeout=3000)
        looked.append(g["id"])

    try:
        await start_by_keyboard(page)
        done = await play_by_keyboard(page, artifacts, "keys_hunzhan", declare=True, limit=170,
                                      on_turn=last_trick_dialog)
        assert done.turns >= 1 and done.space_checked
        assert looked, "上一轮 was looked at during a turn"
        check_labels(done, [bot.name for bot, _ in bots])
        await page.wait_for_selector("#settlement tbody tr", timeout=5000)
        rows = await page.evaluate("() => document.querySelectorAll('#settlement tbody tr').length")
        assert rows == 4
        assert await counter_steps_hold(page, "hunzhan", platform.data / "table.db") > 0
        game_id, fin = await finished_of(watcher, page)
        shown = {0: "你", **{s: n for s, n in names.items() if s}}
        lines = await settle_and_look(page, artifacts, "keys_hunzhan", fin, shown)
        # seed 000 积分: each seat's X (its tricks' points, as trick_won told the
        # bots) and X − 60; 最高分: the most X; 下局先摸牌: the last trick's winner
        won = [e for e in game_events(watcher, game_id) if e["type"] == "trick_won"]
        x = [sum(e["points"] for e in won if e["seat"] == s) for s in range(4)]
        assert sum(x) == 240  # seed 分牌: 总计240分
        scored = [text for label, text in lines if label == "得分"]
        assert scored == [f"{shown[s]} {x[s]} 分（{x[s] - 60:+d}）".replace("（+0）", "（0）")
                          for s in range(4)], scored
        best = "、".join(shown[s] for s in range(4) if x[s] == max(x))
        assert lines[0] == ("最高分", f"{best} {max(x)} 分"), lines
        assert ("下局先摸牌", shown[won[-1]["seat"]]) in lines, lines
        assert not page.errors, page.errors
    finally:
        await stop_bots(bots, wait=0.1)
