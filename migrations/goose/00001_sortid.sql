-- Code generated from sql/0001_sortid.up.sql and sql/0001_sortid.down.sql by the migrations tests; DO NOT EDIT.
-- Edit the canonical files and run `go test ./migrations -update`.

-- +goose Up
-- sortid 0001: PostgreSQL functions for HUID (bigint) and SCRU128 v1.0.2 (uuid/bytea).
--
-- Needs PostgreSQL 14 or later and no extension; uses sortid's native library where it
-- is installed (see "Native implementation" below and pgext/README.md). Creates its objects in the first schema
-- of the search_path at migration time (nothing hard-codes "public"); a database can hold
-- one install per schema, each using only its own objects and pg_catalog's. Safe to run
-- twice: CREATE OR REPLACE everywhere, domain creation guarded. sortid_objects() names
-- every object created here; the guard at the end and the down migration go by that
-- list, never by COMMENTs, which anyone may change.
--
-- search_path / hijacking: every LANGUAGE sql function has a SQL-standard body (RETURN
-- expr), parsed once at CREATE time and stored as object OIDs, so the caller's
-- search_path never changes what it calls, and no SET clause is needed (a SET clause
-- would forbid inlining). Built-in functions and operators in the bodies and the domain
-- CHECKs are written pg_catalog-qualified, so the migration's search_path cannot capture
-- them either (OPERATOR(pg_catalog.x) has one precedence for every operator: hence the
-- parentheses). Two things are resolved through the search_path at CREATE time, and the
-- guards check them: the type names in argument and result lists, written bare (uuid,
-- text, timestamptz, bytea, anyelement, anycompatible) because schema readers such as
-- sqlc map only the bare names to Go types; and the calls between sortid functions,
-- which must find this schema's. PL/pgSQL bodies are parsed at run time, so
-- sortid_require, sortid_huid_mix, sortid_scru128_next and scru128_generate_at qualify
-- every function and operator instead of paying for a SET search_path clause.
--
-- Errors: LANGUAGE sql cannot RAISE, so every input check is a guard
--   (ok OR sortid_require(ok, code, message, value))
-- that is true when ok holds (without calling sortid_require), NULL when ok is NULL, and
-- raises format(message, value) with the SQLSTATE code when ok is false. A guard comes
-- before the value it protects: (guard)::integer OPERATOR(pg_catalog.*) n for a number n,
-- CASE WHEN guard THEN v END otherwise. No CASE holds a raising branch: an engine that
-- evaluates the parts of an expression one by one (Citus evaluates a distributed
-- modification's function calls on the coordinator, and each branch of a CASE on its
-- own) still raises only for bad input, and the bounds (huid_min, huid_max, scru128_min,
-- scru128_max) hold no CASE at all, as Citus refuses a CASE around now() in the WHERE
-- of a distributed DELETE or UPDATE (huid_generate's CASE picks a generator and raises
-- in neither branch). sortid_require is IMMUTABLE, so
-- that the IMMUTABLE functions using it can be inlined into the caller's query (no
-- function call per row); every message names the offending value, so the planner can
-- pre-evaluate a call only where that value is a constant, which then raises when the
-- statement is planned. A NULL argument gives NULL (STRICT would forbid inlining).
--
-- Time: timestamptz arguments are instants; a literal without an offset, such as
-- huid_min('2026-06-01'), is read in the session's TimeZone, so write UTC bounds with
-- +00 (Go's HUIDRange takes instants too). Unix ms are floor()ed, also for negative
-- epochs. Pure functions compute them exactly with numeric EXTRACT on the UTC timestamp
-- (date_part(text, timestamptz) is only STABLE); generators use float8
-- date_part('epoch', clock_timestamp()) for speed, which can read a clock value lying
-- exactly on a millisecond edge as the previous millisecond (harmless for generation).
--
-- Session state, in custom settings set with set_config(..., false); do not set them:
--   sortid.huid_state, sortid.huid_key   huid_generate() (see its comment)
--   sortid.scru128_state                 scru128_generate() (see the SCRU128 generator)
--   sortid.scru128_at_state              scru128_generate_at() (see its comment)
-- Settings changed in a (sub)transaction that rolls back revert with it. Installs in
-- several schemas share them, which keeps one session's HUIDs distinct across schemas.

-- Guard: the objects below are created in the first schema of the search_path, which
-- must be neither pg_catalog (a superuser would put them among the system's, where
-- pg_dump does not see them) nor pg_temp (gone with the session, and never searched for
-- functions). The type names the functions declare bare must mean pg_catalog's types: a
-- schema searched before pg_catalog (when the search_path names pg_catalog late) or the
-- session's temporary schema (searched for types even before pg_catalog) must not
-- shadow them. Otherwise raise SQLSTATE 22023 naming the path and the schema or type.
-- +goose StatementBegin
DO $sortid$
DECLARE
  typ pg_catalog.text;
  found pg_catalog.text;
BEGIN
  IF pg_catalog.current_schema() OPERATOR(pg_catalog.=) 'pg_catalog'
     OR pg_catalog.pg_my_temp_schema() OPERATOR(pg_catalog.=)
        (SELECT n.oid FROM pg_catalog.pg_namespace n WHERE n.nspname OPERATOR(pg_catalog.=) pg_catalog.current_schema()) THEN
    RAISE EXCEPTION USING ERRCODE = '22023',
      MESSAGE = pg_catalog.format('sortid: search_path %s would create the sortid functions in %s',
                                  pg_catalog.current_setting('search_path'), pg_catalog.current_schema()),
      HINT = 'Name only the schema the functions belong in, e.g. SET search_path = app.';
  END IF;
  FOREACH typ IN ARRAY ARRAY['anycompatible', 'anyelement', 'bytea', 'regclass', 'text', 'timestamptz', 'uuid'] LOOP
    SELECT pg_catalog.format('%I.%I', n.nspname, t.typname) INTO found
    FROM pg_catalog.pg_type t
    JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) t.typnamespace
    WHERE t.oid OPERATOR(pg_catalog.=) pg_catalog.to_regtype(typ)
      AND n.oid OPERATOR(pg_catalog.<>) 'pg_catalog'::pg_catalog.regnamespace;
    IF found IS NOT NULL THEN
      RAISE EXCEPTION USING ERRCODE = '22023',
        MESSAGE = pg_catalog.format('sortid: search_path %s makes the type name %s mean %s, not pg_catalog.%s',
                                    pg_catalog.current_setting('search_path'), typ, found, typ),
        HINT = pg_catalog.format('The sortid functions declare their types by bare name: drop %s, or migrate with a search_path that does not name pg_catalog, e.g. SET search_path = app.', found);
    END IF;
  END LOOP;
END
$sortid$;
-- +goose StatementEnd

-- sortid_objects names every object this migration creates, in the order the down
-- migration drops them (dependents first): 'function name(argument types)' or
-- 'domain name', relative to the schema they are in.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION sortid_objects()
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN ARRAY[
  'function scru128_check_time(pg_catalog.uuid, interval, interval)',
  'function scru128_generate_at_bytea(pg_catalog.timestamptz)',
  'function scru128_generate_at(pg_catalog.timestamptz)',
  'function huid_check_time(bigint, interval, interval)',
  'function sortid_check_time(pg_catalog.text, pg_catalog.text, pg_catalog.timestamptz, interval, interval, pg_catalog.timestamptz)',
  'domain scru128_bytes',
  'function scru128_max_bytea(pg_catalog.timestamptz)',
  'function scru128_min_bytea(pg_catalog.timestamptz)',
  'function scru128_from_text_bytea(pg_catalog.text)',
  'function scru128_to_text(pg_catalog.text)',
  'function scru128_timestamp(pg_catalog.text)',
  'function scru128_to_text(pg_catalog.bytea)',
  'function scru128_timestamp(pg_catalog.bytea)',
  'function scru128_generate_bytea()',
  'function scru128_from_text(pg_catalog.text)',
  'function scru128_to_text(pg_catalog.uuid)',
  'function scru128_max(pg_catalog.timestamptz)',
  'function scru128_min(pg_catalog.timestamptz)',
  'function scru128_timestamp(pg_catalog.uuid)',
  'function scru128_generate()',
  'function sortid_scru128_next(pg_catalog.text, double precision)',
  'function huid_max(pg_catalog.timestamptz)',
  'function huid_min(pg_catalog.timestamptz)',
  'function huid_timestamp(bigint)',
  'function huid_generate_at(pg_catalog.timestamptz)',
  'function huid_generate()',
  'function sortid_huid_session()',
  'function sortid_huid_key(pg_catalog.regclass)',
  'sequence sortid_huid_counter',
  'function sortid_huid_mix(bigint, bigint)',
  'function sortid_require(boolean, pg_catalog.text, pg_catalog.text, pg_catalog.anycompatible)',
  'domain huid',
  'function sortid_objects()'
]::pg_catalog.text[];
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION sortid_objects() IS 'sortid internal: the objects of this sortid install, in drop order; the migrations identify sortid objects by this list alone.';
-- +goose StatementEnd

-- huid: domain for columns holding a HUID (a non-negative bigint).
-- +goose StatementBegin
DO $sortid$
BEGIN
  IF NOT EXISTS (
    SELECT 1
    FROM pg_catalog.pg_type t
    JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) t.typnamespace
    WHERE t.typname OPERATOR(pg_catalog.=) 'huid' AND t.typtype OPERATOR(pg_catalog.=) 'd'
      AND n.nspname OPERATOR(pg_catalog.=) pg_catalog.current_schema()
  ) THEN
    CREATE DOMAIN huid AS bigint CONSTRAINT huid_nonnegative CHECK (VALUE OPERATOR(pg_catalog.>=) 0);
  END IF;
