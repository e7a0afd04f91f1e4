"""The action log's keys (its deal, its player) stop being foreign-key constraints of the
database: PostgreSQL checks one with a trigger and a locking lookup for every row written,
about a fifth of the database's time for a bot match written whole. Django's ``on_delete``
still cascades and protects (see ``games.models.Action``).
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0008_player_assisted"),
        ("games", "0010_action_deal_index_in_unique"),
    ]

    operations = [
        migrations.AlterField(
            model_name="action",
            name="deal",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="actions",
                to="games.deal",
            ),
        ),
        migrations.AlterField(
            model_name="action",
            name="player",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="accounts.player",
            ),
        ),
    ]
