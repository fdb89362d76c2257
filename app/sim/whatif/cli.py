"""``headroom what-if``: the service's what-if (or policy advisor) run, computed here in the
foreground against the database of HEADROOM_DATABASE_URL, and printed as a table (or JSON).

It checks its question exactly as ``POST .../what-if`` does (the same code), reads the log
without the cluster's lock, and stores nothing: the cluster and its runs are left as they are.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from app.sim.progress import TextProgress


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "what-if", help="replay a cluster's own log under another policy, or rank them all",
        description="Replay a cluster's (or reservation stream's) logged events under another "
                    "policy, or with --advise under every kind of its family, against the "
                    "database of HEADROOM_DATABASE_URL; prints both sides' figures, the "
                    "assumptions made and the first decisions that differ (docs/what-if.md).")
    p.add_argument("cluster", metavar="CLUSTER", help="the cluster's (or stream's) name or id")
    p.add_argument("--owner", default="default", help="the owner whose cluster the name is")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--policy", help="the alternative's policy object as JSON, e.g. "
                                        "'{\"kind\": \"best_fit\"}'")
    which.add_argument("--advise", nargs="?", const="", metavar="OBJECTIVE",
                       help="rank every kind of the family by OBJECTIVE (default: the "
                            "family's; reward_rate, acceptance, queue_wait, utilization, "
                            "cost_per_period)")
    p.add_argument("--max-rejection", type=float,
                   help="with --advise on a placement cluster: the rejection budget")
    p.add_argument("--from-seq", type=int, help="the window's first log position")
    p.add_argument("--to-seq", type=int, help="the window's last log position")
    p.add_argument("--seeds", default="0,1,2,3,4", help="seeds of the lifetimes drawn")
    p.add_argument("--differences", type=int, default=10,
                   help="how many of the first differing decisions to show")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from fastapi.exceptions import RequestValidationError
    from pydantic import ValidationError
    from sqlalchemy import or_, select

    from app.api.routes.whatif import question
    from app.api.schemas.whatif import WhatIfCreate
    from app.cli import masked_database_url
    from app.config import get_settings
    from app.errors import HeadroomError
    from app.families.registry import REGISTRY
    from app.service.context import ServiceContext
    from app.sim.whatif.background import read_log, run_request
    from app.store.models import Cluster

    settings = get_settings()
    print(f"headroom: database {masked_database_url(settings.database_url)}", file=sys.stderr)
    ctx = ServiceContext.from_settings(settings, REGISTRY)
    with ctx.db.connect() as conn:
        found = conn.execute(select(Cluster.id, Cluster.spec).where(
            Cluster.owner == args.owner,
            or_(Cluster.id == args.cluster, Cluster.name == args.cluster))).all()
    if len(found) != 1:
        print(f"headroom: no cluster {args.cluster!r} of owner {args.owner!r} in this database",
              file=sys.stderr)
        return 2
    cluster_id, spec = found[0]
    body: dict[str, Any] = {"window": {k: v for k, v in (("from_seq", args.from_seq),
                                                         ("to_seq", args.to_seq)) if v is not None},
                            "differences": args.differences}
    try:
        body["seeds"] = [int(s) for s in args.seeds.split(",") if s.strip()]
        if args.policy is not None:
            body["policy"] = json.loads(args.policy)
        else:
            body["advise"] = {k: v for k, v in (("objective", args.advise or None),
                                                ("max_rejection", args.max_rejection))
                              if v is not None}
        asked = question(ctx, ctx.families.family_for(spec["policy"]["kind"]), spec,
                         WhatIfCreate.model_validate(body), body)
    except ValidationError as exc:
        return _refused([{**e, "loc": ("body", *e["loc"])} for e in exc.errors()], body)
    except ValueError as exc:  # bad JSON or seeds
        return _refused([{"loc": (), "msg": str(exc)}], body)
    except RequestValidationError as exc:
        return _refused(exc.errors(), body)
    except HeadroomError as exc:
        print(f"headroom: {exc.detail}", file=sys.stderr)
        return 2
    rows = list(read_log(ctx.db, cluster_id, asked["window"]))
    # Counts every side's events (each candidate's, under the advisor) against all of them.
    progress = TextProgress(f"what-if over {len(rows):,} logged events")
    result = run_request(spec, asked, rows, lambda done, total: progress(done, total, done))
    progress.close()
    print(json.dumps(result, indent=1) if args.json else render(result))
    return 0


def _refused(errors: Sequence[Mapping[str, Any]], body: Any) -> int:
    """The errors as the API's problem document names them (app/api/problems.py)."""
    from app.api.problems import field_path

    for e in errors:
        loc = tuple(e.get("loc", ()))
        where = field_path(loc, body, e.get("type", "")) if loc else ""
        print(f"headroom: {where + ': ' if where else ''}{e.get('msg')}", file=sys.stderr)
    return 2


