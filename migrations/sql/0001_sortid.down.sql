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
