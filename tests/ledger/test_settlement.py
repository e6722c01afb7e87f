"""The settlement rule as a pure function, with expectations worked out by hand
from seed 000 (积分, 结算表, 例外) and rulings.md "Settlement"."""

from __future__ import annotations

import pytest

from services.ledger.domain.errors import LedgerError
from services.ledger.domain.settlement import Row, Seat, Settlement, Terms, charge, settle

HUNZHAN = Terms(base=50, unit=5, fee_rate=0.02)  # 50 coins per 5 points, 2%
RICH = 10_000


def table(s: Settlement) -> list[tuple[str, int, int]]:
    return [(r.player, r.coins, r.fee) for r in s.rows]


def test_seed_000_settlement_table() -> None:
    # 结算表: A 60 → 0; B 70 → 98 (fee 2); C 50 → -100; D 60 → 0.
    # points = captured - 60: 0, +10, -10, 0; claims 10/5×50 = 100.
    seats = [Seat(0, "A", 0), Seat(1, "B", 10), Seat(2, "C", -10), Seat(3, "D", 0)]
    s = settle(HUNZHAN, seats, dict.fromkeys("ABCD", RICH))
    assert s.rows == (Row("A", 0, 0, 0, 0), Row("B", 1, 10, 98, 2),
                      Row("C", 2, -10, -100, 0), Row("D", 3, 0, 0, 0))
    assert (s.fees, s.remainder, s.house) == (2, 0, 2)


def test_hunzhan_escape_below_60_rest_to_house() -> None:
    # Escapee captured 40: penalty 3×(60−40) = 60 points = 12 units = 600 coins.
    # Others captured 80, 50, 30: claims max(0, c−60) = 20, 0, 0 points → 200 coins.
    seats = [Seat(0, "E", -60), Seat(1, "W", 20), Seat(2, "X", 0), Seat(3, "Y", 0)]
    s = settle(HUNZHAN, seats, dict.fromkeys("EWXY", RICH))
    # W receives its 200 in full, fee floor(200×0.02) = 4; 600−200 = 400 to the house.
    assert table(s) == [("E", -600, 0), ("W", 196, 4), ("X", 0, 0), ("Y", 0, 0)]
    assert (s.fees, s.remainder) == (4, 400)


def test_hunzhan_escape_at_or_above_60_penalty_short_of_claims() -> None:
    # Escapee captured 70: penalty 10 points = 100 coins. Others captured 80, 65, 10:
    # claims 20 and 5 points = 200 and 50 coins; 100 paid < 250 claimed →
    # shares floor(100×200/250) = 80, floor(100×50/250) = 20; fees floor(1.6) = 1, floor(0.4) = 0.
    seats = [Seat(0, "E", -10), Seat(1, "W", 20), Seat(2, "V", 5), Seat(3, "Y", 0)]
    s = settle(HUNZHAN, seats, dict.fromkeys("EWVY", RICH))
    assert table(s) == [("E", -100, 0), ("W", 79, 1), ("V", 20, 0), ("Y", 0, 0)]
    assert (s.fees, s.remainder) == (1, 0)


def test_hunzhan_escapee_cannot_pay_in_full() -> None:
    # Penalty 60 points = 600 coins but the escapee holds 173: pays 173.
    # Claims 15 and 10 points = 150 and 100 coins (250): shares floor(173×150/250) = 103,
    # floor(173×100/250) = 69 (172); 1 coin left to the house.
    # Fees floor(103×0.02) = 2, floor(69×0.02) = 1.
    seats = [Seat(0, "E", -60), Seat(1, "W", 15), Seat(2, "V", 10), Seat(3, "Y", 0)]
    s = settle(HUNZHAN, seats, {"E": 173, "W": RICH, "V": RICH, "Y": RICH})
    assert table(s) == [("E", -173, 0), ("W", 101, 2), ("V", 68, 1), ("Y", 0, 0)]
    assert (s.fees, s.remainder, s.house) == (3, 1, 4)


def test_doudizhu_farmer_short_of_coins() -> None:
    # Landlord wins at multiplier 2: points +4, −2, −2; base 100, unit 1.
    # Farmer F1 holds 50 and pays 50; F2 pays 200; the landlord gets 250 of its 400,
    # fee floor(250×0.02) = 5, nets 245.
    terms = Terms(base=100, unit=1, fee_rate=0.02)
    seats = [Seat(0, "L", 4), Seat(1, "F1", -2), Seat(2, "F2", -2)]
    s = settle(terms, seats, {"L": RICH, "F1": 50, "F2": RICH})
    assert table(s) == [("L", 245, 5), ("F1", -50, 0), ("F2", -200, 0)]
    assert (s.fees, s.remainder) == (5, 0)


