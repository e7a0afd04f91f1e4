"""Querysets of the hot path compiled to SQL once per process, then run with other values.

Building and compiling a queryset is most of what a read costs in Python: a game row with its
match and both players is some hundred columns to name, quote and map back to models, every
time, for SQL that differs only in one id. :class:`CompiledQuery` builds the queryset with
placeholder values, lets Django compile it once per database connection's vendor, and then
runs that SQL with the caller's values. The rows become model instances the way Django's own
iterator makes them (the same converters, ``from_db``, the related objects of
``select_related`` and the annotations), so the objects are the ones the queryset would give.

On PostgreSQL, when the connection prepares statements (the ``prepare_threshold`` option, see
``DB_PREPARED_STATEMENTS`` in the settings), these statements run with server-side binding
and are prepared once per connection: PostgreSQL then plans a read of a game with its match
and players once, not on every move (planning it cost several times running it). Django's
own queries keep client-side binding and are never prepared.

Only for querysets whose SQL does not depend on the values (no ``None`` that turns ``=`` into
``IS NULL``, no list whose length changes the ``IN``): each placeholder must come back as one
parameter of the compiled SQL, which is checked when it is compiled.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

from django.db import DatabaseError, connections
from django.db.backends.postgresql.base import CursorDebugWrapper, ServerBindingCursor
from django.db.models import Model, QuerySet
from django.db.models.query import get_related_populators

M = TypeVar("M", bound=Model)

_INT64 = (-(2**63), 2**63 - 1)


def statement_cursor(connection: Any):
    """A cursor for a statement of the hot path, whose SQL is the same on every call:
    Django's cursor wrapper (so the statement is logged, wrapped and counted as any query
    is) around a server-side binding psycopg cursor on PostgreSQL when the connection
    prepares statements (it is then prepared once per connection), else Django's own."""
    if connection.vendor != "postgresql" or (
        connection.settings_dict.get("OPTIONS", {}).get("prepare_threshold") is None
    ):
        return connection.cursor()
    # What connection.cursor() does (Django's _cursor), with the other kind of cursor.
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    with connection.wrap_database_errors:
        raw = ServerBindingCursor(connection.connection)
        connection.validate_thread_sharing()
        if connection.queries_logged:
            return _PreparedDebugCursor(raw, connection)
        return connection.make_cursor(raw)


class _PreparedDebugCursor(CursorDebugWrapper):
    """Django's logging cursor, logging a prepared statement's SQL (with its placeholders):
    psycopg does not keep the text of a statement it ran by name."""

    @contextmanager
    def debug_sql(self, sql=None, params=None, use_last_executed_query=False, many=False):
        logged = len(self.db.queries_log)
        with super().debug_sql(sql, params, use_last_executed_query, many):
            yield
        if len(self.db.queries_log) > logged and self.db.queries_log[-1]["sql"] is None:
            self.db.queries_log[-1]["sql"] = sql


class _Plan:
    __slots__ = (
        "annotations",
        "converters",
        "init_list",
        "model",
        "related",
        "slots",
        "span",
        "sql",
    )

    def __init__(self, queryset: QuerySet, placeholders: Sequence[Any], using: str) -> None:
        compiler = queryset.query.get_compiler(using=using)
        sql, params = compiler.as_sql()
        slots = []
        for value in params:
            matches = [
                i for i, p in enumerate(placeholders) if type(p) is type(value) and p == value
            ]
            if len(matches) != 1:
                raise ValueError(f"parameter {value!r} is not exactly one of the placeholders")
            slots.append(matches[0])
        if sorted(set(slots)) != list(range(len(placeholders))):
            raise ValueError("a placeholder is not a parameter of the compiled SQL")
        self.sql, self.slots = sql, slots
        select, klass_info = compiler.select, compiler.klass_info
        self.model = klass_info["model"]
        fields = klass_info["select_fields"]
        self.span = (fields[0], fields[-1] + 1)
        self.init_list = [f[0].target.attname for f in select[self.span[0] : self.span[1]]]
        self.related = get_related_populators(klass_info, select, using)
        self.annotations = list(compiler.annotation_col_map.items())
        columns = [s[0] for s in select[0 : compiler.col_count]]
        self.converters = list(compiler.get_converters(columns).items())


