-- The repeatable steps of `migrate` (src/db/migrate.ts): SQL made from definitions in the code,
-- run again whenever it changes. Each is recorded with the hash of its statements. The first are
-- the render functions of migration 009's triggers, made from the messages' definitions.
CREATE TABLE schema_repeatables (
  name       text        PRIMARY KEY,
  hash       text        NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);
