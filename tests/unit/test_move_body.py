"""A move's body read without the serializer gives what the serializer gives, or leaves it
to the serializer: the quick reading never takes a body the serializer refuses or changes."""

from hypothesis import example, given, settings
from hypothesis import strategies as st

from games.engine.actions import ActionKind
from games.requests import ActionSerializer, move_data

KINDS = [k.value for k in ActionKind]
CARD_TEXT = st.one_of(
    st.sampled_from(["7C", "TS", "AH", "KD", "", " 7C", "7C ", "10H", "7c", "XYZW", "\x00C"]),
    st.text(max_size=4),
    st.integers(),
    st.none(),
)
MELDS = st.one_of(
    st.none(),
    st.integers(),
    st.lists(st.lists(CARD_TEXT, max_size=14), max_size=5),
    st.lists(st.one_of(st.text(max_size=2), st.none()), max_size=3),
)
BODY = st.fixed_dictionaries(
    {},
    optional={
        "ply": st.one_of(
            st.sampled_from([-1, 0, 1, 100_000, 100_001, True, 3.0, "3"]),
            st.integers(min_value=-2, max_value=100_002),
            st.floats(),
            st.text(),
        ),
        "type": st.one_of(st.sampled_from(KINDS), st.sampled_from(KINDS), st.text(max_size=12)),
        "card": CARD_TEXT,
        "melds": MELDS,
        "extra": st.integers(),
    },
)


def serializer_reading(body):
    serializer = ActionSerializer(data=body)
    return dict(serializer.validated_data) if serializer.is_valid() else None


@settings(max_examples=1500, deadline=None)
@given(BODY)
@example({"ply": 100_001, "type": "pass"})
@example({"ply": 4, "type": "knock", "card": "7C", "melds": [["AC"] * 14]})
@example({"ply": 4, "type": "knock", "card": "7C", "melds": [["AC"]] * 5})
@example({"ply": 4, "type": "discard", "card": " 7C"})
def test_the_quick_reading_agrees_with_the_serializer(body):
    quick = move_data(body)
    if quick is not None:
        assert quick == serializer_reading(body)


@settings(max_examples=200, deadline=None)
@given(
    ply=st.integers(min_value=0, max_value=100_000),
    kind=st.sampled_from(KINDS),
    card=st.sampled_from(["7C", "TS", "AH", ""]),
    melds=st.one_of(
        st.none(),
        st.lists(st.lists(st.sampled_from(["AC", "2C", "3C"]), min_size=1, max_size=4), max_size=3),
    ),
)
def test_a_well_formed_move_is_read_quickly(ply, kind, card, melds):
    body = {"ply": ply, "type": kind, "card": card, "melds": melds}
    assert move_data(body) == serializer_reading(body) is not None


def test_a_body_that_is_not_an_object_is_the_serializers():
    assert move_data([{"ply": 0, "type": "pass"}]) is None
    assert move_data("pass") is None
