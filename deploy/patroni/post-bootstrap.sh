#!/bin/sh
# Run once by Patroni on the first primary, with a superuser connection URL as $1: the role
# and database Headroom uses (its password from the compose file's HEADROOM_DB_PASSWORD).
set -eu
psql "$1" -v ON_ERROR_STOP=1 -v pw="$HEADROOM_DB_PASSWORD" <<'SQL'
CREATE ROLE headroom LOGIN PASSWORD :'pw';
CREATE DATABASE headroom OWNER headroom;
SQL
