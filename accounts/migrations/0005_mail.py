import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0004_player_guest"),
    ]

    operations = [
        migrations.AddField(
            model_name="player",
            name="email_events",
            field=models.BooleanField(
                default=True,
                help_text="E-mail me about my events: when an event I entered is about to "
                "start, and when my match is ready while I am not on the site.",
            ),
        ),
        migrations.CreateModel(
            name="Mail",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        help_text="What about: event_starting, match_ready.", max_length=32
                    ),
                ),
                (
                    "about",
                    models.PositiveBigIntegerField(help_text="The id of the event or match."),
                ),
                ("subject", models.CharField(max_length=200)),
                ("body", models.TextField()),
                (
                    "status",
                    models.CharField(
                        choices=[("queued", "Queued"), ("sent", "Sent"), ("dropped", "Not sent")],
                        default="queued",
                        max_length=8,
                    ),
                ),
                (
                    "reason",
                    models.CharField(
                        blank=True,
                        help_text="Why it was not sent (expired, turned off, ...).",
                        max_length=40,
                    ),
                ),
                (
                    "expires_at",
                    models.DateTimeField(
                        blank=True,
                        help_text="Not sent after this (the event or the match began).",
                        null=True,
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "tried_at",
                    models.DateTimeField(
                        blank=True,
                        help_text="The last send that failed, or the last retry queued.",
                        null=True,
                    ),
                ),
                ("sent_at", models.DateTimeField(blank=True, null=True)),
                (
                    "player",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="accounts.player",
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(fields=["status", "created_at"], name="accounts_mail_queued_idx")
                ],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("player", "kind", "about"), name="accounts_mail_once_per_thing"
                    )
                ],
            },
        ),
    ]
