"""The JSON columns of play (the engine state, the match's rules, a game's results, a deal's
outcome, an action's melds) are read and written by orjson (``common.json_codec``): the
same jsonb columns, nothing changes in the database.
"""

import common.json_codec
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0011_action_keys_unchecked"),
    ]

    operations = [
        migrations.AlterField(
            model_name="action",
            name="melds",
            field=common.json_codec.JSONField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name="deal",
            name="outcome",
            field=common.json_codec.JSONField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name="game",
            name="results",
            field=common.json_codec.JSONField(
                default=list, help_text="Finished games' scores, in order."
            ),
        ),
        migrations.AlterField(
            model_name="match",
            name="rules",
            field=common.json_codec.JSONField(help_text="Every option of the engine's RuleSet."),
        ),
        migrations.AlterField(
            model_name="match",
            name="state",
            field=common.json_codec.JSONField(blank=True, editable=False, null=True),
        ),
    ]
