-- The library is picked up by the sortid up migration; an extension of its own
-- would hold the functions apart from the migrations that own them.
DO $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = '0A000',
    MESSAGE = 'sortid: CREATE EXTENSION sortid creates nothing; the sortid up migration uses the installed library',
    HINT = 'Run the sortid up migration (migrations/sql/0001_sortid.up.sql, migrations.Apply, golang-migrate or goose) as a superuser; it defines huid_generate() and scru128_generate() in C.';
END
$$;
