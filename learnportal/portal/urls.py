from django.contrib.auth import views as auth_views
from django.urls import path

from learnportal.portal import history, plans, rating, views

app_name = "portal"
urlpatterns = [
    path("", views.home, name="home"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(next_page="portal:login"), name="logout"),
    path("turns/", rating.turn_list, name="turns"),
    path("turns/<int:pk>/", rating.turn_rate, name="rate"),
    path("plans/", plans.plan_index, name="plans"),
    path("plans/<str:plan_id>/", plans.plan_show, name="plan"),
    path(
        "plans/<str:plan_id>/proposals/<str:proposal_id>/<str:decision>/",
        plans.proposal_decide,
        name="decide",
    ),
    path(
        "plans/<str:plan_id>/refinements/<str:refinement_id>/rollback/",
        plans.refinement_undo,
        name="rollback",
    ),
    path("history/", history.history_index, name="history"),
]
