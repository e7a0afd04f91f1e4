"""A webhook receiver's check of the signature header: the body, the secret and the time."""

import time

import pytest

from tournaments import webhooks

SECRET = "receiver secret"
BODY = b'{"event": "event.finished"}'
TOLERANCE = 300  # seconds, the default of webhooks.verify


@pytest.mark.parametrize(
    ("age", "fresh"),
    [
        (0, True),
        (TOLERANCE - 5, True),  # sent a while ago: a slow delivery, still fine
        (-(TOLERANCE - 5), True),  # the sender's clock a little ahead
        (TOLERANCE + 5, False),  # a replay of an old delivery
        (-(TOLERANCE + 5), False),  # from the future
        (86_400, False),
    ],
)
def test_a_signature_is_accepted_only_within_the_tolerance_of_its_timestamp(age, fresh):
    timestamp = int(time.time()) - age
    header = webhooks.sign(SECRET, timestamp, BODY)
    assert webhooks.verify(SECRET, header, BODY) is fresh


def test_a_replayed_timestamp_cannot_be_moved_to_now():
    """Changing t= to a fresh time breaks the signature: the timestamp is signed too."""
    old = int(time.time()) - 3600
    header = webhooks.sign(SECRET, old, BODY)
    forged = header.replace(f"t={old}", f"t={int(time.time())}")
    assert not webhooks.verify(SECRET, forged, BODY)


@pytest.mark.parametrize("header", ["", "t=abc,v1=00", "v1=00", "t=1", "nonsense"])
def test_a_malformed_header_is_refused(header):
    assert webhooks.verify(SECRET, header, BODY) is False
