"""URLs of the staff memory inspector: include under e.g. `omniira/` in the game's web/urls.py."""

from django.urls import path

from omniira_evennia import views

app_name = "omniira"

urlpatterns = [
    path("", views.npc_list, name="npcs"),
    path("npc/<int:npc_id>/", views.npc_detail, name="npc"),
    path("gossip/", views.gossip_graph, name="gossip"),
]
