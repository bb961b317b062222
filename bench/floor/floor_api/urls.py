from django.urls import path

from floor_api import views

urlpatterns = [
    path("floor/state", views.StateView.as_view()),
    path("floor/move", views.MoveView.as_view()),
]
