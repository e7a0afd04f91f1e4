from django.apps import AppConfig

from accounts.hooks import deletion_hook_register
from common import lanes, metrics, periodic
from games.rating_hook import (
    match_rating_source_set,
    player_rating_source_set,
    ratings_source_set,
)
from games.signals import analysis_finished, match_finished, rated_match_finished


class LaddersConfig(AppConfig):
    """Ranked ladders and rating pools: Elo or Glicko-2, the matchmaking queue, leaderboards."""

    name = "ladders"

    def ready(self) -> None:
        # The one import inside a function that stays: the app's own receivers and selectors
        # import its models, which Django allows only once every app is loaded (here).
        from ladders import receivers, selectors

        # A person waits for these: matchmaking, their match's start, the queues' sweep.
        lanes.play_tasks("ladders.matchmake", "ladders.start_matches", "ladders.sweep")
        # Pair every queue, start ladder matches whose start task was lost, rate finished
        # ladder matches a failed receiver missed (ladders.services.ladders_sweep).
        periodic.periodic_task("sweep-ladders", task="ladders.sweep", every=1.0, expires=5)
        metrics.gauge_register(
            "ginrummy_matchmaker_queue_size",
            "Players waiting in every ladder queue",
            self.get_model("QueueEntry").objects.count,
        )

        # Inside the transaction that finishes a match: its rating commits with its result.
        match_finished.connect(receivers.on_match_finished, dispatch_uid="ladders.rate")
        # A rated event recorded a result (tournaments sends it): rated in the rated-events pool.
        rated_match_finished.connect(
            receivers.on_rated_match_finished, dispatch_uid="ladders.rate_event"
        )
        # A rated match's analysis is done: fair play counts its players' figures.
        analysis_finished.connect(receivers.on_analysis_finished, dispatch_uid="ladders.fairplay")
        # A deleted account leaves its queue.
        deletion_hook_register(receivers.on_player_deleted)
        # The match API and the table read a match's rating change from here.
        match_rating_source_set(lambda match_id: selectors.match_rating(match_id=match_id))
        # A challenge shows its challenger's rating from here.
        player_rating_source_set(
            lambda player_id, match_id: selectors.player_rating_brief(
                player_id=player_id, match_id=match_id
            )
        )
        # The lobby's open games, and the seeding and standings of rated events, read ratings
        # in the rated-events pool from here.
        ratings_source_set(lambda player_ids: selectors.ratings_for_players(player_ids=player_ids))
