from django.urls import path

from accounts import apis as accounts_apis
from games import apis as games_apis
from games.longpoll import table_state

urlpatterns = [
    path("auth/register", accounts_apis.RegisterApi.as_view(), name="auth-register"),
    path("auth/token", accounts_apis.TokenApi.as_view(), name="auth-token"),
    path("me", accounts_apis.MeApi.as_view(), name="me"),
    path("me/tables", accounts_apis.MeTablesApi.as_view(), name="me-tables"),
    path("games", games_apis.GamesApi.as_view(), name="games"),
    path("tables", games_apis.TablesApi.as_view(), name="tables"),
    path("tables/<uuid:table_id>", games_apis.TableDetailApi.as_view(), name="table-detail"),
    path("tables/<uuid:table_id>/join", games_apis.TableJoinApi.as_view(), name="table-join"),
    path("tables/<uuid:table_id>/leave", games_apis.TableLeaveApi.as_view(), name="table-leave"),
    path("tables/<uuid:table_id>/bots", games_apis.TableBotsApi.as_view(), name="table-bots"),
    path("tables/<uuid:table_id>/back", games_apis.TableBackApi.as_view(), name="table-back"),
    path("tables/<uuid:table_id>/start", games_apis.TableStartApi.as_view(), name="table-start"),
    path("tables/<uuid:table_id>/state", table_state, name="table-state"),
    path("tables/<uuid:table_id>/moves", games_apis.TableMovesApi.as_view(), name="table-moves"),
]