END
$sortid$;
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON DOMAIN huid IS 'sortid: HUID, a 63-bit time-sortable id: (unix_ms - 1767225600000) << 21 | random21.';
-- +goose StatementEnd

-- sortid_require returns ok when it is true or NULL, and raises an error with the
-- SQLSTATE p_code and the message format(p_message, p_value) when it is false: the second
-- half of a guard (see "Errors" above). The value is formatted here, at run time, as a
-- cast to text in the caller would be only STABLE for a timestamptz and forbid inlining.
-- IMMUTABLE: see "Errors". COST 1, as a guard calls it only for bad input: at the
-- default cost of 100 the planner would price every row of an inlined caller as if it
-- raised, and a plain scan would cross jit_above_cost.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION sortid_require(ok boolean, p_code text, p_message text, p_value anycompatible)
RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE COST 1
AS $sortid$
BEGIN
  IF NOT ok THEN
    RAISE EXCEPTION USING ERRCODE = p_code, MESSAGE = pg_catalog.format(p_message, p_value);
  END IF;
  RETURN ok;
END
$sortid$;
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION sortid_require(boolean, text, text, anycompatible) IS 'sortid internal: ok unless it is false, when it raises (SQLSTATE, format(message, value)); the second half of the guard (ok OR sortid_require(ok, ...)) of the LANGUAGE sql functions.';
-- +goose StatementEnd

------------------------------------------------------------------------------------------
-- HUID
------------------------------------------------------------------------------------------

