-- sortid 0001 down: drops everything 0001_sortid.up.sql created, dependents first.
-- sortid's objects are the functions and domains of the current schema whose comment
-- starts with "sortid". Before dropping any of them, the DO block raises SQLSTATE 2BP01
-- naming every other object that still uses one (a column type or default, an index, a
-- view, a function, ...): a down that cannot finish then changes nothing, even when its
-- statements run one by one outside a transaction. The DROPs have no CASCADE, so they
-- never touch data either. The session settings sortid.huid_state, sortid.huid_key and
-- sortid.scru128_state are not objects; they vanish with the session.
DO $sortid$
DECLARE
  users pg_catalog.text;
BEGIN
  WITH ours AS (
    SELECT 'pg_catalog.pg_proc'::pg_catalog.regclass AS classid, p.oid AS objid
    FROM pg_catalog.pg_proc p
    WHERE p.pronamespace OPERATOR(pg_catalog.=) pg_catalog.current_schema()::pg_catalog.regnamespace
      AND pg_catalog.obj_description(p.oid, 'pg_proc') OPERATOR(pg_catalog.~~) 'sortid%'
    UNION ALL
    SELECT 'pg_catalog.pg_type'::pg_catalog.regclass, t.oid
    FROM pg_catalog.pg_type t
    WHERE t.typnamespace OPERATOR(pg_catalog.=) pg_catalog.current_schema()::pg_catalog.regnamespace
      AND t.typtype OPERATOR(pg_catalog.=) 'd'
      AND pg_catalog.obj_description(t.oid, 'pg_type') OPERATOR(pg_catalog.~~) 'sortid%'
  )
  SELECT pg_catalog.string_agg(DISTINCT pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid)
                               OPERATOR(pg_catalog.||) ' (uses '
                               OPERATOR(pg_catalog.||) pg_catalog.pg_describe_object(d.refclassid, d.refobjid, 0)
                               OPERATOR(pg_catalog.||) ')', ', ')
  INTO users
  FROM pg_catalog.pg_depend d
  JOIN ours o ON o.classid OPERATOR(pg_catalog.=) d.refclassid AND o.objid OPERATOR(pg_catalog.=) d.refobjid
  WHERE d.deptype OPERATOR(pg_catalog.=) 'n'
    AND NOT EXISTS (SELECT FROM ours x
                    WHERE x.classid OPERATOR(pg_catalog.=) d.classid AND x.objid OPERATOR(pg_catalog.=) d.objid);
  IF users IS NOT NULL THEN
    RAISE EXCEPTION USING ERRCODE = '2BP01',
      MESSAGE = 'sortid down: nothing dropped, sortid objects are still used by ' OPERATOR(pg_catalog.||) users,
      HINT = 'Drop or alter those objects first.';
  END IF;
END
$sortid$;

DROP DOMAIN IF EXISTS scru128_bytes;

DROP FUNCTION IF EXISTS scru128_max_bytea(pg_catalog.timestamptz);

DROP FUNCTION IF EXISTS scru128_min_bytea(pg_catalog.timestamptz);

DROP FUNCTION IF EXISTS scru128_from_text_bytea(pg_catalog.text);

DROP FUNCTION IF EXISTS scru128_to_text(pg_catalog.text);

DROP FUNCTION IF EXISTS scru128_timestamp(pg_catalog.text);

DROP FUNCTION IF EXISTS scru128_to_text(pg_catalog.bytea);

DROP FUNCTION IF EXISTS scru128_timestamp(pg_catalog.bytea);

DROP FUNCTION IF EXISTS scru128_generate_bytea();

DROP FUNCTION IF EXISTS scru128_from_text(pg_catalog.text);

DROP FUNCTION IF EXISTS scru128_to_text(pg_catalog.uuid);

DROP FUNCTION IF EXISTS scru128_max(pg_catalog.timestamptz);

DROP FUNCTION IF EXISTS scru128_min(pg_catalog.timestamptz);

DROP FUNCTION IF EXISTS scru128_timestamp(pg_catalog.uuid);

DROP FUNCTION IF EXISTS scru128_generate();

DROP FUNCTION IF EXISTS sortid_scru128_next(pg_catalog.text, double precision);

DROP FUNCTION IF EXISTS huid_max(pg_catalog.timestamptz);

DROP FUNCTION IF EXISTS huid_min(pg_catalog.timestamptz);

DROP FUNCTION IF EXISTS huid_timestamp(bigint);

DROP FUNCTION IF EXISTS huid_generate_at(pg_catalog.timestamptz);

DROP FUNCTION IF EXISTS huid_generate();

DROP FUNCTION IF EXISTS sortid_huid_mix(bigint, bigint);

DROP FUNCTION IF EXISTS sortid_raise(pg_catalog.text, pg_catalog.text, anyelement);

DROP DOMAIN IF EXISTS huid;
