"""What players met, checked in real headless Chromium against the page's own
modules and style sheet (the platform serves them):

- a played card's twin (two-deck games: 混战, 升级, 大A hold two 3♦) is not
  left selected: the selection keeps only cards still in the hand that were
  selected, never the twin of the card that left;
- my role's badge in the side panel (我的 地主 / 农民, the roles of the other
  games) is readable: its text has a contrast ratio of at least 4.5:1 with
  its background (WCAG 2.1 AA, 1.4.3), measured on the computed colours;
- a settlement shown once is not shown again as 你离开期间牌局已结束 when the
  room's last result names it by the room's game id and the page knew it by
  the id of the deal played out (a game with a redeal);
- the 2nd and the 3rd timeout in a row of mine warn that the 4th is an
  escape (seed 000 超时不出; rulings.md: the 4th consecutive timeout is an
  escape), on a server whose turn is 2 s;
- quick start's toast names the server and the table (never the raw room
  id), covers no seat, and the side log starts afresh in the new room;
- 战绩 calls the others at the table 同桌 where some are partners (升级, 大A,
  斗地主's farmers), 对手 in 混战, and marks a game ended by an escape;
- the replay counts tricks from 第 1 墩 and names 大A's declaring 亮大A (the
  game's own word, seed 003);
- 看分 in 斗地主 shows the multiplier, what made it and the cards left;
- the bury prompt says how many cards (扣 6 张 with one deck, seed 004 底牌)
  and is bold;
- 离开旁观 fits its button;
- on a phone what shows of each card in the hand is at least 24 px wide.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import pytest

from tests.platform_procs import Platform
from tests.web.helpers import DESKTOP, PHONE, open_page, sit_and_start, start_bots, stop_bots

pytestmark = pytest.mark.timeout(120)

#: WCAG 2.1 AA: normal text (the badges are 12 px).
AA = 4.5

ROOMS = """\
defaults: {fee_rate: 0.02, rooms: 2, ready_seconds: 30}
servers:
  - {server: doudizhu-quick, name: 斗地主 快, game: doudizhu, base: 10, min_coins: 0,
     options: {turn_seconds: 2}}
"""


@pytest.fixture(scope="module")
def platform_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """This module's rooms: a doudizhu server whose turn is 2 s."""
    rooms = tmp_path_factory.mktemp("rooms") / "rooms.yaml"
    rooms.write_text(ROOMS, encoding="utf-8")
    yield {"ROOMS_FILE": str(rooms), "TABLE_DEAL_INTERVAL_MS": "0"}


async def test_a_played_card_leaves_its_twin_unselected(platform: Platform,
                                                        browser: Any) -> None:
    page = await open_page(browser, platform, DESKTOP, f"双{secrets.token_hex(2)}")
    kept = await page.evaluate("""async () => {
      const { keepSelection } = await import('/js/state.js');
      const sel = (o, s, n) => [...keepSelection(o, new Set(s), n)].sort();
      return {
        // one of 3D 3D selected and played: the other 3D stays unselected
        played: sel(['3D', '3D', '5S', 'KH'], [0], ['3D', '5S', 'KH']),
        // 3D and KH selected, the 3D played: KH stays selected (now index 2)
        rest: sel(['3D', '3D', '5S', 'KH'], [1, 3], ['3D', '5S', 'KH']),
        // the hand grew (a kitty taken): the selection stays as it was
        grown: sel(['3D', '5S'], [0], ['3D', '3D', '5S']),
      };
    }""")
    assert kept == {"played": [], "rest": [2], "grown": [0]}


def contrast(fg: tuple[float, float, float], bg: tuple[float, float, float]) -> float:
    """WCAG 2.1 contrast ratio of two sRGB colours (0-255 each)."""
    def luminance(c: tuple[float, float, float]) -> float:
        lin = [(v / 255) / 12.92 if v / 255 <= 0.04045 else ((v / 255 + 0.055) / 1.055) ** 2.4
               for v in c]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


async def test_my_role_badge_is_readable(platform: Platform, browser: Any) -> None:
    page = await open_page(browser, platform, DESKTOP, f"色{secrets.token_hex(2)}")
    # the side panel's row as the table draws it (table_view.js: 我的 and my badges)
    colours = await page.evaluate("""() => {
      const side = document.createElement('div');
      side.className = 'side';
      side.innerHTML = ['ll', 'farmer', 'role'].map((k) =>
        `<div class="row"><span>我的</span><span><span class="badge ${k}">${k}</span></span></div>`
      ).join('');
      document.body.appendChild(side);
      const rgb = (s) => s.match(/[\\d.]+/g).slice(0, 3).map(Number);
      const out = {};
      for (const b of side.querySelectorAll('.badge')) {
        const st = getComputedStyle(b);
        out[b.textContent] = [rgb(st.color), rgb(st.backgroundColor)];
      }
      side.remove();
      return out;
    }""")
    for kind, (fg, bg) in colours.items():
        assert contrast(tuple(fg), tuple(bg)) >= AA, (kind, fg, bg)


