-- The outbox table in Debezium's shape, plus the orders table of the demo service.
CREATE TABLE IF NOT EXISTS public.outbox (
    id            uuid        PRIMARY KEY,
    aggregatetype text        NOT NULL,
    aggregateid   text        NOT NULL,
    type          text        NOT NULL,
    payload       jsonb,
    created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS public.orders (
    id         bigint      PRIMARY KEY,
    customer   text        NOT NULL,
    total      numeric     NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
