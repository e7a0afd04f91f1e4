"""FIDE tiebreaks for unplayed rounds (C.07, 2023), on a crosstable worked out by hand.

Five players, three rounds of a Swiss; entrant 3 is seeded above entrant 2:

    round 1   1 beats 2     3 beats 4     5 has the bye
    round 2   1 beats 3     5 wins by forfeit: 2 did not show up     4 has the bye
    round 3   1 beats 5     2 beats 3     4 has withdrawn (missed the round)

    player   r1     r2      r3     points
    1        W 2    W 3     W 5    3
    2        L 1    -F 5    W 3    1
    3        W 4    L 1     L 2    1
    4        L 3    bye     --     1
    5        bye    +F 2    L 1    2

FIDE: each unplayed round (bye, forfeit win or loss, missed round) is a game against a dummy
whose score is the player's own; a dummy beaten (a bye, a forfeit win) counts for
Sonneborn-Berger. Plain: the opponents named in the results, forfeits included, nothing for
a bye or a missed round.
"""

import pytest

from tournaments.formats.standings import Entrant, Result, standings

ENTRANTS = [Entrant(1, 1), Entrant(2, 3), Entrant(3, 2), Entrant(4, 4), Entrant(5, 5)]
RESULTS = [
    Result(1, 2, 1),
    Result(3, 4, 3),
    Result(5, None, 5),
    Result(1, 3, 1),
    Result(5, 2, 5, unplayed=True),
    Result(4, None, 4),
    Result(1, 5, 1),
    Result(2, 3, 2),
]
TIEBREAKS = ["buchholz", "sonneborn_berger"]


def table(mode):
    rows = standings(ENTRANTS, RESULTS, tiebreaks=TIEBREAKS, unplayed=mode, missed={4: 1})
    return {r.player: r for r in rows}, [r.player for r in rows]


def test_fide_counts_every_unplayed_round_against_a_dummy_with_the_players_own_score():
    rows, order = table("fide")
    assert {p: rows[p].match_points for p in rows} == {1: 3, 2: 1, 3: 1, 4: 1, 5: 2}
    # 1: opponents 2 (1), 3 (1), 5 (2); beat all three.
    assert (rows[1].buchholz, rows[1].median_buchholz, rows[1].sonneborn_berger) == (4, 1, 4)
    # 2: opponents 1 (3) and 3 (1), and a dummy (own score 1) for the forfeit loss; beat 3.
    assert (rows[2].buchholz, rows[2].median_buchholz, rows[2].sonneborn_berger) == (5, 1, 1)
    # 3: opponents 4 (1), 1 (3), 2 (1); beat 4.
    assert (rows[3].buchholz, rows[3].median_buchholz, rows[3].sonneborn_berger) == (5, 1, 1)
    # 4: opponent 3 (1), a dummy (1) for the bye, a dummy (1) for the round after withdrawing;
    # the bye is a dummy beaten: 1.
    assert (rows[4].buchholz, rows[4].median_buchholz, rows[4].sonneborn_berger) == (3, 1, 1)
    # 5: two dummies (own score 2) for the bye and the forfeit win, opponent 1 (3); both
    # dummies beaten: 2 + 2. Plain gives 5 a Buchholz of 4, FIDE 7.
    assert (rows[5].buchholz, rows[5].median_buchholz, rows[5].sonneborn_berger) == (7, 2, 4)
    # 2 and 3 tie on points, Buchholz and Sonneborn-Berger: the seed puts 3 first.
    assert order == [1, 5, 3, 2, 4]


def test_plain_sums_count_the_forfeits_opponent_and_nothing_for_byes():
    rows, order = table("plain")
    assert (rows[1].buchholz, rows[1].sonneborn_berger) == (4, 4)
    # 2: opponents 1 (3), 5 (2, the forfeit), 3 (1).
    assert (rows[2].buchholz, rows[2].median_buchholz, rows[2].sonneborn_berger) == (6, 2, 1)
    assert (rows[3].buchholz, rows[3].sonneborn_berger) == (5, 1)
    assert (rows[4].buchholz, rows[4].sonneborn_berger) == (1, 0)
    # 5: opponents 2 (1, the forfeit) and 1 (3); beat 2.
    assert (rows[5].buchholz, rows[5].sonneborn_berger) == (4, 1)
    assert order == [1, 5, 2, 3, 4]


def test_an_unknown_unplayed_mode_is_refused():
    with pytest.raises(ValueError, match="tiebreak_unplayed"):
        standings(ENTRANTS, RESULTS, unplayed="virtual")


def test_direct_encounter_only_when_every_two_players_of_the_tie_have_met():
    entrants = [Entrant(p, p) for p in range(1, 5)]
    # 1, 2 and 3 end on one point each. 2 beat 3; 1 never met 2 or 3, so direct encounter
    # decides nothing among them and the seeds do: 1, 2, 3.
    results = [Result(2, 3, 2), Result(3, 4, 3), Result(1, 4, 1), Result(4, None, None)]
    rows = standings(entrants, results, tiebreaks=["direct_encounter"], bye_points=0)
    assert [r.player for r in rows][:3] == [1, 2, 3]
    assert [r.direct_encounter for r in rows][:3] == [None, None, None]


def test_direct_encounter_decides_a_tie_whose_players_all_met():
    entrants = [Entrant(p, p) for p in range(1, 5)]
    # 2 and 3 end on one point each and met: 3 won, so 3 ranks above the better seed 2.
    results = [Result(3, 2, 3), Result(2, 4, 2), Result(1, 4, 1), Result(1, 4, 1)]
    rows = standings(entrants, results, tiebreaks=["direct_encounter"])
    assert [r.player for r in rows] == [1, 3, 2, 4]
    assert [r.direct_encounter for r in rows] == [None, 1, 0, None]
