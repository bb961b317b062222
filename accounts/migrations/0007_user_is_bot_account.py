from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0006_hash_drf_tokens'),
    ]

    operations = [
        migrations.AddField(
            model_name='user',
            name='is_bot_account',
            field=models.BooleanField(default=False, help_text='a bot account (its owner\'s program plays it through the API); set for good by POST /bot/account/upgrade'),
        ),
    ]
