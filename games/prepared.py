"""The hot paths' reads compiled once (docs/performance.md: moves and polls at the floor).

Django compiles a queryset's SQL afresh on every evaluation; for the few reads every move and
every state poll make (the locked table, its seats with their players, the polled table), the
compilation cost more than the round trip to the database. A `Prepared` read is an ordinary
queryset, built once per database connection with a stand-in table id: its SQL, its parameters
and the compiler's plan for turning rows into model instances (select_related, annotations,
the fields' converters) are kept, and each run sends the same SQL with the real id and builds
the instances exactly as Django's ModelIterable does. Everything else (the statements, their
order, the objects the callers get) is what the queryset itself would give; tests compare the
two (tests/services/test_prepared.py)."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable

from django.db import connection as default_connection
from django.db.models import QuerySet
from django.db.models.query import get_related_populators

# Stands for the table id while a read is compiled; found again among the compiled parameters.
_STAND_IN = uuid.UUID("5e7f1c2a-0000-4000-8000-00000000abcd")


class _Plan:
    def __init__(self, queryset: QuerySet, connection, id_field):
        compiler = queryset.query.get_compiler(connection=connection)
        self.sql, params = compiler.as_sql()
        stand_in = id_field.get_db_prep_value(_STAND_IN, connection)
        self.params = list(params)
        self.slots = [i for i, p in enumerate(self.params) if p == stand_in]
        if not self.slots:
            raise RuntimeError("the prepared read does not filter on its table id")
        self.col_count = compiler.col_count
        klass_info = compiler.klass_info
        self.model = klass_info["model"]
        fields = klass_info["select_fields"]
        self.start, self.end = fields[0], fields[-1] + 1
        self.init_list = [f[0].target.attname for f in compiler.select[self.start:self.end]]
        self.populators = get_related_populators(klass_info, compiler.select, queryset.db)
        self.annotations = dict(compiler.annotation_col_map or {})
        self.converters = compiler.get_converters([s[0] for s in compiler.select[0:self.col_count]])
        self.compiler = compiler
        self.db = queryset.db
        if queryset._known_related_objects or queryset._prefetch_related_lookups:
            raise RuntimeError("a prepared read builds its rows as ModelIterable does, with nothing more")


class Prepared:
    """`Prepared(lambda table_id: <queryset>, id_field)`; `run(table_id)` -> list of instances."""

    def __init__(self, build: Callable[[object], QuerySet], id_field):
        self._build = build
        self._id_field = id_field
        self._local = threading.local()

    def _plan(self, connection) -> _Plan:
        held = getattr(self._local, "held", None)
        if held is None or held[0] is not connection:
            held = (connection, _Plan(self._build(_STAND_IN), connection, self._id_field))
            self._local.held = held
        return held[1]

    def run(self, table_id, connection=default_connection) -> list:
        plan = self._plan(connection)
        value = self._id_field.get_db_prep_value(table_id, connection)
        params = list(plan.params)
        for slot in plan.slots:
            params[slot] = value
        with connection.cursor() as cursor:
            cursor.execute(plan.sql, params)
            rows = [row[: plan.col_count] for row in cursor.fetchall()]
        if plan.converters:
            rows = plan.compiler.apply_converters(rows, plan.converters)
        out = []
        for row in rows:
            obj = plan.model.from_db(plan.db, plan.init_list, row[plan.start:plan.end])
            for populator in plan.populators:
                populator.populate(row, obj)
            for name, position in plan.annotations.items():
                setattr(obj, name, row[position])
            out.append(obj)
        return out


def attach_seats(table, seats: list) -> None:
    """Keep `seats` (the table's seat rows, read by a Prepared read) as the table's prefetched
    `seats`, as `prefetch_related("seats")` keeps them: `table.seats.all()` is then that list,
    with no query, and each seat's `table` is this instance."""
    for seat in seats:
        seat.table = table
    manager = table.seats
    queryset = manager.get_queryset()
    queryset._result_cache = seats
    queryset._prefetch_done = True
    cache = getattr(table, "_prefetched_objects_cache", None)
    if cache is None:
        cache = table._prefetched_objects_cache = {}
    cache[manager.field.remote_field.cache_name] = queryset
