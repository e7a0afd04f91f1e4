"""The clock's arithmetic (games/clocks.py): pure functions over plain values, no database."""

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from games.clocks import (
    LAG_BANK_MS,
    LAG_QUOTA_MS,
    TimeControl,
    charge,
    deadline,
    elapsed_ms,
    remaining_ms,
    timed_out,
    turn_remaining_ms,
)

T0 = datetime(2026, 12, 4, 18, 0, tzinfo=UTC)


def at(ms: int) -> datetime:
    return T0 + timedelta(milliseconds=ms)


def test_a_running_clock_counts_down_and_stops_at_zero_a_stopped_one_keeps_its_time():
    assert remaining_ms(60_000, running=True, charged_at=T0, now=at(1_500)) == 58_500
    assert remaining_ms(1_000, running=True, charged_at=T0, now=at(5_000)) == 0
    assert remaining_ms(60_000, running=False, charged_at=T0, now=at(9_000)) == 60_000


def test_a_turn_limit_counts_from_the_turn_and_holds_during_the_pause():
    assert turn_remaining_ms(30, turn_began_at=T0, paused=False, now=at(12_000)) == 18_000
    assert turn_remaining_ms(30, turn_began_at=T0, paused=False, now=at(40_000)) == 0
    assert turn_remaining_ms(30, turn_began_at=T0, paused=True, now=at(40_000)) == 30_000


def test_the_deadline_is_the_clock_or_the_turn_limit_whichever_comes_first():
    clock = dict(charged_at=T0, turn_began_at=T0)
    assert deadline(60_000, turn_limit_seconds=None, **clock) == at(60_000)
    assert deadline(60_000, turn_limit_seconds=30, **clock) == at(30_000)
    assert deadline(10_000, turn_limit_seconds=30, **clock) == at(10_000)


def test_a_charge_credits_the_lag_back_from_a_bank_topped_up_by_one_quota():
    done = charge(60_000, lag_bank_ms=0, charged_at=T0, now=at(2_000), lag_ms=800)

    assert done.credit_ms == LAG_QUOTA_MS  # the bank held one quota, not the whole lag
    assert done.clock_ms == 60_000 - 2_000 + LAG_QUOTA_MS
    assert done.lag_bank_ms == 0


def test_a_charge_without_lag_compensation_or_lag_leaves_the_bank_alone():
    plain = charge(60_000, lag_bank_ms=700, charged_at=T0, now=at(2_000), lag_ms=0)
    off = charge(
        60_000, lag_bank_ms=700, charged_at=T0, now=at(2_000), lag_ms=900, lag_compensation=False
    )

    assert plain == off == (58_000, 700, 0)


@given(
    clock=st.integers(0, 10**7),
    bank=st.integers(0, LAG_BANK_MS),
    elapsed=st.integers(0, 10**6),
    lag=st.integers(0, 10**5),
)
def test_a_charge_never_credits_more_than_the_lag_the_bank_or_the_time_charged(
    clock, bank, elapsed, lag
):
    done = charge(clock, lag_bank_ms=bank, charged_at=T0, now=at(elapsed), lag_ms=lag)

    assert 0 <= done.credit_ms <= min(lag, elapsed, min(LAG_BANK_MS, bank + LAG_QUOTA_MS))
    assert 0 <= done.lag_bank_ms <= LAG_BANK_MS
    assert done.clock_ms == max(0, clock - elapsed + done.credit_ms)


def test_a_timeout_leaves_zero_exactly_when_the_clock_itself_ran_out():
    assert timed_out(5_000, charged_at=T0, at=at(5_000)) == 0
    assert timed_out(5_000, charged_at=T0, at=at(6_000)) == 0
    assert timed_out(60_000, charged_at=T0, at=at(30_000)) == 30_000  # the turn limit ran out


def test_a_time_control_round_trips_through_its_dict():
    control = TimeControl(180, 2, turn_limit_seconds=30, pause_seconds=0)

    assert TimeControl.from_dict(control.as_dict()) == control


@given(ms=st.integers(-(10**9), 10**9), micro=st.integers(0, 999))
def test_elapsed_time_is_counted_in_whole_milliseconds_exactly(ms, micro):
    # Through a float, 4,039 ms came out as 4,038 (4.039 * 1000 is 4038.999...).
    sign = 1 if ms >= 0 else -1
    assert elapsed_ms(T0, at(ms) + sign * timedelta(microseconds=micro)) == ms
    assert elapsed_ms(T0, at(4039)) == 4039