# -- the table ------------------------------------------------------------------------------

def _num(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def headline(summary: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The figures a person compares first, those the summary has."""
    out: list[tuple[str, Any]] = [("acceptance", summary.get("acceptance")),
                                  ("reward rate", summary.get("reward_rate"))]
    for dim, v in (summary.get("utilization") or {}).items():
        out.append((f"utilisation {dim}", v))
    wait = summary.get("queue_wait")
    if wait:
        out += [("queue wait mean", wait["mean"]), ("queue wait p90", wait["p90"])]
    scale = summary.get("scale_outs")
    if scale:
        out += [("scale-outs refused", scale["denied"]), ("failure rate", scale["failure_rate"]),
                ("sla τ", scale["sla"])]
    for dim, r in (summary.get("reservations") or {}).items():
        out += [(f"reserved {dim}", r["mean_reserved"]),
                (f"violations {dim} (ε {r['epsilon']})", r["violation_rate"])]
    if "cost_per_period" in summary:
        out.append(("cost per period", summary["cost_per_period"]))
    return [(k, v) for k, v in out if v is not None]


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    cells = [list(header)] + [[_num(c) for c in r] for r in rows]
    widths = [max(len(str(r[i])) for r in cells) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
             for r in cells]
    return "\n".join([lines[0], "  ".join("-" * w for w in widths), *lines[1:]])


def render(result: Mapping[str, Any]) -> str:
    span = f"events {result['first_seq']}–{result['last_seq']} ({result['events']} events)"
    if "advice" in result:
        a = result["advice"]
        rows = [[c["rank"], c["label"] + (" (ran)" if c["is_current"] else ""), c["score"],
                 None if c["change"] is None else f"{c['change']:+.1%}",
                 None if c["interval"] is None else
                 f"{_num(c['interval']['min'])}..{_num(c['interval']['max'])}",
                 "yes" if c["meets_constraint"] else "no"] for c in a["ranking"]]
        out = [f"Advice over {span}, by {a['objective']} ({a['better']} is better)"
               + (f", constraint {json.dumps(a['constraint'])}" if a["constraint"] else ""),
               "", table(["rank", "policy", a["objective"], "change", "over seeds", "keeps"],
                         rows), "", a["statement"]]
        out += [f"skipped {json.dumps(s['policy'])}: {s['reason']}" for s in a["skipped"]]
        return "\n".join(out)
    pol, alt = result["policy"], result["alternative"]
    base, other = dict(headline(pol["summary"])), dict(headline(alt["summary"]))
    keys = list(dict.fromkeys([*base, *other]))
    rows = [[k, base.get(k), other.get(k)] for k in keys]
    seeds = alt.get("over_seeds") or {}
    out = [f"What if over {span}: {pol['kind']} (ran) against {alt['kind']}",
           (f"the replay of {pol['kind']} reproduces the log: "
            f"{'yes' if pol['reproduces_log'] else 'no'}"), "",
           table(["", f"{pol['kind']} (ran)", alt["kind"]], rows)]
    if seeds:
        out += ["", table(["over seeds", "mean", "min", "max"],
                          [[k, v["mean"], v["min"], v["max"]] for k, v in seeds.items() if v])]
    if alt["assumptions"]:
        out += ["", table(["assumption", "events", "meaning"],
                          [[x["assumption"], x["events"], x["meaning"]]
                           for x in alt["assumptions"]])]
    diff = result["differences"]
    out += ["", f"{diff['count']} logged events decided differently; the first:"]
    if diff["first"]:
        out.append(table(["seq", "event", "logged", alt["kind"]],
                         [[d["seq"], _event(d["event"]), _answer(d["logged"]),
                           _answer(d["alternative"])] for d in diff["first"]]))
    return "\n".join(out)


def _event(e: Mapping[str, Any]) -> str:
    who = e.get("job_id") or e.get("deployment_id") or e.get("period")
    return f"{e.get('kind')} {who}" if who is not None else str(e.get("kind"))


def _answer(a: Mapping[str, Any] | None) -> str:
    if a is None:
        return "(dropped)"
    where = a.get("server_id")
    return f"{a.get('decision')}" + (f" on {where}" if where else "") + \
        (f" ({a['reason']})" if a.get("reason") else "")
