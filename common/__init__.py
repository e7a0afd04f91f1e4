"""The platform: the app-agnostic machinery every app builds on, importing no app.

==================  ===========================================================================
module              holds
==================  ===========================================================================
``errors``          ``ServiceError``: a refusal with an HTTP status and a machine-readable code
``api``             the API's conventions: the one error shape, staff permissions, pagination
``parsers``         JSON request bodies with their limits (size, depth, numbers, strings)
``fields``          serializer fields that take exactly the JSON type the schema names
``schema``          the OpenAPI schema's error answers, each view's own codes beside it
``docs``            the API's interactive docs and schema views
``sockets``         the socket consumers' base classes: sign-in once, limits, throttles
``live``            the channel layer and publishing on commit
``arrival``         when a request or a socket message arrived (clocks' lag compensation)
``admission``       the ASGI admission handler: play first, in arrival order
``lanes``           what a person waits for: the play tasks and paths the apps declare
``task_names``      a task found by its registered name
``enqueue``         enqueueing a task by name once the transaction commits
``periodic``        the one schedule of periodic tasks the apps declare (beat and embedded)
``embedded``        the in-process worker and sweeper of the embedded mode
``broker``          the Redis transport that survives a Redis restart, the broker's client
``metrics``         the Prometheus registry, the gauges the apps register, ``/metrics``
``health``          ``/api/health``: the database and the broker, answered within 0.6 s
``csp``             the Content-Security-Policy middleware
``compiled``        the hot path's querysets, UPDATEs and INSERTs compiled to SQL once a process
``json_codec``      the hot path's JSON (pushes, answers, the JSON columns of play) by orjson
==================  ===========================================================================

The apps import it; it imports no app and nothing of ``config`` (the wiring), and reads
settings through ``django.conf.settings``. import-linter holds both (``pyproject.toml``).
"""
