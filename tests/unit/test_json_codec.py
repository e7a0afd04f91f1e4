"""orjson on the hot path writes what the standard library and DRF wrote, and the JSON
columns read back what was stored."""

import datetime as dt
import json
import uuid
from decimal import Decimal

import pytest
from django.utils.translation import gettext_lazy
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework import renderers
from rest_framework.utils.encoders import JSONEncoder

from common import json_codec
from games.models import Match
from tests.factories import PlayerFactory


def stdlib(data) -> str:
    """What the pushes were written with before: DRF's encoder through :mod:`json`."""
    return json.dumps(data, cls=JSONEncoder, separators=(",", ":"), ensure_ascii=False)


# JSON-like values with the types the views hold (no floats: see the float test below).
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.text()
    | st.datetimes(timezones=st.just(dt.UTC))
    | st.datetimes()
    | st.dates()
    | st.decimals(allow_nan=False, allow_infinity=False, places=3)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text() | st.integers(-1000, 1000), inner, max_size=4)
    ),
    max_leaves=30,
)


def surrogate_free(data) -> bool:
    try:
        stdlib(data).encode()
    except UnicodeEncodeError:
        return False
    return True


@settings(max_examples=300, deadline=None)
@given(values)
def test_pushes_are_written_as_the_standard_library_wrote_them(data):
    if not surrogate_free(data):
        return
    assert json_codec.dumps(data) == stdlib(data)
    assert json_codec.dumps_bytes(data) == stdlib(data).encode()


@settings(max_examples=300, deadline=None)
@given(values)
def test_answers_are_rendered_as_drfs_renderer_rendered_them(data):
    if not surrogate_free(data):
        return
    assert json_codec.JSONRenderer().render(data) == renderers.JSONRenderer().render(data)


def test_the_types_drf_encodes_keep_drfs_form():
    at = dt.datetime(2026, 12, 5, 17, 41, 4, 721123, tzinfo=dt.UTC)
    data = {
        "at": at,
        "day": at.date(),
        "time": dt.time(9, 30, 1, 500000),
        "points": Decimal("12.50"),
        "id": uuid.UUID(int=7),
        "label": gettext_lazy("Knock"),
        "lines": "a\u2028b\u2029c",
        1: "an integer key",
    }
    assert json_codec.dumps(data) == stdlib(data)
    assert '"at":"2026-12-05T17:41:04.721123Z"' in json_codec.dumps(data)
    rendered = json_codec.JSONRenderer().render(data)
    assert rendered == renderers.JSONRenderer().render(data)
    assert b"a\\u2028b\\u2029c" in rendered


def test_floats_are_read_back_the_same():
    for number in (0.0, -1.5, 1500.0, 1 / 3, 1e16, 2.5e-8, 1e300):
        assert json.loads(json_codec.dumps({"x": number})) == {"x": number}


def test_what_orjson_refuses_is_the_standard_librarys():
    huge = {"n": 2**70}
    assert json_codec.dumps(huge) == stdlib(huge)
    assert json_codec.JSONRenderer().render(huge) == renderers.JSONRenderer().render(huge)
    with pytest.raises(UnicodeEncodeError):
        json_codec.dumps_bytes({"s": "\ud800"})


def test_an_indented_answer_is_drfs_own():
    data = {"a": [1, 2]}
    media = "application/json; indent=2"
    assert json_codec.JSONRenderer().render(data, media) == renderers.JSONRenderer().render(
        data, media
    )
    assert b"\n" in json_codec.JSONRenderer().render(data, media)


@pytest.mark.django_db
def test_the_engine_state_reads_back_as_stored():
    a, b = PlayerFactory(), PlayerFactory()
    state = {"seed": 2**62 + 5, "deal": {"actions": ["draw_stock", "discard TS"]}, "x": [1.5]}
    huge = {"n": 2**70, "t": "\u00e9\u2028"}
    match = Match.objects.create(
        player_a=a, player_b=b, seed=1, rules={"knock": 10}, state=state, best_of=1
    )
    other = Match.objects.create(
        player_a=a, player_b=b, seed=2, rules={"knock": 10}, state=huge, best_of=1
    )
    assert Match.objects.get(pk=match.pk).state == state
    assert Match.objects.get(pk=other.pk).state == huge
    assert Match.objects.filter(state__seed=2**62 + 5).get().pk == match.pk
