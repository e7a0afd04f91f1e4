"""Signals about matches; tournaments and ladders listen (games imports nothing of theirs).

games sends all but ``rated_match_finished``, which tournaments sends and ladders hears: it
lives here, below both apps, so that neither imports the other.
"""

from django.dispatch import Signal

#: Sent with ``match`` (a finished :class:`games.models.Match`) inside the transaction that
#: finishes it, so what receivers write commits or rolls back with the result itself: a
#: finished match can never miss its bracket advance or its rating change. Receivers must be
#: quick and idempotent, and enqueue any slow follow-up with ``transaction.on_commit``.
match_finished = Signal()

#: Sent with ``match`` (a table match), ``action`` (``hand_entered``, ``hand_taken_back``,
#: ``result_confirmed``, ``result_disputed``, ``moved_to_table``), ``by`` (the user, or None),
#: ``organiser`` (whether ``by`` acted as an organiser rather than as a player of the match),
#: ``reason`` and ``detail`` (a dict), inside the transaction that made the change, with the
#: match row locked. Tournaments listen: the event's sockets are told, and an organiser's
#: change (or a player's dispute) goes in the event's audit log with who and why. A receiver's
#: failure undoes the change: an organiser's change is never made without its audit line.
table_match_changed = Signal()

#: **The rating hook of rated events**: sent by tournaments with ``event``, ``pairing`` and
#: ``match`` for every match of a rated event whose result is recorded, inside the transaction
#: that records it, so a rating applied by a receiver commits or rolls back with the result.
#: Receivers must be idempotent (one rating change per match and player, enforced by a unique
#: constraint) and quick. An organiser's override of a rated match sends it again with
#: ``override=True``.
rated_match_finished = Signal()

#: Sent with ``match`` and ``analysis`` (a :class:`games.models.MatchAnalysis` just done)
#: inside the transaction that stores the analysis's result, in a savepoint: a receiver's
#: failure is logged and the analysis stands. Ladders listen (fair play counts the players'
#: figures, once per match). Receivers must be idempotent and quick.
analysis_finished = Signal()
