"""记牌器 (card counter): how many cards of each rank a seat has not seen.

A card is seen by a seat when it is in that seat's hand, has been played face
up, or everyone saw it go into another seat's hand and it stays there for the
rest of the game (斗地主's kitty 底牌 in the landlord's hand); the cards a
seat alone set aside (升级's buried kitty, for its dealer) are seen by it.
Everything else is unseen: the other hands, a kitty face down, a buried
kitty, a held-back card. A spectator (旁观) has no hand: its numbers are the
public ones. Each game says what its deck is and what is public through the
:class:`~paiju.rules.engine.Game` interface (``deck_cards``,
``played_cards``, ``shown_held``, ``set_aside_seen``); this module only
counts. Pure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from paiju.rules.cards import JOKERS, Card

#: Ranks high to low, jokers first: how a counter lists them unless the game's
#: presentation orders them otherwise (斗地主 puts 2 above A).
DEFAULT_ORDER: tuple[str, ...] = (
    "BJ", "SJ", "A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4", "3", "2")

#: A counter: ``[[rank, unseen], …]``.
Counts = list[list[str | int]]


def rank_key(card: Card) -> str:
    """The counter's rank of ``card``: the rank letter, a joker itself
    (``"7H"`` → ``"7"``, ``"BJ"`` → ``"BJ"``)."""
    return card if card in JOKERS else card[0]


class _RankOf(dict[Card, str]):
    """Card → its counter rank (:func:`rank_key`), filled as cards are met:
    a lookup in C instead of a Python call per card (the table counts every
    hand again after each action)."""

    def __missing__(self, card: Card) -> str:
        rank = self[card] = rank_key(card)
        return rank


_RANK_OF = _RankOf()


def _ranks(cards: Iterable[Card]) -> Counter[str]:
    return Counter(map(_RANK_OF.__getitem__, cards))


@lru_cache(maxsize=64)
def _deck_ranks(deck: tuple[Card, ...], order: tuple[str, ...]
                ) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The ranks of ``deck`` as a counter lists them (``order``, then the
    others in deck order) and how many of each the deck has."""
    counts = _ranks(deck)
    ranks = tuple([r for r in order if r in counts] + [r for r in counts if r not in order])
    return ranks, tuple(counts[r] for r in ranks)


def unseen(deck: Iterable[Card], played: Iterable[Card], shown_held: Sequence[Sequence[Card]],
           seen: Mapping[int | None, Iterable[Card]], order: Sequence[str] = DEFAULT_ORDER
           ) -> dict[int | None, Counts]:
    """Per key of ``seen`` (a seat, or ``None`` for a spectator), ``[[rank,
    count], …]`` in ``order`` for every rank of ``deck`` (ranks not in
    ``order`` follow in deck order): the cards of ``deck`` less ``played``,
    less the cards ``shown_held`` in another seat's hand, less the cards the
    seat has seen itself (``seen[seat]``: its hand, what it set aside),
    never below 0."""
    ranks, in_deck = _deck_ranks(tuple(deck), tuple(order))
    gone = _ranks(played)
    held = [_ranks(cards) for cards in shown_held]
    for h in held:
        gone.update(h)
    public = [n - gone.get(r, 0) for r, n in zip(ranks, in_deck, strict=True)]
    out: dict[int | None, Counts] = {}
    for seat, cards in seen.items():
        if seat is None:
            out[seat] = [[r, max(n, 0)] for r, n in zip(ranks, public, strict=True)]
            continue
        own = held[seat].get  # its own shown cards are counted in its hand
        mine = _ranks(cards).get
        out[seat] = [[r, max(n + own(r, 0) - mine(r, 0), 0)]
                     for r, n in zip(ranks, public, strict=True)]
    return out
