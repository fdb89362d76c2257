# Headroom service image: slim Python, non-root, `headroom serve` by default.
FROM python:3.11-slim

# numba caches the compiled moment kernel (app/policies/moments/kernel.py) where the service
# user can write: site-packages is root's and the user has no home.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    NUMBA_CACHE_DIR=/tmp/numba-cache \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# A plain (non-editable) install from a scratch copy that is then deleted: the image runs
# what the wheel ships, migrations included (tests/test_wheel_install.py builds from the
# same inputs). The [otel] extra lets an operator turn tracing on with OTEL_* variables alone.
WORKDIR /srv/headroom
COPY pyproject.toml setup.py README.md /tmp/headroom-src/
COPY app /tmp/headroom-src/app
COPY migrations /tmp/headroom-src/migrations
RUN pip install "/tmp/headroom-src[otel,kube]" \
 && rm -rf /tmp/headroom-src \
 && useradd --system --uid 10001 --home-dir /srv/headroom headroom \
 && mkdir -p /srv/headroom/data \
 && chown headroom /srv/headroom/data

USER headroom
# The embedded SQLite default lives in a writable volume; compose overrides the URL with Postgres.
ENV HEADROOM_HOST=0.0.0.0 \
    HEADROOM_PORT=8000 \
    HEADROOM_DATABASE_URL=sqlite:////srv/headroom/data/headroom.db
EXPOSE 8000
VOLUME ["/srv/headroom/data"]
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
  CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/livez', timeout=2)"

ENTRYPOINT ["headroom"]
CMD ["serve"]
