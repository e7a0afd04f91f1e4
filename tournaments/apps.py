from django.apps import AppConfig
from django.db.models import Count

from accounts.hooks import busy_check_register
from common import lanes, metrics, periodic
from games.signals import match_finished, table_match_changed


class TournamentsConfig(AppConfig):
    """Events in four formats, brackets and standings, advancing as matches finish."""

    name = "tournaments"

    def ready(self) -> None:
        # The app's own receivers and reads: they need the models, loaded by now.
        from tournaments import receivers, selectors

        lanes.play_tasks(
            # A human arena's pairing pass (someone waits for their next opponent); a bot
            # arena's is tournaments.arena_pair_bots, batch.
            "tournaments.arena_pair",
            "tournaments.arena_sweep",
            # Players wait for a scheduled start: not behind a backlog of whole bot matches.
            "tournaments.clock_sweep",
            "tournaments.clock_due",
        )
        # Forfeit no-shows whose grace period is over, and record results a failed
        # match_finished receiver missed (tournaments.services.showing_up.sweep).
        periodic.periodic_task("sweep-tournaments", task="tournaments.sweep", every=5.0, expires=10)
        # Events on a clock: open registration and start the events whose time has come, late
        # after an outage (tournaments.services.schedule). Each event is taken once however
        # many of these run at a time.
        periodic.periodic_task(
            "sweep-event-clock", task="tournaments.clock_sweep", every=15.0, expires=30
        )
        # ... and, every second, only the opening and the start of what has just come due, so
        # an event starts within a second or two of its time, not up to the sweep's 15 s late.
        periodic.periodic_task(
            "event-clock-on-time", task="tournaments.clock_due", every=1.0, expires=5
        )
        # Arenas: pair whoever is free, finish an arena whose time is up once nothing is in
        # play (tournaments.services.arena.arenas_sweep); passes also run on commit of every
        # result.
        periodic.periodic_task("sweep-arenas", task="tournaments.arena_sweep", every=1.0, expires=5)

        deliveries = self.get_model("WebhookDelivery")

        def deliveries_by_status() -> dict[tuple[str], int]:
            counts = dict(deliveries.objects.values_list("status").annotate(n=Count("id")))
            return {(status,): counts.get(status, 0) for status in deliveries.Status.values}

        metrics.gauge_register(
            "ginrummy_webhook_deliveries",
            "Webhook deliveries by status (failed: gave up after every retry)",
            deliveries_by_status,
            labels=("status",),
        )

        match_finished.connect(
            receivers.advance_on_match_finished, dispatch_uid="tournaments.advance"
        )
        table_match_changed.connect(
            receivers.table_match_changed, dispatch_uid="tournaments.table_match_changed"
        )
        # A player entered in an event that has not ended keeps their account.
        busy_check_register(selectors.player_busy)
