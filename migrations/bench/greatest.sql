-- The huid_generate() of sortid before issue 13, renamed, for migrations/bench/run.sh.
CREATE FUNCTION bench_huid_greatest()
RETURNS bigint
LANGUAGE sql VOLATILE PARALLEL UNSAFE
RETURN CASE
  WHEN (pg_catalog.floor(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) * 1000)::bigint - 1767225600000) >> 42 = 0
  THEN pg_catalog.set_config('sortid.bench_last',
         GREATEST(
           (LEAST(pg_catalog.floor(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) * 1000)::bigint
                  - 1767225600000, 4398046511103) << 21)
           | (('x' || pg_catalog.left(pg_catalog.gen_random_uuid()::pg_catalog.text, 6))::bit(24)::bigint & 2097151),
           CASE
             WHEN (NULLIF(pg_catalog.current_setting('sortid.bench_last', true), '')::bigint >> 21)
                  - (pg_catalog.floor(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) * 1000)::bigint
                     - 1767225600000) <= 1
             THEN NULLIF(pg_catalog.current_setting('sortid.bench_last', true), '')::bigint + 1
                  + (pg_catalog.date_part('microseconds', pg_catalog.clock_timestamp())::bigint & 127)
             ELSE 0
           END
         )::pg_catalog.text, false)::bigint
  ELSE sortid_raise('22008',
         'huid_generate: clock ' || pg_catalog.clock_timestamp()::pg_catalog.text
         || ' is outside the HUID window [2026-01-01 00:00:00+00, 2165-05-15 07:35:11.103+00]',
         NULL::bigint)
END;
