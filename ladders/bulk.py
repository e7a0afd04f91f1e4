"""Writing thousands of rows that differ in a few columns: ``COPY`` on PostgreSQL.

A matchmaker pass over a busy queue creates thousands of matches in one transaction. Django's
``bulk_create`` builds a model instance per row, prepares every field of every row and sends
the values inline: for 5,000 matches that is most of a second. Here the columns all rows share
are prepared once from a template instance, only the few that vary are prepared per row, ids
come from the table's sequence, and the rows go in with ``COPY`` (tens of milliseconds).
Other databases (SQLite in the embedded default, with its small queues) use ``bulk_create``.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from django.db import connection, transaction
from django.db.models import Model, QuerySet
from psycopg.types.json import Jsonb

AUTO_FIELDS = ("AutoField", "BigAutoField", "SmallAutoField")


def fetch_rows(queryset: QuerySet[Any]) -> list[tuple[Any, ...]]:
    """The rows of a ``values_list`` queryset, as tuples.

    On PostgreSQL they come in psycopg's binary format (ten thousand rows of numbers and
    timestamps decode in a third of the time); the queryset must need no Django converters
    (numbers, text, booleans, timestamps).
    """
    if connection.vendor != "postgresql":
        return list(queryset)
    sql, params = queryset.query.sql_with_params()
    with _server_cursor() as cursor:
        cursor.execute(sql, params, binary=True)
        return cursor.fetchall()


def stream_rows(queryset: QuerySet[Any], *, chunk_size: int = 10_000) -> Iterator[tuple[Any, ...]]:
    """The rows of a ``values_list`` queryset as tuples, streamed in chunks.

    On PostgreSQL through a server-side cursor in binary format (a million rows of numbers
    decode several times faster than Django's text rows), in its own transaction if none is
    open; elsewhere Django's iterator. Same limits as :func:`fetch_rows`.
    """
    if connection.vendor != "postgresql":
        yield from queryset.iterator(chunk_size=chunk_size)
        return
    sql, params = queryset.query.sql_with_params()
    with transaction.atomic():  # a named cursor lives inside a transaction
        connection.ensure_connection()
        with psycopg.ServerCursor(connection.connection, "ladders_stream") as cursor:
            cursor.itersize = chunk_size
            cursor.execute(sql, params, binary=True)
            while rows := cursor.fetchmany(chunk_size):
                yield from rows


@contextmanager
def gc_paused() -> Iterator[None]:
    """Hold off Python's cycle collector for a short burst of allocations.

    Reading and pairing a queue of 10,000 creates some 50,000 objects; each allocation
    threshold crossed starts a collection, and a full one walks every live object of the
    process. Reference counting still frees everything at once (none of this makes cycles).
    Measured on a 10,000-player pass: the pairing phase took 100-150 ms with the collector
    on and 60 ms with it off. Nested or concurrent use is safe: only the caller that found
    the collector on turns it on again.
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def lock_ids(model: type[Model], ids: Sequence[Any], *, no_key: bool = False) -> set[Any]:
    """Lock the rows with these primary keys (FOR UPDATE, in key order); the keys found.

    ``no_key`` takes FOR NO KEY UPDATE instead, which lets other transactions insert rows
    pointing at these ones. Rows deleted meanwhile are missing from the answer. Key order
    makes two callers lock in the same order, so they cannot deadlock. On PostgreSQL the
    keys go as one array bound on the server; elsewhere (SQLite locks the whole database
    anyway) the ORM.
    """
    if not ids:
        return set()
    if connection.vendor == "postgresql":
        meta = model._meta
        table = connection.ops.quote_name(meta.db_table)
        column = connection.ops.quote_name(meta.pk.column)
        with _server_cursor() as cursor:
            cursor.execute(
                f"SELECT {column} FROM {table} WHERE {column} = ANY(%s) "
                f"ORDER BY {column} FOR {'NO KEY UPDATE' if no_key else 'UPDATE'}",
                [list(ids)],
            )
            return {row[0] for row in cursor.fetchall()}
    found: set[Any] = set()
    for start in range(0, len(ids), 5000):
        chunk = ids[start : start + 5000]
        found.update(model._default_manager.filter(pk__in=chunk).values_list("pk", flat=True))
    return found


def _server_cursor():
    """A psycopg cursor on Django's connection (same transaction) binding on the server."""
    connection.ensure_connection()
    return psycopg.Cursor(connection.connection)


def delete_ids(model: type[Model], ids: Sequence[Any]) -> int:
    """Delete the rows with these primary keys; the number deleted.

    On PostgreSQL one statement with the ids as one array parameter, bound on the server
    (inlining ten thousand literals costs more than the delete); elsewhere the ORM, in
    chunks under SQLite's limit on parameters.
    """
    if not ids:
        return 0
    if connection.vendor == "postgresql":
        meta = model._meta
        table = connection.ops.quote_name(meta.db_table)
        column = connection.ops.quote_name(meta.pk.column)
        with _server_cursor() as cursor:
            cursor.execute(f"DELETE FROM {table} WHERE {column} = ANY(%s)", [list(ids)])
            return cursor.rowcount
    deleted = 0
    for start in range(0, len(ids), 5000):
        count, _ = model._default_manager.filter(pk__in=ids[start : start + 5000]).delete()
        deleted += count
    return deleted


def bulk_insert(
    template: Model, *, varying: Sequence[str], rows: Sequence[Sequence[Any]]
) -> list[Any]:
    """Insert one row per item of ``rows``: the template's values, except the ``varying``
    fields (attnames), which take the item's values in that order. Returns the primary keys.
    """
    if not rows:
        return []
    model = type(template)
    meta = model._meta
    pk = meta.pk
    auto_pk = pk.get_internal_type() in AUTO_FIELDS
    fields = [f for f in meta.concrete_fields if not (auto_pk and f is pk)]
    if connection.vendor != "postgresql":
        base = {f.attname: getattr(template, f.attname) for f in fields}
        objs = [model(**{**base, **dict(zip(varying, values, strict=True))}) for values in rows]
        model.objects.bulk_create(objs, batch_size=1000)
        return [obj.pk for obj in objs]
    by_name = {f.attname: f for f in fields}
    # Each column: the value every row shares, prepared once (varying ones are filled in).
    shared = [
        None
        if f.attname in varying
        else _text(f.get_db_prep_save(f.pre_save(template, add=True), connection))
        for f in fields
    ]
    slots = [(fields.index(by_name[name]), by_name[name]) for name in varying]
    with connection.cursor() as cursor:
        ids: list[Any] = []
        if auto_pk:
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
                [meta.db_table, pk.column, len(rows)],
            )
            ids = [new_id for (new_id,) in cursor.fetchall()]
        columns = ([pk.column] if auto_pk else []) + [f.column for f in fields]
        names = ", ".join(connection.ops.quote_name(c) for c in columns)
        table = connection.ops.quote_name(meta.db_table)
        raw = cursor.cursor  # psycopg's own cursor: Django's wrapper has no COPY
        with raw.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
            for n, values in enumerate(rows):
                row = list(shared)
                for (index, field), value in zip(slots, values, strict=True):
                    # Plain numbers and text need no preparing (most of what varies).
                    if not isinstance(value, int | str):
                        value = field.get_db_prep_save(value, connection)
                    row[index] = value
                copy.write_row([ids[n], *row] if auto_pk else row)
    if auto_pk:
        return ids
    pk_slot = [i for i, (_, f) in enumerate(slots) if f is pk]
    return [values[pk_slot[0]] for values in rows] if pk_slot else []


def _text(value: Any) -> Any:
    """A shared JSON value, serialised once instead of once a row (COPY takes it as text)."""
    if isinstance(value, Jsonb):
        return (value.dumps or json.dumps)(value.obj)
    return value
