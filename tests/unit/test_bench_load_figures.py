"""The load benchmark's figures (bench/load.py) from records made by hand: which socket a
move's latency is read from, which refusals are errors, the rolling windows, the targets."""

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def load():
    sys.path.insert(0, str(BENCH))
    try:
        import load as module
    finally:
        sys.path.remove(str(BENCH))
    return module


MOVE = "POST /api/games/{id}/actions"
VIEW = "GET /api/games/{id}"


def records(**changes) -> dict:
    """A run of 30 s from t=100: people 0 and 1 at table 7, spectator socket 10000."""
    base = {
        "samples": [],
        "moves": [],
        "receipts": [],
        "acks": [],
        "errors": {},
        "failures": {},
        "examples": {},
        "conflicts": {},
        "counts": {},
        "gaps": {},
        "repeats": 0,
        "connect_failures": {},
        "messages": {},
        "bot_replies": [],
    }
    base.update(changes)
    return base


def phase(rec: dict, event_on: bool = False) -> dict:
    return {
        "records": rec,
        "t0": 100.0,
        "stopped": 130.0,
        "event_on": event_on,
        "event_started": 105.0 if event_on else None,
        "marks": [(106.0, "Round of 32 (16 in play)"), (121.0, "Quarterfinals (4 in play)")],
    }


def test_a_move_is_timed_to_the_opponents_socket_not_the_movers_or_a_spectators(load):
    rec = records(
        # Person 0 POSTs the change seq 5 at t=101.
        moves=[[7, 5, 101.0, 0, "rest", 101.05]],
        receipts=[
            [7, 4, 100.5, 1, "initial"],
            [7, 4, 100.6, 10_000, "initial"],
            [7, 5, 101.01, 0, "push"],  # the mover's own socket: not the figure
            [7, 5, 101.20, 1, "push"],  # the opponent's, 200 ms after
            [7, 5, 101.50, 10_000, "push"],  # a spectator's, 500 ms after
            [7, 5, 101.70, 10_001, "initial"],  # one who opened the table after the move
        ],
    )
    fig = load.figures(phase(rec))
    assert fig["opp_all"] == pytest.approx([200.0])
    assert fig["opp_rest"] == pytest.approx([200.0]) and fig["opp_ws"] == []
    assert fig["watch"] == pytest.approx([500.0])  # not the late spectator's 700 ms


def test_expected_refusals_are_apart_and_any_other_is_an_error(load):
    rec = records(
        errors={"stale_ply": 3, "not_paused": 1, "invalid": 2},
        failures={"POST /api/games/{id}/actions 500": 1},
    )
    fig = load.figures(phase(rec))
    assert fig["expected_ws"] == {"stale_ply": 3, "not_paused": 1}
    assert fig["unexpected_ws"] == {"invalid": 2}
    assert fig["errors"] == 3


def test_the_rolling_windows_split_the_run_every_ten_seconds_beside_the_event(load):
    samples = [[MOVE, 101.0, 50.0, 200], [MOVE, 112.0, 900.0, 200], [VIEW, 125.0, 80.0, 200]]
    fig = load.figures(phase(records(samples=samples), event_on=True))
    rows = fig["rolling"]
    assert [r["t"] for r in rows] == [0, 10, 20]
    assert [r["moves"] for r in rows] == [1, 1, 0]
    assert rows[1]["move_p95"] == 900.0
    assert rows[0]["event"] == "Round of 32 (16 in play)"  # started at 105, seen at 106
    assert rows[2]["event"] == "Quarterfinals (4 in play)"
    samples_after = [[MOVE, 131.0, 5000.0, 200]]  # after the run: not in the figures
    fig = load.figures(phase(records(samples=samples + samples_after)))
    assert max(fig["routes"][MOVE]) == 900.0


def test_a_target_passes_at_its_limit_and_fails_above(load):
    at_limit = [[MOVE, 101.0 + i / 10, 200.0, 200] for i in range(100)]
    fig = load.figures(phase(records(samples=at_limit)))
    assert fig["targets_ok"]["move POST p95"] and fig["targets_ok"]["move POST p99"]
    above = [*at_limit[:-10], *([[MOVE, 120.0, 201.0, 200]] * 10)]
    fig = load.figures(phase(records(samples=above)))
    assert not fig["targets_ok"]["move POST p95"]
    # No sample is no pass: a figure that was never measured fails its target.
    assert not fig["targets_ok"]["view GET p95"]
