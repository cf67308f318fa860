-- Events applied per kind and skipped per type were counted here and never read: the summary of
-- an ingest and the Prometheus counters report them.
DROP TABLE ingest_counters;
