"""The suite's own settings: it holds on a busy machine (tests/conftest.py), and `make test`
shows where its time goes."""

import subprocess
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# What Hypothesis would allow an example without the suite's profile.
HYPOTHESIS_DEADLINE = settings.get_profile("default").deadline.total_seconds()


@given(st.just(None))
@settings(max_examples=1)
def test_a_property_example_slower_than_hypothesis_own_deadline_passes(_):
    """As one stretched by other programs on the cores is: wall-clock time fails no example."""
    time.sleep(1.5 * HYPOTHESIS_DEADLINE)


def test_slow_example_generation_is_no_health_check_failure():
    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check


def test_each_stage_of_make_test_ends_with_its_slowest_tests():
    root = Path(__file__).resolve().parents[2]
    shown = subprocess.run(
        ["make", "-n", "test"], cwd=root, capture_output=True, text=True, check=True
    ).stdout
    stages = [line for line in shown.splitlines() if "/pytest " in line]
    assert len(stages) == 3, shown
    assert all("--durations=25" in line for line in stages), stages
