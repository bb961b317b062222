"""`GET /api/v1/tables/{id}/state` through Django: the thin adapter of the state endpoint
(games.edge.state), for what reaches Django rather than the edge (a WSGI server, the test client,
what the edge leaves to Django). An async view, so a waiting long-poll holds no thread here
either; it runs the edge's pipeline (games.edge.endpoints) because DRF's views cannot wait
without a thread. Documented by games.api.tables.TableStateApi."""

from __future__ import annotations

from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions as drf_exceptions

from games.edge import endpoints
from games.edge.http import to_django

from .tables import TableStateApi


# Exempt from CSRF: the view only reads (any other method is a 405), and without the exemption a
# POST got Django's HTML CSRF 403 before reaching the method check.
@csrf_exempt
async def table_state(request, table_id):
    if request.method != "GET":
        answer = endpoints.error_answer(drf_exceptions.MethodNotAllowed(request.method))
        answer.headers["Allow"] = "GET"
    else:
        answer = await endpoints.serve_django(endpoints.STATE, request, str(table_id))
    return to_django(answer)


# drf-spectacular documents this endpoint from the APIView that describes it, and the edge takes
# its permission and throttle classes from it.
table_state.cls = TableStateApi
table_state.initkwargs = {}