async def test_a_result_seen_by_its_deal_is_not_shown_again(platform: Platform,
                                                           browser: Any) -> None:
    page = await open_page(browser, platform, DESKTOP, f"重{secrets.token_hex(2)}")
    seen = await page.evaluate("""async () => {
      const { markResultSeen, resultSeen } = await import('/js/store.js');
      markResultSeen('deal-2');  // the settlement shown: the redealt game's id
      return [resultSeen({ game_id: 'sitting-1', record_id: 'deal-2' }),
              resultSeen({ game_id: 'sitting-3', record_id: 'deal-4' })];
    }""")
    assert seen == [True, False]


async def test_the_second_and_third_timeouts_warn_of_the_escape(platform: Platform,
                                                               browser: Any) -> None:
    page = await open_page(browser, platform, DESKTOP, f"慢{secrets.token_hex(2)}")
    room = "doudizhu-quick-01"
    bots = start_bots(platform, "doudizhu", room, [1, 2], think=(0.05, 0.1))
    try:
        await sit_and_start(page, "doudizhu-quick", room, 0, 2)
        # I never act: every turn of mine times out
        await page.wait_for_function(
            "() => document.body.innerText.includes('你已连续超时 2 次，再超时 2 次将按逃跑处理')",
            timeout=60000)
        await page.wait_for_function(
            "() => document.body.innerText.includes('你已连续超时 3 次，再超时 1 次将按逃跑处理')",
            timeout=60000)
    finally:
        await stop_bots(bots, wait=0.1)


async def test_quick_start_names_the_table_and_starts_a_fresh_side_log(
        platform: Platform, browser: Any) -> None:
    page = await open_page(browser, platform, DESKTOP, f"快{secrets.token_hex(2)}")
    await page.evaluate("() => window.paiju.S.log.push('上一桌的话')")
    await page.click('.quick[data-game="doudizhu"]')
    await page.wait_for_function("() => document.body.dataset.screen === 'table'")
    toast = await page.inner_text("#toast")
    # the server's name and 01 号桌 / 02 号桌, never the raw room id
    assert "号桌" in toast and "doudizhu-quick-" not in toast, toast
    assert "上一桌的话" not in await page.evaluate("() => window.paiju.S.log")
    # the toast covers no seat of the table
    overlaps = await page.evaluate("""() => {
      const t = document.querySelector('#toast').getBoundingClientRect();
      return [...document.querySelectorAll('#seats .pbox')].filter((p) => {
        const b = p.getBoundingClientRect();
        return b.left < t.right && t.left < b.right && b.top < t.bottom && t.top < b.bottom;
      }).length;
    }""")
    assert overlaps == 0


async def test_history_names_tablemates_and_marks_an_escape(platform: Platform,
                                                            browser: Any) -> None:
    page = await open_page(browser, platform, DESKTOP, f"战{secrets.token_hex(2)}")
    texts = await page.evaluate("""async () => {
      const { renderHistory } = await import('/js/records_view.js');
      const row = (game, reason, partners) => ({ game_id: game, ts_ms: Date.now(),
        server: 's', room: 's-01', game, reason, result: 'loss', points: -3, coins: -30,
        fee: 0, opponents: ['甲', '乙', '丙'], partners });
      document.querySelector('#screen-history').hidden = false;
      renderHistory({ servers: [], history: { games: [row('shengji', 'escape', true),
        row('hunzhan', 'normal', false)], next: 0 } });
      return [...document.querySelectorAll('#screen-history .hist-row')].map((r) => r.innerText);
    }""")
    # 升级 and 大A seat partners together: they are 同桌, not all 对手
    assert "同桌：甲、乙、丙" in texts[0] and "对手" not in texts[0], texts
    assert "逃跑" in texts[0], texts
    # 混战 is every seat for itself
    assert "对手：甲、乙、丙" in texts[1] and "逃跑" not in texts[1], texts


async def test_replay_counts_tricks_from_one_and_says_daa_declares(platform: Platform,
                                                                  browser: Any) -> None:
    page = await open_page(browser, platform, DESKTOP, f"放{secrets.token_hex(2)}")
    text = await page.evaluate("""async () => {
      const { renderReplay } = await import('/js/records_view.js');
      const players = [0, 1, 2, 3, 4].map((s) => ({ seat: s, player: `p${s}`, name: `座${s}` }));
      document.querySelector('#screen-replay').hidden = false;
      renderReplay({ me: { player: 'p0' }, servers: [], replay: {
        game: 'daa', room: 'daa-100-01', steps: 9, step: 1, tricks: [4, 8], players,
        settlement: [], viewer: 'player', rules: { declare_label: '亮大A' },
        frame: { phase: 'play', action: { seat: 0, type: 'declare', cards: ['AS'] },
                 hands: [[], [], [], [], []], table: { declarer: 0 }, to_act: [1],
                 trick_won: false } } });
      return document.querySelector('#screen-replay').innerText;
    }""")
    # before the first trick is won it is 第 1 墩; 大A declares by 亮大A (seed 003)
    assert "第 1 墩" in text and "第 0 墩" not in text, text
    assert "亮大A" in text and "叫主" not in text, text


