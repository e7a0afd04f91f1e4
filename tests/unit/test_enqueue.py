"""Tasks enqueued by name: after the commit only, and an unknown name fails loudly."""

import pytest

from common.enqueue import shortcut_on_commit, task_on_commit, task_on_commit_with


@pytest.mark.django_db
def test_a_task_named_is_enqueued_when_the_transaction_commits_not_before(
    django_capture_on_commit_callbacks,
):
    with django_capture_on_commit_callbacks() as callbacks:
        task_on_commit("games.sweep_seeks")
        task_on_commit_with("games.sweep_seeks", (), countdown=0)
    assert len(callbacks) == 2


def test_an_unknown_task_name_is_an_error_not_lost_work():
    with pytest.raises(KeyError):
        task_on_commit("games.no_such_task")


@pytest.mark.django_db
def test_a_shortcut_is_left_to_the_sweep_when_tasks_run_inline(
    django_capture_on_commit_callbacks, settings
):
    settings.CELERY_EMBEDDED, settings.EMBEDDED_WORKER = True, "inline"
    with django_capture_on_commit_callbacks() as callbacks:
        shortcut_on_commit("games.sweep_seeks")
    assert callbacks == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("embedded", "countdown", "queued"),
    [(True, 5.0, 0), (False, 5.0, 1), (False, 10_000.0, 0), (False, None, 1)],
)
def test_a_countdown_shortcut_is_queued_only_with_workers_and_within_the_visibility_timeout(
    django_capture_on_commit_callbacks, settings, embedded, countdown, queued
):
    settings.CELERY_EMBEDDED, settings.EMBEDDED_WORKER = embedded, "threads"
    settings.CELERY_VISIBILITY_TIMEOUT = 300
    with django_capture_on_commit_callbacks() as callbacks:
        shortcut_on_commit("games.sweep_seeks", (), countdown=countdown)
    assert len(callbacks) == queued
