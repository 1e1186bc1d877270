"""URLs of the staff memory inspector: include under e.g. `omniira/` in the game's web/urls.py."""

from django.urls import path

from omniira_evennia import views

app_name = "omniira"

urlpatterns = [
    path("", views.npc_list, name="npcs"),
    path("npc/<int:npc_id>/", views.npc_detail, name="npc"),
    path("npc/<int:npc_id>/why/", views.why_page, name="why"),
    path("memory/<int:memory_id>/", views.memory_detail, name="memory"),
    path("gossip/", views.gossip_graph, name="gossip"),
    path("gossip/<int:teller_id>/<int:listener_id>/", views.gossip_chain, name="gossip_chain"),
    path("health/", views.health_page, name="health"),
    path("usage/", views.usage_page, name="usage"),
    path("audit/", views.audit_page, name="audit"),
    path("knowledge/", views.knowledge_page, name="knowledge"),
]
