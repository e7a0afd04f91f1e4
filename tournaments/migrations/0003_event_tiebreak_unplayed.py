from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0002_event_seq'),
    ]

    operations = [
        migrations.AddField(
            model_name='event',
            name='tiebreak_unplayed',
            field=models.CharField(choices=[('fide', 'As FIDE rules: against a dummy opponent'), ('plain', 'Plain sums of the games played')], default='fide', help_text='How byes, forfeits and withdrawals count in Buchholz and Sonneborn-Berger.', max_length=8),
        ),
    ]
