"""What a seat may know: the check that no client was shown another seat's
hidden card, over the frames it received.

A seat knows its own dealt cards, the kitty where it took it, and the cards
the rules showed to everyone before (``played``, ``declared``,
``kitty_shown``, ``taken_back``). :func:`hidden_cards_shown` walks a seat's
frames in the order they came and reports every card list holding a card
beyond that. :class:`CapturingBot` is a bot that keeps the frames it
receives (and when each came), for the check.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from typing import Any

from paiju.rules.ai import PRIVATE_ACTIONS
from paiju.tools.bots import Bot

CARD = re.compile(r"^(?:[2-9TJQKA][SHCD]|BJ|SJ)$")
#: Public events whose ``cards`` the rules show to everyone.
PUBLIC_CARDS = {"played", "declared", "kitty_shown", "taken_back"}
#: A frame the capture adds: a ``seat_view`` reply (``view``, ``legal``,
#: ``history``). Its history's actions other than the private ones
#: (:data:`paiju.rules.ai.PRIVATE_ACTIONS`) show their cards to everyone (their
#: public event may come a moment after the reply); the rest is checked.
SEAT_VIEW = "seat_view"

def card_lists(obj: Any, path: str = "") -> list[tuple[str, list[str]]]:
    """Every list of cards anywhere in ``obj``, with its path."""
    found: list[tuple[str, list[str]]] = []
    if isinstance(obj, list):
        if obj and all(isinstance(x, str) and CARD.match(x) for x in obj):
            found.append((path, obj))
        else:
            for i, x in enumerate(obj):
                found += card_lists(x, f"{path}[{i}]")
    elif isinstance(obj, dict):
        for k, v in obj.items():
            found += card_lists(v, f"{path}.{k}")
    return found


def hidden_cards_shown(events: list[dict[str, Any]], own: list[str], kitty: list[str] | None,
                       held_back: str | None = None,
                       deck: dict[str, int] | None = None) -> tuple[int, list[str]]:
    """Walk ``events`` (one seat's frames, in order) knowing ``own`` (its dealt
    cards) and ``kitty`` (where it took it); daa's ``held_back`` card
    (rulings.md "daa": hidden from its owner too until the big A is settled)
    is known only from ``declaring_closed`` on (or the first frame of the
    play phase, where that event was lost). With the game's ``deck`` (rank →
    cards), every 记牌器 is checked too
    (:func:`counter_excess`). Returns how many card lists and counters were
    checked and one line per one that showed more than the seat knew then
    (``"<type><path> shows [cards]"``)."""
    known = Counter(own) + Counter(kitty or [])
    if held_back is not None:
        known -= Counter([held_back])
    checked, shown = 0, []
    seen: Counter[str] = Counter()  # the cards shown to everyone so far
    for ev in events:
        if held_back is not None and (ev.get("type") == "declaring_closed"
                                      or ev.get("phase") == "play"):
            known += Counter([held_back])
            held_back = None
        public = ev.get("type") in PUBLIC_CARDS and isinstance(ev.get("cards"), list)
        if public:
            known += Counter(ev["cards"])
            seen += Counter(ev["cards"])
        if ev.get("type") == SEAT_VIEW:
            # the history's public cards whose events have not come yet
            ahead = shown_by_history(ev.get("history") or []) - seen
            known += ahead
            seen += ahead
        if deck is not None:
            for counter in counters(ev):
                checked += 1
                shown += counter_excess(counter, deck, known)
        if public:
            continue
        for path, cards in card_lists(ev):
            checked += 1
            over = Counter(cards) - known
            if over:
                shown.append(f"{ev.get('type')}{path} shows {sorted(over.elements())}")
    return checked, shown


def shown_by_history(history: list[dict[str, Any]]) -> Counter[str]:
    """The cards a ``seat_view`` history's public actions showed to everyone
    (every action but :data:`~paiju.rules.ai.PRIVATE_ACTIONS`)."""
    shown: Counter[str] = Counter()
    for a in history:
        if a.get("type") not in PRIVATE_ACTIONS:
            shown += Counter(a.get("cards") or [])
    return shown


def counters(obj: Any) -> list[list[list[Any]]]:
    """Every 记牌器 (a ``counter`` field, ``[[rank, unseen], …]``) anywhere in ``obj``."""
    if isinstance(obj, list):
        return [c for x in obj for c in counters(x)]
    if not isinstance(obj, dict):
        return []
    found = [obj["counter"]] if isinstance(obj.get("counter"), list) else []
    return found + [c for k, v in obj.items() if k != "counter" for c in counters(v)]


def counter_excess(counter: list[list[Any]], deck: dict[str, int], known: Counter[str]
                   ) -> list[str]:
    """What is wrong with a 记牌器 for a seat that knows the cards ``known``:
    its ranks not in :func:`counter_order`, or a rank it counts as seen (the
    deck's cards of the rank less the unseen) beyond the cards the seat knows."""
    by_rank = Counter({r: 0 for r in deck})
    for card, n in known.items():
        by_rank[card if card in ("BJ", "SJ") else card[0]] += n
    problems = []
    if [r for r, _ in counter] != [r for r in counter_order(deck) if r in deck]:
        problems.append(f"the counter {counter} lists its ranks out of order")
    over = {r: deck[r] - n for r, n in counter if deck[r] - n > by_rank[r]}
    if over:
        problems.append(f"the counter {counter} counts as seen {over}, known {dict(by_rank)}")
    return problems


def counter_order(deck: dict[str, int]) -> list[str]:
    """Ranks as a 记牌器 lists them: jokers, then 2 A K … 3 where the deck has
    a single deck's counts (斗地主), else A K … 2."""
    plain = ["A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4", "3"]
    return ["BJ", "SJ", *(["2", *plain] if deck["BJ"] == 1 else [*plain, "2"])]




def of_game(events: list[dict[str, Any]], game_id: str) -> list[dict[str, Any]]:
    """The events of game ``game_id``: those naming it, and those naming no
    game between its ``game_started`` and its ``game_finished`` (a redeal
    before it is another game, with another deal)."""
    marks = [i for i, e in enumerate(events) if e.get("game_id") == game_id
             and e["type"] in ("game_started", "game_finished")]
    start, end = (marks[0], marks[-1]) if marks else (len(events), -1)
    return [e for i, e in enumerate(events) if e.get("game_id") == game_id
            or (e.get("game_id") is None and start <= i <= end)]


class CapturingBot(Bot):
    """A :class:`~paiju.tools.bots.Bot` that keeps every frame it receives
    (``events``) and when each came (``arrived``: monotonic seconds, one per
    event); on each of its turns it also asks ``seat_view`` and keeps the
    reply as a frame of type :data:`SEAT_VIEW`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.events: list[dict[str, Any]] = []
        self.arrived: list[float] = []
        inner = self.client.on_event

        def keep(ev: dict[str, Any]) -> None:
            self.events.append(ev)
            self.arrived.append(time.monotonic())
            inner(ev)

        self.client.on_event = keep

    async def _choose(self, turn: dict[str, Any]) -> dict[str, Any] | None:
        reply = await self._try("seat_view")
        if reply is not None:
            self.events.append({**reply, "type": SEAT_VIEW})
            self.arrived.append(time.monotonic())
        return await super()._choose(turn)
