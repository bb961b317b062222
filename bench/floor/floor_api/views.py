"""The floor's two endpoints.

GET  /floor/state  token auth; one SELECT of the caller's game row; JSON with an ETag, or 304
                   when If-None-Match names it.
POST /floor/move   token auth; one transaction: SELECT ... FOR UPDATE of the caller's row,
                   UPDATE (version + 1, the ~2 KB state), INSERT one move-log row; answers the
                   new state. `expected_version` other than the row's: 409.
"""

import json

from django.db import transaction
from rest_framework.response import Response
from rest_framework.views import APIView

from floor_api.models import Game, Move
from floor_api.state import after_move

HEADERS = {"Cache-Control": "private, no-cache"}


def etag(game: Game) -> str:
    return f'"{game.pk}:{game.version}"'


def not_modified(request, tag: str) -> bool:
    sent = request.headers.get("If-None-Match", "")
    return any(t.strip().removeprefix("W/") in (tag, "*") for t in sent.split(",") if t.strip())


class StateView(APIView):
    def get(self, request):
        game = Game.objects.only("pk", "version", "state").get(player_id=request.user.pk)
        headers = {**HEADERS, "ETag": etag(game)}
        if not_modified(request, headers["ETag"]):
            return Response(status=304, headers=headers)
        return Response(json.loads(game.state), headers=headers)


class MoveView(APIView):
    def post(self, request):
        move = request.data
        if not isinstance(move, dict) or not isinstance(move.get("type"), str):
            return Response({"detail": "a move is a JSON object with a type"}, status=400)
        with transaction.atomic():
            game = Game.objects.select_for_update().only("pk", "version", "state").get(player_id=request.user.pk)
            expected = move.get("expected_version")
            if expected is not None and expected != game.version:
                return Response({"detail": "stale version", "version": game.version}, status=409)
            state = after_move(json.loads(game.state), move)
            game.version = state["version"]
            game.state = json.dumps(state)
            game.save(update_fields=["version", "state", "changed_at"])
            Move.objects.create(game=game, version=game.version, body=json.dumps(move))
        return Response(state, headers={**HEADERS, "ETag": etag(game)})