-- sortid_huid_mix maps a position v (millisecond << 21 | counter) to the HUID of that
-- millisecond whose low 21 bits are a keyed permutation of the counter: a 4-round
-- Feistel network on 10 + 11 bits, each round hashing one half with a seed of the key
-- and the millisecond, so distinct counters give distinct tails and every millisecond
-- gets an unrelated permutation. PL/pgSQL only because its parameters bind v and k once
-- (a LANGUAGE sql body would re-evaluate the expression behind v at every use); it is
-- parsed at run time, so every function and operator is pg_catalog-qualified instead of
-- paying for a SET search_path clause. A NULL key gives NULL.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION sortid_huid_mix(v bigint, k bigint)
RETURNS bigint
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $sortid$
DECLARE
  s bigint := k OPERATOR(pg_catalog.#) (v OPERATOR(pg_catalog.>>) 21);
  a bigint := ((v OPERATOR(pg_catalog.>>) 11) OPERATOR(pg_catalog.&) 1023::bigint)
              OPERATOR(pg_catalog.#) (pg_catalog.hashint8extended(v OPERATOR(pg_catalog.&) 2047::bigint, s) OPERATOR(pg_catalog.&) 1023::bigint);
  b bigint := (v OPERATOR(pg_catalog.&) 2047::bigint)
              OPERATOR(pg_catalog.#) (pg_catalog.hashint8extended(a OPERATOR(pg_catalog.|) 4096::bigint, s) OPERATOR(pg_catalog.&) 2047::bigint);
BEGIN
  a := a OPERATOR(pg_catalog.#) (pg_catalog.hashint8extended(b OPERATOR(pg_catalog.|) 8192::bigint, s) OPERATOR(pg_catalog.&) 1023::bigint);
  RETURN (v OPERATOR(pg_catalog.&) (-2097152)::bigint) OPERATOR(pg_catalog.|) (a OPERATOR(pg_catalog.<<) 11)
         OPERATOR(pg_catalog.|) (b OPERATOR(pg_catalog.#) (pg_catalog.hashint8extended(a OPERATOR(pg_catalog.|) 12288::bigint, s) OPERATOR(pg_catalog.&) 2047::bigint));
END
$sortid$;
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION sortid_huid_mix(bigint, bigint) IS 'sortid internal: HUID of position v (ms << 21 | counter) under key k; a bijection on the low 21 bits.';
-- +goose StatementEnd

-- The server's HUID generator is one sequence, sortid_huid_counter: its values are a
-- counter shared by every session, and its START value is the key of the permutation
-- (62 CSPRNG bits of a gen_random_uuid(), set here once, when the sequence is new;
-- running up again keeps it). A sequence hands every value out once and never rolls
-- back, so keys stay distinct as long as each value is used in the millisecond it is
-- drawn: that needs CACHE 1 (no session holds a block of values to use later),
-- INCREMENT BY 1 and NO CYCLE. sortid_huid_key reads the key and checks those three on
-- every call, and raises SQLSTATE 55000 naming the setting and the ALTER SEQUENCE that
-- restores it, rather than make weaker keys. RESTART, setval, a schema-only restore
-- or a Citus worker's own range only move the counter, which is harmless: repeated
-- counters give repeated keys only within one millisecond. Roles that make keys need
-- USAGE on the sequence (nextval checks it, PUBLIC has none).
-- +goose StatementBegin
CREATE SEQUENCE IF NOT EXISTS sortid_huid_counter AS bigint MINVALUE 0 START 0 CACHE 1 NO CYCLE;
-- +goose StatementEnd
-- +goose StatementBegin
DO $sortid$
BEGIN
  IF (pg_catalog.pg_sequence_parameters('sortid_huid_counter'::pg_catalog.regclass)).start_value OPERATOR(pg_catalog.=) 0 THEN
    EXECUTE pg_catalog.format('ALTER SEQUENCE sortid_huid_counter START WITH %s RESTART',
      ('x' OPERATOR(pg_catalog.||) pg_catalog.translate(pg_catalog.substr(pg_catalog.gen_random_uuid()::pg_catalog.text, 20), '-', ''))
        ::bit(64)::bigint OPERATOR(pg_catalog.&) 4611686018427387903::bigint OPERATOR(pg_catalog.|) 1::bigint);
  END IF;
END
$sortid$;
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON SEQUENCE sortid_huid_counter IS 'sortid internal: counter of huid_generate(), shared by all sessions, whose START value is the key; keep CACHE 1, INCREMENT BY 1, NO CYCLE; roles that make HUIDs need USAGE on it.';
-- +goose StatementEnd

-- sortid_huid_key returns the key of the server's generator, the START value of
-- counter, and raises SQLSTATE 55000 if counter's CACHE, INCREMENT or CYCLE would let
-- two sessions use counters 2^21 apart in one millisecond (see above). PL/pgSQL binds
-- the parameters once; every name in it is pg_catalog-qualified (see the header).
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION sortid_huid_key(counter regclass)
RETURNS bigint
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $sortid$
DECLARE
  p record := pg_catalog.pg_sequence_parameters(counter);
BEGIN
  IF p.cache_size OPERATOR(pg_catalog.<>) 1 OR p.increment OPERATOR(pg_catalog.<>) 1 OR p.cycle_option THEN
    RAISE EXCEPTION USING ERRCODE = '55000',
      MESSAGE = pg_catalog.format('huid_generate: sequence %s has CACHE %s, INCREMENT BY %s, %s; the server''s HUIDs stay distinct only with CACHE 1, INCREMENT BY 1, NO CYCLE',
                                  counter, p.cache_size, p.increment, CASE WHEN p.cycle_option THEN 'CYCLE' ELSE 'NO CYCLE' END),
      HINT = pg_catalog.format('ALTER SEQUENCE %s CACHE 1 INCREMENT BY 1 NO CYCLE', counter);
  END IF;
  RETURN p.start_value;
END
$sortid$;
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION sortid_huid_key(regclass) IS 'sortid internal: the key of huid_generate(), the START value of its counter, whose CACHE 1, INCREMENT BY 1 and NO CYCLE it checks.';
-- +goose StatementEnd

-- sortid_huid_session is huid_generate() where the server's counter cannot be used: in a
-- read-only transaction (a hot standby's included); huid_generate() checks the clock
-- against the HUID window before it. The session is the generator: it keeps a position
-- v = ms << 21 | counter in the
-- setting sortid.huid_state and returns sortid_huid_mix(v, key # pid << 42), a keyed
-- permutation of the counter. The key is 60 CSPRNG bits drawn on the session's first
-- call and kept in sortid.huid_key; the backend's pid is mixed in, so sessions sharing
-- a preset key still draw independent permutations. The next position is
-- GREATEST(v + 1, clock in units of 2^-21 ms), so a session's HUIDs never go back: if
-- the clock steps back, the session keeps counting in its last millisecond. Settings
-- roll back with a failed (sub)transaction, but the clock does not, so positions handed
-- out before a rollback are not handed out again while the clock is ahead of them.
-- Sessions collide at the birthday bound of 2^21 values per millisecond.
-- A setting whose first assignment in the session rolled back reads as '', not NULL:
-- '0' || state reads it as 0 (the clock then wins), and the key is redrawn. NULLIF
-- would say this shorter, but its = operator cannot be written qualified.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION sortid_huid_session()
RETURNS bigint
LANGUAGE sql VOLATILE PARALLEL UNSAFE
RETURN sortid_huid_mix(
         pg_catalog.set_config('sortid.huid_state',
           GREATEST(('0' OPERATOR(pg_catalog.||) pg_catalog.current_setting('sortid.huid_state', true))::bigint
                      OPERATOR(pg_catalog.+) 1,
                    LEAST((pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.-) 1767225600)
                            OPERATOR(pg_catalog.*) 2097152000,
                          9223372036854774784)::bigint)::pg_catalog.text, false)::bigint,
         COALESCE(CASE WHEN pg_catalog.textne(pg_catalog.current_setting('sortid.huid_key', true), '')
                       THEN pg_catalog.current_setting('sortid.huid_key', true) END::bigint,
                  pg_catalog.set_config('sortid.huid_key',
                    ('x' OPERATOR(pg_catalog.||)
                       pg_catalog.translate(pg_catalog.left(pg_catalog.gen_random_uuid()::pg_catalog.text, 18), '-', ''))
                      ::bit(64)::bigint::pg_catalog.text, false)::bigint)
           OPERATOR(pg_catalog.#) (pg_catalog.pg_backend_pid()::bigint OPERATOR(pg_catalog.<<) 42));
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION sortid_huid_session() IS 'sortid internal: huid_generate() in a read-only transaction: one generator per session, whose HUIDs never go back and whose tails are a keyed permutation of a per-session counter; sessions collide at the birthday bound.';
-- +goose StatementEnd

-- huid_generate returns a new HUID from the clock; outside the HUID window
-- (2026-01-01T00:00:00.000Z .. 2165-05-15T07:35:11.103Z, both edges valid) it raises
-- SQLSTATE 22008.
-- The server is the generator: the 21 low bits are sortid_huid_mix of the clock's
-- millisecond and nextval(sortid_huid_counter) modulo 2^21, under the server's key. A
-- sequence never rolls back and hands every value out once, so two keys of one server
-- are equal only if the clock showed the same millisecond for both and their counters
-- differ by a multiple of 2^21: 2 097 152 keys or more made on the server between them
-- within one millisecond of clock time, which happens only if the clock steps back.
-- Within a millisecond the tails are a uniform sample without replacement. The counter
-- and the clock are read in one call, never long apart. A counter whose settings break
-- this raises (sortid_huid_key). Where nextval cannot run (a read-only transaction, a
-- hot standby), it is sortid_huid_session(): one generator per session,
-- birthday-bound between sessions.
-- Other servers, other installs and keys made in Go are other generators.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION huid_generate()
RETURNS bigint
LANGUAGE sql VOLATILE PARALLEL UNSAFE
RETURN ((pg_catalog.clock_timestamp() OPERATOR(pg_catalog.>=) TIMESTAMP WITH TIME ZONE '2026-01-01 00:00:00+00'
       AND pg_catalog.clock_timestamp() OPERATOR(pg_catalog.<) TIMESTAMP WITH TIME ZONE '2165-05-15 07:35:11.104+00')
      OR sortid_require(pg_catalog.clock_timestamp() OPERATOR(pg_catalog.>=) TIMESTAMP WITH TIME ZONE '2026-01-01 00:00:00+00'
                          AND pg_catalog.clock_timestamp() OPERATOR(pg_catalog.<) TIMESTAMP WITH TIME ZONE '2165-05-15 07:35:11.104+00',
           '22008', 'huid_generate: clock %s is outside the HUID window [2026-01-01 00:00:00+00, 2165-05-15 07:35:11.103+00]',
           pg_catalog.clock_timestamp()))::integer
  OPERATOR(pg_catalog.*) CASE WHEN pg_catalog.current_setting('transaction_read_only') OPERATOR(pg_catalog.=) 'off'
  THEN sortid_huid_mix(
         ((LEAST((pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.-) 1767225600)
                   OPERATOR(pg_catalog.*) 2097152000,
                 9223372036854774784)::bigint OPERATOR(pg_catalog.&) (-2097152)::bigint)
          OPERATOR(pg_catalog.|) (pg_catalog.nextval('sortid_huid_counter') OPERATOR(pg_catalog.&) 2097151::bigint)),
         sortid_huid_key('sortid_huid_counter'))
  ELSE sortid_huid_session() END;
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION huid_generate() IS 'sortid: new HUID (bigint) from clock_timestamp(); the server''s keys are distinct (a keyed permutation, per millisecond, of a server-wide counter) unless the clock steps back over 2^21 keys; in a read-only transaction one generator per session (birthday-bound between sessions); errors outside 2026-01-01 .. 2165-05-15T07:35:11.103Z.';
-- +goose StatementEnd

-- huid_generate_at returns a HUID for the given time (for backfills) with fresh random
-- bits; no dedupe. Raises SQLSTATE 22008 naming the time when it is outside the window.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION huid_generate_at(ts timestamptz)
RETURNS bigint
LANGUAGE sql VOLATILE PARALLEL SAFE
RETURN ((((ts OPERATOR(pg_catalog.>=) TIMESTAMP WITH TIME ZONE '2026-01-01 00:00:00+00'
    AND ts OPERATOR(pg_catalog.<) TIMESTAMP WITH TIME ZONE '2165-05-15 07:35:11.104+00')
   OR sortid_require((ts OPERATOR(pg_catalog.>=) TIMESTAMP WITH TIME ZONE '2026-01-01 00:00:00+00'
                      AND ts OPERATOR(pg_catalog.<) TIMESTAMP WITH TIME ZONE '2165-05-15 07:35:11.104+00'), '22008',
        'huid_generate_at: %s is outside the HUID window [2026-01-01 00:00:00+00, 2165-05-15 07:35:11.103+00]', ts))::integer
         OPERATOR(pg_catalog.*) (pg_catalog.floor(EXTRACT(EPOCH FROM (ts AT TIME ZONE 'UTC')) OPERATOR(pg_catalog.*) 1000)
                                 OPERATOR(pg_catalog.-) 1767225600000)::bigint) OPERATOR(pg_catalog.<<) 21)
       OPERATOR(pg_catalog.|)
       (('x' OPERATOR(pg_catalog.||) pg_catalog.left(pg_catalog.gen_random_uuid()::pg_catalog.text, 6))::bit(24)::bigint
          OPERATOR(pg_catalog.&) 2097151);
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION huid_generate_at(pg_catalog.timestamptz) IS 'sortid: HUID for the given time (millisecond floor) with 21 fresh CSPRNG bits, for backfills; errors outside the HUID window.';
-- +goose StatementEnd

-- huid_timestamp returns the millisecond a HUID was made at. Raises SQLSTATE 22003 naming
-- the value for negative input (not a HUID).
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION huid_timestamp(id bigint)
RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN (TIMESTAMP '2026-01-01 00:00:00'
        OPERATOR(pg_catalog.+) (INTERVAL '1 millisecond' OPERATOR(pg_catalog.*)
          (((id OPERATOR(pg_catalog.>=) 0)
            OR sortid_require(id OPERATOR(pg_catalog.>=) 0, '22003', 'huid_timestamp: %s is not a valid HUID (negative)', id))::integer
           OPERATOR(pg_catalog.*) (id OPERATOR(pg_catalog.>>) 21))))
       AT TIME ZONE 'UTC';
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION huid_timestamp(bigint) IS 'sortid: creation millisecond of a HUID; errors for negative values.';
-- +goose StatementEnd

-- huid_min returns the smallest HUID of the millisecond containing ts (floor), so
-- `id BETWEEN huid_min(a) AND huid_max(b)` is a plain index range that includes b's
-- millisecond, and `id >= huid_min(a) AND id < huid_min(b)` (like the partition bound
-- `FOR VALUES FROM (huid_min(a)) TO (huid_min(b))`) excludes it, as Go's
-- HUIDRange(a, b) does for whole-millisecond a and b.
-- Raises SQLSTATE 22008 naming the time outside the HUID window.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION huid_min(ts timestamptz)
RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN (((ts OPERATOR(pg_catalog.>=) TIMESTAMP WITH TIME ZONE '2026-01-01 00:00:00+00'
    AND ts OPERATOR(pg_catalog.<) TIMESTAMP WITH TIME ZONE '2165-05-15 07:35:11.104+00')
   OR sortid_require((ts OPERATOR(pg_catalog.>=) TIMESTAMP WITH TIME ZONE '2026-01-01 00:00:00+00'
                      AND ts OPERATOR(pg_catalog.<) TIMESTAMP WITH TIME ZONE '2165-05-15 07:35:11.104+00'), '22008',
        'huid_min: %s is outside the HUID window [2026-01-01 00:00:00+00, 2165-05-15 07:35:11.103+00]', ts))::integer
        OPERATOR(pg_catalog.*) (pg_catalog.floor(EXTRACT(EPOCH FROM (ts AT TIME ZONE 'UTC')) OPERATOR(pg_catalog.*) 1000)
                                OPERATOR(pg_catalog.-) 1767225600000)::bigint) OPERATOR(pg_catalog.<<) 21;
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION huid_min(pg_catalog.timestamptz) IS 'sortid: smallest HUID of the millisecond containing ts (for range scans and partition bounds); errors outside the HUID window.';
-- +goose StatementEnd

-- huid_max returns the largest HUID of the millisecond containing ts (floor), that
-- millisecond included.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION huid_max(ts timestamptz)
RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN ((((ts OPERATOR(pg_catalog.>=) TIMESTAMP WITH TIME ZONE '2026-01-01 00:00:00+00'
    AND ts OPERATOR(pg_catalog.<) TIMESTAMP WITH TIME ZONE '2165-05-15 07:35:11.104+00')
   OR sortid_require((ts OPERATOR(pg_catalog.>=) TIMESTAMP WITH TIME ZONE '2026-01-01 00:00:00+00'
                      AND ts OPERATOR(pg_catalog.<) TIMESTAMP WITH TIME ZONE '2165-05-15 07:35:11.104+00'), '22008',
        'huid_max: %s is outside the HUID window [2026-01-01 00:00:00+00, 2165-05-15 07:35:11.103+00]', ts))::integer
         OPERATOR(pg_catalog.*) (pg_catalog.floor(EXTRACT(EPOCH FROM (ts AT TIME ZONE 'UTC')) OPERATOR(pg_catalog.*) 1000)
                                 OPERATOR(pg_catalog.-) 1767225600000)::bigint) OPERATOR(pg_catalog.<<) 21)
       OPERATOR(pg_catalog.|) 2097151;
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION huid_max(pg_catalog.timestamptz) IS 'sortid: largest HUID of the millisecond containing ts (for range scans); errors outside the HUID window.';
-- +goose StatementEnd

------------------------------------------------------------------------------------------
-- SCRU128 v1.0.2: timestamp(44, ms since 2020-01-01) | counter(28) | per_sec_random(24)
--                 | per_gen_random(32), big-endian = the 16 uuid bytes.
------------------------------------------------------------------------------------------

-- SCRU128 generator. Each database session is one generator, with its state in the
-- setting sortid.scru128_state: 75 hex digits, the last ID (32: timestamp 11, counter
-- 7, per_sec_random 6, per_gen_random 8), ts_last_sec (11) and the session key (32).
--   * new millisecond: counter := random 28 bits;
--   * same millisecond, or clock behind the last timestamp by at most 10 000 ms: keep
--     the last timestamp, counter + 1; on counter overflow (2^28) timestamp + 1 and a
--     random counter;
--   * clock behind by more than 10 000 ms: restart from the clock (only case in which a
--     session's output is not ascending);
--   * per_sec_random (24 bits) renewed when timestamp - ts_last_sec > 1000;
--   * per_gen_random: 32 fresh bits for every ID.
-- Random bits: the key is one gen_random_uuid() (122 random bits), drawn on the
-- session's first call; every call takes its bits from SHA-256(previous state || the
-- clock as float8), a keyed hash of an input no other call of the session has (the
-- state changes with every ID, and after a rollback restores an earlier state the
-- clock has moved on), so the bits are as unpredictable as the key and fresh for
-- every ID, without a gen_random_uuid() (several times dearer than SHA-256) per ID.
-- The state rolls back with a failed (sub)transaction, so the ID after a rollback can
-- repeat the timestamp and counter of a rolled-back one and sort before it; its random
-- bits are still fresh, so it differs (a session whose first transaction rolls back
-- also loses its key and draws a new one).

-- sortid_scru128_next returns the state after s for the clock e (unix seconds) when
-- scru128_generate() leaves its fast path: first call, new millisecond, counter
-- overflow, clock more than 10 s behind. PL/pgSQL for its branches and local
-- variables; parsed at run time, so every function, operator and non-keyword type is
-- pg_catalog-qualified instead of paying for a SET search_path clause. Raises SQLSTATE
-- 22008 rather than emit the reserved timestamps 0 and 2^44-1 (clock before
-- 2020-01-01T00:00:00.001Z or after 2577-06-22T06:20:44.414Z).
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION sortid_scru128_next(s text, e double precision)
RETURNS text
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
AS $sortid$
DECLARE
  now_ms bigint := pg_catalog.floor(e OPERATOR(pg_catalog.*) 1000)::bigint OPERATOR(pg_catalog.-) 1577836800000;
  ts     bigint;
  tsec   bigint;
  psr    pg_catalog.text;
  k      pg_catalog.text;
  h      pg_catalog.text;
BEGIN
  IF pg_catalog.length(s) OPERATOR(pg_catalog.=) 75 THEN
    ts   := ('x' OPERATOR(pg_catalog.||) pg_catalog.substr(s, 1, 11))::bit(44)::bigint;
    psr  := pg_catalog.substr(s, 19, 6);
    tsec := ('x' OPERATOR(pg_catalog.||) pg_catalog.substr(s, 33, 11))::bit(44)::bigint;
    k    := pg_catalog.substr(s, 44, 32);
  ELSE
    k := pg_catalog.translate(pg_catalog.gen_random_uuid()::pg_catalog.text, '-', '');
    s := k;
  END IF;
  -- hex digits 1-8 per_gen_random, 9-15 counter, 16-21 per_sec_random
  h := pg_catalog.encode(pg_catalog.sha256(s::pg_catalog.bytea OPERATOR(pg_catalog.||) pg_catalog.float8send(e)), 'hex');
  IF ts IS NULL OR now_ms OPERATOR(pg_catalog.>) ts THEN
    ts := now_ms;
  ELSIF now_ms OPERATOR(pg_catalog.<) (ts OPERATOR(pg_catalog.-) 10000) THEN
    ts   := now_ms;
    tsec := NULL;
  ELSE
    ts := ts OPERATOR(pg_catalog.+) 1;
  END IF;
  IF tsec IS NULL OR (ts OPERATOR(pg_catalog.-) tsec) OPERATOR(pg_catalog.>) 1000 THEN
    tsec := ts;
    psr  := pg_catalog.substr(h, 16, 6);
  END IF;
  IF ts OPERATOR(pg_catalog.<) 1 OR ts OPERATOR(pg_catalog.>) 17592186044414 THEN
    RAISE EXCEPTION USING ERRCODE = '22008',
      MESSAGE = pg_catalog.format('scru128_generate: clock %s gives SCRU128 timestamp %s, outside 1 .. 17592186044414',
                                  pg_catalog.to_timestamp(e), ts);
  END IF;
  RETURN pg_catalog.lpad(pg_catalog.to_hex(ts), 11, '0')
    OPERATOR(pg_catalog.||) pg_catalog.substr(h, 9, 7)
    OPERATOR(pg_catalog.||) psr
    OPERATOR(pg_catalog.||) pg_catalog.substr(h, 1, 8)
    OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.to_hex(tsec), 11, '0')
    OPERATOR(pg_catalog.||) k;
END
$sortid$;
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION sortid_scru128_next(pg_catalog.text, double precision) IS 'sortid internal: scru128_generate() state after state s at clock e (unix seconds) off its fast path; errors on reserved timestamps.';
-- +goose StatementEnd

-- scru128_generate returns a new SCRU128 ID (rules above). One inlinable expression:
-- the fast path (clock at most 10 s behind the last timestamp and not past it,
-- counter below 2^28-1) is counter + 1 and 32 bits of SHA-256, evaluated in place;
-- the rest goes to sortid_scru128_next. The clock is read more than once, which can
-- only move it forward.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION scru128_generate()
RETURNS uuid
LANGUAGE sql VOLATILE PARALLEL UNSAFE
RETURN pg_catalog.left(pg_catalog.set_config('sortid.scru128_state',
  CASE
    WHEN pg_catalog.length(pg_catalog.current_setting('sortid.scru128_state', true)) OPERATOR(pg_catalog.=) 75
     AND pg_catalog.abs(((('x' OPERATOR(pg_catalog.||) pg_catalog.left(pg_catalog.current_setting('sortid.scru128_state', true), 11))::bit(44)::bigint
                          OPERATOR(pg_catalog.-) (pg_catalog.floor(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.*) 1000)::bigint
                                                  OPERATOR(pg_catalog.-) 1577836800000)) OPERATOR(pg_catalog.*) 2)
                        OPERATOR(pg_catalog.-) 10000) OPERATOR(pg_catalog.<=) 10000
     AND pg_catalog.substr(pg_catalog.current_setting('sortid.scru128_state', true), 12, 7) OPERATOR(pg_catalog.<>) 'fffffff'
    THEN pg_catalog.left(pg_catalog.current_setting('sortid.scru128_state', true), 11)
      OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.to_hex(('x' OPERATOR(pg_catalog.||) pg_catalog.substr(pg_catalog.current_setting('sortid.scru128_state', true), 12, 7))::bit(28)::bigint
                                                                OPERATOR(pg_catalog.+) 1), 7, '0')
      OPERATOR(pg_catalog.||) pg_catalog.substr(pg_catalog.current_setting('sortid.scru128_state', true), 19, 6)
      OPERATOR(pg_catalog.||) pg_catalog.encode(pg_catalog.substr(pg_catalog.sha256(
                                pg_catalog.current_setting('sortid.scru128_state', true)::pg_catalog.bytea
                                OPERATOR(pg_catalog.||) pg_catalog.float8send(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()))), 1, 4), 'hex')
      OPERATOR(pg_catalog.||) pg_catalog.right(pg_catalog.current_setting('sortid.scru128_state', true), 43)
    ELSE sortid_scru128_next(pg_catalog.current_setting('sortid.scru128_state', true),
                             pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()))
  END, false), 32)::pg_catalog.uuid;
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION scru128_generate() IS 'sortid: new SCRU128 v1.0.2 ID as uuid; one generator per session, ascending unless the clock steps back > 10 s or a (sub)transaction that drew IDs rolls back (the state rolls back with it; the next ID then differs from the rolled-back ones but can sort before them); random bits from SHA-256 keyed by one gen_random_uuid() per session; errors on reserved timestamps.';
-- +goose StatementEnd

-- scru128_timestamp returns the millisecond encoded in a SCRU128 ID (any 44-bit value,
-- reserved ones included).
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION scru128_timestamp(id uuid)
RETURNS timestamptz
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN (TIMESTAMP '2020-01-01 00:00:00'
        OPERATOR(pg_catalog.+)
        (INTERVAL '1 millisecond'
         OPERATOR(pg_catalog.*)
         ('x' OPERATOR(pg_catalog.||) pg_catalog.left(pg_catalog.replace(id::pg_catalog.text, '-', ''), 11))::bit(44)::bigint)
       ) AT TIME ZONE 'UTC';
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION scru128_timestamp(pg_catalog.uuid) IS 'sortid: millisecond encoded in a SCRU128 ID.';
-- +goose StatementEnd

-- scru128_min returns the smallest SCRU128 ID of the millisecond containing ts (floor):
-- that timestamp with all other bits 0. Accepts the whole 44-bit range,
-- 2020-01-01T00:00:00.000Z .. 2577-06-22T06:20:44.415Z (reserved timestamps included,
-- they are valid range bounds); raises SQLSTATE 22008 naming the time outside it.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION scru128_min(ts timestamptz)
RETURNS uuid
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN (pg_catalog.lpad(pg_catalog.to_hex(
          ((ts OPERATOR(pg_catalog.>=) TIMESTAMP WITH TIME ZONE '2020-01-01 00:00:00+00'
            AND ts OPERATOR(pg_catalog.<) TIMESTAMP WITH TIME ZONE '2577-06-22 06:20:44.416+00')
           OR sortid_require(ts OPERATOR(pg_catalog.>=) TIMESTAMP WITH TIME ZONE '2020-01-01 00:00:00+00'
                               AND ts OPERATOR(pg_catalog.<) TIMESTAMP WITH TIME ZONE '2577-06-22 06:20:44.416+00', '22008',
                'scru128_min: %s is outside the SCRU128 range [2020-01-01 00:00:00+00, 2577-06-22 06:20:44.415+00]', ts))::integer
          OPERATOR(pg_catalog.*) (pg_catalog.floor(EXTRACT(EPOCH FROM (ts AT TIME ZONE 'UTC')) OPERATOR(pg_catalog.*) 1000)
                                  OPERATOR(pg_catalog.-) 1577836800000)::bigint), 11, '0')
        OPERATOR(pg_catalog.||) '000000000000000000000')::pg_catalog.uuid;
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION scru128_min(pg_catalog.timestamptz) IS 'sortid: smallest SCRU128 ID (uuid) of the millisecond containing ts.';
-- +goose StatementEnd

-- scru128_max returns the largest SCRU128 ID of the millisecond containing ts (floor):
-- that timestamp with all other bits 1. Same range as scru128_min.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION scru128_max(ts timestamptz)
RETURNS uuid
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN (pg_catalog.lpad(pg_catalog.to_hex(
          ((ts OPERATOR(pg_catalog.>=) TIMESTAMP WITH TIME ZONE '2020-01-01 00:00:00+00'
            AND ts OPERATOR(pg_catalog.<) TIMESTAMP WITH TIME ZONE '2577-06-22 06:20:44.416+00')
           OR sortid_require(ts OPERATOR(pg_catalog.>=) TIMESTAMP WITH TIME ZONE '2020-01-01 00:00:00+00'
                               AND ts OPERATOR(pg_catalog.<) TIMESTAMP WITH TIME ZONE '2577-06-22 06:20:44.416+00', '22008',
                'scru128_max: %s is outside the SCRU128 range [2020-01-01 00:00:00+00, 2577-06-22 06:20:44.415+00]', ts))::integer
          OPERATOR(pg_catalog.*) (pg_catalog.floor(EXTRACT(EPOCH FROM (ts AT TIME ZONE 'UTC')) OPERATOR(pg_catalog.*) 1000)
                                  OPERATOR(pg_catalog.-) 1577836800000)::bigint), 11, '0')
        OPERATOR(pg_catalog.||) 'fffffffffffffffffffff')::pg_catalog.uuid;
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION scru128_max(pg_catalog.timestamptz) IS 'sortid: largest SCRU128 ID (uuid) of the millisecond containing ts.';
-- +goose StatementEnd

-- scru128_to_text returns the 26-digit canonical text (radix 32, digits 0-9A-V,
-- uppercase, leading zeros) of a SCRU128 ID. Its subquery keeps it from being inlined.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION scru128_to_text(id uuid)
RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN (
  SELECT pg_catalog.string_agg(
           pg_catalog.substr('0123456789ABCDEFGHIJKLMNOPQRSTUV',
                             pg_catalog.substring(s.b, (i OPERATOR(pg_catalog.*) 5) OPERATOR(pg_catalog.+) 1, 5)::integer
                               OPERATOR(pg_catalog.+) 1,
                             1),
           '' ORDER BY i)
  FROM (SELECT (B'00' OPERATOR(pg_catalog.||)
                ('x' OPERATOR(pg_catalog.||) pg_catalog.replace(id::pg_catalog.text, '-', ''))::bit(128))::bit(130) AS b) AS s,
       pg_catalog.generate_series(0, 25) AS i
);
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION scru128_to_text(pg_catalog.uuid) IS 'sortid: 26-digit canonical SCRU128 text (0-9A-V, uppercase) of a uuid.';
-- +goose StatementEnd

-- scru128_from_text parses the 26-digit text, case-insensitively. Raises SQLSTATE 22P02
-- naming the input unless it is exactly 26 digits of 0-9A-Va-v and at most
-- 7VVVVVVVVVVVVVVVVVVVVVVVVV (2^128-1). Reserved timestamps are accepted, as upstream.
-- Its subquery keeps it from being inlined.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION scru128_from_text(s text)
RETURNS uuid
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN CASE
  WHEN s OPERATOR(pg_catalog.~) '^[01234567][0123456789ABCDEFGHIJKLMNOPQRSTUVabcdefghijklmnopqrstuv]{25}$'
    OR sortid_require(s OPERATOR(pg_catalog.~) '^[01234567][0123456789ABCDEFGHIJKLMNOPQRSTUVabcdefghijklmnopqrstuv]{25}$', '22P02',
         'scru128_from_text: invalid SCRU128 text %s: want 26 digits 0-9A-V (any case), at most 7VVVVVVVVVVVVVVVVVVVVVVVVV',
         pg_catalog.quote_literal(pg_catalog.left(s, 100))
         OPERATOR(pg_catalog.||) CASE WHEN pg_catalog.length(s) OPERATOR(pg_catalog.>) 100
                                      THEN '... (' OPERATOR(pg_catalog.||) pg_catalog.length(s)::pg_catalog.text
                                           OPERATOR(pg_catalog.||) ' chars)'
                                      ELSE '' END)
  THEN (
    SELECT (pg_catalog.lpad(pg_catalog.to_hex(pg_catalog.substring(d.b, 3, 64)::bigint), 16, '0')
            OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.to_hex(pg_catalog.substring(d.b, 67, 64)::bigint), 16, '0')
           )::pg_catalog.uuid
    FROM (
      SELECT pg_catalog.string_agg(
               ((pg_catalog.strpos('0123456789ABCDEFGHIJKLMNOPQRSTUV',
                                   pg_catalog.translate(pg_catalog.substr(s, i, 1),
                                                        'abcdefghijklmnopqrstuv', 'ABCDEFGHIJKLMNOPQRSTUV'))
                 OPERATOR(pg_catalog.-) 1
                )::bit(5))::pg_catalog.text,
               '' ORDER BY i)::bit(130) AS b
      FROM pg_catalog.generate_series(1, 26) AS i
    ) AS d
  )
END;
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION scru128_from_text(pg_catalog.text) IS 'sortid: parse 26-digit SCRU128 text (case-insensitive) into a uuid; errors naming the input otherwise.';
-- +goose StatementEnd

-- bytea variants, for SCRU128 IDs stored as 16-byte bytea (same byte order as uuid).
-- A bytea of another length raises SQLSTATE 22023 naming the length.

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION scru128_generate_bytea()
RETURNS bytea
LANGUAGE sql VOLATILE PARALLEL UNSAFE
RETURN pg_catalog.uuid_send(scru128_generate());
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION scru128_generate_bytea() IS 'sortid: scru128_generate() as 16 big-endian bytes.';
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION scru128_timestamp(id bytea)
RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE
  WHEN pg_catalog.octet_length(id) OPERATOR(pg_catalog.=) 16
    OR sortid_require(pg_catalog.octet_length(id) OPERATOR(pg_catalog.=) 16, '22023',
         'scru128_timestamp: bytea of length %s is not a SCRU128 ID (want 16 bytes)', pg_catalog.octet_length(id))
  THEN scru128_timestamp(pg_catalog.encode(id, 'hex')::pg_catalog.uuid)
END;
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION scru128_timestamp(pg_catalog.bytea) IS 'sortid: millisecond encoded in a 16-byte SCRU128 ID; errors naming any other length.';
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION scru128_to_text(id bytea)
RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN CASE
  WHEN pg_catalog.octet_length(id) OPERATOR(pg_catalog.=) 16
    OR sortid_require(pg_catalog.octet_length(id) OPERATOR(pg_catalog.=) 16, '22023',
         'scru128_to_text: bytea of length %s is not a SCRU128 ID (want 16 bytes)', pg_catalog.octet_length(id))
  THEN scru128_to_text(pg_catalog.encode(id, 'hex')::pg_catalog.uuid)
END;
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION scru128_to_text(pg_catalog.bytea) IS 'sortid: 26-digit canonical text of a 16-byte SCRU128 ID; errors naming any other length.';
-- +goose StatementEnd

-- text variants: an untyped literal such as scru128_to_text('017fa1de-54ba-...') would
-- otherwise match both the uuid and the bytea variant ("function is not unique"); text
-- is the preferred type for a literal, and the text is read as a uuid.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION scru128_timestamp(id text)
RETURNS timestamptz
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN scru128_timestamp(id::pg_catalog.uuid);
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION scru128_timestamp(pg_catalog.text) IS 'sortid: scru128_timestamp() of a uuid written as text (so untyped literals resolve).';
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION scru128_to_text(id text)
RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN scru128_to_text(id::pg_catalog.uuid);
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION scru128_to_text(pg_catalog.text) IS 'sortid: scru128_to_text() of a uuid written as text (so untyped literals resolve).';
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION scru128_from_text_bytea(s text)
RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN pg_catalog.uuid_send(scru128_from_text(s));
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION scru128_from_text_bytea(pg_catalog.text) IS 'sortid: scru128_from_text() as 16 big-endian bytes.';
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION scru128_min_bytea(ts timestamptz)
RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN pg_catalog.uuid_send(scru128_min(ts));
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION scru128_min_bytea(pg_catalog.timestamptz) IS 'sortid: scru128_min() as 16 big-endian bytes.';
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION scru128_max_bytea(ts timestamptz)
RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN pg_catalog.uuid_send(scru128_max(ts));
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION scru128_max_bytea(pg_catalog.timestamptz) IS 'sortid: scru128_max() as 16 big-endian bytes.';
-- +goose StatementEnd

------------------------------------------------------------------------------------------
-- SCRU128 at a given time, for backfills and imports (Go: SCRU128Generator.GenerateAt)
------------------------------------------------------------------------------------------

-- scru128_generate_at returns a SCRU128 ID whose timestamp is ts floored to the
-- millisecond. Each database session is one generator, apart from scru128_generate()'s,
-- with its state in the setting sortid.scru128_at_state: 35 hex digits, the last
-- timestamp (11), counter (7), per_sec_random (6) and ts_last_sec (11).
--   * same millisecond as the session's previous call: counter + 1, so IDs made one
--     after another at one ts strictly ascend; any other millisecond, later or earlier:
--     counter := random 28 bits;
--   * counter already 2^28-1: raise rather than move to the next millisecond, as the ID
--     must carry ts. SQLSTATE 54000, not 22008: ts is valid (22008 is for a ts outside
--     the window), and another session or another ts succeeds where the same call in
--     this session never will. As the first counter is random, n IDs in a row at one ts
--     hit it with a probability of about n/2^28;
--   * per_sec_random renewed when the timestamp is more than 1000 ms past ts_last_sec or
--     before it (a backfill's times may go back);
--   * per_gen_random: 32 fresh bits for every ID.
-- Random bits: one gen_random_uuid() (CSPRNG) per call, which a backfill can afford;
-- only its random hex digits are used (of the 32, digit 13 is the version and digit 17
-- holds the variant): 1-7 counter, 18-25 per_gen_random, 26-31 per_sec_random.
-- The state rolls back with a failed (sub)transaction, so the ID after a rollback can
-- repeat the timestamp, counter and per_sec_random of a rolled-back one; its
-- per_gen_random is fresh, so it differs.
-- A state it did not write (not 35 lowercase hex digits) raises SQLSTATE 22023 naming the
-- setting, rather than be read as fields.
-- Raises SQLSTATE 22008 naming ts outside 2020-01-01 00:00:00.001+00 ..
-- 2577-06-22 06:20:44.414+00 (the timestamps 0 and 2^44-1 are reserved). STRICT: NULL
-- gives NULL and leaves the state alone. PL/pgSQL, parsed at run time, so every
-- function, operator and non-keyword type is pg_catalog-qualified.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION scru128_generate_at(ts timestamptz)
RETURNS uuid
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
AS $sortid$
DECLARE
  s    pg_catalog.text := pg_catalog.current_setting('sortid.scru128_at_state', true);
  r    pg_catalog.text;
  ms   bigint;
  last bigint;
  ctr  bigint;
  psr  pg_catalog.text;
  tsec bigint;
BEGIN
  IF s OPERATOR(pg_catalog.<>) '' AND NOT s OPERATOR(pg_catalog.~) '^[0-9a-f]{35}$' THEN
    RAISE EXCEPTION USING ERRCODE = '22023',
      MESSAGE = pg_catalog.format('scru128_generate_at: the setting sortid.scru128_at_state holds %L, which this function did not write', s),
      HINT = 'Do not set it; RESET sortid.scru128_at_state starts a new generator.';
  END IF;
  IF ts OPERATOR(pg_catalog.<) TIMESTAMP WITH TIME ZONE '2020-01-01 00:00:00.001+00'
     OR ts OPERATOR(pg_catalog.>=) TIMESTAMP WITH TIME ZONE '2577-06-22 06:20:44.415+00' THEN
    RAISE EXCEPTION USING ERRCODE = '22008',
      MESSAGE = pg_catalog.format('scru128_generate_at: %s is outside the SCRU128 range [2020-01-01 00:00:00.001+00, 2577-06-22 06:20:44.414+00] (the timestamps 0 and 2^44-1 are reserved)', ts);
  END IF;
  ms := (pg_catalog.floor(EXTRACT(EPOCH FROM (ts AT TIME ZONE 'UTC')) OPERATOR(pg_catalog.*) 1000)
         OPERATOR(pg_catalog.-) 1577836800000)::bigint;
  IF pg_catalog.length(s) OPERATOR(pg_catalog.=) 35 THEN
    last := ('x' OPERATOR(pg_catalog.||) pg_catalog.substr(s, 1, 11))::bit(44)::bigint;
    ctr  := ('x' OPERATOR(pg_catalog.||) pg_catalog.substr(s, 12, 7))::bit(28)::bigint;
    psr  := pg_catalog.substr(s, 19, 6);
    tsec := ('x' OPERATOR(pg_catalog.||) pg_catalog.substr(s, 25, 11))::bit(44)::bigint;
  END IF;
  IF last IS NOT NULL AND ms OPERATOR(pg_catalog.=) last
     AND ctr OPERATOR(pg_catalog.>=) 268435455 THEN
    RAISE EXCEPTION USING ERRCODE = '54000',
      MESSAGE = pg_catalog.format('scru128_generate_at: the counter of the millisecond of %s is used up in this session (2^28-1 reached); make this ID at another time or in another session', ts);
  END IF;
  r := pg_catalog.translate(pg_catalog.gen_random_uuid()::pg_catalog.text, '-', '');
  IF last IS NOT NULL AND ms OPERATOR(pg_catalog.=) last THEN
    ctr := ctr OPERATOR(pg_catalog.+) 1;
  ELSE
    ctr := ('x' OPERATOR(pg_catalog.||) pg_catalog.substr(r, 1, 7))::bit(28)::bigint;
  END IF;
  IF tsec IS NULL OR ms OPERATOR(pg_catalog.<) tsec OR (ms OPERATOR(pg_catalog.-) tsec) OPERATOR(pg_catalog.>) 1000 THEN
    tsec := ms;
    psr  := pg_catalog.substr(r, 26, 6);
  END IF;
  s := pg_catalog.lpad(pg_catalog.to_hex(ms), 11, '0')
    OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.to_hex(ctr), 7, '0')
    OPERATOR(pg_catalog.||) psr
    OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.to_hex(tsec), 11, '0');
  PERFORM pg_catalog.set_config('sortid.scru128_at_state', s, false);
  RETURN (pg_catalog.left(s, 24) OPERATOR(pg_catalog.||) pg_catalog.substr(r, 18, 8))::pg_catalog.uuid;
END
$sortid$;
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION scru128_generate_at(pg_catalog.timestamptz) IS 'sortid: SCRU128 ID (uuid) of the millisecond containing ts, for backfills; one generator per session apart from scru128_generate(): counter + 1 for calls in a row at one millisecond, random otherwise; random bits from gen_random_uuid(); errors outside the window of generated IDs (22008) and when the counter of the millisecond is used up (54000).';
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION scru128_generate_at_bytea(ts timestamptz)
RETURNS bytea
LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE
RETURN pg_catalog.uuid_send(scru128_generate_at(ts));
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION scru128_generate_at_bytea(pg_catalog.timestamptz) IS 'sortid: scru128_generate_at() as 16 big-endian bytes.';
-- +goose StatementEnd

------------------------------------------------------------------------------------------
-- Keys made elsewhere: is the time of a client's key plausible?
------------------------------------------------------------------------------------------

-- sortid_check_time returns true when t, the time of the key id (of the given kind), lies
-- within [at - past, at + future], both ends included, as Go's idtype.TimeCheck; otherwise
-- it raises SQLSTATE 22008 naming the key, its time, at and the skew, or 22023 for a
-- negative skew. Any NULL argument gives NULL.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION sortid_check_time(kind text, id text, t timestamptz, past interval,
                                             future interval, at timestamptz)
RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
RETURN (past OPERATOR(pg_catalog.>=) INTERVAL '0' AND future OPERATOR(pg_catalog.>=) INTERVAL '0'
        OR sortid_require(past OPERATOR(pg_catalog.>=) INTERVAL '0' AND future OPERATOR(pg_catalog.>=) INTERVAL '0', '22023', '%s',
             pg_catalog.format('%s_check_time: the skew must not be negative (past %s, future %s)',
                               pg_catalog.lower(kind), past, future)))
   AND (t OPERATOR(pg_catalog.>=) (at OPERATOR(pg_catalog.-) past)
        OR sortid_require(t OPERATOR(pg_catalog.>=) (at OPERATOR(pg_catalog.-) past), '22008', '%s',
             pg_catalog.format('%s_check_time: %s %s was made at %s, %s before now (%s); at most %s is allowed',
                               pg_catalog.lower(kind), kind, id, t, at OPERATOR(pg_catalog.-) t, at, past)))
   AND (t OPERATOR(pg_catalog.<=) (at OPERATOR(pg_catalog.+) future)
        OR sortid_require(t OPERATOR(pg_catalog.<=) (at OPERATOR(pg_catalog.+) future), '22008', '%s',
             pg_catalog.format('%s_check_time: %s %s was made at %s, %s after now (%s); at most %s is allowed',
                               pg_catalog.lower(kind), kind, id, t, t OPERATOR(pg_catalog.-) at, at, future)));
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION sortid_check_time(pg_catalog.text, pg_catalog.text, pg_catalog.timestamptz, interval, interval, pg_catalog.timestamptz) IS 'sortid internal: the rule of huid_check_time and scru128_check_time, at a given now.';
-- +goose StatementEnd

-- huid_check_time is sortid_check_time for a HUID, now being clock_timestamp() at each
-- call rounded down to its millisecond: the key's millisecond is compared with now's, as
-- Go's idtype.TimeCheck does, so a key made in the current millisecond passes even with
-- no skew allowed (huid_check_time(huid_generate(), '0', '0') is true), and one 1 ms
-- before or after it does not. For a BEFORE INSERT trigger or a CHECK constraint on keys
-- that clients make. A negative HUID raises 22003 (huid_timestamp).
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION huid_check_time(id bigint, past interval, future interval)
RETURNS boolean
LANGUAGE sql VOLATILE PARALLEL SAFE
RETURN sortid_check_time('HUID', id::pg_catalog.text, huid_timestamp(id), past, future,
                         pg_catalog.date_trunc('milliseconds', pg_catalog.clock_timestamp()));
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION huid_check_time(bigint, interval, interval) IS 'sortid: true when the HUID''s millisecond lies at most past before and future after the millisecond of clock_timestamp() (a key of the current millisecond passes with no skew); errors naming its time otherwise.';
-- +goose StatementEnd

-- scru128_check_time is huid_check_time for a SCRU128 (uuid), with the same rule: its
-- millisecond against the millisecond of clock_timestamp().
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION scru128_check_time(id uuid, past interval, future interval)
RETURNS boolean
LANGUAGE sql VOLATILE PARALLEL SAFE
RETURN sortid_check_time('SCRU128', id::pg_catalog.text, scru128_timestamp(id), past, future,
                         pg_catalog.date_trunc('milliseconds', pg_catalog.clock_timestamp()));
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON FUNCTION scru128_check_time(pg_catalog.uuid, interval, interval) IS 'sortid: true when the SCRU128''s millisecond lies at most past before and future after the millisecond of clock_timestamp() (a key of the current millisecond passes with no skew); errors naming its time otherwise.';
-- +goose StatementEnd

-- scru128_bytes: domain for bytea columns holding a SCRU128 ID (exactly 16 bytes). A
-- SCRU128 sent as its 36 characters of UUID text, which a client that does not know the
-- column's type (pgx QueryExecModeExec or SimpleProtocol, database/sql with a string)
-- stores into a plain bytea, fails here with SQLSTATE 23514 instead of being stored.
-- +goose StatementBegin
DO $sortid$
BEGIN
  IF NOT EXISTS (
    SELECT 1
    FROM pg_catalog.pg_type t
    JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) t.typnamespace
    WHERE t.typname OPERATOR(pg_catalog.=) 'scru128_bytes' AND t.typtype OPERATOR(pg_catalog.=) 'd'
      AND n.nspname OPERATOR(pg_catalog.=) pg_catalog.current_schema()
  ) THEN
    CREATE DOMAIN scru128_bytes AS pg_catalog.bytea
      CONSTRAINT scru128_bytes_length CHECK (pg_catalog.octet_length(VALUE) OPERATOR(pg_catalog.=) 16);
  END IF;