def test_fee_rounds_down() -> None:
    # A win of 149 at 2%: 2.98 → 2; a win of 49: 0.98 → 0.
    terms = Terms(base=1, unit=1, fee_rate=0.02)
    s = settle(terms, [Seat(0, "A", 149), Seat(1, "B", -149)], {"A": 0, "B": RICH})
    assert table(s) == [("A", 147, 2), ("B", -149, 0)]
    s = settle(terms, [Seat(0, "A", 49), Seat(1, "B", -49)], {"A": 0, "B": RICH})
    assert table(s) == [("A", 49, 0), ("B", -49, 0)]


def test_fee_rate_is_decimal_not_binary() -> None:
    # 100 × 0.29 is 28.999999999999996 in binary floating point; the fee is 29.
    terms = Terms(base=1, unit=1, fee_rate=0.29)
    s = settle(terms, [Seat(0, "A", 100), Seat(1, "B", -100)], {"A": 0, "B": RICH})
    assert table(s) == [("A", 71, 29), ("B", -100, 0)]


def test_loser_with_nothing_pays_nothing() -> None:
    terms = Terms(base=10, unit=1, fee_rate=0.02)
    s = settle(terms, [Seat(0, "A", 3), Seat(1, "B", -3)], {"A": 5, "B": 0})
    assert table(s) == [("A", 0, 0), ("B", 0, 0)]
    assert s.house == 0


def test_redeal_all_zero() -> None:
    s = settle(HUNZHAN, [Seat(0, "A", 0), Seat(1, "B", 0)], {"A": 0, "B": 0})
    assert table(s) == [("A", 0, 0), ("B", 0, 0)]


def test_rows_in_seat_order() -> None:
    s = settle(Terms(1, 1, 0.0), [Seat(2, "C", -1), Seat(0, "A", 1)], {"A": 0, "C": 9})
    assert [r.seat for r in s.rows] == [0, 2]


@pytest.mark.parametrize(("terms", "seats", "reason"), [
    (HUNZHAN, [Seat(0, "A", 7), Seat(1, "B", -7)], "points_not_multiple_of_unit"),
    (HUNZHAN, [], "no_seats"),
    (HUNZHAN, [Seat(0, "A", 5), Seat(0, "B", -5)], "duplicate_seat"),
    (HUNZHAN, [Seat(0, "A", 5), Seat(1, "A", -5)], "duplicate_player"),
    (HUNZHAN, [Seat(0, "a.b", 5), Seat(1, "B", -5)], "bad_player_id"),
    (HUNZHAN, [Seat(0, "", 5), Seat(1, "B", -5)], "bad_player_id"),
    (HUNZHAN, [Seat(-1, "A", 5), Seat(1, "B", -5)], "bad_seat"),
    (Terms(0, 5, 0.02), [Seat(0, "A", 5)], "bad_terms"),
    (Terms(-50, 5, 0.02), [Seat(0, "A", 5)], "bad_terms"),
    (Terms(50, 0, 0.02), [Seat(0, "A", 5)], "bad_terms"),
    (Terms(50, 5, -0.01), [Seat(0, "A", 5)], "bad_terms"),
    (Terms(50, 5, 1.0), [Seat(0, "A", 5)], "bad_terms"),
    (Terms(50, 5, float("nan")), [Seat(0, "A", 5)], "bad_terms"),
    (Terms(10**12, 1, 0.0), [Seat(0, "A", 10**6), Seat(1, "B", -10**6)], "amount_out_of_range"),
])
def test_bad_input_refused(terms: Terms, seats: list[Seat], reason: str) -> None:
    with pytest.raises(LedgerError) as err:
        settle(terms, seats, {s.player: RICH for s in seats})
    assert err.value.reason == reason


def test_no_call_fee_capped_at_balance() -> None:
    # rulings.md: the doudizhu no-call fee (20) is capped at the balance.
    assert charge(20, 100) == 20
    assert charge(20, 13) == 13
    assert charge(20, 0) == 0
