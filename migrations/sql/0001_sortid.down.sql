-- sortid 0001 down: drops everything 0001_sortid.up.sql created, dependents first.
-- Without CASCADE: if a table still uses the huid domain or a column default / index /
-- generated column uses one of these functions, the drop fails instead of touching data.
-- The session settings sortid.huid_state, sortid.huid_key and sortid.scru128_state are not objects; they vanish
-- with the session.

DROP FUNCTION IF EXISTS scru128_max_bytea(pg_catalog.timestamptz);

DROP FUNCTION IF EXISTS scru128_min_bytea(pg_catalog.timestamptz);

DROP FUNCTION IF EXISTS scru128_from_text_bytea(pg_catalog.text);

DROP FUNCTION IF EXISTS scru128_to_text(pg_catalog.bytea);

DROP FUNCTION IF EXISTS scru128_timestamp(pg_catalog.bytea);

DROP FUNCTION IF EXISTS scru128_generate_bytea();

DROP FUNCTION IF EXISTS scru128_from_text(pg_catalog.text);

DROP FUNCTION IF EXISTS scru128_to_text(pg_catalog.uuid);

DROP FUNCTION IF EXISTS scru128_max(pg_catalog.timestamptz);

DROP FUNCTION IF EXISTS scru128_min(pg_catalog.timestamptz);

DROP FUNCTION IF EXISTS scru128_timestamp(pg_catalog.uuid);

DROP FUNCTION IF EXISTS scru128_generate();

DROP FUNCTION IF EXISTS huid_max(pg_catalog.timestamptz);

DROP FUNCTION IF EXISTS huid_min(pg_catalog.timestamptz);

DROP FUNCTION IF EXISTS huid_timestamp(bigint);

DROP FUNCTION IF EXISTS huid_generate_at(pg_catalog.timestamptz);

DROP FUNCTION IF EXISTS huid_generate();

DROP FUNCTION IF EXISTS sortid_huid_mix(bigint, bigint);

DROP FUNCTION IF EXISTS sortid_raise(pg_catalog.text, pg_catalog.text, anyelement);

DROP DOMAIN IF EXISTS huid;