END
$sortid$;
-- +goose StatementEnd

-- +goose StatementBegin
COMMENT ON DOMAIN scru128_bytes IS 'sortid: SCRU128 ID as 16 big-endian bytes; any other length is refused.';
-- +goose StatementEnd

-- Native implementation: where the library of pgext/ (sortid.so) is installed in the
-- server and the migrating role may create C functions (a superuser), the generators
-- are redefined as its C functions, with the same names, signatures and rules, so
-- DEFAULTs and functions that call them need no change. Elsewhere (a managed service,
-- or a server without the library) the plain SQL above stays, with a NOTICE when only
-- the privilege is missing; the setting sortid.native = off keeps it too (before a
-- dump for a server without the library). Running up again switches; pg_proc.prolang
-- tells which is in use (pgext/README.md). Both implementations make keys by one
-- rule, so a mix during a switch repeats no key.
-- +goose StatementBegin
DO $sortid$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_available_extensions WHERE name OPERATOR(pg_catalog.=) 'sortid')
     OR pg_catalog.current_setting('sortid.native', true) OPERATOR(pg_catalog.=) 'off' THEN
    RETURN;
  END IF;
  IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) CURRENT_USER) THEN
    RAISE NOTICE USING
      MESSAGE = pg_catalog.format('sortid: the native library is installed, but role %I may not create C functions; the generators stay plain SQL', CURRENT_USER),
      HINT = 'Run the up migration again as a superuser to use the native generators.';
    RETURN;
  END IF;
