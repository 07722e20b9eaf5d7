#!/bin/sh
# Runs once, when the postgres service initialises its data directory, after 10-outbox.sql
# (sql/outbox.sql) created the tables. The least-privilege set-up of docs/operations.md: the
# router's role may log in and replicate, nothing else (it reads no table rows); the table owner
# creates the publication, so the router runs with publication.autocreate.mode: disabled.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" -v password="$OUTBOX_PASSWORD" <<'SQL'
CREATE ROLE outbox LOGIN REPLICATION PASSWORD :'password';
CREATE PUBLICATION outbox_router FOR TABLE public.outbox;
SQL
