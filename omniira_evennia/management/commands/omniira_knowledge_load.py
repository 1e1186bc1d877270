"""
`evennia omniira_knowledge_load <file>`: load a knowledge file (JSON or YAML) into the game
(issue #25), so a game's lore lives in version control beside its code.

    evennia omniira_knowledge_load world/knowledge.json          # add, update, remove
    evennia omniira_knowledge_load world/knowledge.json --keep   # keep removed entries
    evennia omniira_knowledge_load world/knowledge.json --check  # only say what is wrong

Entries are matched by scope and key: a changed text is updated (and embedded again), an
unchanged one left alone, and an entry loaded from a file of the same name that the file no
longer holds is removed (unless --keep). The format: omniira_evennia/knowledge/files.py. A
running game picks the rows up at once (`@memory know load` does the same in game).
"""

from django.core.management.base import BaseCommand, CommandError

from omniira_evennia.knowledge import files, service


class Command(BaseCommand):
    help = "Load NPC knowledge from a JSON or YAML file (added, updated, removed by key)."

    def add_arguments(self, parser):
        parser.add_argument("path", help="the knowledge file (relative to the game folder)")
        parser.add_argument("--keep", action="store_true", help="keep entries no longer in it")
        parser.add_argument("--check", action="store_true", help="only check the file")

    def handle(self, *args, path, keep=False, check=False, **options):
        try:
            text, name = service.read_file(path, anywhere=True)
            if check:
                entries, problems = files.parse(text, files.format_of(name))
                for problem in problems:
                    self.stderr.write(problem)
                self.stdout.write(f"{name}: {len(entries)} entries, {len(problems)} problems")
                if problems:
                    raise SystemExit(1)
                return
            plan = service.load_file(path, prune=not keep)
        except (service.LoadError, files.FileError) as err:
            raise CommandError(str(err)) from None
        self.stdout.write(plan.summary())
        if plan.problems:
            raise SystemExit(1)