CREATE OR REPLACE FUNCTION huid_generate()
RETURNS bigint
LANGUAGE c VOLATILE PARALLEL UNSAFE AS '$libdir/sortid', 'sortid_huid_generate';
CREATE OR REPLACE FUNCTION huid_generate_at(ts timestamptz)
RETURNS bigint
LANGUAGE c VOLATILE PARALLEL SAFE AS '$libdir/sortid', 'sortid_huid_generate_at';
CREATE OR REPLACE FUNCTION scru128_generate()
RETURNS uuid
LANGUAGE c VOLATILE PARALLEL UNSAFE AS '$libdir/sortid', 'sortid_scru128_generate';
CREATE OR REPLACE FUNCTION scru128_generate_bytea()
RETURNS bytea
LANGUAGE c VOLATILE PARALLEL UNSAFE AS '$libdir/sortid', 'sortid_scru128_generate_bytea';
CREATE OR REPLACE FUNCTION scru128_generate_at(ts timestamptz)
RETURNS uuid
LANGUAGE c VOLATILE STRICT PARALLEL UNSAFE AS '$libdir/sortid', 'sortid_scru128_generate_at';
CREATE OR REPLACE FUNCTION scru128_generate_at_bytea(ts timestamptz)
RETURNS bytea
LANGUAGE c VOLATILE STRICT PARALLEL UNSAFE AS '$libdir/sortid', 'sortid_scru128_generate_at_bytea';
END
$sortid$;
-- +goose StatementEnd

