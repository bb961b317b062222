from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # Register the Celery tasks in every process, not only in workers (which autodiscover
        # them): services queue work by task name through games.scheduling.
        from games import tasks, versions  # noqa: F401

        versions.connect()