def _converted(rows: list, converters: list, connection: Any) -> list[list]:
    """The rows with each column's value converted as Django's compiler converts it."""
    out = []
    for row in rows:
        row = list(row)
        for position, (functions, expression) in converters:
            value = row[position]
            for function in functions:
                value = function(value, expression, connection)
            row[position] = value
        out.append(row)
    return out


class CompiledQuery(Generic[M]):
    """``build(*values)`` returns the queryset; :meth:`all` and :meth:`get` run its SQL,
    compiled once from ``build(*placeholders)``. Placeholders must be values no caller
    passes and distinct from every constant of the query (a negative id, say)."""

    def __init__(self, build: Callable[..., QuerySet[M]], *placeholders: Any) -> None:
        self._build = build
        self._placeholders = placeholders
        self._plans: dict[str, _Plan] = {}
        self._lock = threading.Lock()

    def _plan(self, using: str) -> _Plan:
        vendor = connections[using].vendor
        plan = self._plans.get(vendor)
        if plan is None:
            with self._lock:
                plan = self._plans.get(vendor)
                if plan is None:
                    queryset = self._build(*self._placeholders)
                    plan = self._plans[vendor] = _Plan(queryset, self._placeholders, using)
        return plan

    def all(self, *values: Any, using: str = "default") -> list[M]:
        """The rows the queryset ``build(*values)`` would give, as its model instances."""
        if any(type(v) is int and not _INT64[0] <= v <= _INT64[1] for v in values):
            return []  # no row has such an id (as Django answers a lookup out of range)
        plan = self._plan(using)
        connection = connections[using]
        with statement_cursor(connection) as cursor:
            cursor.execute(plan.sql, [values[i] for i in plan.slots])
            rows = cursor.fetchall()
        if plan.converters:
            rows = _converted(rows, plan.converters, connection)
        start, end = plan.span
        found = []
        for row in rows:
            obj = plan.model.from_db(using, plan.init_list, row[start:end])
            for populator in plan.related:
                populator.populate(row, obj)
            for name, position in plan.annotations:
                setattr(obj, name, row[position])
            found.append(obj)
        return found

    def get(self, *values: Any, using: str = "default") -> M:
        """The one row ``build(*values)`` gives; the model's DoesNotExist or
        MultipleObjectsReturned otherwise, as ``QuerySet.get`` raises them."""
        plan = self._plan(using)
        found = self.all(*values, using=using)
        if len(found) == 1:
            return found[0]
        if not found:
            name = plan.model._meta.object_name
            raise plan.model.DoesNotExist(f"{name} matching query does not exist.")
        raise plan.model.MultipleObjectsReturned(
            f"get() returned more than one {plan.model._meta.object_name}"
        )


_UPDATES: dict[tuple, tuple[str, list]] = {}


def _update(obj: Model, field_names: Sequence[str] | None, connection: Any) -> tuple[str, list]:
    """The UPDATE of ``obj``'s row (built once per model, columns and vendor), its values."""
    meta = obj._meta
    key = (meta.label, None if field_names is None else tuple(field_names), connection.vendor)
    built = _UPDATES.get(key)
    if built is None:
        if field_names is None:
            fields = [f for f in meta.local_concrete_fields if not f.primary_key]
        else:
            fields = [meta.get_field(name) for name in field_names]
        quote = connection.ops.quote_name
        sets = ", ".join(f"{quote(f.column)} = %s" for f in fields)
        sql = f"UPDATE {quote(meta.db_table)} SET {sets} WHERE {quote(meta.pk.column)} = %s"
        built = _UPDATES[key] = (sql, fields)
    sql, fields = built
    values = [f.get_db_prep_save(f.pre_save(obj, False), connection) for f in fields]
    values.append(meta.pk.get_db_prep_value(obj.pk, connection))
    return sql, values