-- sortid_raise of earlier development versions, (text, text, anyelement) before
-- sortid_objects() and (text, text, anycompatible, anyelement) before sortid_require,
-- which this version replaces: dropped from this schema, now that no sortid function
-- calls it (without CASCADE, so a function of yours still calling it stops the migration).
-- +goose StatementBegin
DO $sortid$
DECLARE
  old pg_catalog.text;
BEGIN
  FOREACH old IN ARRAY ARRAY['(pg_catalog.text, pg_catalog.text, pg_catalog.anyelement)',
                             '(pg_catalog.text, pg_catalog.text, pg_catalog.anycompatible, pg_catalog.anyelement)'] LOOP
    old := pg_catalog.format('%I.sortid_raise', pg_catalog.current_schema()) OPERATOR(pg_catalog.||) old;
    IF pg_catalog.to_regprocedure(old) IS NOT NULL THEN
      EXECUTE 'DROP FUNCTION ' OPERATOR(pg_catalog.||) old;
    END IF;
  END LOOP;
END
$sortid$;
-- +goose StatementEnd

-- Guard, last: what the objects of sortid_objects() refer to must be pg_catalog's or
-- this schema's. The calls between sortid functions are resolved through the
-- search_path, and a function in another schema that matches the argument types better
-- than this schema's would win (as would a better-matching operator or function, were
-- any left bare); raise SQLSTATE 22023 naming the search_path and each such reference,
-- undoing the migration. Objects of other schemas, other sortid installs included, are
-- not looked at.
-- +goose StatementBegin
DO $sortid$
DECLARE
  schema_name pg_catalog.text := pg_catalog.current_schema();
  here pg_catalog.regnamespace := (SELECT n.oid FROM pg_catalog.pg_namespace n
                                   WHERE n.nspname OPERATOR(pg_catalog.=) schema_name);
  objects pg_catalog.text[];
  captured pg_catalog.text;
