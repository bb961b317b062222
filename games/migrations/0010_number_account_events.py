"""Account events are numbered as they are written now (games.services.account_events): number
the ones written before, which waited for their first reader, per user in row order."""

from django.db import migrations


def number_unnumbered(apps, schema_editor):
    AccountEvent = apps.get_model("games", "AccountEvent")
    AccountEventSeq = apps.get_model("games", "AccountEventSeq")
    users = AccountEvent.objects.filter(seq__isnull=True).values_list("user_id", flat=True).distinct()
    for user_id in list(users):
        counter, _ = AccountEventSeq.objects.select_for_update().get_or_create(user_id=user_id)
        fresh = list(AccountEvent.objects.filter(user_id=user_id, seq__isnull=True).order_by("id"))
        for event in fresh:
            counter.last += 1
            event.seq = counter.last
        AccountEvent.objects.bulk_update(fresh, ["seq"])
        counter.save(update_fields=["last"])


class Migration(migrations.Migration):
    dependencies = [("games", "0009_invitations")]

    operations = [migrations.RunPython(number_unnumbered, migrations.RunPython.noop)]
