"""FIDE tiebreaks (C.07, 2023, article 16) on a 9-player, 5-round Swiss, worked out by hand:
byes, a no-show forfeit and a withdrawal after round 3.

    round 1   1 beats 6    2 beats 7    3 beats 8    5 beats 4    9 has the bye
    round 2   1 beats 9    5 beats 2    3 wins by forfeit: 6 did not show up    4 beats 7
              8 has the bye
    round 3   1 beats 5    3 beats 2    4 beats 9    6 beats 8    7 has the bye
              5 withdraws: rounds 4 and 5 are played without them (no more byes)
    round 4   1 beats 3    2 beats 4    6 beats 9    8 beats 7
    round 5   1 beats 2    4 beats 3    6 beats 7    9 beats 8

    player   r1    r2    r3    r4    r5    points
    1        W6    W9    W5    W3    W2    5
    2        W7    L5    L3    W4    L1    2
    3        W8    +F6   W2    L1    L4    3
    4        L5    W7    W9    L2    W3    3
    5        W4    W2    L1    --    --    2      (withdrawn after round 3)
    6        L1    -F3   W8    W9    W7    3      (the no-show in round 2)
    7        L2    L4    bye   L8    L6    1
    8        L3    bye   L6    W7    L9    2
    9        bye   L1    L4    L6    W8    2

Score as the opponents' tiebreaks count it: everyone's own, except 5, who missed rounds 4
and 5 after withdrawing: 2 + 0.5 + 0.5 = 3. 6's forfeit loss counts as scored (nothing).

Each unplayed round of a player's own is a dummy opponent with the player's own score
(beaten when the round scored a point); the voluntary ones (6's forfeit loss, 5's missed
rounds, marked v) are what median Buchholz cuts first, then the highest value.
"""

import pytest

from tournaments.formats.standings import Entrant, Result, standings

ENTRANTS = [Entrant(p, p) for p in range(1, 10)]
RESULTS = [
    # round 1
    Result(1, 6, 1),
    Result(2, 7, 2),
    Result(3, 8, 3),
    Result(5, 4, 5),
    Result(9, None, 9),
    # round 2
    Result(1, 9, 1),
    Result(5, 2, 5),
    Result(3, 6, 3, unplayed=True),
    Result(4, 7, 4),
    Result(8, None, 8),
    # round 3
    Result(1, 5, 1),
    Result(3, 2, 3),
    Result(4, 9, 4),
    Result(6, 8, 6),
    Result(7, None, 7),
    # round 4
    Result(1, 3, 1),
    Result(2, 4, 2),
    Result(6, 9, 6),
    Result(8, 7, 8),
    # round 5
    Result(1, 2, 1),
    Result(4, 3, 4),
    Result(6, 7, 6),
    Result(9, 8, 9),
]
TIEBREAKS = ["buchholz", "median_buchholz", "sonneborn_berger"]