BEGIN
  EXECUTE pg_catalog.format('SELECT %I.sortid_objects()', schema_name) INTO objects;
  WITH ours AS (
    SELECT CASE WHEN p.oid IS NOT NULL THEN 'pg_catalog.pg_proc'::pg_catalog.regclass
                ELSE 'pg_catalog.pg_constraint'::pg_catalog.regclass END AS classid,
           COALESCE(p.oid, c.oid) AS objid
    FROM pg_catalog.unnest(objects) AS e
    LEFT JOIN pg_catalog.pg_proc p
      ON p.oid OPERATOR(pg_catalog.=) CASE WHEN e OPERATOR(pg_catalog.~~) 'function %' THEN pg_catalog.to_regprocedure(
           pg_catalog.format('%I.%s', schema_name, pg_catalog.substr(e, 10))) END
    LEFT JOIN pg_catalog.pg_constraint c
      ON c.contypid OPERATOR(pg_catalog.=) CASE WHEN e OPERATOR(pg_catalog.~~) 'domain %' THEN pg_catalog.to_regtype(
           pg_catalog.format('%I.%s', schema_name, pg_catalog.substr(e, 8))) END
  )
  SELECT pg_catalog.string_agg(pg_catalog.format('%s uses %s',
           pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid),
           (pg_catalog.pg_identify_object(d.refclassid, d.refobjid, d.refobjsubid)).type
             OPERATOR(pg_catalog.||) ' '
             OPERATOR(pg_catalog.||) (pg_catalog.pg_identify_object(d.refclassid, d.refobjid, d.refobjsubid)).identity), '; ')
  INTO captured
  FROM pg_catalog.pg_depend d
  JOIN ours o ON o.classid OPERATOR(pg_catalog.=) d.classid AND o.objid OPERATOR(pg_catalog.=) d.objid
  WHERE (CASE
           WHEN d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_operator'::pg_catalog.regclass
             THEN (SELECT o.oprnamespace FROM pg_catalog.pg_operator o WHERE o.oid OPERATOR(pg_catalog.=) d.refobjid)
           WHEN d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
             THEN (SELECT p.pronamespace FROM pg_catalog.pg_proc p WHERE p.oid OPERATOR(pg_catalog.=) d.refobjid)
           WHEN d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_type'::pg_catalog.regclass
             THEN (SELECT t.typnamespace FROM pg_catalog.pg_type t WHERE t.oid OPERATOR(pg_catalog.=) d.refobjid)
         END) OPERATOR(pg_catalog.<>) ALL (ARRAY['pg_catalog'::pg_catalog.regnamespace, here]);
  IF captured IS NOT NULL THEN
    RAISE EXCEPTION USING ERRCODE = '22023',
      MESSAGE = pg_catalog.format('sortid: search_path %s captured built-ins: %s',
                                  pg_catalog.current_setting('search_path'), captured),
      HINT = 'Migrate with a search_path that names only the schema the functions belong in, e.g. SET search_path = app.';
  END IF;
