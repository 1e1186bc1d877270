"""
`omniira-simulate`: run the testbed headless and write a report (JSON + PNG plots).

    omniira-simulate --days 5 --npcs 8 --liar --out sim-out
    omniira-simulate --days 3 --npcs 6 --off gossip,reflection --out sim-nogossip
    omniira-simulate --llm local --days 2 --npcs 4 --out sim-local
    OMNIIRA_LLM_BASE_URL=https://api.example/v1 omniira-simulate --llm configured --out sim-api

`--llm local` serves the packaged offline model (the `local` extra) for the run, sampled as
the demo samples it, with generous timeouts.

The world lives in a throwaway SQLite database (migrated at start, ~10 s). `--settings`
uses a game's own settings module instead (its OMNIIRA tiers and prices, its installed apps);
the database is still a throwaway one unless `--keep-db` is given.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

from .simulate import EXTENSIONS, SimConfig

# Seconds per call to the packaged model: two CPU cores shared with the simulation itself.
LOCAL_TIMEOUT = 900
PRICES = {"price_in_per_mtok": 0.15, "price_out_per_mtok": 0.6}  # nominal, see docs/testbed.md


def parse_args(argv=None):
    parser = argparse.ArgumentParser(prog="omniira-simulate", description=__doc__.split("\n")[1])
    parser.add_argument("--days", type=int, default=3)
    parser.add_argument("--npcs", type=int, default=6)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--off",
        default="",
        help=f"comma-separated extensions to switch off: {', '.join(EXTENSIONS)}",
    )
    parser.add_argument("--no-probe", action="store_true", help="plant no fact on day 1")
    parser.add_argument("--liar", action="store_true", help="one NPC plants a false rumour")
    parser.add_argument("--visits", type=int, default=3, help="NPCs each player visits a day")
    parser.add_argument("--gossip-rounds", type=int, default=2, help="gossip rounds a day")
    parser.add_argument(
        "--llm",
        choices=["deterministic", "local", "configured"],
        default="deterministic",
        help="the built-in deterministic server, the packaged offline model, or the tiers "
        "from settings / OMNIIRA_* env",
    )
    parser.add_argument(
        "--embedder",
        choices=["hashing", "configured"],
        default=None,
        help="default: hashing with --llm deterministic, else the configured EMBEDDER",
    )
    parser.add_argument("--settings", help="a Django settings module (default: the testbed's)")
    parser.add_argument("--keep-db", action="store_true", help="use the settings' database")
    parser.add_argument("--out", default="omniira-sim", help="report directory")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    off = {x.strip() for x in args.off.split(",") if x.strip()}
    unknown = off - set(EXTENSIONS)
    if unknown:
        parser.error(f"unknown extension(s) for --off: {', '.join(sorted(unknown))}")
    args.off = off
    return args


def setup_django(args, tmp: str) -> None:
    """Configure Django and Evennia against a fresh, migrated database."""
    os.environ["DJANGO_SETTINGS_MODULE"] = (
        args.settings or "omniira_evennia.testing.testbed.settings"
    )
    os.environ.setdefault("OMNIIRA_TESTBED_DIR", tmp)
    import django
    from django.conf import settings

    if not args.keep_db:
        settings.DATABASES["default"] = {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.path.join(tmp, "testbed.db3"),
        }
    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    import evennia

    evennia._init()
    from evennia.objects.models import ObjectDB

    # Evennia's first start makes #1 and #2 (Limbo, the default home); objects need a home.
    for home_id, key in ((1, "Home"), (2, "Limbo")):
        if not ObjectDB.objects.filter(id=home_id).exists():
            ObjectDB.objects.create(
                id=home_id, db_key=key, db_typeclass_path="evennia.objects.objects.DefaultRoom"
            )


def main(argv=None) -> int:
    args = parse_args(argv)
    tmp = tempfile.mkdtemp(prefix="omniira-testbed-")
    started = time.monotonic()
    print(f"omniira-simulate: setting up a throwaway database in {tmp}", file=sys.stderr)
    setup_django(args, tmp)
    from .report import write_report
    from .simulate import run_simulation

    cfg = SimConfig(
        days=args.days,
        npcs=args.npcs,
        players=args.players,
        seed=args.seed,
        off=args.off,
        probe=not args.no_probe,
        liar=args.liar,
        visits=args.visits,
        gossip_rounds=args.gossip_rounds,
        progress=not args.quiet,
    )
    embedder = None
    if (args.embedder or ("hashing" if args.llm == "deterministic" else "configured")) == "hashing":
        from .deterministic_llm import HashingEmbedder

        embedder = HashingEmbedder()
    if args.llm == "deterministic":
        from .deterministic_llm import DeterministicLLM

        with DeterministicLLM(seed=args.seed) as server:
            tier = {"base_url": server.base_url, "model": "deterministic", **PRICES}
            tiers = {"voice": tier, "reasoning": tier, "ambient": tier}
            report = run_simulation(cfg, tiers, embedder)
    elif args.llm == "local":
        from omniira_evennia.llm.local_model import running_server, small_model_tiers

        with running_server() as base_url:
            report = run_simulation(cfg, small_model_tiers(base_url, LOCAL_TIMEOUT), embedder)
    else:
        from omniira_evennia.conf import get_settings

        configured = {n: t for n, t in get_settings().TIERS.items() if t.configured}
        if not configured:
            print("No LLM tier configured: set OMNIIRA_LLM_BASE_URL (or OMNIIRA_LOCAL_BASE_URL).")
            return 2
        report = run_simulation(cfg, None, embedder)
    report["config"]["llm"] = args.llm
    report["config"]["embedder"] = "hashing" if embedder is not None else "configured"
    report["wall_seconds"] = round(time.monotonic() - started, 1)
    written = write_report(report, args.out)
    summary = {
        "diffusion": {k: v["fraction_by_day"] for k, v in report["diffusion"].items()},
        "memory_rows": report["memory"]["rows"],
        "hearsay_rows": report["memory"]["hearsay_rows"],
        "llm_calls": {k: v["calls"] for k, v in report["llm"]["by_tier"].items()},
    }
    print(json.dumps(summary))
    print("wrote " + ", ".join(written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
