#!/bin/sh
# Runs once, when the postgres service initialises its data directory, after 10-outbox.sql
# (sql/outbox.sql) created the tables. The least-privilege set-up of docs/operations.md: the
# router's role may replicate and read the outbox, nothing else; the table owner creates the
# publication, so the router runs with publication.autocreate.mode: disabled.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" -v password="$OUTBOX_PASSWORD" <<'SQL'
CREATE ROLE outbox LOGIN REPLICATION PASSWORD :'password';
GRANT SELECT ON public.outbox TO outbox;
CREATE PUBLICATION outbox_router FOR TABLE public.outbox;
SQL
