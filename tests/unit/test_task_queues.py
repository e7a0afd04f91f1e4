"""Every task runs in the queue of whoever waits for it: a person (interactive) or nobody (batch).

The table names every task the project registers, so a new task cannot slip into a queue by
accident: it fails here until someone decides who waits for it.
"""

from common.lanes import BATCH, INTERACTIVE, queue_of
from config.celery import app, route_task

#: Who waits: a person for a bot's reply, a clock, matchmaking and ladder starts, a health
#: check, "your match is ready" by e-mail; nobody for whole bot matches, event advancement,
#: webhooks, rating updates and an event's "about to start" e-mails (sent in bulk).
EXPECTED = {
    "games.bot_move": INTERACTIVE,
    "games.settle_clock": INTERACTIVE,
    "games.sweep_clocks": INTERACTIVE,
    "games.play_match": BATCH,
    "games.sweep_bot_matches": BATCH,
    "games.analyse_match": BATCH,
    "games.sweep_analyses": BATCH,
    "games.sweep_seeks": BATCH,
    "ladders.matchmake": INTERACTIVE,
    "ladders.start_matches": INTERACTIVE,
    "ladders.sweep": INTERACTIVE,
    "ladders.rate_match": BATCH,
    "tournaments.sweep": BATCH,
    "tournaments.arena_pair": INTERACTIVE,
    "tournaments.arena_pair_bots": BATCH,
    "tournaments.arena_sweep": INTERACTIVE,
    "tournaments.clock_sweep": INTERACTIVE,
    "tournaments.clock_due": INTERACTIVE,
    "tournaments.deliver_webhook": BATCH,
    "health.ping": INTERACTIVE,
    "accounts.mail_if_away": INTERACTIVE,
    "accounts.mail_send": BATCH,
}


def project_tasks() -> set[str]:
    app.loader.import_default_modules()
    return {name for name in app.tasks if not name.startswith(("celery.", "tests."))}


def test_every_task_of_the_project_has_its_queue_decided():
    assert project_tasks() == set(EXPECTED), "a task was added or removed: decide its queue"
    assert {name: queue_of(name) for name in EXPECTED} == EXPECTED


def test_the_router_sends_each_task_to_its_queue_and_a_named_queue_still_wins():
    for name, queue in EXPECTED.items():
        assert route_task(name, (), {}, {}) == {"queue": queue}
    routed = app.amqp.router.route({"queue": "crash-child"}, "games.play_match", (), {})
    assert routed["queue"].name == "crash-child"
    assert app.amqp.router.route({}, "games.bot_move", (), {})["queue"].name == INTERACTIVE
    assert app.amqp.router.route({}, "games.play_match", (), {})["queue"].name == BATCH


def test_a_client_that_names_no_task_of_ours_lands_in_batch():
    assert app.conf.task_default_queue == BATCH
    assert queue_of("someone.elses_task") == BATCH