def update_row(obj: Model, field_names: Sequence[str] | None = None) -> None:
    """Write ``obj``'s columns to its row, as ``obj.save(update_fields=...)`` does for a row
    that exists (every column but the key when ``field_names`` is None), with the UPDATE's
    SQL built once per model, columns and database vendor. No signals are sent (nothing in
    the project listens to the saves of the models it is used for). DatabaseError if no row
    was updated."""
    connection = connections[obj._state.db or "default"]
    sql, values = _update(obj, field_names, connection)
    with statement_cursor(connection) as cursor:
        cursor.execute(sql, values)
        if cursor.rowcount != 1:
            raise DatabaseError(f"{obj._meta.object_name} {obj.pk}: no row to update")


_INSERTS: dict[tuple, tuple[str, list]] = {}


def _insert(obj: Model, connection: Any) -> tuple[str, list]:
    """The INSERT of ``obj``'s row (built once per model and vendor), its values."""
    meta = obj._meta
    key = (meta.label, connection.vendor)
    built = _INSERTS.get(key)
    if built is None:
        fields = [f for f in meta.local_concrete_fields if f is not meta.auto_field]
        quote = connection.ops.quote_name
        columns = ", ".join(quote(f.column) for f in fields)
        marks = ", ".join("%s" for _ in fields)
        sql = f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES ({marks})"
        built = _INSERTS[key] = (sql, fields)
    sql, fields = built
    return sql, [f.get_db_prep_save(f.pre_save(obj, True), connection) for f in fields]


def insert_row(obj: Model) -> None:
    """Insert ``obj``'s row as ``obj.save()`` inserts a new one, with the INSERT's SQL built
    once per model and database vendor: every column but an automatic key, each value as
    save() prepares it. The key is not read back (``obj.pk`` stays None), and no signal is
    sent. A constraint broken is Django's IntegrityError, as with save()."""
    connection = connections[obj._state.db or "default"]
    sql, values = _insert(obj, connection)
    with statement_cursor(connection) as cursor:
        cursor.execute(sql, values)


_WRITES: dict[tuple, str] = {}


def write_rows(
    inserts: Sequence[Model], updates: Sequence[tuple[Model, Sequence[str] | None]]
) -> None:
    """:func:`insert_row` of each of ``inserts``, then :func:`update_row` of each of
    ``updates`` (an object and its columns), all in one statement on PostgreSQL: each
    insert and update a data-modifying ``WITH`` of it (one round trip and one plan for the
    lot instead of one each). Elsewhere they run one after another. The same rows, the
    same errors: IntegrityError for a constraint broken, DatabaseError if an update found
    no row. The rows must be of different tables or distinct (one snapshot for all)."""
    objects = [*inserts, *(obj for obj, _fields in updates)]
    if not objects:
        return
    connection = connections[objects[0]._state.db or "default"]
    if connection.vendor != "postgresql" or len(objects) == 1:
        for obj in inserts:
            insert_row(obj)
        for obj, fields in updates:
            update_row(obj, fields)
        return
    parts = [_insert(obj, connection) for obj in inserts]
    parts += [_update(obj, fields, connection) for obj, fields in updates]
    key = tuple(sql for sql, _values in parts)
    sql = _WRITES.get(key)
    if sql is None:
        steps = [f"w{n} AS ({part} RETURNING 1)" for n, part in enumerate(key)]
        counts = ", ".join(f"(SELECT count(*) FROM w{n})" for n in range(len(key)))
        sql = _WRITES[key] = f"WITH {', '.join(steps)} SELECT {counts}"
    with statement_cursor(connection) as cursor:
        cursor.execute(sql, [value for _sql, values in parts for value in values])
        counts = cursor.fetchone()
    for obj, written in zip(objects, counts, strict=True):
        if written != 1:
            raise DatabaseError(f"{obj._meta.object_name} {obj.pk}: no row to update")
