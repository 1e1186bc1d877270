"""
`evennia omniira_reembed`: re-embed stored vectors with the configured embedder (issue #19).

    evennia omniira_reembed             # re-embed every pending row, with progress
    evennia omniira_reembed --status    # only count the pending rows

Pending rows are those made by another embedder, never recorded (before migration 0008) or
without a vector. Resumable: an interrupted run leaves the rows it finished marked, and the next
run does the rest. Best with the server stopped; in a running game use `@memory reembed`, which
does the same work in the background and keeps the server's memory caches current.
"""

from django.core.management.base import BaseCommand

from omniira_evennia.memory import embeddings
from omniira_evennia.memory import service as memories


class Command(BaseCommand):
    help = "Re-embed memories, reflections and diary entries made by another embedder."

    def add_arguments(self, parser):
        parser.add_argument("--status", action="store_true", help="count pending rows only")
        parser.add_argument("--batch-size", type=int, default=128)

    def handle(self, *args, status=False, batch_size=128, **options):
        name = embeddings.embedder_name()
        counts = memories.pending_counts(name)
        self.stdout.write(
            f"configured embedder: {name}; pending: "
            + ", ".join(f"{n} {label}" for label, n in counts.items())
        )
        if status or not any(counts.values()):
            for source, n in sorted(memories.pending_by_embedder(name).items()):
                self.stdout.write(f"  made by {source}: {n}")
            return
        problems = embeddings.embedder_problems()
        if problems:
            for problem in problems:
                self.stderr.write(problem)
            raise SystemExit(1)
        progress = memories.reembed_now(self.stdout.write, batch_size=batch_size)
        if progress.error:
            raise SystemExit(1)
