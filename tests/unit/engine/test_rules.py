"""Rule sets: presets, options, validation and round-tripping."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine.rules import PRESETS, RuleSet, RuleSetError, ShutoutStyle


def test_the_book_defaults():
    rules = RuleSet()
    assert (rules.knock_limit, rules.gin_bonus, rules.big_gin_bonus, rules.undercut_bonus) == (
        10, 25, 31, 25,
    )  # fmt: skip
    assert (rules.target, rules.game_bonus, rules.line_bonus, rules.best_of) == (250, 100, 25, 5)
    assert rules.shutout is ShutoutStyle.DOUBLE_HAND_POINTS
    assert not (rules.oklahoma or rules.straight or rules.fiftieth_card or rules.duplicate_deals)


def test_presets():
    assert PRESETS["oklahoma"].oklahoma and PRESETS["oklahoma"].target == 150
    assert PRESETS["straight"].straight and not PRESETS["straight"].may_knock
    assert PRESETS["hollywood"].scoring.value == "hollywood"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"preset": "nope"}, "unknown rule set 'nope'"),
        ({"colour": "red"}, "unknown rule option 'colour'"),
        ({"target": "many"}, "invalid value"),
        ({"target": True}, "invalid value"),
        ({"target": 0}, "target=0 is out of range"),
        ({"best_of": 4}, "best_of=4 is out of range"),
        ({"shutout": "triple"}, "invalid value"),
        ({"fiftieth_card": 1}, "invalid value"),
    ],
)
def test_bad_options_are_refused_naming_the_option(data, message):
    with pytest.raises(RuleSetError, match=message):
        RuleSet.from_dict(data)


@given(
    st.sampled_from(sorted(PRESETS)),
    st.integers(1, 1000),
    st.booleans(),
    st.sampled_from(list(ShutoutStyle)),
    st.text(max_size=10),
)
def test_rule_sets_round_trip_through_dicts(preset, target, fiftieth, shutout, name):
    rules = RuleSet.from_dict(
        {"preset": preset, "target": target, "fiftieth_card": fiftieth, "shutout": shutout.value}
    ).replace(name=name)
    assert RuleSet.from_dict(rules.to_dict()) == rules
