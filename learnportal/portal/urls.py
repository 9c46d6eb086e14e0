from django.contrib.auth import views as auth_views
from django.urls import path

from learnportal.portal import views

app_name = "portal"
urlpatterns = [
    path("", views.home, name="home"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(next_page="portal:login"), name="logout"),
]
