"""libpq multi-host Postgres URLs in the one spelling SQLAlchemy's psycopg dialect reads.

A highly available Postgres (Patroni, docs/operations.md "A database that survives its node")
is reached through every node's address and ``target_session_attrs=read-write``: libpq tries
them in turn and keeps the one that takes writes, so a failover needs no proxy. People write
the host list as libpq does, ``postgresql://u@h1:p1,h2:p2/db`` or ``?host=h1:p1,h2:p2``;
SQLAlchemy reads neither (the first fails to parse, the second reaches libpq as a port list
of bare commas). It reads ``?host=h1:p1&host=h2:p2``, which is what ``normalise`` writes.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit


def normalise(url: str) -> str:
    """``url`` with a comma-separated host list (in the authority or in ``host=``) moved into
    one ``host=h:p`` query parameter per node; any other URL unchanged."""
    if not url.startswith("postgresql") or "," not in url:
        return url
    parts = urlsplit(url)
    userinfo, at, hostlist = parts.netloc.rpartition("@")
    query = parse_qsl(parts.query, keep_blank_values=True)
    hosts: list[str] = []
    if "," in hostlist:  # libpq's authority form
        hosts, hostlist = hostlist.split(","), ""
    has_port = any(k == "port" for k, _ in query)  # host=h1,h2&port=p1,p2 is read as it is
    rest: list[tuple[str, str]] = []
    for key, value in query:
        if key == "host" and "," in value and not has_port:
            hosts.extend(value.split(","))
        else:
            rest.append((key, value))
    if not hosts:
        return url
    pairs = [("host", h) for h in hosts if h] + rest
    return urlunsplit((parts.scheme, userinfo + at + hostlist, parts.path,
                       urlencode(pairs, safe=":,/", quote_via=quote), parts.fragment))
