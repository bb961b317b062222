from django.urls import path

from games.web import views

app_name = "play"

urlpatterns = [
    path("", views.LobbyPage.as_view(), name="lobby"),
    path("tables/<uuid:table_id>/", views.TablePage.as_view(), name="table"),
]