async def test_doudizhu_scores_show_the_multiplier(platform: Platform, browser: Any) -> None:
    page = await open_page(browser, platform, DESKTOP, f"分{secrets.token_hex(2)}")
    text = await page.evaluate("""async () => {
      const { scoresHtml } = await import('/js/modals.js');
      const box = document.createElement('div');
      box.innerHTML = scoresHtml({ game: null, room: null },
        { multiplier: 4, robs: 1, bombs: 1, cards_left: [20, 17, 17] });
      return box.innerText;
    }""")
    assert "倍数 ×4" in text and "抢地主 1 次" in text and "炸弹 1 个" in text, text
    assert "20 张" in text and "本游戏不计分牌" not in text, text


async def test_the_bury_prompt_says_how_many_cards(platform: Platform, browser: Any) -> None:
    page = await open_page(browser, platform, DESKTOP, f"扣{secrets.token_hex(2)}")
    prompt = await page.evaluate("""async () => {
      const { renderActions } = await import('/js/controls.js');
      const kitty = ['5H', '6H', '7H', '8H', '9H', 'TH'];
      renderActions({ watch: null, room: { room: 'r' }, game: {
        phase: 'burying', my: { phase: 'burying', deadline: null, can_pass: false },
        check: { state: 'none', error: '' }, hints: [{ type: 'bury', cards: kitty }],
        hintsReady: true, myKitty: kitty, rules: {} } });
      const el = document.querySelector('#bury-need');
      return { text: el.innerText, weight: getComputedStyle(el).fontWeight };
    }""")
    # seed 004 底牌: one deck leaves 6 for the kitty, and the dealer buries as many
    assert prompt["text"] == "请选择 6 张牌扣底", prompt
    assert int(prompt["weight"]) >= 600, prompt


async def test_leave_watching_fits_its_button(platform: Platform,
                                                        browser: Any) -> None:
    page = await open_page(browser, platform, DESKTOP, f"看{secrets.token_hex(2)}")
    fits = await page.evaluate("""() => {
      document.querySelector('#screen-table').hidden = false;
      const side = document.querySelector('#side');
      side.innerHTML = '<div class="side-btns"><span class="badge watching">旁观中</span>' +
        '<button id="btn-scores">看分</button><button id="btn-last">上一轮</button>' +
        '<button id="btn-unwatch" class="danger">离开旁观</button></div>';
      const b = side.querySelector('#btn-unwatch');
      return [b.scrollWidth, b.clientWidth];
    }""")
    assert fits[0] <= fits[1], fits


async def test_phone_hand_cards_are_tap_targets_of_24_px(platform: Platform,
                                                         browser: Any) -> None:
    # hands of 25 (升级 with two decks, seed 004), 21 (混战, seed 000) and 16
    # cards (any hand later in a game) at 390 px: what shows of each card,
    # raised or not, is at least 24 px wide (WCAG 2.2, 2.5.8 target size)
    page = await open_page(browser, platform, PHONE, f"触{secrets.token_hex(2)}")
    widths = await page.evaluate("""async () => {
      const { renderHand, resetHand } = await import('/js/controls.js');
      document.querySelector('#screen-table').hidden = false;
      const all = ['3S','3S','4S','5S','6S','7S','8S','9S','TS','JS','QS','KS','AS',
                   '3H','4H','5H','6H','7H','8H','9H','TH','JH','QH','KH','AH'];
      const out = {};
      for (const n of [25, 21, 16]) {
        resetHand();
        renderHand({ screen: 'table', game: { id: `g${n}`, phase: 'play',
          hand: all.slice(0, n), sel: new Set([3, 4]), cursor: 0, myKitty: [], my: null } });
        out[n] = [];
        for (const row of document.querySelectorAll('#hand .hand-row')) {
          const cards = [...row.querySelectorAll('.card')].map((c) => c.getBoundingClientRect());
          cards.forEach((b, i) =>
            out[n].push((i + 1 < cards.length ? cards[i + 1].left : b.right) - b.left));
        }
      }
      return out;
    }""")
    for n, shown in widths.items():
        assert len(shown) == int(n) and min(shown) >= 24, (n, shown)
