from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0005_mail"),
    ]

    operations = [
        migrations.AddField(
            model_name="player",
            name="confirm_discard",
            field=models.BooleanField(
                default=False,
                help_text="Confirm before discarding: a card tapped (or Enter) is only chosen, "
                "and a second tap or Enter discards it.",
            ),
        ),
        migrations.AddField(
            model_name="player",
            name="sounds",
            field=models.BooleanField(
                default=True,
                help_text="Sounds at the table: your turn, a move, a deal's end, low time.",
            ),
        ),
        migrations.AddField(
            model_name="player",
            name="theme",
            field=models.CharField(
                choices=[("system", "As my device is set"), ("light", "Light"), ("dark", "Dark")],
                default="system",
                help_text="The pages' colours: light, dark, or as the device is set (the default).",
                max_length=6,
            ),
        ),
    ]
