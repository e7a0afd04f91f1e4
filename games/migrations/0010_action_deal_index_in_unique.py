"""The action log's own index on ``deal_id`` is dropped: the unique (deal, ply) index serves
every lookup by deal, and each move written fills one index fewer.

Only the index is dropped (a short lock, no scan of the log): Django's own AlterField would
also drop and re-create the foreign key, validating every row of the table under its lock.
"""

import django.db.models.deletion
from django.db import migrations, models


def _deal_indexes(schema_editor) -> list[str]:
    """The names of the indexes on ``games_action`` over ``deal_id`` alone (not unique)."""
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        found = connection.introspection.get_constraints(cursor, "games_action")
    return [
        name
        for name, info in found.items()
        if info["index"] and not info["unique"] and not info["primary_key"]
        and info["columns"] == ["deal_id"]
    ]  # fmt: skip


def drop_deal_index(apps, schema_editor) -> None:
    for name in _deal_indexes(schema_editor):
        schema_editor.execute(f"DROP INDEX {schema_editor.quote_name(name)}")


def add_deal_index(apps, schema_editor) -> None:
    if not _deal_indexes(schema_editor):
        schema_editor.execute(
            'CREATE INDEX "games_action_deal_id_idx" ON "games_action" ("deal_id")'
        )


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0009_match_analysis"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="action",
                    name="deal",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="actions",
                        to="games.deal",
                    ),
                ),
            ],
            database_operations=[migrations.RunPython(drop_deal_index, add_deal_index)],
        ),
    ]