END
$sortid$;
-- +goose StatementEnd

-- +goose Down
-- sortid 0001 down: drops the objects sortid_objects() names in the current schema, in
-- its order (dependents first); other schemas, other sortid installs included, are not
-- touched; a schema without sortid_objects() is left as it is, and refused (55000) if it
-- holds a huid_generate() of an install older than that list. One statement, so it
-- drops all or nothing with every tool, in a transaction or not. It first raises
-- SQLSTATE 2BP01 naming every other object that still uses a sortid object: what
-- PostgreSQL records a dependency for (a column type or default, an index, a view, a
-- SQL-standard function body, ...) and every function whose body text names a sortid
-- function or domain of this schema (PL/pgSQL and quoted SQL bodies, for which it records
-- none): unqualified, unless the function pins a search_path without this schema, or
-- qualified with this schema's name. Another install's own functions do not count. The DROPs have no CASCADE, so
-- they never touch data either; the sequence of huid_generate() goes with the
-- functions. Its string literals mean the same under any standard_conforming_strings
-- (E'' strings for the backslashes), and its messages under any quote_all_identifiers. The session settings sortid.huid_state, sortid.huid_key,
-- sortid.scru128_state and sortid.scru128_at_state are not objects; they vanish with the
-- session.
-- +goose StatementBegin
DO $sortid$
DECLARE
  schema_name pg_catalog.text := pg_catalog.current_schema();
  objects pg_catalog.text[];
  names pg_catalog.text[];
  users pg_catalog.text;
  entry pg_catalog.text;
BEGIN
  -- Messages name objects as PostgreSQL prints them; quote_all_identifiers would quote
  -- every name. Off until the end of the transaction this statement runs in.
  PERFORM pg_catalog.set_config('quote_all_identifiers', 'off', true);
  IF schema_name IS NULL THEN
    RAISE EXCEPTION USING ERRCODE = '3F000',
      MESSAGE = pg_catalog.format('sortid down: search_path %s names no existing schema', pg_catalog.current_setting('search_path')),
      HINT = 'Set the search_path to the schema sortid is installed in, e.g. SET search_path = app.';
  END IF;
  IF pg_catalog.to_regprocedure(pg_catalog.format('%I.sortid_objects()', schema_name)) IS NULL THEN
    IF pg_catalog.to_regprocedure(pg_catalog.format('%I.huid_generate()', schema_name)) IS NOT NULL THEN
      RAISE EXCEPTION USING ERRCODE = '55000',
        MESSAGE = pg_catalog.format('sortid down: schema %s has huid_generate() but no sortid_objects(), so what to drop is unknown',
                                    schema_name),
        HINT = 'Run the up migration first (it is safe to run again; it adds sortid_objects()), then the down migration.';
    END IF;
    RETURN;
  END IF;
  EXECUTE pg_catalog.format('SELECT %I.sortid_objects()', schema_name) INTO objects;
  -- Function and domain names, as a body names them.
  SELECT pg_catalog.array_agg(DISTINCT pg_catalog.split_part(pg_catalog.split_part(e, ' ', 2), '(', 1))
  INTO names
  FROM pg_catalog.unnest(objects) AS e;

  WITH listed AS (
    SELECT CASE WHEN e OPERATOR(pg_catalog.~~) 'function %' THEN 'pg_catalog.pg_proc'::pg_catalog.regclass
             WHEN e OPERATOR(pg_catalog.~~) 'sequence %' THEN 'pg_catalog.pg_class'::pg_catalog.regclass
             ELSE 'pg_catalog.pg_type'::pg_catalog.regclass END AS classid,
           CASE WHEN e OPERATOR(pg_catalog.~~) 'function %' THEN pg_catalog.to_regprocedure(pg_catalog.format('%I.%s', schema_name, pg_catalog.substr(e, 10)))::pg_catalog.oid
             WHEN e OPERATOR(pg_catalog.~~) 'sequence %' THEN pg_catalog.to_regclass(pg_catalog.format('%I.%s', schema_name, pg_catalog.substr(e, 10)))::pg_catalog.oid
             ELSE pg_catalog.to_regtype(pg_catalog.format('%I.%s', schema_name, pg_catalog.substr(e, 8)))::pg_catalog.oid END AS objid
    FROM pg_catalog.unnest(objects) AS e
  ),
  ours AS ( -- with the domains' array types, which a huid[] column uses
    SELECT classid, objid FROM listed
    UNION ALL
    SELECT l.classid, t.typarray FROM listed l
    JOIN pg_catalog.pg_type t ON l.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_type'::pg_catalog.regclass
                             AND t.oid OPERATOR(pg_catalog.=) l.objid
  ),
  recorded AS (
    SELECT pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid)
           OPERATOR(pg_catalog.||) ' (uses '
           OPERATOR(pg_catalog.||) pg_catalog.pg_describe_object(d.refclassid, d.refobjid, 0)
           OPERATOR(pg_catalog.||) ')' AS user_
    FROM pg_catalog.pg_depend d
    JOIN ours o ON o.classid OPERATOR(pg_catalog.=) d.refclassid AND o.objid OPERATOR(pg_catalog.=) d.refobjid
    WHERE d.deptype OPERATOR(pg_catalog.=) 'n'
      AND NOT EXISTS (SELECT FROM ours x
                      WHERE x.classid OPERATOR(pg_catalog.=) d.classid AND x.objid OPERATOR(pg_catalog.=) d.objid)
  ),
  named AS (
    SELECT pg_catalog.pg_describe_object('pg_catalog.pg_proc'::pg_catalog.regclass, p.oid, 0)
           OPERATOR(pg_catalog.||) ' (its body names '
           OPERATOR(pg_catalog.||) pg_catalog.lower(m[2])
           OPERATOR(pg_catalog.||) ')' AS user_
    FROM pg_catalog.pg_proc p
    CROSS JOIN LATERAL pg_catalog.regexp_matches(p.prosrc,
           E'(?:([^][\\s."(),;:=+*/<>|&!~%^@#''{}-]+|"(?:[^"]|"")+")\\s*\\.\\s*)?\\m(' OPERATOR(pg_catalog.||) pg_catalog.array_to_string(names, '|')
             OPERATOR(pg_catalog.||) E')\\M', 'gi') AS m
    LEFT JOIN LATERAL (SELECT pg_catalog.substr(c, 13) AS path
                       FROM pg_catalog.unnest(p.proconfig) AS c
                       WHERE c OPERATOR(pg_catalog.~~) 'search_path=%') AS pinned ON true
    WHERE p.pronamespace OPERATOR(pg_catalog.<>) ALL (ARRAY['pg_catalog'::pg_catalog.regnamespace,
                                                            'information_schema'::pg_catalog.regnamespace])
      -- not an object of this or another install (whose bodies name their own functions)
      AND NOT EXISTS (
        SELECT FROM pg_catalog.unnest(objects) AS e
        WHERE e OPERATOR(pg_catalog.~~) 'function %'
          AND pg_catalog.to_regprocedure(pg_catalog.format('%s.sortid_objects()', p.pronamespace::pg_catalog.regnamespace)) IS NOT NULL
          AND p.oid OPERATOR(pg_catalog.=) pg_catalog.to_regprocedure(
                pg_catalog.format('%s.%s', p.pronamespace::pg_catalog.regnamespace, pg_catalog.substr(e, 10))))
      AND CASE
            -- qualified: with this schema's name, as PostgreSQL reads identifiers
            WHEN m[1] OPERATOR(pg_catalog.~~) '"%'
              THEN pg_catalog.replace(pg_catalog.substr(m[1], 2, pg_catalog.length(m[1]) OPERATOR(pg_catalog.-) 2), '""', '"')
                   OPERATOR(pg_catalog.=) schema_name
            WHEN m[1] IS NOT NULL
              THEN pg_catalog.translate(m[1], 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
                   OPERATOR(pg_catalog.=) schema_name
            -- unqualified: unless the function pins a search_path without this schema
            ELSE pinned.path IS NULL
                 OR pinned.path OPERATOR(pg_catalog.~~) '%$user%'
                 OR schema_name OPERATOR(pg_catalog.=) ANY (
                      SELECT pg_catalog.replace(pg_catalog.btrim(pg_catalog.btrim(x), '"'), '""', '"')
                      FROM pg_catalog.unnest(pg_catalog.string_to_array(pinned.path, ',')) AS x)
          END
  )
  SELECT pg_catalog.string_agg(DISTINCT u.user_, ', ')
  INTO users
  FROM (SELECT user_ FROM recorded UNION ALL SELECT user_ FROM named) AS u;
  IF users IS NOT NULL THEN
    RAISE EXCEPTION USING ERRCODE = '2BP01',
      MESSAGE = pg_catalog.format('sortid down: nothing dropped from schema %I, sortid objects are still used by %s',
                                  schema_name, users),
      HINT = 'Drop or alter those objects first. A function body that names a sortid function or domain counts as using it unless it names another schema''s, qualified, or the function pins a search_path without this schema.';
  END IF;

  FOREACH entry IN ARRAY objects LOOP
    EXECUTE pg_catalog.format('DROP %s IF EXISTS %I.%s', pg_catalog.split_part(entry, ' ', 1), schema_name,
                              pg_catalog.substr(entry, pg_catalog.strpos(entry, ' ') OPERATOR(pg_catalog.+) 1));
  END LOOP;
END
$sortid$;
-- +goose StatementEnd