# player: (Buchholz, median Buchholz, Sonneborn-Berger), by hand.
EXPECTED = {
    # opponents 6 (3), 9 (2), 5 (3), 3 (3), 2 (2), all beaten.
    # BH 3+2+3+3+2 = 13; median 13 - 2 (lowest) - 3 (highest) = 8; SB = BH = 13.
    1: (13, 8, 13),
    # opponents 7 (1), 5 (3), 3 (3), 4 (3), 1 (5); beat 7 and 4.
    # BH 1+3+3+3+5 = 15; median 15 - 1 - 5 = 9; SB 1+3 = 4.
    2: (15, 9, 4),
    # 8 (2), a dummy (own 3) for the forfeit win, 2 (2), 1 (5), 4 (3); beat 8, the dummy, 2.
    # BH 2+3+2+5+3 = 15; median 15 - 2 - 5 = 8; SB 2+3+2 = 7.
    3: (15, 8, 7),
    # 5 (3), 7 (1), 9 (2), 2 (2), 3 (3); beat 7, 9, 3.
    # BH 3+1+2+2+3 = 11; median 11 - 1 - 3 = 7; SB 1+2+3 = 6.
    4: (11, 7, 6),
    # 4 (3), 2 (2), 1 (5), two dummies (own 2) for the missed rounds, v; beat 4 and 2.
    # BH 3+2+5+2+2 = 14; median 14 - 2 (a missed round) - 5 = 7; SB 3+2 = 5.
    5: (14, 7, 5),
    # 1 (5), a dummy (own 3) for the forfeit loss, v, 8 (2), 9 (2), 7 (1); beat 8, 9, 7.
    # BH 5+3+2+2+1 = 13; median cuts the forfeit loss's 3 before 7's 1: 13 - 3 - 5 = 5;
    # SB 2+2+1 = 5.
    6: (13, 5, 5),
    # 2 (2), 4 (3), a dummy (own 1) for the bye, 8 (2), 6 (3); beat only the dummy.
    # BH 2+3+1+2+3 = 11; median 11 - 1 - 3 = 7; SB 1.
    7: (11, 7, 1),
    # 3 (3), a dummy (own 2) for the bye, 6 (3), 7 (1), 9 (2); beat the dummy and 7.
    # BH 3+2+3+1+2 = 11; median 11 - 1 - 3 = 7; SB 2+1 = 3.
    8: (11, 7, 3),
    # a dummy (own 2) for the bye, 1 (5), 4 (3), 6 (3), 8 (2); beat the dummy and 8.
    # BH 2+5+3+3+2 = 15; median 15 - 2 - 5 = 8; SB 2+2 = 4.
    9: (15, 8, 4),
}


def table(**options):
    rows = standings(ENTRANTS, RESULTS, tiebreaks=TIEBREAKS, missed={5: 2}, **options)
    return {r.player: r for r in rows}, [r.player for r in rows]


def test_the_crosstable_scores():
    rows, _ = table(withdrawn={5: 2})
    points = {p: rows[p].match_points for p in rows}
    assert points == {1: 5, 2: 2, 3: 3, 4: 3, 5: 2, 6: 3, 7: 1, 8: 2, 9: 2}


@pytest.mark.parametrize("player", sorted(EXPECTED))
def test_fide_tiebreaks_match_the_hand_worked_values(player):
    rows, _ = table(withdrawn={5: 2})
    row = rows[player]
    assert (row.buchholz, row.median_buchholz, row.sonneborn_berger) == EXPECTED[player]


def test_a_withdrawn_opponent_counts_half_a_point_for_each_round_after_withdrawing():
    rows, _ = table(withdrawn={5: 2})
    # 1, 2 and 4 met 5: without the draws 5 would count 2, and each Buchholz would be 1 less.
    assert [rows[p].buchholz for p in (1, 2, 4)] == [13, 15, 11]
    rows, _ = table()
    assert [rows[p].buchholz for p in (1, 2, 4)] == [12, 14, 10]


def test_median_buchholz_cuts_a_forfeit_loss_before_a_lower_opponent():
    rows, _ = table(withdrawn={5: 2})
    # 6's values: 5, 3 (v), 2, 2, 1. The lowest is 7's 1, but the forfeit loss goes first.
    assert rows[6].median_buchholz == 13 - 3 - 5


def test_the_order_follows_the_tiebreaks():
    _, order = table(withdrawn={5: 2})
    # 3 points: 3 (BH 15), 6 (13), 4 (11). 2 points: 2 and 9 (BH 15; median 9 against 8), 5
    # (14), 8 (11).
    assert order == [1, 3, 6, 4, 2, 9, 5, 8, 7]


def test_more_rounds_after_withdrawing_than_missed_is_refused():
    with pytest.raises(ValueError, match="after withdrawing"):
        standings(ENTRANTS, RESULTS, missed={5: 2}, withdrawn={5: 3})
