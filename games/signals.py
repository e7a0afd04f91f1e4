"""Signals games sends; tournaments and ladders listen (games imports nothing of theirs)."""

from django.dispatch import Signal

#: Sent with ``match`` (a finished :class:`games.models.Match`) inside the transaction that
#: finishes it, so what receivers write commits or rolls back with the result itself: a
#: finished match can never miss its bracket advance or its rating change. Receivers must be
#: quick and idempotent, and enqueue any slow follow-up with ``transaction.on_commit``.
match_finished = Signal()
