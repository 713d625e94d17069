-- Generator designs that sortid does not ship, created in run.sh's scratch database to
-- price them next to the shipped ones (docs/BENCHMARKS.md, "SQL generators").

-- bench_huid_greatest: the huid_generate() of sortid before issue 13 (dedupe by
-- GREATEST(fresh, last + 1 + (us & 127)); fails the uniformity and birthday tests).
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

-- bench_huid_fresh: the spec's stateless algorithm, 21 fresh CSPRNG bits per call
-- (uniform, but one session can repeat itself within a millisecond).
CREATE FUNCTION bench_huid_fresh() RETURNS bigint LANGUAGE sql VOLATILE PARALLEL SAFE
RETURN huid_generate_at(pg_catalog.clock_timestamp());

-- bench_huid_nomix: huid_generate()'s session state and clock with no permutation (the
-- tail is the raw counter, so NOT uniform): the floor for any design built on a
-- set_config() state.
CREATE FUNCTION bench_huid_nomix() RETURNS bigint LANGUAGE sql VOLATILE PARALLEL UNSAFE
RETURN pg_catalog.set_config('sortid.bench_state',
         GREATEST(NULLIF(pg_catalog.current_setting('sortid.bench_state', true), '')::bigint + 1,
                  ((pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) - 1767225600) * 2097152000)::bigint)::text,
         false)::bigint
       # COALESCE(NULLIF(pg_catalog.current_setting('sortid.bench_key', true), '')::bigint, 0) # 0;

-- bench_huid_mixexpr: huid_generate() with the Feistel rounds written as one PL/pgSQL
-- RETURN expression (no local variables: each round recomputes the earlier ones).
CREATE FUNCTION bench_mix_expr(v bigint, k bigint) RETURNS bigint LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN (v & ~2097151::bigint)
   | ((((v >> 11) & 1023) # (hashint8extended(v & 2047, k # (v >> 21)) & 1023)
       # (hashint8extended(((v & 2047) # (hashint8extended((((v >> 11) & 1023) # (hashint8extended(v & 2047, k # (v >> 21)) & 1023)) | 4096, k # (v >> 21)) & 2047)) | 8192, k # (v >> 21)) & 1023)) << 11)
   | ((v & 2047) # (hashint8extended((((v >> 11) & 1023) # (hashint8extended(v & 2047, k # (v >> 21)) & 1023)) | 4096, k # (v >> 21)) & 2047)
      # (hashint8extended(((((v >> 11) & 1023) # (hashint8extended(v & 2047, k # (v >> 21)) & 1023)
       # (hashint8extended(((v & 2047) # (hashint8extended((((v >> 11) & 1023) # (hashint8extended(v & 2047, k # (v >> 21)) & 1023)) | 4096, k # (v >> 21)) & 2047)) | 8192, k # (v >> 21)) & 1023))) | 12288, k # (v >> 21)) & 2047));
END $$;
DO $$ BEGIN
  EXECUTE pg_catalog.replace(
    pg_catalog.replace(pg_catalog.pg_get_functiondef('huid_generate()'::regprocedure), 'huid_generate()', 'bench_huid_mixexpr()'),
    'sortid_huid_mix(', 'bench_mix_expr(');
END $$;
