"""Tasks enqueued by name: after the commit only, and an unknown name fails loudly."""

import pytest

from config.enqueue import task_on_commit, task_on_commit_with


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
