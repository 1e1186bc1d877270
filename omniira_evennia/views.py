"""
The web memory inspector, for staff only: an overview, each NPC's memories (searchable and
filtered), beliefs, diary and relationships, the gossip graph and the chain behind each of its
edges, a memory's provenance, the health counters, LLM usage and budgets, and the audit log.
What each page shows is read by `omniira_evennia.builder`; a view takes the request's filters
and renders it.

Add to the game's `web/urls.py`:

    path("omniira/", include("omniira_evennia.urls")),

The pages extend the website's `website/base.html` (the site header and menu) and add one
local stylesheet (`static/omniira/inspector.css`); nothing is fetched from another host.
"""

from __future__ import annotations

from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpResponseForbidden
from django.shortcuts import get_object_or_404, render
from django.urls import reverse

from omniira_evennia.builder import gossip, inspector, usage
from omniira_evennia.builder import why as recalled
from omniira_evennia.conf import get_settings
from omniira_evennia.models import Memory

MEMORIES_SHOWN = 300  # on one NPC page; the filters narrow the rest down

# ---------------------------------------------------------------- access


def staff_only(view):
    """Anonymous visitors are sent to log in; logged-in non-staff get 403 and no data."""

    def wrapped(request, *args, **kwargs):
        user = request.user
        if not user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not user.is_staff:
            return HttpResponseForbidden("<h1>403</h1><p>The memory inspector is for staff.</p>")
        return view(request, *args, **kwargs)

    wrapped.__name__ = view.__name__
    wrapped.__doc__ = view.__doc__
    return wrapped


def page(request, template, section, crumbs, **context):
    """Render an inspector page: `section` marks the tab, `crumbs` [(label, url|None)] the path
    back (Home and Inspector come first)."""
    trail = [("Home", "/"), ("Memory inspector", reverse("omniira:npcs"))]
    context.update(section=section, crumbs=trail + list(crumbs), page_title=_title(crumbs))
    return render(request, template, context)


def _title(crumbs) -> str:
    return f"{crumbs[-1][0]} · Memory inspector" if crumbs else "Memory inspector"


def _object(object_id: int):
    from evennia.objects.models import ObjectDB

    return get_object_or_404(ObjectDB, id=object_id)


def _npc_crumb(npc):
    return (npc.db_key, reverse("omniira:npc", args=[npc.id]))


# ---------------------------------------------------------------- overview and NPCs


@staff_only
def npc_list(request):
    rows, summary = inspector.overview()
    return page(request, "omniira/npc_list.html", "npcs", [], rows=rows, summary=summary)


@staff_only
def npc_detail(request, npc_id: int):
    npc = _object(npc_id)
    filters = {
        "q": request.GET.get("q", "").strip(),
        "about": request.GET.get("about", ""),
        "source": request.GET.get("source", ""),
        "suspect": request.GET.get("suspect", ""),
        "locked": request.GET.get("locked", ""),
    }
    context = inspector.npc_page(npc, filters, MEMORIES_SHOWN)
    return page(request, "omniira/npc_detail.html", "npcs", [(npc.db_key, None)], **context)


@staff_only
def memory_detail(request, memory_id: int):
    memory = get_object_or_404(
        Memory.objects.select_related("npc", "subject", "provenance", "origin"), id=memory_id
    )
    crumbs = [_npc_crumb(memory.npc), (f"Memory #{memory.id}", None)]
    context = inspector.memory_page(memory)
    return page(request, "omniira/memory_detail.html", "npcs", crumbs, **context)


# ---------------------------------------------------------------- why was this recalled?


@staff_only
def why_page(request, npc_id: int):
    """`@memory why` as a page: what a line from a player would bring to NPC `npc_id`'s mind."""
    from evennia.objects.models import ObjectDB

    npc = _object(npc_id)
    question = request.GET.get("q", "").strip()[: get_settings().MAX_MESSAGE_CHARS]
    about = request.GET.get("about", "")
    missed = request.GET.get("not", "").strip()[:200]
    context = {
        "npc": npc,
        "subjects": inspector.subjects_of(npc),
        "question": question,
        "about": about,
        "missed_query": missed,
    }
    if question and about.isdigit():
        speaker = ObjectDB.objects.filter(id=int(about)).first()
        if speaker is None:
            raise Http404("No such character")
        context.update(recalled.why_page(npc, question, speaker, missed or None))
    crumbs = [_npc_crumb(npc), ("Why was this recalled?", None)]
    return page(request, "omniira/why.html", "npcs", crumbs, **context)


# ---------------------------------------------------------------- what NPCs know


@staff_only
def knowledge_page(request):
    """Every fact NPCs know (issue #25), searchable and filtered by scope, category and guard."""
    filters = {
        key: request.GET.get(key, "").strip() for key in ("q", "scope", "category", "guard", "npc")
    }
    npc = None
    if filters["npc"].isdigit():
        from evennia.objects.models import ObjectDB

        npc = ObjectDB.objects.filter(id=int(filters["npc"])).first()
    context = inspector.knowledge_page(filters, npc)
    return page(request, "omniira/knowledge.html", "knowledge", [("Knowledge", None)], **context)


# ---------------------------------------------------------------- gossip


@staff_only
def gossip_graph(request):
    context = gossip.graph()
    for edge in context["edges"]:
        edge["url"] = reverse("omniira:gossip_chain", args=[edge["teller_id"], edge["listener_id"]])
    for node in context["nodes"]:
        node["url"] = reverse("omniira:npc", args=[node["id"]])
    return page(request, "omniira/gossip.html", "gossip", [("Gossip graph", None)], **context)


@staff_only
def gossip_chain(request, teller_id: int, listener_id: int):
    context = gossip.chain(teller_id, listener_id)
    if context is None:
        raise Http404("No such NPC.")
    crumbs = [
        ("Gossip graph", reverse("omniira:gossip")),
        (f"{context['teller']['name']} → {context['listener']['name']}", None),
    ]
    return page(request, "omniira/gossip_chain.html", "gossip", crumbs, **context)


# ---------------------------------------------------------------- health, usage, audit


@staff_only
def health_page(request):
    context = usage.health_rows()
    return page(request, "omniira/health.html", "health", [("Health", None)], **context)


@staff_only
def usage_page(request):
    context = usage.usage_page()
    return page(
        request, "omniira/usage.html", "usage", [("LLM usage and budgets", None)], **context
    )


@staff_only
def audit_page(request):
    context = usage.audit_page(request.GET.get("kind", ""))
    return page(request, "omniira/audit.html", "audit", [("Audit log", None)], **context)
