"""The periodic tasks: one schedule, declared by the apps, run by beat or the embedded sweeper.

Each app declares its sweeps once, from its ``AppConfig.ready()``, with
:func:`periodic_task`: the task's registered name, how often, and how long a run stays worth
doing (``expires``: a backlog of stale sweeps is worth nothing). Two readers:

- distributed, Celery beat's schedule is :func:`beat_schedule` (``config.celery`` sets it once
  Django has set the apps up); each run goes to its task's queue (``common.lanes``);
- embedded (no broker, no beat), each web process's sweeper thread (``common.embedded``) runs
  the tasks of :func:`embedded_schedule` by name, in-process, each at its own interval, which
  may be shorter than beat's (the embedded worker's queued work lives in memory, so the sweeps
  redo what a restart lost).

Every sweep skips rows locked by work in progress, so one sweeper per process, or a sweep
beside a countdown, never does a piece of work twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class PeriodicTask:
    """One entry of the schedule; see :func:`periodic_task`."""

    name: str
    task: str
    every: float
    expires: float
    embedded_every: float | None
    embedded_kwargs: dict[str, Any] = field(default_factory=dict)


_schedule: dict[str, PeriodicTask] = {}


def periodic_task(
    name: str,
    *,
    task: str,
    every: float,
    expires: float,
    embedded: bool = True,
    embedded_every: float | None = None,
    embedded_kwargs: dict[str, Any] | None = None,
) -> PeriodicTask:
    """Declare that the task registered as ``task`` runs every ``every`` seconds.

    ``name`` is beat's name for the entry. A run not started within ``expires`` seconds is
    dropped. Embedded the sweeper runs it every ``embedded_every`` seconds (``every`` by
    default) with ``embedded_kwargs``; ``embedded=False`` leaves it to beat alone. Declaring
    the same name again replaces the entry (an app's ``ready()`` may run twice in tests).
    """
    entry = PeriodicTask(
        name=name,
        task=task,
        every=float(every),
        expires=expires,
        embedded_every=(float(embedded_every or every) if embedded else None),
        embedded_kwargs=dict(embedded_kwargs or {}),
    )
    _schedule[name] = entry
    return entry


def schedule() -> list[PeriodicTask]:
    """Every declared periodic task, in the order they were declared."""
    return list(_schedule.values())


def beat_schedule() -> dict[str, dict[str, Any]]:
    """The schedule as Celery beat reads it (``beat_schedule``)."""
    return {
        entry.name: {
            "task": entry.task,
            "schedule": entry.every,
            "options": {"expires": entry.expires},
        }
        for entry in _schedule.values()
    }


def embedded_schedule() -> list[PeriodicTask]:
    """The periodic tasks the embedded sweeper runs (each at its ``embedded_every``)."""
    return [entry for entry in _schedule.values() if entry.embedded_every is not None]
