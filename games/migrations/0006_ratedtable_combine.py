from django.db import migrations, models


class Migration(migrations.Migration):
    """RatedTable.combine: the tables rated so far took the mean of one account's seats (and
    recompute must replay them so); the ones rated from now on, their sum."""

    dependencies = [
        ('games', '0005_table_duplicate_of'),
    ]

    operations = [
        migrations.AddField(
            model_name='ratedtable',
            name='combine',
            field=models.CharField(default='mean', max_length=4),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name='ratedtable',
            name='combine',
            field=models.CharField(default='sum', help_text="how one account's seats made its update (services.ratings._combine): sum; mean before 2026-12-01", max_length=4),
        ),
    ]
