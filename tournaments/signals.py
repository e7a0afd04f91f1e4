"""Signals tournaments sends: the ladders app listens (tournaments imports nothing of it).

``rated_match_finished`` is **the rating hook**: sent with ``event``, ``pairing`` and ``match``
for every match of a rated event whose result is recorded, inside the transaction that records
it, so a rating applied by a receiver commits or rolls back with the result. Receivers must be
idempotent (one rating change per match and player, enforced by a unique constraint) and quick.
An organiser's override of a rated match sends it again with ``override=True``.
"""

from django.dispatch import Signal

rated_match_finished = Signal()
